//! The `weft` command checked against reference tools: kubectl uses the cluster `weft sim` serves, and `weft render`
//! of a Kustomize overlay gives what `kubectl kustomize` gives; Python and JavaScript plugins built with the real
//! componentize-py and componentize-js (`languages`). Without a tool its checks are reported ignored (and fail
//! under CI); they never pass without running.

#[path = "references/languages.rs"]
mod languages;
#[path = "all/support.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use support::{stdout, weft_command, workspace};
use weft_test_reference::{Failed, Reference};

/// How long `weft sim` may take to write its kubeconfig on a loaded machine.
const START_LIMIT: Duration = Duration::from_secs(300);

/// `weft sim` serving a cluster, its kubeconfig written in `dir` (waited for, generously).
fn weft_sim_in(dir: &Path) -> Result<(std::process::Child, PathBuf), Failed> {
    let kubeconfig = dir.join("kubeconfig");
    let sim = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["sim", "--fast", "--listen", "127.0.0.1:0", "--kubeconfig"])
        .arg(&kubeconfig)
        .stderr(Stdio::null())
        .spawn()?;
    let started = Instant::now();
    while !kubeconfig.exists() && started.elapsed() < START_LIMIT {
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((sim, kubeconfig))
}

fn kubectl_uses_the_cluster_weft_sim_serves(kubectl: &Path) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let (mut sim, kubeconfig) = weft_sim_in(dir.path())?;
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
    if !config.contains("https://127.0.0.1:") || !config.contains("certificate-authority-data: ") {
        return Err(format!(
            "the kubeconfig names no loopback TLS server and its authority: {config}"
        )
        .into());
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

/// Where `@kubernetes/client-node` is installed for these checks: `WEFT_NODE_REFERENCES`, else
/// `target/references/node` (`.ci/run` installs it there).
fn client_node_prefix() -> PathBuf {
    std::env::var_os("WEFT_NODE_REFERENCES")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/references/node"))
}

/// The official JavaScript client, which refuses a plain-HTTP server, lists namespaces and writes and reads a
/// ConfigMap through the kubeconfig `weft sim` writes.
fn client_node_uses_the_cluster_weft_sim_serves(prefix: &Path) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let (mut sim, kubeconfig) = weft_sim_in(dir.path())?;
    // ES modules resolve their imports from where the script is, so it goes beside node_modules.
    let script = prefix.join(format!("weft-check-{}.mjs", std::process::id()));
    std::fs::write(
        &script,
        "import * as k8s from '@kubernetes/client-node';
const kc = new k8s.KubeConfig();
kc.loadFromFile(process.argv[2]);
const core = kc.makeApiClient(k8s.CoreV1Api);
const namespaces = await core.listNamespace();
await core.createNamespacedConfigMap({namespace: 'default', body: {metadata: {name: 'from-node'}, data: {a: '1'}}});
const map = await core.readNamespacedConfigMap({name: 'from-node', namespace: 'default'});
console.log(JSON.stringify({namespaces: namespaces.items.map(n => n.metadata.name), data: map.data}));
",
    )?;
    let output = Command::new("node")
        .arg(&script)
        .arg(&kubeconfig)
        .env("HOME", dir.path())
        .output();
    let _ = std::fs::remove_file(&script);
    sim.kill()?;
    sim.wait()?;
    let output = output?;
    let printed = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "node failed: {printed}{}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let report: serde_json::Value = serde_json::from_str(printed.trim())?;
    if !report["namespaces"]
        .as_array()
        .is_some_and(|names| names.iter().any(|name| name == "kube-system"))
        || report["data"] != serde_json::json!({"a": "1"})
    {
        return Err(format!("unexpected answers: {report}").into());
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

/// Strings that YAML readers are known to retype, and random ones (a fixed seed: the same every run).
fn tricky_strings() -> Vec<String> {
    let mut strings: Vec<String> = [
        "yes",
        "Yes",
        "YES",
        "no",
        "NO",
        "on",
        "On",
        "off",
        "OFF",
        "y",
        "Y",
        "n",
        "N",
        "true",
        "False",
        "null",
        "Null",
        "~",
        "",
        " ",
        " lead",
        "trail ",
        "0x1F",
        "0o17",
        "0755",
        "017",
        "08",
        "1_000",
        "1e3",
        "1E3",
        "-1",
        "+1",
        ".5",
        "1.",
        "-.inf",
        ".Inf",
        ".NaN",
        "NaN",
        "inf",
        "2001-12-14",
        "2001-12-14t21:59:43.10-05:00",
        "2001-12-14 21:59:43.10 -5",
        "1:20",
        "190:20:30.15",
        "<<",
        "=",
        "a: b",
        "a #b",
        "#x",
        "key:",
        "- item",
        "? q",
        "[x]",
        "{x}",
        "*alias",
        "&anchor",
        "!tag",
        "%d",
        "@at",
        "`tick",
        "'single",
        "\"double",
        "a\nb",
        "a\nb\n",
        "a\n\nb\n\n",
        "tab\there",
        "\ttab",
        "unicode é ✓",
        "back\\slash",
        "0b1010",
        "0.",
        "1.0e+300",
        "-0",
        "0",
        "00",
        "1:2:3",
        "12:30",
        ":",
        "-",
        "--",
        "---",
        "...",
        "|",
        ">",
        "!!str",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let alphabet: Vec<char> = "aY0189.-+_:# \n\t'\"yesnonulltruefalseinfnaneE~<>=[]{}*&!|%@`,?\\é"
        .chars()
        .collect();
    let mut state: u64 = 0x5eed_2026_1201;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..400 {
        let len = (next() % 12) as usize;
        strings.push(
            (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect(),
        );
    }
    strings
}

/// A ConfigMap holding every tricky string as a value (and as a label value where labels allow any string).
fn tricky_config_map() -> serde_json::Value {
    let data: serde_json::Map<String, serde_json::Value> = tricky_strings()
        .into_iter()
        .enumerate()
        .map(|(i, s)| (format!("k{i}"), serde_json::Value::String(s)))
        .collect();
    serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "tricky"}, "data": data})
}

/// Reads `yaml` back with a Python YAML library and compares with `expected`.
fn python_reads_back(script: &str, yaml: &str, expected: &serde_json::Value) -> Result<(), Failed> {
    use std::io::Write as _;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(yaml.as_bytes())?;
    let output = child.wait_with_output()?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned().into());
    }
    let read: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    same_data(&read, expected)
}

fn same_data(read: &serde_json::Value, expected: &serde_json::Value) -> Result<(), Failed> {
    let (read, expected) = (&read["data"], &expected["data"]);
    let wrong: Vec<String> = expected
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, value)| read.get(key.as_str()) != Some(*value))
        .map(|(key, value)| {
            format!(
                "{value} read back as {}",
                read.get(key.as_str()).unwrap_or(&serde_json::Value::Null)
            )
        })
        .collect();
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n").into())
    }
}

const PYYAML: &str = "import json, sys, yaml\nprint(json.dumps(yaml.safe_load(sys.stdin)))";
const RUAMEL: &str = "import json, sys\nfrom ruamel.yaml import YAML\nprint(json.dumps(YAML(typ='safe', pure=True).load(sys.stdin)))";

fn kubectl_reads_back(
    kubectl: &Path,
    yaml: &str,
    expected: &serde_json::Value,
) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let (mut sim, kubeconfig) = weft_sim_in(dir.path())?;
    let file = dir.path().join("tricky.yaml");
    std::fs::write(&file, yaml)?;
    let output = Command::new(kubectl)
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .args(["apply", "--dry-run=client", "-o", "json", "-f"])
        .arg(&file)
        .env("HOME", dir.path())
        .output();
    sim.kill()?;
    sim.wait()?;
    let output = output?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned().into());
    }
    let read: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    same_data(&read, expected)
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
    let pyyaml = Reference::python_module("yaml", "PyYAML");
    let ruamel = Reference::python_module("ruamel.yaml", "ruamel.yaml");
    let object = tricky_config_map();
    let yaml = weft_core::yaml::to_yaml(&object);
    let mut trials = trials;
    {
        let (yaml, object) = (yaml.clone(), object.clone());
        trials.push(pyyaml.trial(
            "yaml weft prints reads back the same in a YAML 1.1 reader (PyYAML)",
            move || python_reads_back(PYYAML, &yaml, &object),
        ));
    }
    {
        let (yaml, object) = (yaml.clone(), object.clone());
        trials.push(ruamel.trial(
            "yaml weft prints reads back the same in a YAML 1.2 reader (ruamel.yaml)",
            move || python_reads_back(RUAMEL, &yaml, &object),
        ));
    }
    {
        let path = path();
        trials.push(kubectl.trial(
            "yaml weft prints reads back the same in kubectl apply --dry-run=client",
            move || kubectl_reads_back(&path, &yaml, &object),
        ));
    }
    let client_node = Reference::node_package("@kubernetes/client-node", &client_node_prefix());
    {
        let prefix = client_node.path().map(PathBuf::from).unwrap_or_default();
        trials.push(client_node.trial(
            "the Kubernetes JavaScript client uses the cluster weft sim serves over TLS",
            move || client_node_uses_the_cluster_weft_sim_serves(&prefix),
        ));
    }
    let (language_tools, language_trials) = languages::trials(&pyyaml);
    trials.extend(language_trials);
    let mut references = vec![&kubectl, &pyyaml, &ruamel, &client_node];
    references.extend(language_tools.iter());
    weft_test_reference::run(&references, trials)
}
