//! The files the examples take as the reader's own, made just before the block that names them: a directory of
//! manifests to serve, Argo CD customizations with a suite, manifests to assess, an argocd-cm ConfigMap, the README's
//! own `[health]` configuration as `weft.toml`, a Database to assess, and a gate plugin's folder.

use std::path::{Path, PathBuf};

use super::shell::{Block, blocks_of};

/// The Argo CD customization the README's Lua examples use: cert-manager's Certificate, from the Lua corpus.
const CERTIFICATE: &str = "tests/lua/resource_customizations/cert-manager.io/Certificate";

/// Makes, in `cwd` (or `~`, `home`), the files `block` names that the reader is taken to have.
pub fn prepare(block: &Block, cwd: &Path, home: &Path, workspace: &Path) {
    let body = &block.body;
    if body.contains("~/src/hello/deploy") {
        let dir = home.join("src/hello/deploy");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("hello.yaml"), HELLO).unwrap();
    }
    if body.contains("my-customizations") {
        let kind = cwd.join("my-customizations/cert-manager.io/Certificate");
        suite_into(&workspace.join(CERTIFICATE), &kind);
    }
    if body.contains("health.lua health_test.yaml") {
        suite_into(&workspace.join(CERTIFICATE), cwd);
    }
    if body.contains("manifests/") {
        let manifests = cwd.join("manifests");
        std::fs::create_dir_all(&manifests).unwrap();
        let corpus = workspace.join("tests/conformance/argocd/cert-manager.io/Certificate");
        for name in ["healthy_issued.yaml", "progressing_issuing.yaml"] {
            std::fs::copy(corpus.join(name), manifests.join(name)).unwrap();
        }
        std::fs::write(manifests.join("widget.yaml"), WIDGET).unwrap();
    }
    if body.contains("argocd-cm.yaml") || body.contains("weft.toml") {
        std::fs::write(cwd.join("argocd-cm.yaml"), ARGOCD_CM).unwrap();
    }
    if body.contains("weft.toml") {
        // The README's own `[health]` example, with the customizations directory it names.
        let readme = std::fs::read_to_string(workspace.join("README.md")).unwrap();
        let health = blocks_of("README.md", &readme)
            .into_iter()
            .find(|b| b.language == "toml" && b.body.contains("[health]"))
            .expect("the README shows a [health] configuration");
        std::fs::write(cwd.join("weft.toml"), health.body).unwrap();
        let sprocket = cwd.join("customizations/example.com/Sprocket");
        std::fs::create_dir_all(&sprocket).unwrap();
        std::fs::write(sprocket.join("health.lua"), SPROCKET_LUA).unwrap();
    }
    if body.contains("my-database.yaml") {
        let healthy = std::fs::read_to_string(cwd.join("testdata/healthy.yaml"))
            .expect("the scaffold's healthy case, in the folder the tutorial is in");
        std::fs::write(cwd.join("my-database.yaml"), healthy).unwrap();
    }
}

/// A customization's script and its suite in `into`, the suite's objects copied into `testdata/` beside it.
fn suite_into(from: &Path, into: &Path) {
    std::fs::create_dir_all(into.join("testdata")).unwrap();
    std::fs::copy(from.join("health.lua"), into.join("health.lua")).unwrap();
    let suite = std::fs::read_to_string(from.join("health_test.yaml")).unwrap();
    let mut rewritten = String::new();
    for line in suite.lines() {
        match line.split_once("inputPath: ") {
            Some((indent, input)) => {
                let source: PathBuf = from.join(input.trim());
                let name = source.file_name().unwrap().to_string_lossy().into_owned();
                std::fs::copy(&source, into.join("testdata").join(&name)).unwrap();
                rewritten.push_str(&format!("{indent}inputPath: testdata/{name}\n"));
            }
            None => {
                rewritten.push_str(line);
                rewritten.push('\n');
            }
        }
    }
    std::fs::write(into.join("health_test.yaml"), rewritten).unwrap();
}

/// A folder for a gate plugin whose code is `code`, as `docs/gates.md` describes one: the SDK with its `gate`
/// feature, a `cdylib`, a manifest of the `gate` world.
pub fn gate_folder(dir: &Path, name: &str, code: &str) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(folder.join("src")).unwrap();
    let sdk = super::workspace().join("sdk");
    std::fs::write(
        folder.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [lib]\ncrate-type = [\"cdylib\", \"rlib\"]\n\n\
             [dependencies]\nweft-sdk = {{ path = \"{}\", features = [\"gate\"], default-features = false }}\n\n\
             [workspace]\n",
            sdk.display()
        ),
    )
    .unwrap();
    std::fs::write(
        folder.join("weft-plugin.toml"),
        format!("name = \"{name}\"\nworld = \"gate\"\n"),
    )
    .unwrap();
    std::fs::write(folder.join("src/lib.rs"), code).unwrap();
    folder
}

/// The reader's first app: one Deployment.
const HELLO: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: hello}
spec:
  replicas: 1
  selector: {matchLabels: {app: hello}}
  template:
    metadata: {labels: {app: hello}}
    spec:
      containers: [{name: hello, image: nginx:1.27}]
";

/// An object of the kind the README's `[[health.lua]]` example checks.
const WIDGET: &str = "apiVersion: example.com/v1
kind: Widget
metadata: {name: one, namespace: default}
status:
  conditions: [{type: Ready, status: \"True\", message: the widget is ready}]
";

/// An argocd-cm with a health customization of a kind none of the other examples configure.
const ARGOCD_CM: &str = "apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm, namespace: argocd}
data:
  resource.customizations.health.example.com_Gizmo: |
    return {status = \"Healthy\", message = \"gizmos are always fine\"}
";

/// A script in the `customizations` directory the README's `weft.toml` names.
const SPROCKET_LUA: &str = "return {status = \"Healthy\", message = \"sprockets turn\"}\n";
