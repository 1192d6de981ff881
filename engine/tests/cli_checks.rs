//! `weft health` and `weft plugin test` with Lua and CEL checks, end to end: `--lua-dir`, `--argocd-cm`, `--config`
//! with `[[health.cel]]`, a broken CEL expression stopping the command, and a duplicate key reported with both
//! places.

mod support;

use support::{json_lines, weft};

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
