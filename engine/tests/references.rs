//! The `weft` command checked against reference tools: kubectl uses the cluster `weft sim` serves, and `weft render`
//! of a Kustomize overlay gives what `kubectl kustomize` gives. Without kubectl these are reported ignored (and
//! fail under CI); they never pass without running.

#[path = "all/support.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use support::{stdout, weft_command, workspace};
use weft_test_reference::{Failed, Reference};

/// How long `weft sim` may take to write its kubeconfig on a loaded machine.
const START_LIMIT: Duration = Duration::from_secs(300);

fn kubectl_uses_the_cluster_weft_sim_serves(kubectl: &Path) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let kubeconfig = dir.path().join("kubeconfig");
    let mut sim = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["sim", "--fast", "--listen", "127.0.0.1:0", "--kubeconfig"])
        .arg(&kubeconfig)
        .stderr(Stdio::null())
        .spawn()?;
    let started = Instant::now();
    while !kubeconfig.exists() && started.elapsed() < START_LIMIT {
        std::thread::sleep(Duration::from_millis(50));
    }
    let config = std::fs::read_to_string(&kubeconfig);
    let nodes = Command::new(kubectl)
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .args(["get", "nodes", "-o", "name"])
        .env("HOME", dir.path())
        .output();
    sim.kill()?;
    sim.wait()?;
    let config = config.map_err(|e| format!("weft sim wrote no kubeconfig: {e}"))?;
    if !config.contains("http://127.0.0.1:") {
        return Err(format!("the kubeconfig names no loopback server: {config}").into());
    }
    let nodes = nodes?;
    let listed = String::from_utf8_lossy(&nodes.stdout);
    if !nodes.status.success() || !listed.contains("node/") {
        return Err(format!(
            "kubectl get nodes: {listed}{}",
            String::from_utf8_lossy(&nodes.stderr)
        )
        .into());
    }
    Ok(())
}

fn weft_render_of_an_overlay_is_what_kubectl_kustomize_builds(
    kubectl: &Path,
) -> Result<(), Failed> {
    let dir = "tests/render/kustomize/platform";
    let output = weft_command()
        .args([
            "render",
            dir,
            "--type",
            "kustomize",
            "--param",
            "path=overlays/cluster-a",
            "--no-cache",
        ])
        .output()?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned().into());
    }
    let ours = weft_sdk::testing::yaml_documents(&stdout(&output))?;
    let theirs = Command::new(kubectl)
        .args(["kustomize", &format!("{dir}/overlays/cluster-a")])
        .current_dir(workspace())
        .output()?;
    if !theirs.status.success() {
        return Err(String::from_utf8_lossy(&theirs.stderr).into_owned().into());
    }
    let theirs = weft_sdk::testing::yaml_documents(&String::from_utf8_lossy(&theirs.stdout))?;
    if ours.is_empty() || ours != theirs {
        return Err(format!("weft render: {ours:#?}\nkubectl kustomize: {theirs:#?}").into());
    }
    Ok(())
}

fn main() -> ExitCode {
    let kubectl = Reference::kubectl();
    let path = || kubectl.path().map(PathBuf::from).unwrap_or_default();
    let trials = vec![
        {
            let path = path();
            kubectl.trial("kubectl uses the cluster weft sim serves", move || {
                kubectl_uses_the_cluster_weft_sim_serves(&path)
            })
        },
        {
            let path = path();
            kubectl.trial(
                "weft render of an overlay is what kubectl kustomize builds",
                move || weft_render_of_an_overlay_is_what_kubectl_kustomize_builds(&path),
            )
        },
    ];
    weft_test_reference::run(&[&kubectl], trials)
}
