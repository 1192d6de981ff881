//! Weft's chart's NOTES.txt, as Helm's own library renders it after an install: how to reach the API and console
//! (a port-forward, or the Ingress's host), how to read the first admin token from its Secret and then delete it,
//! how to point the `weft` CLI at the server, and how to turn self-management on (or that it is on).

use std::process::Command;

use serde_json::{Value, json};
use weft_test_reference::Failed;

/// The notes Helm prints for release `weft` in `weft-system` with `values`.
fn notes(values: Value) -> Result<String, Failed> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new("python3")
        .arg(root.join("references/chart_notes.py"))
        .arg(root.join("../deploy/helm/weft"))
        .arg(values.to_string())
        .output()?;
    if !output.status.success() {
        return Err(format!("Helm failed: {}", String::from_utf8_lossy(&output.stderr)).into());
    }
    Ok(String::from_utf8(output.stdout)?)
}

/// Fails naming the first of `expected` that `notes` lacks, and the first of `unexpected` it holds.
fn check(case: &str, notes: &str, expected: &[&str], unexpected: &[&str]) -> Result<(), Failed> {
    if let Some(missing) = expected.iter().find(|text| !notes.contains(**text)) {
        return Err(format!("{case}: the notes lack {missing:?}:\n{notes}").into());
    }
    if let Some(present) = unexpected.iter().find(|text| notes.contains(**text)) {
        return Err(format!("{case}: the notes hold {present:?}:\n{notes}").into());
    }
    Ok(())
}

pub fn the_charts_notes_say_how_to_reach_weft_read_its_token_point_the_cli_and_manage_itself()
-> Result<(), Failed> {
    let token = "kubectl -n weft-system get secret weft-initial-admin-token -o jsonpath='{.data.token}' | base64 -d";
    check(
        "defaults",
        &notes(json!({}))?,
        &[
            "kubectl -n weft-system port-forward svc/weft 7780:7780",
            token,
            "kubectl -n weft-system delete secret weft-initial-admin-token",
            "export WEFT_SERVER=http://127.0.0.1:7780",
            "export WEFT_TOKEN=",
            "helm upgrade weft deploy/helm/weft -n weft-system --reuse-values --set selfManagement.enabled=true",
        ],
        &[
            "podDisruptionBudget is on with one replica",
            "rbac.create is false",
        ],
    )?;
    check(
        "an Ingress with TLS, self-management on, a budget over one replica",
        &notes(json!({
            "ingress": {"enabled": true, "hosts": [{"host": "weft.example.com", "paths": [{"path": "/"}]}],
                        "tls": [{"secretName": "weft-tls", "hosts": ["weft.example.com"]}]},
            "selfManagement": {"enabled": true, "repoURL": "https://git.example.com/platform/weft.git",
                               "targetRevision": "v1.2.3"},
            "podDisruptionBudget": {"enabled": true},
        }))?,
        &[
            "https://weft.example.com/",
            "export WEFT_SERVER=https://weft.example.com",
            token,
            "Application weft-system/weft",
            "https://git.example.com/platform/weft.git at v1.2.3",
            "kubectl -n weft-system get application weft",
            "podDisruptionBudget is on with one replica",
        ],
        &["port-forward", "--set selfManagement.enabled=true"],
    )?;
    check(
        "without the chart's RBAC",
        &notes(json!({"rbac": {"create": false}}))?,
        &["rbac.create is false", token],
        &[],
    )
}
