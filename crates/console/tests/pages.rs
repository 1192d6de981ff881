//! The console over HTTP, against a stand-in API that knows two tokens (an admin's and a member's) and one app: a
//! signed-out browser goes to sign-in; a token the API refuses starts no session; a session cookie is HttpOnly and
//! SameSite=Strict and the token appears in no URL or header; every page carries the security headers; writes
//! without the session's CSRF token or from another site are refused before the API is asked; a member sees no
//! write controls; each role of the app's org sees exactly the controls it may use; the API's 404 is the console's
//! "not found".

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Request};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{get, post};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;
use weft_console::ConsoleConfig;

const ADMIN: &str = "admin-token-0123456789";
const MEMBER: &str = "member-token-0123456789";
const VIEWER: &str = "viewer-token-0123456789";
const DEPLOYER: &str = "deployer-token-0123456789";
const ORG_ADMIN: &str = "org-admin-token-0123456789";

/// What the stand-in API was asked: (method, path, bearer).
type Calls = Arc<Mutex<Vec<(String, String, String)>>>;

fn bearer(headers: &HeaderMap) -> Option<&'static str> {
    match headers.get(header::AUTHORIZATION)?.to_str().ok()? {
        h if h == format!("Bearer {ADMIN}") => Some(ADMIN),
        h if h == format!("Bearer {MEMBER}") => Some(MEMBER),
        h if h == format!("Bearer {VIEWER}") => Some(VIEWER),
        h if h == format!("Bearer {DEPLOYER}") => Some(DEPLOYER),
        h if h == format!("Bearer {ORG_ADMIN}") => Some(ORG_ADMIN),
        _ => None,
    }
}

fn error(status: StatusCode, code: &str) -> Response {
    (status, Json(json!({"error": code, "message": code}))).into_response()
}

/// Whether a token sees app `shop` (org demo): the admin and demo's viewer, deployer and org-admin.
fn sees_shop(who: &str) -> bool {
    who != MEMBER
}

/// What `/v1/whoami` says of a token.
fn whoami_of(who: &str) -> Value {
    let member = |org: &str, role: &str, permissions: &[&str]| {
        json!({"subject": format!("token:{role}"), "actor": format!("{role}-bot"), "admin": false, "org": org,
               "role": role, "permissions": permissions})
    };
    match who {
        ADMIN => json!({"subject": "ada", "admin": true}),
        VIEWER => member("demo", "viewer", &["read"]),
        DEPLOYER => member("demo", "deployer", &["read", "operate"]),
        ORG_ADMIN => member(
            "demo",
            "org-admin",
            &[
                "read",
                "operate",
                "override-gates",
                "rotate-seeds",
                "manage-tokens",
            ],
        ),
        _ => json!({"subject": "mel", "admin": false, "org": "other"}),
    }
}

/// The stand-in API: the admin and org demo's members see app `shop` (org demo); the member of org other sees
/// nothing.
fn api(calls: Calls) -> Router {
    let record = move |request: &Request| {
        calls.lock().unwrap().push((
            request.method().to_string(),
            request.uri().to_string(),
            bearer(request.headers()).unwrap_or("").to_string(),
        ));
    };
    let guard = move |request: Request, answer: fn(&'static str, &str) -> Response| {
        record(&request);
        let path = request.uri().path().to_string();
        match bearer(request.headers()) {
            Some(who) => answer(who, &path),
            None => error(StatusCode::UNAUTHORIZED, "unauthorized"),
        }
    };
    let g = guard.clone();
    let whoami = move |request: Request| {
        let g = g.clone();
        async move { g(request, |who, _| Json(whoami_of(who)).into_response()) }
    };
    let g = guard.clone();
    let list = move |request: Request| {
        let g = g.clone();
        async move {
            g(request, |who, _| {
                let items = if sees_shop(who) {
                    json!([{"name": "shop", "namespace": "shop", "org": "demo", "env": "main", "repository": ".",
                             "health": "healthy", "sync": "synced", "endpoints": []}])
                } else {
                    json!([])
                };
                Json(json!({"items": items})).into_response()
            })
        }
    };
    let g = guard.clone();
    let summary = move |request: Request| {
        let g = g.clone();
        async move {
            g(request, |who, _| {
                let n = usize::from(sees_shop(who));
                Json(json!({"apps": n, "health": {"healthy": n}, "sync": {"synced": n}, "orgs": [], "envs": []}))
                    .into_response()
            })
        }
    };
    let g = guard.clone();
    let app = move |request: Request| {
        let g = g.clone();
        async move {
            g(request, |who, path| {
                if !sees_shop(who) || !path.ends_with("/shop") {
                    return error(StatusCode::NOT_FOUND, "not_found");
                }
                Json(json!({"name": "shop", "namespace": "shop", "project": "demo", "sync": "synced",
                            "health": "healthy", "automated": true, "selfHeal": true, "resources": 0,
                            "imageMoves": ["web:1.4.2 now points to a different digest (sha256:bbbb) than what runs (sha256:aaaa)"],
                            "history": [{"id": 2, "revision": "b", "requestedBy": "deploy-bot"},
                                        {"id": 1, "revision": "a"}]}))
                .into_response()
            })
        }
    };
    let g = guard.clone();
    let tree = move |request: Request| {
        let g = g.clone();
        async move { g(request, |_, _| Json(json!([])).into_response()) }
    };
    let g = guard.clone();
    let sync = move |Path(_): Path<String>, request: Request| {
        let g = g.clone();
        async move {
            g(request, |who, _| {
                if !matches!(who, ADMIN | DEPLOYER | ORG_ADMIN) {
                    return error(StatusCode::FORBIDDEN, "forbidden");
                }
                (
                    StatusCode::ACCEPTED,
                    Json(json!({"id": "op-1", "phase": "pending"})),
                )
                    .into_response()
            })
        }
    };
    let g = guard.clone();
    let operation = move |request: Request| {
        let g = g.clone();
        async move {
            g(request, |_, path| {
                if path.ends_with("/op-held") {
                    return Json(json!({"id": "op-held", "app": "shop", "phase": "error",
                        "trigger": {"type": "manual"}, "revision": "abc123", "resources": [],
                        "message": "refused, nothing was changed: ConfigMap shop/settings is tracked for another app: held by app billing; …",
                        "conflicts": [{"reference": {"group": "", "kind": "ConfigMap", "namespace": "shop", "name": "settings"},
                                       "holder": "app billing"}]}))
                    .into_response();
                }
                let overridable = !path.ends_with("/op-fixed");
                Json(json!({"id": "op-9", "app": "shop", "phase": "error", "trigger": {"type": "manual"},
                    "revision": "abc123", "confirmed": false, "fuseTripped": null, "resources": [],
                    "message": "denied, nothing was changed: gate no-latest denied: …",
                    "images": {"registry.example/shop/web:1.4.2":
                        "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
                    "gates": [
                        {"gate": "no-latest", "plugin": "gate-policy", "verdict": "deny", "overridable": overridable,
                         "reasons": [{"object": "apps:Deployment:shop:web", "rule": "no-latest",
                                      "message": "container \"web\" runs image \"shop/web:latest\""}]},
                        {"gate": "pss", "plugin": "gate-policy", "verdict": "allow", "overridable": true}]}))
                .into_response()
            })
        }
    };
    let g = guard.clone();
    let resource = move |request: Request| {
        let g = g.clone();
        async move {
            g(request, |_, _| {
                Json(json!({"health": "healthy", "sync": "outofsync",
                    "actions": ["restart", "scale"],
                    "live": {"kind": "ConfigMap", "data": {"GREETING": "patched"}},
                    "desired": {"kind": "ConfigMap", "data": {"GREETING": "hello"}},
                    "diff": {"mode": "predicted",
                        "unified": "--- live\n+++ desired\n@@ -1,2 +1,2 @@\n data:\n-  GREETING: patched\n+  GREETING: hello\n",
                        "changes": [{"path": "/data/GREETING", "live": "patched", "desired": "hello",
                                     "owners": ["kubectl-patch"]}]}}))
                .into_response()
            })
        }
    };
    let g = guard.clone();
    let logs = move |request: Request| {
        let g = g.clone();
        async move {
            g(request, |_, _| {
                Json(json!({"lines": [{"pod": "shop/web-1", "container": "web",
                    "text": "fatal: simulated crash"}]}))
                .into_response()
            })
        }
    };
    let g = guard.clone();
    let tokens = move |request: Request| {
        let g = g.clone();
        async move {
            g(request, |who, _| {
                if !matches!(who, ADMIN | ORG_ADMIN) {
                    return error(StatusCode::FORBIDDEN, "forbidden");
                }
                (StatusCode::OK, Json(json!([{"id": "tok_1", "name": "deploy-bot", "role": "deployer", "org": "demo",
                             "description": "CI", "createdAt": "2026-12-07T04:00:00Z"}]))).into_response()
            })
        }
    };
    let g = guard.clone();
    let make_token = move |request: Request| {
        let g = g.clone();
        async move {
            g(request, |who, _| {
                if !matches!(who, ADMIN | ORG_ADMIN) {
                    return error(StatusCode::FORBIDDEN, "forbidden");
                }
                (
                    StatusCode::CREATED,
                    Json(
                        json!({"id": "tok_2", "name": "ci", "role": "viewer", "org": "demo",
                                "token": "weft_the-new-secret"}),
                    ),
                )
                    .into_response()
            })
        }
    };
    let g = guard.clone();
    let revoke = move |request: Request| {
        let g = g.clone();
        async move {
            g(request, |who, _| {
                if !matches!(who, ADMIN | ORG_ADMIN) {
                    return error(StatusCode::FORBIDDEN, "forbidden");
                }
                (
                    StatusCode::OK,
                    Json(json!({"id": "tok_1", "name": "deploy-bot"})),
                )
                    .into_response()
            })
        }
    };
    let g = guard.clone();
    let rotate = move |request: Request| {
        let g = g.clone();
        async move {
            g(request, |who, _| {
                if !matches!(who, ADMIN | ORG_ADMIN) {
                    return error(StatusCode::FORBIDDEN, "forbidden");
                }
                (
                    StatusCode::ACCEPTED,
                    Json(json!({"app": "shop", "message": "app shop renders with a new seed"})),
                )
                    .into_response()
            })
        }
    };
    let g = guard.clone();
    let resource_action = move |request: Request| {
        let g = g.clone();
        async move {
            g(request, |who, path| {
                if !matches!(who, ADMIN | ORG_ADMIN | DEPLOYER) {
                    return error(StatusCode::FORBIDDEN, "forbidden");
                }
                let action = path.rsplit('/').next().unwrap_or("");
                Json(
                    json!({"app": "shop", "resource": "apps:Deployment:shop:web", "action": action,
                    "requestedBy": who, "result": "succeeded", "at": "2026-12-07T05:00:00Z"}),
                )
                .into_response()
            })
        }
    };
    Router::new()
        .route(
            "/v1/deploy/{name}/resource/{ref}/actions/{action}",
            post(resource_action),
        )
        .route("/v1/tokens", get(tokens).post(make_token))
        .route("/v1/tokens/{id}", axum::routing::delete(revoke))
        .route("/v1/deploy/{name}/render-seed/rotate", post(rotate))
        .route("/v1/deploy/{name}/logs", get(logs))
        .route("/v1/deploy/{name}/resource/{ref}", get(resource))
        .route("/v1/deploy/{name}/resource/{ref}/events", get(tree.clone()))
        .route("/v1/deploy/{name}/operations/{id}", get(operation))
        .route("/v1/whoami", get(whoami))
        .route("/v1/deploy/applications", get(list))
        .route("/v1/deploy/summary", get(summary))
        .route("/v1/deploy/gitops/{name}", get(app))
        .route("/v1/deploy/{name}/tree", get(tree.clone()))
        .route("/v1/deploy/{name}/operations", get(tree))
        .route("/v1/deploy/{name}/sync", post(sync))
}

struct Console {
    router: Router,
    calls: Calls,
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Console {
    fn new() -> Console {
        let calls = Calls::default();
        let router = weft_console::router(api(calls.clone()), ConsoleConfig::default());
        Console { router, calls }
    }

    async fn send(&self, request: axum::http::Request<Body>) -> Answer {
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        Answer {
            status,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        }
    }

    async fn get(&self, path: &str, cookie: Option<&str>) -> Answer {
        let mut request = axum::http::Request::get(path).header("host", "weft.test");
        if let Some(cookie) = cookie {
            request = request.header(header::COOKIE, cookie);
        }
        self.send(request.body(Body::empty()).unwrap()).await
    }

    async fn post(&self, path: &str, cookie: Option<&str>, form: &str, site: &str) -> Answer {
        let mut request = axum::http::Request::post(path)
            .header("host", "weft.test")
            .header("sec-fetch-site", site)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some(cookie) = cookie {
            request = request.header(header::COOKIE, cookie);
        }
        self.send(request.body(Body::from(form.to_string())).unwrap())
            .await
    }

    /// Signs in with `token`: the session cookie (`name=value`).
    async fn sign_in(&self, token: &str) -> String {
        let answer = self
            .post(
                "/sign-in",
                None,
                &format!("token={token}&next=/apps"),
                "same-origin",
            )
            .await;
        assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
        let cookie = answer.headers[header::SET_COOKIE]
            .to_str()
            .unwrap()
            .to_string();
        cookie.split(';').next().unwrap().to_string()
    }
}

/// The CSRF token in a page's forms.
fn csrf_of(page: &str) -> String {
    let at = page
        .find("name=\"_csrf\" value=\"")
        .expect("a form with a CSRF token")
        + 20;
    page[at..].split('"').next().unwrap().to_string()
}

#[tokio::test]
async fn a_signed_out_browser_is_sent_to_sign_in_and_a_refused_token_starts_no_session() {
    let console = Console::new();
    let answer = console.get("/apps/shop?view=list", None).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(
        answer.headers[header::LOCATION],
        "/sign-in?next=%2Fapps%2Fshop%3Fview%3Dlist"
    );
    let form = console.get("/sign-in?next=/apps/shop", None).await;
    assert_eq!(form.status, StatusCode::OK);
    assert!(form.body.contains("name=\"next\" value=\"/apps/shop\""));

    let refused = console
        .post("/sign-in", None, "token=wrong&next=/apps", "same-origin")
        .await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    assert!(refused.body.contains("That token is not valid"));
    assert!(!refused.headers.contains_key(header::SET_COOKIE));

    // A sign-in posted from another site is refused before the API is asked.
    let before = console.calls.lock().unwrap().len();
    let forged = console
        .post("/sign-in", None, &format!("token={ADMIN}"), "cross-site")
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert_eq!(console.calls.lock().unwrap().len(), before);
}

#[tokio::test]
async fn a_session_cookie_is_http_only_and_strict_and_the_token_is_in_no_url_or_page() {
    let console = Console::new();
    let answer = console
        .post(
            "/sign-in",
            None,
            &format!("token={ADMIN}&next=https://evil.example/"),
            "same-origin",
        )
        .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(
        answer.headers[header::LOCATION],
        "/apps",
        "never another site"
    );
    let set = answer.headers[header::SET_COOKIE].to_str().unwrap();
    assert!(set.starts_with("weft_console="), "{set}");
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    assert!(!set.contains(ADMIN));
    let cookie = set.split(';').next().unwrap();

    let fleet = console.get("/apps", Some(cookie)).await;
    assert_eq!(fleet.status, StatusCode::OK);
    assert!(fleet.body.contains("href=\"/apps/shop\""), "{}", fleet.body);
    assert!(!fleet.body.contains(ADMIN));
    // Every API call was made with the session's token, never anything else.
    assert!(
        console
            .calls
            .lock()
            .unwrap()
            .iter()
            .all(|(_, path, who)| who == ADMIN && !path.contains(ADMIN))
    );
    for (name, value) in [
        ("x-frame-options", "DENY"),
        ("x-content-type-options", "nosniff"),
        ("cache-control", "no-store"),
    ] {
        assert_eq!(fleet.headers[name], value, "{name}");
    }
    let policy = fleet.headers["content-security-policy"].to_str().unwrap();
    for directive in [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(policy.contains(directive), "{policy}");
    }
    assert!(!policy.contains("unsafe-inline"));
    assert!(!fleet.body.contains("<script>"), "no inline script");
    assert!(!fleet.body.contains(" style="), "no inline style");

    // Signing out ends the session: the same cookie is signed out.
    let csrf = csrf_of(&fleet.body);
    let out = console
        .post(
            "/sign-out",
            Some(cookie),
            &format!("_csrf={csrf}"),
            "same-origin",
        )
        .await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(
        out.headers[header::SET_COOKIE]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    assert_eq!(
        console.get("/apps", Some(cookie)).await.status,
        StatusCode::SEE_OTHER
    );
}

#[tokio::test]
async fn writes_need_the_sessions_csrf_token_from_this_site_and_then_go_through_the_api() {
    let console = Console::new();
    let cookie = console.sign_in(ADMIN).await;
    let page = console.get("/apps/shop", Some(&cookie)).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("action=\"/apps/shop/sync\""));
    assert!(page.body.contains("Roll back"));
    assert!(
        page.body.contains("An image tag moved: ")
            && page
                .body
                .contains("web:1.4.2 now points to a different digest"),
        "{}",
        page.body
    );
    let csrf = csrf_of(&page.body);

    let syncs = |console: &Console| {
        console
            .calls
            .lock()
            .unwrap()
            .iter()
            .filter(|(method, path, _)| method == "POST" && path.ends_with("/sync"))
            .count()
    };
    for (form, site) in [
        ("_csrf=wrong".to_string(), "same-origin"),
        (String::new(), "same-origin"),
        (format!("_csrf={csrf}"), "cross-site"),
    ] {
        let refused = console
            .post("/apps/shop/sync", Some(&cookie), &form, site)
            .await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{form} {site}");
    }
    assert_eq!(syncs(&console), 0, "refused before the API was asked");

    let done = console
        .post(
            "/apps/shop/sync",
            Some(&cookie),
            &format!("_csrf={csrf}&dry_run=true"),
            "same-origin",
        )
        .await;
    assert_eq!(done.status, StatusCode::SEE_OTHER);
    assert_eq!(done.headers[header::LOCATION], "/apps/shop/operations/op-1");
    assert_eq!(syncs(&console), 1);

    // A moved tag has its button: a sync that resolves every image again.
    assert!(
        page.body.contains("Refresh images and sync")
            && page.body.contains("name=\"refresh_images\" value=\"true\""),
        "{}",
        page.body
    );
    let refreshed = console
        .post(
            "/apps/shop/sync",
            Some(&cookie),
            &format!("_csrf={csrf}&refresh_images=true"),
            "same-origin",
        )
        .await;
    assert_eq!(refreshed.status, StatusCode::SEE_OTHER);
    assert_eq!(syncs(&console), 2);
}

#[tokio::test]
async fn a_member_sees_no_write_controls_and_another_orgs_app_is_not_found() {
    let console = Console::new();
    let cookie = console.sign_in(MEMBER).await;
    let fleet = console.get("/apps", Some(&cookie)).await;
    assert!(fleet.body.contains("No apps yet"), "{}", fleet.body);
    let hidden = console.get("/apps/shop", Some(&cookie)).await;
    assert_eq!(hidden.status, StatusCode::NOT_FOUND);
    assert!(hidden.body.contains("Not found"));
    // Were a member to post anyway (with a valid token of its own), the API refuses it.
    let csrf = csrf_of(&fleet.body);
    let refused = console
        .post(
            "/apps/shop/sync",
            Some(&cookie),
            &format!("_csrf={csrf}"),
            "same-origin",
        )
        .await;
    assert_eq!(
        refused.status,
        StatusCode::SEE_OTHER,
        "back to the app page, which says why"
    );
}

#[tokio::test]
async fn an_operation_shows_its_pinned_images_and_gate_verdicts_and_offers_an_admin_the_override_only_when_allowed()
 {
    let console = Console::new();
    let cookie = console.sign_in(ADMIN).await;
    let page = console
        .get("/apps/shop/operations/op-9", Some(&cookie))
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    for expected in [
        "Deploy gates",
        "no-latest",
        "apps:Deployment:shop:web",
        "badge gate deny",
        "badge gate allow",
        "registry.example/shop/web:1.4.2",
        "sha256:0123456789ab",
        "name=\"override_gates\"",
        "Override the gates and sync",
    ] {
        assert!(
            page.body.contains(expected),
            "{expected} missing from {}",
            page.body
        );
    }
    // A gate that may not be overridden offers no override.
    let fixed = console
        .get("/apps/shop/operations/op-fixed", Some(&cookie))
        .await;
    assert!(!fixed.body.contains("Override the gates"), "{}", fixed.body);
    assert!(fixed.body.contains("is not overridable"), "{}", fixed.body);
}

#[tokio::test]
async fn an_operation_stopped_by_objects_other_apps_hold_lists_each_with_its_holder_and_how_it_is_released()
 {
    let console = Console::new();
    let cookie = console.sign_in(ADMIN).await;
    let page = console
        .get("/apps/shop/operations/op-held", Some(&cookie))
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    for expected in [
        "Other apps hold objects this app renders",
        "nothing was applied",
        "ConfigMap shop/settings: held by app billing",
        "deleted without cascade",
    ] {
        assert!(
            page.body.contains(expected),
            "{expected} missing from {}",
            page.body
        );
    }
    // An operation without conflicts says nothing of them.
    let gated = console
        .get("/apps/shop/operations/op-9", Some(&cookie))
        .await;
    assert!(!gated.body.contains("Other apps hold"), "{}", gated.body);
}

#[tokio::test]
async fn an_objects_diff_names_the_manager_that_changed_a_field_and_says_a_sync_takes_it_back() {
    let console = Console::new();
    let cookie = console.sign_in(ADMIN).await;
    let page = console
        .get("/apps/shop/objects/:ConfigMap:shop:greeting", Some(&cookie))
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("Changed outside git."), "{}", page.body);
    assert!(
        page.body
            .contains("<code>kubectl-patch</code> changed <code>/data/GREETING</code>"),
        "{}",
        page.body
    );
    assert!(page.body.contains("A sync takes these fields back"));
}

#[tokio::test]
async fn each_role_of_the_apps_org_sees_exactly_the_controls_it_may_use() {
    let console = Console::new();
    // (token, sees sync/refresh/rollback, sees the gate override, seed rotation and token management)
    for (token, operates, administers) in [
        (VIEWER, false, false),
        (DEPLOYER, true, false),
        (ORG_ADMIN, true, true),
        (ADMIN, true, true),
    ] {
        let overrides = administers;
        let cookie = console.sign_in(token).await;
        let app = console.get("/apps/shop", Some(&cookie)).await;
        assert_eq!(app.status, StatusCode::OK, "{token}: {}", app.body);
        for control in [
            "action=\"/apps/shop/sync\"",
            "action=\"/apps/shop/refresh\"",
            "action=\"/apps/shop/rollback\"",
        ] {
            assert_eq!(
                app.body.contains(control),
                operates,
                "{token}: {control} in {}",
                app.body
            );
        }
        assert_eq!(
            app.body.contains("action=\"/apps/shop/rotate-seed\""),
            administers,
            "{token}: {}",
            app.body
        );
        let fleet = console.get("/apps", Some(&cookie)).await;
        assert_eq!(
            fleet.body.contains("href=\"/tokens\""),
            administers,
            "{token}: {}",
            fleet.body
        );
        // The history names who asked for each deploy.
        assert!(app.body.contains("deploy-bot"), "{token}: {}", app.body);
        let operation = console
            .get("/apps/shop/operations/op-9", Some(&cookie))
            .await;
        assert_eq!(
            operation.body.contains("Override the gates and sync"),
            overrides,
            "{token}: {}",
            operation.body
        );
    }
    // The header names a member by its name and role.
    let cookie = console.sign_in(DEPLOYER).await;
    let fleet = console.get("/apps", Some(&cookie)).await;
    assert!(fleet.body.contains("deployer-bot"), "{}", fleet.body);
    assert!(fleet.body.contains("demo deployer"), "{}", fleet.body);
}

#[tokio::test]
async fn the_logs_page_reads_restarted_containers_previous_runs_and_says_a_follow_picks_up_new_pods()
 {
    let console = Console::new();
    let cookie = console.sign_in(ADMIN).await;
    let current = console.get("/apps/shop/logs", Some(&cookie)).await;
    assert_eq!(current.status, StatusCode::OK, "{}", current.body);
    assert!(current.body.contains("Previous runs"), "{}", current.body);
    let previous = console
        .get("/apps/shop/logs?previous=1", Some(&cookie))
        .await;
    assert_eq!(previous.status, StatusCode::OK, "{}", previous.body);
    assert!(previous.body.contains("Current runs"), "{}", previous.body);
    assert!(
        previous.body.contains("simulated crash"),
        "{}",
        previous.body
    );
    let asked: Vec<String> = console
        .calls
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, path, _)| path.starts_with("/v1/deploy/shop/logs"))
        .map(|(_, path, _)| path.clone())
        .collect();
    assert!(
        asked.iter().any(|path| path.contains("previous=true")),
        "{asked:?}"
    );
    assert!(
        !asked[0].contains("previous"),
        "the first page asked for the current runs: {asked:?}"
    );
    // Following: the page streams the app's followed logs, and says new pods join; previous runs are not offered.
    let followed = console.get("/apps/shop/logs?follow=1", Some(&cookie)).await;
    assert!(
        followed
            .body
            .contains("data-follow=\"/apps/shop/logs/stream"),
        "{}",
        followed.body
    );
    assert!(followed.body.contains("join the log"), "{}", followed.body);
    assert!(
        !followed.body.contains("Previous runs"),
        "{}",
        followed.body
    );
}

#[tokio::test]
async fn an_org_admin_lists_makes_and_revokes_tokens_and_rotates_a_seed_and_sees_a_new_secret_once()
{
    let console = Console::new();
    let cookie = console.sign_in(ORG_ADMIN).await;
    let tokens = console.get("/tokens", Some(&cookie)).await;
    assert_eq!(tokens.status, StatusCode::OK, "{}", tokens.body);
    assert!(
        tokens.body.contains("deploy-bot") && tokens.body.contains("deployer"),
        "{}",
        tokens.body
    );
    assert!(
        tokens.body.contains("action=\"/tokens/tok_1/revoke\""),
        "{}",
        tokens.body
    );
    assert!(
        !tokens.body.contains("value=\"admin\""),
        "an org-admin is offered no admin role"
    );
    let csrf = csrf_of(&tokens.body);
    let made = console
        .post(
            "/tokens",
            Some(&cookie),
            &format!("_csrf={csrf}&name=ci&role=viewer&org=demo&description="),
            "same-origin",
        )
        .await;
    assert_eq!(made.status, StatusCode::OK, "{}", made.body);
    assert!(made.body.contains("weft_the-new-secret"), "{}", made.body);
    // Shown once: the list never holds it.
    let again = console.get("/tokens", Some(&cookie)).await;
    assert!(!again.body.contains("weft_the-new-secret"));
    let revoked = console
        .post(
            "/tokens/tok_1/revoke",
            Some(&cookie),
            &format!("_csrf={csrf}"),
            "same-origin",
        )
        .await;
    assert_eq!(revoked.status, StatusCode::SEE_OTHER);
    let after = console.get("/tokens", Some(&cookie)).await;
    assert!(after.body.contains("Token tok_1 revoked"), "{}", after.body);
    let rotated = console
        .post(
            "/apps/shop/rotate-seed",
            Some(&cookie),
            &format!("_csrf={csrf}"),
            "same-origin",
        )
        .await;
    assert_eq!(rotated.status, StatusCode::SEE_OTHER);
    let app = console.get("/apps/shop", Some(&cookie)).await;
    assert!(app.body.contains("renders with a new seed"), "{}", app.body);
    // A deployer's attempt is refused by the API and said so.
    let cookie = console.sign_in(DEPLOYER).await;
    let refused = console.get("/tokens", Some(&cookie)).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
}

#[tokio::test]
async fn an_objects_page_offers_its_actions_to_those_who_may_operate_and_runs_them_through_the_api()
{
    let console = Console::new();
    let object = "/apps/shop/objects/apps:Deployment:shop:web";
    // The page links its forms with the reference percent-encoded.
    let encoded = "/apps/shop/objects/apps%3ADeployment%3Ashop%3Aweb";
    for (token, operates) in [
        (VIEWER, false),
        (DEPLOYER, true),
        (ORG_ADMIN, true),
        (ADMIN, true),
    ] {
        let cookie = console.sign_in(token).await;
        let page = console.get(object, Some(&cookie)).await;
        assert_eq!(page.status, StatusCode::OK, "{token}: {}", page.body);
        for control in [
            format!("action=\"{encoded}/actions/restart\""),
            format!("action=\"{encoded}/actions/scale\""),
        ] {
            assert_eq!(
                page.body.contains(&control),
                operates,
                "{token}: {control} in {}",
                page.body
            );
        }
    }
    let cookie = console.sign_in(DEPLOYER).await;
    let page = console.get(object, Some(&cookie)).await;
    assert!(page.body.contains("Weft takes it back"), "{}", page.body);
    let csrf = csrf_of(&page.body);
    let refused = console
        .post(
            &format!("{object}/actions/scale"),
            Some(&cookie),
            "_csrf=wrong&replicas=3",
            "same-origin",
        )
        .await;
    assert_ne!(refused.status, StatusCode::SEE_OTHER, "{}", refused.body);
    let ran = console
        .post(
            &format!("{object}/actions/scale"),
            Some(&cookie),
            &format!("_csrf={csrf}&replicas=3"),
            "same-origin",
        )
        .await;
    assert_eq!(ran.status, StatusCode::SEE_OTHER, "{}", ran.body);
    assert_eq!(ran.headers[header::LOCATION], encoded);
    let posted: Vec<(String, String, String)> = console
        .calls
        .lock()
        .unwrap()
        .iter()
        .filter(|(method, path, _)| method == "POST" && path.contains("/actions/"))
        .cloned()
        .collect();
    assert_eq!(
        posted,
        [(
            "POST".to_string(),
            "/v1/deploy/shop/resource/apps%3ADeployment%3Ashop%3Aweb/actions/scale".to_string(),
            DEPLOYER.to_string()
        )]
    );
    let back = console.get(object, Some(&cookie)).await;
    assert!(
        back.body
            .contains("Scale of apps:Deployment:shop:web succeeded."),
        "{}",
        back.body
    );
}
