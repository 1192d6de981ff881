//! `weft sync --watch --wait-healthy` end to end, against a served weft (a `weft serve` child on the embedded
//! default, serving three directories of one repository as apps, each a Deployment on the simulator): the app whose
//! Deployment becomes available exits 0; the one whose image cannot be pulled (its pod failing, and its one-second
//! progress deadline passing) exits 1 saying it ended degraded; the one whose pod runs but never becomes ready, with
//! its progress deadline an hour away, stays progressing and exits 1 once `--health-timeout` passed, saying it was
//! not healthy. What is compared is each exit code and what the command said, never how long anything took: the
//! generous timeouts only bound the test.

use std::ffi::OsStr;

use crate::cli_client::{Server, git, retrying_busy, succeeded};
use crate::support::{stderr, stdout};

/// A Deployment named `web` of one replica running `image`, with a progress deadline of `deadline_seconds`.
fn deployment(image: &str, deadline_seconds: u32) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  replicas: 1\n  \
         progressDeadlineSeconds: {deadline_seconds}\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    \
         metadata: {{labels: {{app: web}}}}\n    spec: {{containers: [{{name: web, image: \"{image}\"}}]}}\n"
    )
}

#[test]
fn sync_watch_wait_healthy_exits_0_for_a_healthy_app_and_1_for_a_degraded_one_or_one_not_healthy_in_time()
 {
    let repo = tempfile::tempdir().unwrap();
    let apps = [
        ("available", deployment("nginx:1.27", 600)),
        ("degraded", deployment("registry.example/fail-pull:1", 1)),
        (
            "progressing",
            deployment("registry.example/never-ready:1", 3600),
        ),
    ];
    for (name, manifest) in &apps {
        let dir = repo.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("web.yaml"), manifest).unwrap();
    }
    git(repo.path(), &["init", "-q", "-b", "main"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-q", "-m", "three apps"]);
    let served: Vec<std::ffi::OsString> = apps
        .iter()
        .flat_map(|(name, _)| {
            let mut app = std::ffi::OsString::from(format!("{name}="));
            app.push(repo.path().join(name));
            [std::ffi::OsString::from("--app"), app]
        })
        .collect();
    let served: Vec<&OsStr> = served.iter().map(|arg| arg.as_os_str()).collect();
    let server = Server::start_with(&served);

    // Available: the sync succeeds and a look the server took after it says healthy.
    let waited = retrying_busy(
        &server,
        &[
            "sync",
            "available",
            "--watch",
            "--wait-healthy",
            "--health-timeout",
            "600",
        ],
    );
    let steps = succeeded(&waited);
    assert!(steps.contains("succeeded: "), "{steps}");
    assert!(
        stderr(&waited).contains("weft: available is healthy and synced"),
        "{}",
        stderr(&waited)
    );

    // Degraded: the sync itself succeeds (the last wave does not wait for health); the app then ends degraded, and
    // that is exit 1.
    let waited = retrying_busy(
        &server,
        &[
            "sync",
            "degraded",
            "--watch",
            "--wait-healthy",
            "--health-timeout",
            "600",
        ],
    );
    assert_eq!(
        waited.status.code(),
        Some(1),
        "stdout:\n{}\nstderr:\n{}",
        stdout(&waited),
        stderr(&waited)
    );
    assert!(
        stdout(&waited).contains("succeeded: "),
        "{}",
        stdout(&waited)
    );
    let said = stderr(&waited);
    assert!(said.contains("weft: degraded is degraded and "), "{said}");
    assert!(said.contains("weft: degraded ended degraded"), "{said}");
    assert!(!said.contains("not healthy within"), "{said}");

    // Progressing past --health-timeout: exit 1, saying what it was when the wait gave up and where to look.
    let waited = retrying_busy(
        &server,
        &[
            "sync",
            "progressing",
            "--watch",
            "--wait-healthy",
            "--health-timeout",
            "1",
        ],
    );
    assert_eq!(
        waited.status.code(),
        Some(1),
        "stdout:\n{}\nstderr:\n{}",
        stdout(&waited),
        stderr(&waited)
    );
    let said = stderr(&waited);
    let tree = server.weft(&["tree", "progressing"]);
    assert!(
        said.contains("weft: progressing was not healthy within 1 s"),
        "{said}\n`weft tree progressing`:\n{}{}",
        stdout(&tree),
        stderr(&tree)
    );
    assert!(
        said.contains("`weft tree progressing` shows what is not"),
        "{said}"
    );
    assert!(!said.contains("ended degraded"), "{said}");
    // The same app is what the server says it is: progressing, never healthy.
    let view: serde_json::Value = serde_json::from_str(&succeeded(&server.weft(&[
        "app",
        "get",
        "progressing",
        "-o",
        "json",
    ])))
    .unwrap();
    assert_ne!(view["status"]["health"], "healthy", "{view}");
}
