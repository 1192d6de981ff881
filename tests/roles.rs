//! Team roles and named tokens over the API: who may create, list and revoke which tokens (the admin any, an
//! org-admin its own org's but never an admin token, nobody else), that the secret is shown once and never listed,
//! that a revoked token stops at once, and that what a named token does is recorded under its name.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::api::{Role, api};

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn names(list: &Value) -> Vec<String> {
    let mut names: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|token| token["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread")]
async fn tokens_are_managed_by_the_admin_and_their_orgs_admin_only_and_act_under_their_names() {
    let api = api().await;
    let create = |name: &str, role: &str, org: Option<&str>| {
        let mut body = json!({"name": name, "role": role, "description": "made by a test"});
        if let Some(org) = org {
            body["org"] = json!(org);
        }
        body
    };

    // Who may make which token: (caller, request, status).
    let cases = [
        (
            Role::Anonymous,
            create("x", "viewer", Some("acme")),
            StatusCode::UNAUTHORIZED,
        ),
        (
            Role::Owner,
            create("x", "viewer", Some("acme")),
            StatusCode::FORBIDDEN,
        ),
        (
            Role::Deployer,
            create("x", "viewer", Some("acme")),
            StatusCode::FORBIDDEN,
        ),
        (
            Role::Stranger,
            create("x", "viewer", Some("acme")),
            StatusCode::FORBIDDEN,
        ),
        (
            Role::StrangerAdmin,
            create("x", "viewer", Some("acme")),
            StatusCode::FORBIDDEN,
        ),
        (
            Role::OrgAdmin,
            create("x", "admin", None),
            StatusCode::FORBIDDEN,
        ),
        (
            Role::OrgAdmin,
            create("x", "deployer", Some("other")),
            StatusCode::FORBIDDEN,
        ),
        (
            Role::OrgAdmin,
            create("acme-ci", "viewer", Some("acme")),
            StatusCode::CREATED,
        ),
        (
            Role::StrangerAdmin,
            create("other-ci", "deployer", Some("other")),
            StatusCode::CREATED,
        ),
        (
            Role::Admin,
            create("deploy-bot", "deployer", Some("acme")),
            StatusCode::CREATED,
        ),
        (
            Role::Admin,
            create("ops", "admin", None),
            StatusCode::CREATED,
        ),
        (
            Role::Admin,
            create("deploy-bot", "viewer", Some("acme")),
            StatusCode::CONFLICT,
        ),
        (
            Role::Admin,
            create("tok_1", "viewer", Some("acme")),
            StatusCode::BAD_REQUEST,
        ),
        (
            Role::Admin,
            create("bot", "root", Some("acme")),
            StatusCode::BAD_REQUEST,
        ),
        (
            Role::Admin,
            create("bot", "deployer", None),
            StatusCode::BAD_REQUEST,
        ),
        (
            Role::Admin,
            create("bot", "admin", Some("acme")),
            StatusCode::BAD_REQUEST,
        ),
    ];
    let mut secrets = std::collections::BTreeMap::new();
    for (role, body, expected) in cases {
        let (status, text) = api
            .call(role, Method::POST, "/v1/tokens", Some(body.clone()))
            .await;
        assert_eq!(status, expected, "{role:?} {body}: {text}");
        if status == StatusCode::CREATED {
            let created = parsed(&text);
            assert_eq!(created["name"], body["name"]);
            let secret = created["token"].as_str().unwrap().to_string();
            assert!(secret.starts_with("weft_"), "{text}");
            secrets.insert(body["name"].as_str().unwrap().to_string(), secret);
        }
    }

    // Who sees which tokens: the admin all, an org-admin its org's, never a secret or a hash.
    for (role, expected) in [
        (
            Role::Admin,
            vec!["acme-ci", "deploy-bot", "ops", "other-ci"],
        ),
        (Role::OrgAdmin, vec!["acme-ci", "deploy-bot"]),
        (Role::StrangerAdmin, vec!["other-ci"]),
    ] {
        let (status, text) = api.call(role, Method::GET, "/v1/tokens", None).await;
        assert_eq!(status, StatusCode::OK, "{role:?}: {text}");
        // The first admin token, made by the server's start, is listed for the admin too.
        let mut listed = names(&parsed(&text));
        listed.retain(|name| name != "initial-admin");
        assert_eq!(listed, expected, "{role:?}: {text}");
        for secret in secrets.values() {
            assert!(
                !text.contains(secret.as_str()),
                "{role:?} listed a secret: {text}"
            );
            let hash = weft_auth::hash_token(secret);
            assert!(!text.contains(&hash), "{role:?} listed a hash: {text}");
        }
    }
    for role in [Role::Owner, Role::Deployer, Role::Stranger] {
        let (status, text) = api.call(role, Method::GET, "/v1/tokens", None).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{role:?}: {text}");
    }
    let (status, _) = api
        .call(Role::Anonymous, Method::GET, "/v1/tokens", None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // The named token is who it says: whoami names it, and its sync is recorded under its name.
    let bot = secrets["deploy-bot"].as_str();
    let (status, text) = api
        .call_with(Some(bot), Method::GET, "/v1/whoami", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let who = parsed(&text);
    assert_eq!(who["actor"], "deploy-bot", "{text}");
    assert_eq!(who["role"], "deployer", "{text}");
    assert_eq!(who["permissions"], json!(["read", "operate"]), "{text}");
    let (status, text) = api
        .call_with(
            Some(bot),
            Method::POST,
            "/v1/deploy/shop/sync",
            Some(json!({"dryRun": true})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{text}");
    assert_eq!(parsed(&text)["requestedBy"], "deploy-bot", "{text}");
    let id = parsed(&text)["id"].as_str().unwrap().to_string();
    let (_, text) = api
        .call(
            Role::Owner,
            Method::GET,
            &format!("/v1/deploy/shop/operations/{id}"),
            None,
        )
        .await;
    assert!(text.contains("\"requestedBy\":\"deploy-bot\""), "{text}");
    // A deployer of acme never reaches another org's app, nor rotates seeds.
    let (status, _) = api
        .call_with(Some(bot), Method::POST, "/v1/deploy/blog/sync", None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = api
        .call_with(
            Some(bot),
            Method::POST,
            "/v1/deploy/shop/render-seed/rotate",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // Revoking: another org's admin does not see acme's token; acme's org-admin never reaches an admin token.
    let (status, _) = api
        .call(
            Role::StrangerAdmin,
            Method::DELETE,
            "/v1/tokens/deploy-bot",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = api
        .call(Role::OrgAdmin, Method::DELETE, "/v1/tokens/ops", None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = api
        .call(
            Role::Deployer,
            Method::DELETE,
            "/v1/tokens/deploy-bot",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // The org-admin revokes it by name, and it stops at once.
    let (status, text) = api
        .call(
            Role::OrgAdmin,
            Method::DELETE,
            "/v1/tokens/deploy-bot",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert!(!text.contains(bot), "{text}");
    let (status, _) = api
        .call_with(Some(bot), Method::GET, "/v1/whoami", None)
        .await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "a revoked token stops at once"
    );
    let (status, _) = api
        .call(
            Role::OrgAdmin,
            Method::DELETE,
            "/v1/tokens/deploy-bot",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The admin revokes by id too.
    let (_, text) = api.call(Role::Admin, Method::GET, "/v1/tokens", None).await;
    let ops_id = parsed(&text)
        .as_array()
        .unwrap()
        .iter()
        .find(|token| token["name"] == "ops")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, _) = api
        .call(
            Role::Admin,
            Method::DELETE,
            &format!("/v1/tokens/{ops_id}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = api
        .call_with(
            Some(secrets["ops"].as_str()),
            Method::GET,
            "/v1/whoami",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    api.server.shutdown().await;
}
