//! The layers Cargo and the module tree must keep: every workspace crate has a place in [`LAYERS`] and depends only
//! on crates below it (read from `cargo metadata`), guests depend on nothing of the host, only the `weft` command and
//! the tests reach the plugin toolchain, and no crate's top-level modules import each other in a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The rank of the guest libraries: the highest a guest may depend on.
const GUEST_LIBRARIES: u8 = 2;

/// Where each workspace crate sits: its rank (a crate may depend only on lower ranks) and what it is.
#[rustfmt::skip]
const LAYERS: &[(&str, u8, &str)] = &[
    // Foundations: no Weft crate below them (0), or only those (1).
    ("weft-cel", 0, "the CEL evaluator"),
    ("weft-k8s", 0, "Kubernetes semantics: list types, patch strategies, selectors"),
    ("weft-compiled-cache", 0, "the compiled-component cache file format"),
    ("weft-test-reference", 0, "the reference-tool test harness"),
    ("weft-sdk", 1, "the plugin SDK and contract bindings, shared by host and guests"),
    ("weft-sim", 1, "the Kubernetes API simulator"),
    // Guest libraries: sources guests link, built for Wasm inside them; they see only the foundations.
    ("render-helm-library", 2, "guest library: the Helm renderer's sources, linked by the Kustomize renderer for helmCharts"),
    // Guests: plugins, built for Wasm; they see only the foundations and the guest libraries.
    ("gate-cel", 3, "guest"),
    ("gate-policy", 3, "guest"),
    ("health-cel", 3, "guest"),
    ("health-cluster", 3, "guest"),
    ("health-core", 3, "guest"),
    ("health-data", 3, "guest"),
    ("health-delivery", 3, "guest"),
    ("health-generic", 3, "guest"),
    ("health-infra", 3, "guest"),
    ("health-lua", 3, "guest"),
    ("health-network", 3, "guest"),
    ("health-widget", 3, "guest"),
    ("render-helm", 3, "guest"),
    ("render-jsonnet", 3, "guest"),
    ("render-kustomize", 3, "guest"),
    ("render-yaml", 3, "guest"),
    ("steer-detect", 3, "guest"),
    ("escape-renderer", 3, "guest"),
    ("hostile", 3, "guest"),
    ("hostile-gate", 3, "guest"),
    ("secret-snoop", 3, "guest"),
    // What every host layer shares.
    ("weft-core", 4, "names, tracking marks, Secret redaction, YAML, logs, metrics"),
    ("weft-plugin-contract", 4, "what a plugin is: worlds, manifest, limits, shape"),
    // The host's layers, bottom up.
    ("weft-plugin-host", 5, "the wasmtime host and the plugin registry"),
    ("weft-source", 5, "git sources, credentials, source views, chart repositories"),
    ("weft-sync", 5, "the pure sync core: diff, plan, fuse, status, tree"),
    ("weft-plugin-build", 5, "the plugin toolchain (the command's, never the runtime's)"),
    ("weft-render", 6, "rendering apps through renderer plugins"),
    ("weft-health", 6, "assessing objects' health"),
    ("weft-cluster", 6, "talking to a cluster through kube-rs"),
    ("weft-store", 6, "the store: apps, states, the operation queue, settings, tokens in SQLite or PostgreSQL"),
    ("weft-build", 7, "images from source: steer plugins plan, BuildKit, Podman or commands build (no apps)"),
    ("weft-auth", 7, "who calls the API: tokens and OIDC JWTs to principals and roles, rate limits"),
    ("weft-app", 8, "what an app is, as configured, and the rules it must pass"),
    ("weft-apply", 9, "making a cluster match an app's render: compare, gates, apply, record, status"),
    ("weft-applications", 10, "Application and ApplicationSet resources as pure rules: tenancy, conversion, status"),
    ("weft-engine", 11, "the server's wiring: queue, reconciler, deploy, API and the resource controllers"),
    ("weft-console", 11, "the web console, over the API router (nothing of the engine)"),
    ("weft", 12, "the weft command: serve, the API client, the plugin toolchain's commands"),
    ("weft-tests", 13, "the integration tests"),
];

/// Crates that may depend on the plugin toolchain.
const TOOLCHAIN_USERS: &[&str] = &["weft", "weft-tests"];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(workspace_root())
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Each workspace package: its name, its manifest's directory, and the workspace crates it builds with (normal and
/// build dependencies; dev-dependencies serve only its own tests and benches, so they are not layers: the engine's
/// benches build plugins with the toolchain, its library never does).
fn packages() -> Vec<(String, PathBuf, BTreeSet<String>)> {
    let metadata = metadata();
    let all = metadata["packages"].as_array().unwrap();
    let names: BTreeSet<String> = all
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    all.iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].as_str() != Some("dev"))
                .map(|d| d["name"].as_str().unwrap().to_string())
                .filter(|d| names.contains(d))
                .collect();
            let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap());
            (
                p["name"].as_str().unwrap().to_string(),
                manifest.parent().unwrap().to_path_buf(),
                deps,
            )
        })
        .collect()
}

/// The layering broken by these crates' dependencies, one line per broken rule (empty when all hold).
fn layering_violations(packages: &[(String, PathBuf, BTreeSet<String>)]) -> Vec<String> {
    let rank: BTreeMap<&str, (u8, &str)> = LAYERS
        .iter()
        .map(|(name, rank, what)| (*name, (*rank, *what)))
        .collect();
    let mut violations = Vec::new();
    for (name, _, deps) in packages {
        let Some(&(own, what)) = rank.get(name.as_str()) else {
            violations.push(format!(
                "{name} has no place in LAYERS (tests/layering.rs): say which layer it is"
            ));
            continue;
        };
        for dep in deps {
            let Some(&(theirs, _)) = rank.get(dep.as_str()) else {
                continue; // reported as its own crate
            };
            if theirs >= own {
                violations.push(format!(
                    "{name} (layer {own}) depends on {dep} (layer {theirs}): a crate depends only on layers below it"
                ));
            }
            if what == "guest" && theirs > GUEST_LIBRARIES {
                violations.push(format!(
                    "{name} is a guest and depends on {dep}: guests see only the foundations (the SDK) and the guest libraries"
                ));
            }
            if what.starts_with("guest library") && theirs > 1 {
                violations.push(format!(
                    "{name} is a guest library and depends on {dep}: guest libraries see only the foundations (the SDK)"
                ));
            }
            if dep == "weft-plugin-build" && !TOOLCHAIN_USERS.contains(&name.as_str()) {
                violations.push(format!(
                    "{name} depends on the plugin toolchain: only {TOOLCHAIN_USERS:?} may"
                ));
            }
        }
    }
    violations
}

/// The top-level module a source file belongs to (`None` for the crate root and binaries).
fn top_module(src: &Path, file: &Path) -> Option<(String, usize)> {
    let relative = file.strip_prefix(src).ok()?;
    let parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let first = parts.first()?.trim_end_matches(".rs").to_string();
    if ["lib", "main", "bin"].contains(&first.as_str()) {
        return None;
    }
    // How many `super::` reach the crate root from this file's module.
    let depth = parts.len() - usize::from(parts.last().is_some_and(|p| p == "mod.rs"));
    Some((first, depth))
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The identifiers that follow `prefix` in `code` where `prefix` starts a path.
fn names_after<'c>(code: &'c str, prefix: &str) -> Vec<&'c str> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + prefix.len()..];
        let end = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') && end > 0 {
            names.push(&after[..end]);
        }
        rest = after;
    }
    names
}

/// The imports between one crate's top-level modules, read from its sources (code outside comments and tests).
fn module_imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some((module, depth)) = top_module(src, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let code: String = code
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let to_root = "super::".repeat(depth);
        let targets = imports.entry(module.clone()).or_default();
        let mut referenced = names_after(&code, "crate::");
        if depth > 0 {
            referenced.extend(
                names_after(&code, &to_root)
                    .into_iter()
                    .filter(|name| *name != "super"),
            );
        }
        for name in referenced {
            if name != module {
                targets.insert(name.to_string());
            }
        }
    }
    let modules: BTreeSet<String> = imports.keys().cloned().collect();
    for targets in imports.values_mut() {
        targets.retain(|t| modules.contains(t));
    }
    imports
}

/// One circle of imports among these modules, if there is one, as the modules in order.
fn find_cycle(imports: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        module: &str,
        imports: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == module) {
            let mut cycle = path[start..].to_vec();
            cycle.push(module.to_string());
            return Some(cycle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_string());
        for next in imports.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(next, imports, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(module.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for module in imports.keys() {
        if let Some(cycle) = visit(module, imports, &mut Vec::new(), &mut done) {
            return Some(cycle);
        }
    }
    None
}

#[test]
fn every_workspace_crate_depends_only_on_the_layers_below_it() {
    let violations = layering_violations(&packages());
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn a_dependency_that_points_up_or_into_the_toolchain_is_reported() {
    let package = |name: &str, deps: &[&str]| {
        (
            name.to_string(),
            PathBuf::new(),
            deps.iter().map(|d| d.to_string()).collect(),
        )
    };
    let violations = layering_violations(&[
        package("weft-sync", &["weft-cluster"]),
        package("weft-render", &["weft-plugin-build"]),
        package("health-core", &["weft-core"]),
        package("render-helm-library", &["render-yaml"]),
        package("weft-newcomer", &[]),
    ]);
    assert_eq!(violations.len(), 7, "{violations:#?}");
    assert!(violations[0].contains("weft-sync (layer 5) depends on weft-cluster (layer 6)"));
    assert!(violations[1].contains("weft-render depends on the plugin toolchain"));
    assert!(violations[2].contains("health-core (layer 3) depends on weft-core (layer 4)"));
    assert!(violations[3].contains("health-core is a guest and depends on weft-core"));
    assert!(
        violations[4].contains("render-helm-library (layer 2) depends on render-yaml (layer 3)")
    );
    assert!(
        violations[5].contains("render-helm-library is a guest library and depends on render-yaml")
    );
    assert!(violations[6].contains("weft-newcomer has no place in LAYERS"));
    // A guest may link a guest library.
    assert!(
        layering_violations(&[package(
            "render-kustomize",
            &["render-helm-library", "weft-sdk"]
        )])
        .is_empty()
    );
    // A crate whose dependencies all point down breaks nothing.
    assert!(
        layering_violations(&[package("weft-health", &["weft-plugin-host", "weft-core"])])
            .is_empty()
    );
}

#[test]
fn no_crate_has_top_level_modules_that_import_each_other_in_a_circle() {
    let mut cycles = Vec::new();
    for (name, dir, _) in packages() {
        let imports = module_imports(&dir.join("src"));
        if let Some(cycle) = find_cycle(&imports) {
            cycles.push(format!("{name}: {}", cycle.join(" -> ")));
        }
    }
    assert!(
        cycles.is_empty(),
        "module import cycles:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn a_circle_of_module_imports_is_found_through_crate_and_super_paths() {
    let src = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = src.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n");
    write("a.rs", "use crate::b::Thing;\n");
    write("b/mod.rs", "mod inner;\n");
    // Two `super::` from b/inner.rs reach the crate root: this is b importing c.
    write(
        "b/inner.rs",
        "use super::super::c::Other;\nuse super::Sibling;\n",
    );
    write(
        "c.rs",
        "// crate::a::Mentioned only in a comment\n#[cfg(test)]\nmod tests { use crate::a::X; }\n",
    );
    let imports = module_imports(src.path());
    assert_eq!(imports["a"], BTreeSet::from(["b".to_string()]));
    assert_eq!(imports["b"], BTreeSet::from(["c".to_string()]));
    assert!(imports["c"].is_empty());
    assert_eq!(find_cycle(&imports), None);
    write("c.rs", "pub fn f() { crate::a::g() }\n");
    let cycle = find_cycle(&module_imports(src.path())).unwrap();
    assert_eq!(cycle, ["a", "b", "c", "a"]);
}
