//! An Argo CD user's day with `weft app` and `weft appset` against a served weft (a `weft serve` child on the
//! embedded default): create an app from the example repository, refuse a second create and upsert it, read its
//! summary and history, change a field, refresh it, delete one app with its objects and another without, and the
//! refusals and bad input a person at a shell meets on the way; then the completion scripts.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli_client::{Server, retrying_busy, succeeded};
use crate::support::{stderr, stdout};

/// `weft app get NAME -o json` until the app is synced and healthy (or five minutes passed).
fn settled(server: &Server, name: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let got: Value = serde_json::from_str(&succeeded(
            &server.weft(&["app", "get", name, "-o", "json"]),
        ))
        .expect("`weft app get -o json` prints JSON");
        let status = &got["status"];
        let done = status["sync"] == "synced"
            && status["health"] == "healthy"
            && status["history"].as_array().is_some_and(|h| !h.is_empty());
        if done || Instant::now() > deadline {
            return got;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// Runs a delete again while an operation of the app has not ended (a cascade waits for it).
fn deleting(server: &Server, args: &[&str]) -> std::process::Output {
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let output = server.weft(args);
        if output.status.code() == Some(2)
            && stderr(&output).contains("when it has ended")
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(300));
            continue;
        }
        return output;
    }
}

/// A failed run: its exit code and its stderr.
fn failed(output: &std::process::Output) -> (Option<i32>, String) {
    (output.status.code(), stderr(output))
}

#[test]
fn an_argo_cd_user_s_day_with_weft_app_and_weft_appset() {
    let server = Server::start();
    let repo = format!(
        "file://{}",
        server.data.path().join("examples").join("repo").display()
    );
    let create = |name: &str, namespace: &str, more: &[&str]| {
        let mut args = vec![
            "app",
            "create",
            name,
            "--repo",
            &repo,
            "--path",
            "shop",
            "--revision",
            "main",
            "--type",
            "yaml",
            "--dest-namespace",
            namespace,
            "--dest-cluster",
            "staging",
            "--org",
            "demo",
            "--sync-policy",
            "automated",
            "--self-heal",
            "--auto-prune",
            "--sync-option",
            "CreateNamespace=true",
        ];
        args.extend_from_slice(more);
        server.weft(&args)
    };

    // Created through the API, then refused a second time with the way to replace it, which --upsert takes.
    assert_eq!(
        succeeded(&create("hello", "hello", &[])),
        "app hello created\n"
    );
    let (code, said) = failed(&create("hello", "hello", &[]));
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("app hello already exists"), "{said}");
    assert!(said.contains("--upsert replaces its definition"), "{said}");
    let replaced = create("hello", "hello", &["--upsert", "-o", "json"]);
    let stored: Value = serde_json::from_str(&succeeded(&replaced)).unwrap();
    assert_eq!(stored["source"]["ref"], "main");
    assert_eq!(stored["sync"]["create_namespace"], true);

    // Its summary, once its first automated sync has run.
    let got = settled(&server, "hello");
    assert_eq!(got["status"]["health"], "healthy", "{got}");
    assert_eq!(got["spec"]["org"], "demo");
    let summary = succeeded(&server.weft(&["app", "get", "hello"]));
    for line in [
        "Name:            hello",
        "Org:             demo",
        "Origin:          api",
        "Cluster:         staging",
        "Namespace:       hello",
        "Path:            shop",
        "Type:            yaml",
        "Target:          main",
        "Sync Policy:     automated (self-heal, prune)",
        "Sync Status:     synced",
        "Health Status:   healthy",
    ] {
        assert!(
            summary.lines().any(|l| l == line),
            "no {line:?} in:\n{summary}"
        );
    }
    let resources: Vec<Vec<&str>> = summary
        .lines()
        .skip_while(|l| !l.starts_with("KIND"))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        resources[0],
        ["KIND", "NAMESPACE", "NAME", "SYNC", "HEALTH", "MESSAGE"]
    );
    assert!(
        resources
            .iter()
            .any(|r| r[..5] == ["Deployment", "hello", "web", "synced", "healthy"]),
        "{summary}"
    );

    // A field changed, the rest kept; a set that names nothing is bad input.
    assert_eq!(
        succeeded(&server.weft(&["app", "set", "hello", "--self-heal=false"])),
        "app hello changed\n"
    );
    let got: Value = serde_json::from_str(&succeeded(
        &server.weft(&["app", "get", "hello", "-o", "json"]),
    ))
    .unwrap();
    assert_eq!(got["spec"]["sync"]["self_heal"], false);
    assert_eq!(got["spec"]["sync"]["automated"], true);
    assert_eq!(got["spec"]["source"]["ref"], "main");
    let (code, said) = failed(&server.weft(&["app", "set", "hello"]));
    assert_eq!(code, Some(2));
    assert!(said.contains("names no field to change"), "{said}");

    // A manual sync through the alias of `weft sync`; then the history: the first deploy by automation at the
    // commit the summary named, the newest by whoever asked (the first admin token's name, never "a user").
    succeeded(&retrying_busy(
        &server,
        &["app", "sync", "hello", "--watch"],
    ));
    let history = succeeded(&server.weft(&["app", "history", "hello"]));
    let rows: Vec<Vec<&str>> = history
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], ["ID", "REVISION", "VERSION", "DEPLOYED", "BY"]);
    let revision = got["status"]["revision"].as_str().unwrap();
    let first = rows.last().unwrap();
    assert_eq!((first[0], first[1]), ("1", revision), "{history}");
    assert_eq!(*first.last().unwrap(), "automation", "{history}");
    let entries: Value = serde_json::from_str(&succeeded(
        &server.weft(&["app", "history", "hello", "-o", "json"]),
    ))
    .unwrap();
    let by = entries[0]["requestedBy"]
        .as_str()
        .unwrap_or_else(|| panic!("the manual sync names who asked: {entries}"));
    assert_eq!(*rows[1].last().unwrap(), by, "{history}");
    assert_eq!(entries[0]["automated"], false, "{entries}");

    // The resource actions of its Deployment, listed and one run, recorded under the caller's name.
    let web = "apps:Deployment:hello:web";
    assert_eq!(
        succeeded(&server.weft(&["app", "actions", "hello", web])),
        "restart\nscale\nsync\n"
    );
    let restarted = succeeded(&server.weft(&["app", "action", "run", "hello", web, "restart"]));
    assert!(
        restarted.starts_with(&format!("restart of {web} succeeded (app hello, by {by})")),
        "{restarted}"
    );
    let (code, said) = failed(&server.weft(&["app", "action", "run", "hello", web, "scale"]));
    assert_eq!(code, Some(2), "a scale without --replicas: {said}");
    assert!(said.contains("replicas"), "{said}");

    // A refresh is asked for; the list is the fleet's.
    let refreshed = succeeded(&server.weft(&["app", "refresh", "hello"]));
    assert!(
        refreshed.starts_with("refresh of hello requested"),
        "{refreshed}"
    );
    let listed: Value =
        serde_json::from_str(&succeeded(&server.weft(&["app", "list", "-o", "json"]))).unwrap();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert!(
        names.contains(&"hello") && names.contains(&"shop"),
        "{names:?}"
    );

    // The server's rules for API-defined apps, named in its refusal; flags the create lacks; unknown apps.
    let (code, said) = failed(&server.weft(&[
        "app",
        "create",
        "elsewhere",
        "--repo",
        &repo,
        "--type",
        "yaml",
        "--dest-namespace",
        "elsewhere",
        "--dest-cluster",
        "nowhere",
    ]));
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("cluster: \"nowhere\" is not a cluster this server manages"),
        "{said}"
    );
    let (code, said) = failed(&server.weft(&[
        "app",
        "create",
        "outside",
        "--repo",
        "file:///etc",
        "--type",
        "yaml",
        "--dest-namespace",
        "x",
    ]));
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("source.repo"), "{said}");
    let (code, said) = failed(&server.weft(&["app", "create", "half", "--type", "yaml"]));
    assert_eq!(code, Some(2));
    assert_eq!(
        said.trim(),
        "weft: `weft app create` needs --repo URL, --dest-namespace NS"
    );
    let (code, said) = failed(&server.weft(&["app", "create", "x", "--env", "prod"]));
    assert_eq!(
        code,
        Some(2),
        "clap refuses a value it does not know: {said}"
    );
    let (code, said) = failed(&server.weft(&["app", "get", "nope"]));
    assert_eq!((code, said.trim()), (Some(2), "weft: no app \"nope\""));
    // The app declared in the configuration is changed there.
    let (code, said) = failed(&server.weft(&["app", "set", "shop", "--revision", "v2"]));
    assert_eq!(code, Some(2));
    assert!(
        said.contains("declared in the configuration file"),
        "{said}"
    );

    // A delete asks first; with no terminal to ask on, it says how to confirm.
    let (code, said) = failed(&server.weft(&["app", "delete", "hello"]));
    assert_eq!(code, Some(2));
    assert!(said.contains("pass --yes"), "{said}");

    // Deleted with its objects (the default, as Argo CD's)...
    let deleted = succeeded(&deleting(&server, &["app", "delete", "hello", "--yes"]));
    let count: usize = deleted
        .strip_prefix("app hello deleted; ")
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{deleted}"));
    assert!(count >= 4, "the example's objects are deleted: {deleted}");
    let (code, said) = failed(&server.weft(&["app", "get", "hello"]));
    assert_eq!((code, said.trim()), (Some(2), "weft: no app \"hello\""));

    // ...and another without: its objects stay, released.
    succeeded(&create("kept", "kept", &[]));
    settled(&server, "kept");
    let kept = succeeded(&deleting(
        &server,
        &["app", "delete", "kept", "--cascade=false", "-y"],
    ));
    assert_eq!(
        kept,
        "app kept deleted; its objects stay in the cluster, released\n"
    );

    // ApplicationSets: the embedded default runs none; one that is not there is named.
    let sets = succeeded(&server.weft(&["appset", "list"]));
    assert_eq!(
        sets.split_whitespace().collect::<Vec<_>>(),
        ["NAMESPACE", "NAME", "ORG", "APPLICATIONS", "HELD", "STATUS"]
    );
    assert_eq!(
        succeeded(&server.weft(&["appset", "list", "-o", "json"])).trim(),
        "[]"
    );
    let (code, said) = failed(&server.weft(&["appset", "get", "envs"]));
    assert_eq!(code, Some(2));
    assert!(said.contains("no ApplicationSet \"envs\""), "{said}");
    let (code, said) =
        failed(&server.weft(&["appset", "confirm", "team-a/envs", "--delete", "a,b"]));
    assert_eq!(code, Some(2));
    assert!(said.contains("no ApplicationSet \"team-a/envs\""), "{said}");

    // Completion scripts for each shell.
    let bash = succeeded(&server.weft(&["completion", "bash"]));
    assert!(bash.contains("complete -F _weft"), "{bash}");
    let zsh = succeeded(&server.weft(&["completion", "zsh"]));
    assert!(zsh.starts_with("#compdef weft"), "{zsh}");
    let fish = succeeded(&server.weft(&["completion", "fish"]));
    assert!(fish.contains("complete -c weft"), "{fish}");
    let (code, _) = failed(&server.weft(&["completion", "powershell"]));
    assert_eq!(
        code,
        Some(2),
        "{}",
        stdout(&server.weft(&["completion", "powershell"]))
    );
}
