//! `weft health`, `weft plugin test` and `weft plugin list` with Lua and CEL checks, end to end: `--lua-dir`,
//! `--argocd-cm`, `--config` with `[[health.cel]]`, a broken CEL expression or Lua script stopping the command (and
//! `weft serve`) when it loads them, a duplicate key reported with both places, and the configured checks listed
//! with where they came from.

use std::process::Output;

use crate::support::{json_lines, stderr, stdout, weft};

const CORPUS: &str = "tests/conformance/argocd";

#[test]
fn weft_health_lua_dir_answers_with_the_scripts() {
    let output = weft(&[
        "health",
        "--lua-dir",
        "tests/lua/resource_customizations",
        &format!("{CORPUS}/cert-manager.io/Certificate/progressing_issuing.yaml"),
        &format!("{CORPUS}/_.crossplane.io/_/configurationrevision_healthy.yaml"),
        &format!("{CORPUS}/elasticsearch.k8s.elastic.co/Elasticsearch/progressing.yaml"),
        "tests/conformance/gitops-engine/deployment-degraded.yaml",
    ]);
    let lines = json_lines(&output);
    let summary: Vec<(&str, &str, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["plugin"].as_str().unwrap(),
                l["status"].as_str().unwrap(),
                l["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "lua:cert-manager.io/Certificate",
                "progressing",
                "Issuing certificate as Secret does not exist"
            ),
            (
                "lua:*.crossplane.io/*",
                "healthy",
                "Resource is up-to-date."
            ),
            (
                "lua:elasticsearch.k8s.elastic.co/Elasticsearch",
                "progressing",
                "The desired amount of availableNodes is 5 but the current amount is 3"
            ),
            (
                "health-core",
                "degraded",
                "Deployment \"guestbook-ui\" exceeded its progress deadline"
            ),
        ]
    );
}

#[test]
fn weft_health_argocd_cm_uses_per_kind_and_merged_keys() {
    let dir = tempfile::tempdir().unwrap();
    let cm = dir.path().join("argocd-cm.yaml");
    std::fs::write(
        &cm,
        r#"apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm, namespace: argocd}
data:
  resource.customizations.health.cert-manager.io_Certificate: |
    for _, c in ipairs(obj.status.conditions) do
      if c.type == "Ready" and c.status == "True" then
        return {status = "Healthy", message = "from the per-kind key: " .. c.message}
      end
    end
    return {status = "Progressing", message = "waiting"}
  resource.customizations: |
    k8s.mariadb.com/MariaDB:
      health.lua: |
        hs = {}
        hs.status = "Suspended"
        hs.message = "from the merged key"
        return hs
"#,
    )
    .unwrap();
    let cm = cm.display().to_string();
    let output = weft(&[
        "health",
        "--argocd-cm",
        &cm,
        &format!("{CORPUS}/cert-manager.io/Certificate/healthy_issued.yaml"),
        &format!("{CORPUS}/k8s.mariadb.com/MariaDB/restore_complete.yaml"),
    ]);
    let lines = json_lines(&output);
    assert_eq!(lines[0]["plugin"], "lua:cert-manager.io/Certificate");
    assert_eq!(
        lines[0]["message"],
        "from the per-kind key: Certificate issued successfully"
    );
    assert_eq!(lines[1]["plugin"], "lua:k8s.mariadb.com/MariaDB");
    assert_eq!(lines[1]["status"], "suspended");

    // The same kind from the ConfigMap and the directory: refused, naming both places.
    let output = weft(&[
        "health",
        "--argocd-cm",
        &cm,
        "--lua-dir",
        "tests/lua/resource_customizations",
        &format!("{CORPUS}/cert-manager.io/Certificate/healthy_issued.yaml"),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cert-manager.io/Certificate")
            && stderr.contains("argocd-cm.yaml")
            && stderr.contains("Certificate/health.lua"),
        "{stderr}"
    );
}

#[test]
fn weft_health_config_runs_cel_checks_and_refuses_broken_ones() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("weft.toml");
    std::fs::write(
        &config,
        r#"
[[health.cel]]
kind = "cert-manager.io/Certificate"
current = "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')"
in_progress = "!has(self.status) || status.conditions.exists(c, c.type == 'Issuing' && c.status == 'True')"
failed = "status.conditions.exists(c, c.type == 'Ready' && c.status == 'False')"

[[health.lua]]
kind = "k8s.mariadb.com/MariaDB"
script = "return {status = 'Healthy', message = 'inline script'}"
"#,
    )
    .unwrap();
    let config = config.display().to_string();
    let output = weft(&[
        "health",
        "--config",
        &config,
        &format!("{CORPUS}/cert-manager.io/Certificate/healthy_issued.yaml"),
        &format!("{CORPUS}/cert-manager.io/Certificate/progressing_issuing.yaml"),
        &format!("{CORPUS}/k8s.mariadb.com/MariaDB/no_status.yaml"),
    ]);
    let lines = json_lines(&output);
    assert_eq!(lines[0]["plugin"], "cel:cert-manager.io/Certificate");
    assert_eq!(lines[0]["status"], "healthy");
    assert_eq!(lines[0]["message"], "Certificate issued successfully");
    assert_eq!(lines[1]["status"], "progressing");
    assert_eq!(lines[2]["plugin"], "lua:k8s.mariadb.com/MariaDB");
    assert_eq!(lines[2]["message"], "inline script");

    let broken = dir.path().join("broken.toml");
    std::fs::write(
        &broken,
        "[[health.cel]]\nkind = \"example.com/Widget\"\ncurrent = \"status.ready == \"\n",
    )
    .unwrap();
    let output = weft(&[
        "health",
        "--config",
        &broken.display().to_string(),
        &format!("{CORPUS}/cert-manager.io/Certificate/healthy_issued.yaml"),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("health.cel[0].current")
            && stderr.contains("example.com/Widget")
            && stderr.contains("\"status.ready == \""),
        "{stderr}"
    );
}

#[test]
fn weft_plugin_test_runs_a_lua_kind_directory_and_a_script_file() {
    let dir = "tests/lua/resource_customizations/argoproj.io/AnalysisRun";
    let output = weft(&["plugin", "test", dir]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("10 passed, 0 failed"), "{stdout}");
    let script = format!("{dir}/health.lua");
    let suite = format!("{dir}/health_test.yaml");
    let output = weft(&["plugin", "test", &script, &suite]);
    assert!(output.status.success());
    // A script that disagrees with the suite fails the run.
    let dir = tempfile::tempdir().unwrap();
    let wrong = dir.path().join("health.lua");
    std::fs::write(&wrong, "return {status = 'Healthy', message = ''}").unwrap();
    let output = weft(&["plugin", "test", &wrong.display().to_string(), &suite]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stdout).contains("FAIL"));
}

/// A Lua script that does not compile: `hs.status =` has no value, which Lua finds at the `end` on line 4.
const BROKEN_LUA: &str =
    "local hs = {}\nif obj.status == nil then\n  hs.status =\nend\nreturn hs\n";

/// The command stopped as bad input, naming where the script came from, its kind and the line.
fn assert_broken_lua_reported(output: &Output, place: &str) {
    let stderr = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(place)
            && stderr.contains("the Lua health script for example.com/Widget does not compile")
            && stderr.contains("line 4:"),
        "{stderr}"
    );
}

#[test]
fn a_lua_script_that_does_not_compile_is_reported_when_it_is_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let object = format!("{CORPUS}/cert-manager.io/Certificate/healthy_issued.yaml");

    // A resource_customizations directory: the file.
    let scripts = dir.path().join("resource_customizations");
    let kind_dir = scripts.join("example.com/Widget");
    std::fs::create_dir_all(&kind_dir).unwrap();
    std::fs::write(kind_dir.join("health.lua"), BROKEN_LUA).unwrap();
    let output = weft(&[
        "health",
        "--lua-dir",
        &scripts.display().to_string(),
        &object,
    ]);
    assert_broken_lua_reported(&output, "example.com/Widget/health.lua");

    // An argocd-cm ConfigMap: the key.
    let cm = dir.path().join("argocd-cm.yaml");
    let indented: String = BROKEN_LUA.lines().map(|l| format!("    {l}\n")).collect();
    std::fs::write(
        &cm,
        format!("kind: ConfigMap\ndata:\n  resource.customizations.health.example.com_Widget: |\n{indented}"),
    )
    .unwrap();
    let output = weft(&["health", "--argocd-cm", &cm.display().to_string(), &object]);
    assert_broken_lua_reported(&output, "resource.customizations.health.example.com_Widget");

    // weft.toml: through `weft health --config`, and when `weft serve` loads it.
    let config = dir.path().join("weft.toml");
    std::fs::write(
        &config,
        format!("[[health.lua]]\nkind = \"example.com/Widget\"\nscript = '''\n{BROKEN_LUA}'''\n"),
    )
    .unwrap();
    let config = config.display().to_string();
    let output = weft(&["health", "--config", &config, &object]);
    assert_broken_lua_reported(&output, "health.lua[0]");
    let output = weft(&["serve", "--config", &config]);
    assert_broken_lua_reported(&output, "health.lua[0]");

    // `weft plugin test` on a .lua file stops before running a case.
    let script = kind_dir.join("health.lua");
    let suite = "tests/lua/resource_customizations/argoproj.io/AnalysisRun/health_test.yaml";
    let output = weft(&["plugin", "test", &script.display().to_string(), suite]);
    let stderr = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("example.com/Widget/health.lua")
            && stderr.contains("does not compile")
            && stderr.contains("line 4:"),
        "{stderr}"
    );
    assert!(!stdout(&output).contains("passed"));
}

#[test]
fn weft_plugin_list_shows_the_configured_checks_and_their_sources() {
    let dir = tempfile::tempdir().unwrap();
    let cm = dir.path().join("argocd-cm.yaml");
    std::fs::write(
        &cm,
        "kind: ConfigMap\ndata:\n  resource.customizations.health.example.com_Gadget: |\n    return nil\n",
    )
    .unwrap();
    let config = dir.path().join("weft.toml");
    std::fs::write(
        &config,
        "[[health.cel]]\nkind = \"example.com/Widget\"\ncurrent = \"status.ready == true\"\n",
    )
    .unwrap();
    let output = weft(&[
        "plugin",
        "list",
        "--lua-dir",
        "tests/lua/resource_customizations",
        "--argocd-cm",
        &cm.display().to_string(),
        "--config",
        &config.display().to_string(),
    ]);
    let stdout = stdout(&output);
    assert!(output.status.success(), "{}", stderr(&output));
    let line = |name: &str| {
        stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} in\n{stdout}"))
    };
    let certificate = line("lua:cert-manager.io/Certificate");
    assert!(
        certificate.contains("health-check")
            && certificate.contains("user")
            && certificate.contains("runs on health-lua")
            && certificate.contains(
                "from tests/lua/resource_customizations/cert-manager.io/Certificate/health.lua"
            ),
        "{certificate}"
    );
    assert!(line("lua:*.crossplane.io/*").contains("_.crossplane.io/_/health.lua"));
    let gadget = line("lua:example.com/Gadget");
    assert!(
        gadget.contains("argocd-cm.yaml")
            && gadget.contains("resource.customizations.health.example.com_Gadget"),
        "{gadget}"
    );
    let widget = line("cel:example.com/Widget");
    assert!(
        widget.contains("runs on health-cel") && widget.contains("health.cel[0]"),
        "{widget}"
    );
    // The plugins themselves are listed too, with no source of their own.
    assert!(!line("health-core").contains("runs on"));
    assert!(line("health-lua").contains("builtin"));

    // A ConfigMap named on the command line and in the configuration too is read once, not refused as a
    // duplicate of itself.
    let naming = dir.path().join("naming.toml");
    std::fs::write(&naming, "[health]\nargocd_cm = [\"argocd-cm.yaml\"]\n").unwrap();
    let output = weft(&[
        "plugin",
        "list",
        "--argocd-cm",
        &cm.display().to_string(),
        "--config",
        &naming.display().to_string(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let listed = crate::support::stdout(&output);
    let gadgets = listed
        .lines()
        .filter(|l| l.split_whitespace().next() == Some("lua:example.com/Gadget"))
        .count();
    assert_eq!(gadgets, 1, "{listed}");
}
