//! `weft token create|list|revoke` end to end: against a served Weft (the admin makes an org's deployer and
//! org-admin, the org-admin lists and revokes its org's tokens but makes no admin token, a revoked token is refused
//! at once), and offline in a store on this host, as the first tokens are made.

use serde_json::Value;

use crate::cli_client::{Server, succeeded};
use crate::support::{stderr, weft_command};

fn names(listing: &str) -> Vec<String> {
    let tokens: Value = serde_json::from_str(listing).unwrap();
    let mut names: Vec<String> = tokens
        .as_array()
        .unwrap()
        .iter()
        .map(|token| token["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn tokens_are_made_listed_and_revoked_through_the_server_by_whom_may() {
    let server = Server::start();
    let deployer = succeeded(&server.weft(&[
        "token",
        "create",
        "--name",
        "deploy-bot",
        "--org",
        "shop",
        "--role",
        "deployer",
    ]))
    .trim()
    .to_string();
    assert!(deployer.starts_with("weft_"), "{deployer}");
    let shop_admin = succeeded(&server.weft(&[
        "token",
        "create",
        "--name",
        "shop-admin",
        "--org",
        "shop",
        "--role",
        "org-admin",
    ]))
    .trim()
    .to_string();

    // The admin lists every token; nothing secret is shown.
    let listing = succeeded(&server.weft(&["token", "list", "-o", "json"]));
    assert_eq!(
        names(&listing),
        ["deploy-bot", "initial-admin", "shop-admin"]
    );
    assert!(
        !listing.contains(&deployer) && !listing.contains(&shop_admin),
        "{listing}"
    );

    // The org-admin sees its org's tokens only, as a table...
    let as_shop_admin = [("WEFT_TOKEN", shop_admin.as_str())];
    let table = succeeded(&server.weft_with(&["token", "list"], &as_shop_admin));
    assert!(table.starts_with("ID"), "{table}");
    assert!(
        table.contains("deploy-bot") && table.contains("deployer"),
        "{table}"
    );
    assert!(!table.contains("initial-admin"), "{table}");
    // ...makes no admin token, and a deployer manages no tokens at all.
    let refused = server.weft_with(
        &["token", "create", "--name", "root", "--admin"],
        &as_shop_admin,
    );
    assert_ne!(refused.status.code(), Some(0));
    assert!(stderr(&refused).contains("admin"), "{}", stderr(&refused));
    let refused = server.weft_with(&["token", "list"], &[("WEFT_TOKEN", deployer.as_str())]);
    assert_ne!(refused.status.code(), Some(0));

    // Revoked by name, the deployer's token is refused at once.
    succeeded(&server.weft_with(&["token", "revoke", "deploy-bot"], &as_shop_admin));
    let denied = server.weft_with(&["apps"], &[("WEFT_TOKEN", deployer.as_str())]);
    assert_eq!(denied.status.code(), Some(2), "{}", stderr(&denied));
    let listing = succeeded(&server.weft(&["token", "list", "-o", "json"]));
    assert_eq!(names(&listing), ["initial-admin", "shop-admin"]);
}

#[test]
fn the_first_tokens_are_made_listed_and_revoked_offline_in_a_store() {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_str().unwrap();
    let run = |args: &[&str]| weft_command().args(args).output().unwrap();
    let token = succeeded(&run(&[
        "token",
        "create",
        "--offline",
        "--data-dir",
        dir,
        "--admin",
        "--name",
        "bootstrap",
    ]));
    assert!(token.trim().starts_with("weft_"), "{token}");
    // --data-dir alone means offline too.
    succeeded(&run(&[
        "token",
        "create",
        "--data-dir",
        dir,
        "--org",
        "shop",
        "--role",
        "deployer",
        "--name",
        "ci",
    ]));
    let listing = succeeded(&run(&["token", "list", "--data-dir", dir, "-o", "json"]));
    assert_eq!(names(&listing), ["bootstrap", "ci"]);
    assert!(!listing.contains(token.trim()), "{listing}");
    assert!(listing.contains("\"deployer\""), "{listing}");
    succeeded(&run(&["token", "revoke", "ci", "--data-dir", dir]));
    let listing = succeeded(&run(&["token", "list", "--data-dir", dir, "-o", "json"]));
    assert_eq!(names(&listing), ["bootstrap"]);
    let unknown = run(&["token", "revoke", "ci", "--data-dir", dir]);
    assert_ne!(unknown.status.code(), Some(0));
}
