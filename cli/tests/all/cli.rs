//! The `weft` command end to end: `weft health` on the conformance Deployments, `weft plugin test` on an Argo CD
//! style suite, and the exit codes for failures and bad input.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{builtins, json_lines, stderr, stdout, weft, weft_command, workspace};
use serde_json::Value;

#[test]
fn weft_health_matches_the_corpus_for_deployments() {
    let corpus = workspace().join("tests/conformance/gitops-engine/cases.json");
    let cases: Vec<_> = weft_sdk::testing::read_corpus(&corpus)
        .unwrap()
        .into_iter()
        .filter(|c| c.kind == "Deployment")
        .collect();
    assert!(cases.len() >= 4);
    let files: Vec<String> = cases.iter().map(|c| c.file.display().to_string()).collect();
    let mut args = vec!["health"];
    args.extend(files.iter().map(String::as_str));
    let output = weft(&args);
    let lines = json_lines(&output);
    assert_eq!(lines.len(), cases.len());
    for (case, line) in cases.iter().zip(&lines) {
        let expected = case.status.unwrap().as_str();
        assert_eq!(line["status"], expected, "{}", case.file.display());
        assert_eq!(line["kind"], "Deployment");
        assert_eq!(line["plugin"], "health-core");
        if let Some(message) = &case.message {
            assert_eq!(line["message"], message.as_str(), "{}", case.file.display());
        }
    }
}

#[test]
fn weft_health_reads_multi_document_files_and_lists() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("objects.yaml");
    std::fs::write(
        &file,
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: n}\nspec: {paused: true}\n---\n\
         apiVersion: v1\nkind: List\nitems:\n- {apiVersion: example.weft.dev/v1, kind: Widget, metadata: {name: w}}\n\
         ---\napiVersion: v1\nkind: Secret\nmetadata: {name: token}\ndata: {token: c2VjcmV0}\n",
    )
    .unwrap();
    let output = weft(&["health", file.to_str().unwrap()]);
    let lines = json_lines(&output);
    // Two objects; the Secret is never surfaced.
    assert_eq!(lines.len(), 2);
    assert!(!stdout(&output).contains("token"));
    assert_eq!(lines[0]["status"], "suspended");
    assert_eq!(lines[0]["namespace"], "n");
    assert_eq!(lines[1]["plugin"], "health-widget");
    assert_eq!(lines[1]["message"], "Waiting for the Ready condition");
}

#[test]
fn weft_health_bad_input_exits_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.yaml");
    std::fs::write(&file, "kind: [unclosed").unwrap();
    let output = weft(&["health", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("broken.yaml"));
    let missing = weft(&["health", "/nonexistent/objects.yaml"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/objects.yaml"));
}

#[test]
fn weft_plugin_test_runs_an_argocd_suite() {
    let output = weft(&[
        "plugin",
        "test",
        "health-widget",
        "examples/health-widget/health_test.yaml",
    ]);
    let out = stdout(&output);
    assert!(
        output.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(out.contains("6 passed, 0 failed"), "{out}");
}

#[test]
fn weft_plugin_test_exits_1_when_a_case_fails_and_2_on_a_bad_suite() {
    let dir = tempfile::tempdir().unwrap();
    let widget = workspace().join("examples/health-widget/testdata/healthy.yaml");
    let suite = dir.path().join("health_test.yaml");
    std::fs::write(
        &suite,
        format!(
            "tests:\n- healthStatus: {{status: Degraded, message: nope}}\n  inputPath: {}\n",
            widget.display()
        ),
    )
    .unwrap();
    let output = weft(&["plugin", "test", "health-widget", suite.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("0 passed, 1 failed"));

    std::fs::write(
        &suite,
        "tests:\n- healthStatus: {status: Splendid}\n  inputPath: x.yaml\n",
    )
    .unwrap();
    let output = weft(&["plugin", "test", "health-widget", suite.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown health status"));

    let output = weft(&["plugin", "test", "no-such-plugin", suite.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no plugin named"));
}

#[test]
fn the_generic_fallback_answers_unknown_kinds_and_can_be_turned_off() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gadget.yaml");
    std::fs::write(
        &file,
        "apiVersion: gadgets.example.dev/v1\nkind: Gadget\nmetadata: {name: g, generation: 2}\n\
         status: {observedGeneration: 1}\n",
    )
    .unwrap();
    let output = weft(&["health", file.to_str().unwrap()]);
    assert!(output.status.success());
    let line: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(line["plugin"], "health-generic");
    assert_eq!(line["status"], "progressing");

    let output = weft(&[
        "health",
        "--no-fallback",
        "gadgets.example.dev/*",
        file.to_str().unwrap(),
    ]);
    assert!(output.status.success());
    let line: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(line["plugin"], Value::Null);
    assert_eq!(line["status"], "unknown");
    assert_eq!(
        line["message"],
        "no health check serves gadgets.example.dev/Gadget"
    );
}

#[test]
fn weft_sim_refuses_a_non_loopback_address() {
    let output = weft(&[
        "sim",
        "--listen",
        "0.0.0.0:0",
        "--kubeconfig",
        "/tmp/unused-kubeconfig",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("loopback"));
}

/// The status line's code of `GET path` on a plain-HTTP loopback port, if anything answers.
fn get_status(port: u16, path: &str) -> Option<u16> {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn weft_sim_injects_the_faults_of_a_file_and_follows_its_changes() {
    let dir = tempfile::tempdir().unwrap();
    let faults = dir.path().join("faults.yaml");
    let kubeconfig = dir.path().join("kubeconfig");

    // A file that says nothing it can mean is refused at start, naming the rule.
    std::fs::write(&faults, "- verb: list\n  resource: namespaces\n").unwrap();
    let refused = weft(&[
        "sim",
        "--listen",
        "127.0.0.1:0",
        "--kubeconfig",
        &kubeconfig.to_string_lossy(),
        "--plain-http",
        "--faults",
        &faults.to_string_lossy(),
    ]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("fault rule 1: no action"), "{stderr}");

    std::fs::write(
        &faults,
        "- verb: list\n  resource: namespaces\n  error: 503\n",
    )
    .unwrap();
    let port = crate::support::free_port();
    let mut sim = weft_command()
        .args([
            "sim",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--plain-http",
        ])
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--faults")
        .arg(&faults)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let wait_for = |want: u16, path: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
        loop {
            let got = get_status(port, path);
            if got == Some(want) {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "GET {path} never answered {want} (last: {got:?})"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    // Serving, with the rule in force for namespaces only.
    wait_for(200, "/api/v1/nodes");
    assert_eq!(get_status(port, "/api/v1/namespaces"), Some(503));
    // The file changes: the fault is gone without a restart.
    std::fs::write(&faults, "[]\n").unwrap();
    wait_for(200, "/api/v1/namespaces");
    let _ = sim.kill();
    let _ = sim.wait();
}

#[test]
fn weft_render_of_an_overlay_reaches_its_base_within_the_repository_as_kubectl_kustomize_does() {
    let render = |args: &[&str], dir: &Path| {
        weft_command()
            .current_dir(dir)
            .arg("render")
            .args(args)
            .args(["--type", "kustomize", "--no-cache"])
            .output()
            .unwrap()
    };
    // In Weft's own repository: the overlay named directly, as `kubectl kustomize DIR` takes it, renders what
    // the older form (the layout's top with a `path` parameter) renders.
    let direct = render(
        &["tests/render/kustomize/platform/overlays/cluster-a"],
        &workspace(),
    );
    assert!(
        direct.status.success(),
        "{}",
        String::from_utf8_lossy(&direct.stderr)
    );
    let with_param = render(
        &[
            "tests/render/kustomize/platform",
            "--param",
            "path=overlays/cluster-a",
        ],
        &workspace(),
    );
    assert!(with_param.status.success());
    assert_eq!(stdout(&direct), stdout(&with_param));

    // Outside a git work tree the directory alone is the tree, unless `--root` names a larger one.
    let tree = tempfile::tempdir().unwrap();
    let base = tree.path().join("base");
    let prod = tree.path().join("overlays/prod");
    std::fs::create_dir_all(&base).unwrap();
    std::fs::create_dir_all(&prod).unwrap();
    std::fs::write(
        base.join("cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: base}\n",
    )
    .unwrap();
    std::fs::write(base.join("kustomization.yaml"), "resources: [cm.yaml]\n").unwrap();
    std::fs::write(
        prod.join("kustomization.yaml"),
        "resources: [../../base]\nnamePrefix: prod-\n",
    )
    .unwrap();
    let alone = render(&["overlays/prod"], tree.path());
    assert_eq!(alone.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&alone.stderr).contains("outside"),
        "{}",
        String::from_utf8_lossy(&alone.stderr)
    );
    let rooted = render(&["overlays/prod", "--root", "."], tree.path());
    assert!(
        rooted.status.success(),
        "{}",
        String::from_utf8_lossy(&rooted.stderr)
    );
    assert!(
        stdout(&rooted).contains("name: prod-settings"),
        "{}",
        stdout(&rooted)
    );
    let init = Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(tree.path())
        .status()
        .unwrap();
    assert!(init.success());
    let in_repository = render(&["overlays/prod"], tree.path());
    assert!(in_repository.status.success());
    assert_eq!(stdout(&in_repository), stdout(&rooted));
    // Never past the root.
    let escaping = render(&["overlays/prod", "--root", "overlays"], tree.path());
    assert_eq!(escaping.status.code(), Some(2));
}

#[test]
fn weft_render_renders_through_the_plugins_and_caches() {
    let cache = tempfile::tempdir().unwrap();
    let render = |args: &[&str]| {
        weft_command()
            .arg("render")
            .args(args)
            .env("XDG_CACHE_HOME", cache.path())
            .output()
            .unwrap()
    };
    // Plain YAML: the golden output of the renderer's own corpus.
    let output = render(&["tests/render/yaml/basic/app", "--type", "yaml"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rendered = weft_sdk::testing::yaml_documents(&stdout(&output)).unwrap();
    let expected_text =
        std::fs::read_to_string(workspace().join("tests/render/yaml/basic/expected.yaml")).unwrap();
    let expected = weft_sdk::testing::yaml_documents(&expected_text).unwrap();
    assert_eq!(rendered, expected);
    // The second render of the same inputs comes from the cache.
    let entries = || {
        std::fs::read_dir(cache.path().join("weft/renders"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    assert_eq!(entries(), 1);
    let again = render(&["tests/render/yaml/basic/app", "--type", "yaml"]);
    assert_eq!(stdout(&again), stdout(&output));
    assert_eq!(entries(), 1);

    // A Kustomize overlay through the Wasm renderer (compared with `kubectl kustomize` in tests/references.rs).
    let output = render(&[
        "tests/render/kustomize/platform",
        "--type",
        "kustomize",
        "--param",
        "path=overlays/cluster-a",
        "--no-cache",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let ours = weft_sdk::testing::yaml_documents(&stdout(&output)).unwrap();
    assert!(!ours.is_empty());

    // Errors name the renderer and exit 2; an unknown type lists the known ones.
    let output = render(&["tests/render/yaml/basic/app", "--type", "nonesuch"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("known: "));
}

#[test]
fn weft_render_inflates_a_kustomization_s_helm_charts_through_the_wasm_renderer() {
    // The chart is in the kustomization's chart home: the Kustomize component inflates it with the Helm renderer
    // linked into it, reading nothing but the source view (compared with Helm and kubectl in render-kustomize's
    // helm_parity).
    let output = weft_command()
        .arg("render")
        .args(["tests/render/kustomize-helm/inline", "--type", "kustomize"])
        .arg("--no-cache")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let objects = weft_sdk::testing::yaml_documents(&stdout(&output)).unwrap();
    let names: Vec<String> = objects
        .iter()
        .map(|o| {
            format!(
                "{}/{}",
                o["kind"].as_str().unwrap(),
                o["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            "CustomResourceDefinition/widgets.shop.example.com",
            "ServiceAccount/shop-web-v1",
            "ConfigMap/shop-web-config-v1",
            "Service/shop-web-v1",
            "Deployment/shop-web-v1",
        ]
    );
    assert_eq!(objects[4]["spec"]["replicas"], 3);
}

#[test]
fn weft_render_pins_a_git_ref_to_a_commit() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("app")).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .current_dir(&repo)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.com",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(&["init", "--quiet"]);
    std::fs::write(
        repo.join("app/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {version: one}\n",
    )
    .unwrap();
    git(&["add", "."]);
    git(&["commit", "--quiet", "-m", "one"]);
    let first = git(&["rev-parse", "HEAD"]);
    std::fs::write(
        repo.join("app/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {version: two}\n",
    )
    .unwrap();
    git(&["commit", "--quiet", "-am", "two"]);
    let cache = dir.path().join("cache");
    let render = |reference: &str| {
        Command::new(env!("CARGO_BIN_EXE_weft"))
            .args([
                "render",
                "app",
                "--type",
                "yaml",
                "--repo",
                repo.to_str().unwrap(),
                "--ref",
                reference,
            ])
            .env("WEFT_BUILTIN_PLUGINS", builtins())
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap()
    };
    let head = render("main");
    assert!(
        head.status.success(),
        "{}",
        String::from_utf8_lossy(&head.stderr)
    );
    assert!(stdout(&head).contains("version: two"));
    let pinned = render(&first);
    assert!(stdout(&pinned).contains("version: one"));
    assert!(String::from_utf8_lossy(&pinned.stderr).contains(&first));
    let missing = render("no-such-branch");
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no branch, tag or commit named"));
}

#[test]
fn weft_render_takes_git_credentials_from_the_environment_only() {
    let output = weft(&[
        "render",
        "app",
        "--type",
        "yaml",
        "--repo",
        "https://example.invalid/repo.git",
        "--git-username",
        "deploy",
        "--git-password-env",
        "WEFT_TEST_UNSET_TOKEN",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("--git-password-env WEFT_TEST_UNSET_TOKEN: not set"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // A password is never a flag: a username without the variable is refused by the argument parser.
    let output = weft(&[
        "render",
        "app",
        "--type",
        "yaml",
        "--repo",
        "x",
        "--git-username",
        "deploy",
    ]);
    assert_eq!(output.status.code(), Some(2));
}

/// Serves a simulated cluster on a loopback port from a background thread; returns its kubeconfig path.
fn served_sim(dir: &Path) -> PathBuf {
    let kubeconfig = dir.join("kubeconfig");
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let path = kubeconfig.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async move {
            let sim = weft_sim::Simulator::new(weft_sim::SimConfig::fast());
            let served = sim.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
            served.write_kubeconfig(&path).unwrap();
            ready_tx.send(()).unwrap();
            std::future::pending::<()>().await;
        });
    });
    ready_rx
        .recv_timeout(std::time::Duration::from_secs(300))
        .unwrap();
    kubeconfig
}

#[test]
fn weft_diff_prints_the_plan_and_diffs_without_touching_the_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = served_sim(dir.path());
    let app = dir.path().join("shop");
    std::fs::create_dir(&app).unwrap();
    std::fs::write(
        app.join("objects.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {greeting: hello}\n---\n\
         apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {password: planted-diff-secret}\n",
    )
    .unwrap();
    let args = [
        "diff",
        app.to_str().unwrap(),
        "--type",
        "yaml",
        "--namespace",
        "default",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
    ];
    let output = weft(&args);
    let text = stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(text.contains("2 to create"), "{text}");
    assert!(
        text.contains("create     :ConfigMap:default:settings (not in the cluster)"),
        "{text}"
    );
    assert!(
        text.contains("+++ desired/:ConfigMap:default:settings"),
        "{text}"
    );
    assert!(text.contains("greeting: hello"), "{text}");
    assert!(!text.contains("planted-diff-secret"), "{text}");
    // Nothing was created: a second diff plans the same.
    assert_eq!(stdout(&weft(&args)), text);

    let mut plan_only = args.to_vec();
    plan_only.push("--plan-only");
    let short = stdout(&weft(&plan_only));
    assert!(!short.contains("+++"), "{short}");

    let nowhere = weft(&["diff", "no-such-app"]);
    assert_eq!(nowhere.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&nowhere.stderr).contains("--type"));
}

#[test]
fn weft_render_app_renders_an_app_of_the_configuration_with_its_values_files() {
    let dir = tempfile::tempdir().unwrap();
    let chart = workspace().join("tests/render/helm/charts/basic-app");
    let app = dir.path().join("chart");
    let copy = Command::new("cp")
        .arg("-r")
        .arg(&chart)
        .arg(&app)
        .status()
        .unwrap();
    assert!(copy.success());
    std::fs::write(
        app.join("values-prod.yaml"),
        "replicaCount: 7\nautoscaling:\n  enabled: false\n",
    )
    .unwrap();
    let config = dir.path().join("weft.toml");
    std::fs::write(
        &config,
        format!(
            "data_dir = \"{}\"\n[[app]]\nname = \"web\"\ntype = \"helm\"\nnamespace = \"prod\"\nsource = {{ path = \"chart\" }}\n\
             value_files = [\"values-prod.yaml\"]\nvalues = [\"image:\\n  tag: '9.9'\\n\"]\n",
            dir.path().join("data").display()
        ),
    )
    .unwrap();
    let output = weft(&["render", "web", "--config", config.to_str().unwrap()]);
    let text = stdout(&output);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(text.contains("replicas: 7"), "{text}");
    assert!(text.contains(":9.9"), "{text}");
    assert!(text.contains("app.kubernetes.io/instance: web"), "{text}");

    let missing = weft(&["render", "nope", "--config", config.to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("apps: web"));

    // A values file outside the app's directory is refused by the configuration check.
    std::fs::write(
        &config,
        "[[app]]\nname = \"web\"\ntype = \"helm\"\nnamespace = \"prod\"\nsource = { path = \"chart\" }\nvalue_files = [\"../secrets.yaml\"]\n",
    )
    .unwrap();
    let escaping = weft(&["render", "web", "--config", config.to_str().unwrap()]);
    assert_eq!(escaping.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&escaping.stderr).contains("value_files[0]"));
}

#[test]
fn weft_version_prints_the_version_and_the_commit_it_was_built_from() {
    let output = weft(&["--version"]);
    let text = stdout(&output);
    let prefix = format!("weft {} (commit ", env!("CARGO_PKG_VERSION"));
    let commit = text
        .trim()
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("not `{prefix}COMMIT)`: {text}"));
    // Built from this checkout, the commit is one of its history (the binary may predate a later commit).
    let in_history = Command::new("git")
        .args(["merge-base", "--is-ancestor", commit, "HEAD"])
        .current_dir(workspace())
        .status()
        .expect("git runs");
    assert!(
        in_history.success(),
        "{commit} is not a commit of this checkout's history"
    );
}

#[test]
fn log_lines_are_json_objects_with_log_format_json_and_the_level_is_the_flag_s() {
    let render = |level: &str| {
        weft_command()
            .args(["--log-format", "json", "--log-level", level, "render"])
            .args(["tests/render/kustomize-helm/inline", "--type", "kustomize"])
            .arg("--no-cache")
            .output()
            .unwrap()
    };
    let output = render("debug");
    assert!(output.status.success(), "{}", stderr(&output));
    let lines: Vec<Value> = stderr(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect();
    // The plugin host reports the render at debug.
    assert!(
        lines
            .iter()
            .any(|line| line["level"] == "DEBUG" && line["fields"]["plugin"].is_string()),
        "{lines:#?}"
    );
    // At the default level for a command that is not `serve` (warn), nothing of the kind.
    let quiet = render("warn");
    assert!(quiet.status.success());
    assert!(!stderr(&quiet).contains("DEBUG"), "{}", stderr(&quiet));
    let refused = weft(&["--log-level", "info,=", "health", "nothing.yaml"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("--log-level"),
        "{}",
        stderr(&refused)
    );
}
