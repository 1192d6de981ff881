//! The API client end to end: `weft serve` runs as a child process on a free port with its data in a temporary
//! directory, and `weft apps`, `weft tree`, `weft sync --watch`, `weft logs`, `weft rollback` and
//! `weft diff --server` talk to it the way a person at a shell would (output piped, so never coloured).

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::process::{Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support::{ServeProcess, free_port, stderr, stdout};
use serde_json::Value;

/// A `weft serve` child process with its data in a temporary directory, and the admin token it printed.
pub(crate) struct Server {
    process: ServeProcess,
    token: String,
    pub(crate) data: tempfile::TempDir,
    /// The server's stderr, line by line, after the token.
    logged: mpsc::Receiver<String>,
}

impl Server {
    pub(crate) fn start() -> Server {
        Server::start_with(&[])
    }

    /// `weft serve` on the embedded default with more arguments.
    pub(crate) fn start_with(more: &[&OsStr]) -> Server {
        let data = tempfile::tempdir().unwrap();
        let mut args = vec![OsStr::new("--data-dir"), data.path().as_os_str()];
        args.extend_from_slice(more);
        let mut process = ServeProcess::spawn(&args, Stdio::piped());
        // Every stderr line goes to the channel; the reader keeps draining so the server never blocks on it.
        let stderr = process.child.stderr.take().unwrap();
        let (lines_tx, lines) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = lines_tx.send(line);
            }
        });
        let token = first_admin_token(&lines);
        process.wait_ready(Duration::from_secs(300), String::new);
        Server {
            process,
            token,
            data,
            logged: lines,
        }
    }

    /// Waits for a line of the server's log holding every one of `parts` (the server logs at info by default).
    fn wait_for_log(&self, parts: &[&str]) -> String {
        let deadline = Instant::now() + Duration::from_secs(300);
        let mut seen = Vec::new();
        while Instant::now() < deadline {
            let Ok(line) = self.logged.recv_timeout(Duration::from_millis(200)) else {
                continue;
            };
            if parts.iter().all(|part| line.contains(part)) {
                return line;
            }
            seen.push(line);
        }
        panic!("no log line with {parts:?} in:\n{}", seen.join("\n"));
    }

    /// Runs `weft ARGS` as a client of this server (token and server from the environment).
    pub(crate) fn weft(&self, args: &[&str]) -> Output {
        self.weft_with(args, &[])
    }

    pub(crate) fn weft_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = self
            .process
            .client(&self.token, &self.data.path().join("no-config"));
        command.args(args).current_dir(self.data.path());
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().unwrap()
    }
}

/// The token printed once on stderr: the indented line after `weft: created the first admin token ...`.
fn first_admin_token(lines: &mpsc::Receiver<String>) -> String {
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut announced = false;
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        let Ok(line) = lines.recv_timeout(Duration::from_millis(200)) else {
            continue;
        };
        if line.starts_with("weft: created the first admin token") {
            announced = true;
        } else if announced && line.starts_with("    ") && !line.trim().is_empty() {
            return line.trim().to_string();
        }
        seen.push(line);
    }
    panic!("no first admin token on stderr:\n{}", seen.join("\n"));
}

/// A successful run's stdout, with no colour codes (the output is a pipe).
pub(crate) fn succeeded(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        stdout(output),
        stderr(output)
    );
    let text = stdout(output);
    assert!(
        !text.contains('\u{1b}') && !stderr(output).contains('\u{1b}'),
        "piped output has escape codes: {text:?}"
    );
    text
}

/// Runs an action, again while the app has another operation in flight (the reconciler's own syncs).
pub(crate) fn retrying_busy(server: &Server, args: &[&str]) -> Output {
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let output = server.weft(args);
        if output.status.code() == Some(2)
            && stderr(&output).contains("queued or running")
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(300));
            continue;
        }
        return output;
    }
}

#[test]
fn the_client_commands_against_a_served_weft() {
    let server = Server::start();

    // The fleet: shop, healthy and synced once its first sync has run.
    let deadline = Instant::now() + Duration::from_secs(300);
    let shop = loop {
        let apps: Value = serde_json::from_str(&succeeded(&server.weft(&["apps", "-o", "json"])))
            .expect("`weft apps -o json` prints JSON");
        let shop = apps
            .as_array()
            .expect("the items array")
            .iter()
            .find(|a| a["name"] == "shop")
            .cloned()
            .expect("shop is listed");
        if (shop["health"] == "healthy" && shop["sync"] == "synced") || Instant::now() > deadline {
            break shop;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    assert_eq!(shop["health"], "healthy", "{shop}");
    assert_eq!(shop["sync"], "synced", "{shop}");

    let table = succeeded(&server.weft(&["apps"]));
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "NAME", "ORG", "CLUSTER", "ENV", "SYNC", "HEALTH", "VERSION", "RUNNING", "PHASE"
        ]
    );
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        &row[..6],
        ["shop", "demo", "staging", "test", "synced", "healthy"]
    );

    // Colours only when asked for on a pipe: the check above is not vacuous.
    let forced = server.weft_with(&["apps"], &[("CLICOLOR_FORCE", "1")]);
    assert!(stdout(&forced).contains('\u{1b}'), "{}", stdout(&forced));

    // The tree: Deployment web, its ReplicaSet under it, and Pods under that.
    let tree = succeeded(&server.weft(&["tree", "shop"]));
    let lines: Vec<&str> = tree.lines().collect();
    let deployment = lines
        .iter()
        .position(|l| l.starts_with("Deployment web "))
        .unwrap_or_else(|| panic!("no Deployment web in:\n{tree}"));
    assert!(
        lines[deployment + 1].starts_with("└─ ReplicaSet web-"),
        "{tree}"
    );
    assert!(
        lines[deployment + 2].starts_with("   ├─ Pod web-")
            || lines[deployment + 2].starts_with("   └─ Pod web-"),
        "{tree}"
    );
    let nodes: Value =
        serde_json::from_str(&succeeded(&server.weft(&["tree", "shop", "-o", "json"]))).unwrap();
    assert!(nodes.as_array().unwrap().iter().any(|n| n["kind"] == "Pod"));

    // A watched sync prints its steps and succeeds.
    let sync = retrying_busy(&server, &["sync", "shop", "--watch"]);
    let steps = succeeded(&sync);
    assert!(steps.contains("sync of shop at revision"), "{steps}");
    assert!(steps.contains("plan: "), "{steps}");
    assert!(
        steps.contains("apps:Deployment:shop:web"),
        "the plan's steps are printed: {steps}"
    );
    assert!(steps.contains("succeeded: "), "{steps}");
    assert!(stderr(&sync).contains("queued as operation shop-"));
    // The server's operator sees it in its log, at the default level: the start and the end.
    let id = stderr(&sync)
        .split("queued as operation ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .map(|id| id.trim_end_matches(['.', ';', ',', ':']).to_string())
        .expect("the operation's id");
    let started = server.wait_for_log(&[" INFO ", "sync started", &id]);
    assert!(started.contains("app=shop"), "{started}");
    let ended = server.wait_for_log(&[" INFO ", "ended: ", &id]);
    assert!(ended.contains("phase=succeeded"), "{ended}");

    // --wait-healthy: after the sync, a look the server took after it ended says the app is healthy.
    let waited = retrying_busy(&server, &["sync", "shop", "--watch", "--wait-healthy"]);
    succeeded(&waited);
    assert!(
        stderr(&waited).contains("weft: shop is healthy and synced"),
        "{}",
        stderr(&waited)
    );

    // Without --watch: just the operation's id.
    let queued = succeeded(&retrying_busy(&server, &["sync", "shop", "--dry-run"]));
    assert!(queued.trim().starts_with("shop-"), "{queued}");

    // The server's plan through `weft diff --server`: in sync, so exit 0.
    let diff = retrying_busy(&server, &["diff", "shop", "--server", &server.process.url]);
    let plan = succeeded(&diff);
    assert!(plan.contains("dry run of shop"), "{plan}");
    assert!(
        plan.contains("Unchanged apps:Deployment:shop:web"),
        "{plan}"
    );

    // Pod logs, prefixed by pod and container.
    let logs = succeeded(&server.weft(&["logs", "shop", "--tail", "2"]));
    let pod_lines: Vec<&str> = logs
        .lines()
        .filter(|l| l.starts_with("[pod/web-") && l.contains("/web] "))
        .collect();
    assert!(pod_lines.len() >= 2, "{logs}");

    // A rollback while automated sync is on is refused, and says how to ask for it.
    let refused = retrying_busy(&server, &["rollback", "shop", "1"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("--disable-automated"),
        "{}",
        stderr(&refused)
    );

    // Errors: a bad token says how to get one; an unknown app; a server that is not there.
    let denied = server.weft_with(&["apps"], &[("WEFT_TOKEN", "weft_not-a-token")]);
    assert_eq!(denied.status.code(), Some(2));
    assert!(
        stderr(&denied).contains("weft token create"),
        "{}",
        stderr(&denied)
    );
    let missing = server.weft(&["tree", "nope"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(stderr(&missing).trim(), "weft: no app \"nope\"");
    let nowhere = format!("http://127.0.0.1:{}", free_port());
    let refused = server.weft(&["apps", "--server", &nowhere]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains(&format!("cannot reach the Weft server at {nowhere}")),
        "{}",
        stderr(&refused)
    );
    let no_token = server.weft_with(&["apps"], &[("WEFT_TOKEN", "")]);
    assert_eq!(no_token.status.code(), Some(2));
    assert!(
        stderr(&no_token).contains("no API token"),
        "{}",
        stderr(&no_token)
    );
}

/// Runs `git ARGS` in `dir`, which must succeed.
pub(crate) fn git(dir: &std::path::Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn a_newcomer_s_own_directory_is_served_as_an_app_of_the_embedded_default_with_weft_serve_app() {
    // A repository of one's own: manifests in `deploy/`, committed on a branch.
    let repo = tempfile::tempdir().unwrap();
    let deploy = repo.path().join("deploy");
    std::fs::create_dir_all(&deploy).unwrap();
    std::fs::write(
        deploy.join("web.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: hello}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: hello}}\n  template:\n    metadata: {labels: {app: hello}}\n    spec: {containers: [{name: hello, image: \"nginx:1.27\"}]}\n",
    )
    .unwrap();
    git(repo.path(), &["init", "-q", "-b", "main"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-q", "-m", "hello"]);

    let server = Server::start_with(&[OsStr::new("--app"), deploy.as_os_str()]);
    let deadline = Instant::now() + Duration::from_secs(300);
    let app = loop {
        let apps: Value =
            serde_json::from_str(&succeeded(&server.weft(&["apps", "-o", "json"]))).unwrap();
        let app = apps
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == "deploy")
            .cloned()
            .expect("the directory's app is listed, named after it");
        if (app["health"] == "healthy" && app["sync"] == "synced") || Instant::now() > deadline {
            break app;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    assert_eq!(app["health"], "healthy", "{app}");
    assert_eq!(app["sync"], "synced", "{app}");
    let tree = succeeded(&server.weft(&["tree", "deploy"]));
    assert!(tree.contains("Deployment hello "), "{tree}");
    // The server said what it serves and from where.
    let said = server.wait_for_log(&["app deploy (yaml)", "following main"]);
    assert!(
        said.contains(&repo.path().canonicalize().unwrap().display().to_string()),
        "{said}"
    );
}
