//! Rendering through the plugin host: a renderer sees only the app's tree (no `..`, absolute paths, symlinks out or
//! `.git`), and the host checks and caches what it returns.

use std::path::Path;
use std::sync::Arc;

use weft_plugin_host::registry::{Provenance, Registry};
use weft_plugin_host::{
    CallError, CallLimits, Failure, HostConfig, PluginHost, RendererPlugin, World,
};
use weft_sdk::RenderRequest;
use weft_source::{SourceLimits, SourceView};

fn load(dir: &Path, name: &str) -> RendererPlugin {
    load_with(dir, name, CallLimits::RENDER)
}

fn load_with(dir: &Path, name: &str, limits: CallLimits) -> RendererPlugin {
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        ..HostConfig::default()
    })
    .unwrap();
    let mut registry = Registry::new();
    registry.add_dir(dir, Provenance::BuiltIn).unwrap();
    let plugin = registry.get(name).unwrap();
    let component = host
        .load_component_file(
            name,
            World::Renderer,
            &plugin.component_path().unwrap(),
            plugin.manifest.sha256.as_deref(),
        )
        .unwrap();
    host.renderer_plugin(&component, limits).unwrap()
}

#[test]
fn a_renderer_cannot_read_outside_the_app_tree() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let app = repo.join("apps/shop");
    std::fs::create_dir_all(app.join("sub")).unwrap();
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(app.join(".git")).unwrap();
    std::fs::write(
        repo.join(".git/config"),
        "url = https://token@example.invalid",
    )
    .unwrap();
    std::fs::write(app.join(".git/config"), "token").unwrap();
    std::fs::write(repo.join("apps/other.yaml"), "another app's secret").unwrap();
    std::fs::write(app.join("cm.yaml"), "kind: ConfigMap").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc", app.join("etc")).unwrap();
        std::os::unix::fs::symlink("../other.yaml", app.join("sneaky.yaml")).unwrap();
        std::os::unix::fs::symlink("cm.yaml", app.join("alias.yaml")).unwrap();
    }
    let probes = [
        "cm.yaml",
        "sub/../cm.yaml",
        "../other.yaml",
        "../../.git/config",
        "/etc/passwd",
        ".git/config",
        "etc/passwd",
        "sneaky.yaml",
        "alias.yaml",
    ];
    let request = RenderRequest {
        app: "shop".into(),
        parameters: probes
            .iter()
            .map(|p| ("read".to_string(), p.to_string()))
            .collect(),
        ..RenderRequest::default()
    };
    let plugin = load(weft_tests::test_plugins(), "escape-renderer");
    let view = Arc::new(SourceView::open(&app, SourceLimits::default()).unwrap());
    let output = plugin
        .render_blocking(&request, view.clone())
        .unwrap()
        .unwrap();
    let data = &output.manifests[0].object["data"];
    let outcome = |path: &str| data[path].as_str().unwrap().to_string();
    assert_eq!(outcome("cm.yaml"), "read: kind: ConfigMap");
    assert_eq!(outcome("sub/../cm.yaml"), "read: kind: ConfigMap");
    for refused in [
        "../other.yaml",
        "../../.git/config",
        "/etc/passwd",
        ".git/config",
    ] {
        assert!(
            outcome(refused).starts_with("error: not allowed"),
            "{refused}: {}",
            outcome(refused)
        );
    }
    #[cfg(unix)]
    {
        for refused in ["etc/passwd", "sneaky.yaml"] {
            assert!(
                outcome(refused).starts_with("error: not allowed"),
                "{refused}: {}",
                outcome(refused)
            );
        }
        assert_eq!(outcome("alias.yaml"), "read: kind: ConfigMap");
    }
    // A link that leaves the tree is listed (so a renderer that reads every file fails naming it), `.git` never.
    let listing = outcome("(listing)");
    assert!(
        listing.contains("cm.yaml") && !listing.contains(".git") && listing.contains("sneaky"),
        "{listing}"
    );
    // The host records what the plugin read.
    assert!(view.files_used().contains(&"cm.yaml".to_string()));
}

#[cfg(unix)]
#[test]
fn a_manifest_symlinked_from_outside_the_tree_fails_the_render_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("outside.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stolen}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("../outside.yaml", app.join("linked.yaml")).unwrap();
    let plugin = load(weft_tests::builtin_plugins(), "render-yaml");
    let view = Arc::new(SourceView::open(&app, SourceLimits::default()).unwrap());
    let request = RenderRequest {
        app: "shop".into(),
        ..RenderRequest::default()
    };
    let outcome = plugin.render_blocking(&request, view).unwrap();
    let error = outcome.expect_err("a render that skipped the link would look complete");
    assert!(error.to_string().contains("linked.yaml"), "{error}");
}

#[test]
fn an_app_in_a_repository_reaches_other_directories_of_it_and_nothing_past_its_root() {
    use weft_render::AppSource;
    use weft_source::Repository;
    let repo = weft_tests::GitRepo::new();
    let write = |path: &str, text: &str| {
        let file = repo.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    };
    write(
        "base/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: base}\n",
    );
    write("base/kustomization.yaml", "resources: [cm.yaml]\n");
    write(
        "overlays/prod/kustomization.yaml",
        "resources: [../../base]\nnamePrefix: prod-\n",
    );
    write(
        "overlays/escape/kustomization.yaml",
        "resources: [../../../outside]\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "layout"]);
    let cache = tempfile::tempdir().unwrap();
    let pipeline = weft_tests::render_pipeline(cache.path());
    let source = |path: &str| AppSource::Git {
        repository: Repository::new(repo.path().display().to_string()),
        reference: "main".into(),
        path: path.into(),
    };
    let request = RenderRequest {
        app: "shop".into(),
        ..RenderRequest::default()
    };
    let prod = source("overlays/prod");
    let revision = pipeline.resolve(&prod).unwrap();
    let rendered = pipeline
        .render(&prod, &revision, "kustomize", &request)
        .unwrap();
    let names: Vec<&str> = rendered
        .manifests
        .iter()
        .filter_map(|m| m.object.pointer("/metadata/name").and_then(|n| n.as_str()))
        .collect();
    assert_eq!(names, ["prod-settings"]);
    let error = pipeline
        .render(&source("overlays/escape"), &revision, "kustomize", &request)
        .unwrap_err();
    assert!(error.to_string().contains("outside"), "{error}");
}

/// Renders `main.jsonnet` with the Jsonnet plugin under `limits`.
fn render_jsonnet(program: &str, limits: CallLimits) -> Result<usize, CallError> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.jsonnet"), program).unwrap();
    let plugin = load_with(weft_tests::builtin_plugins(), "render-jsonnet", limits);
    let view = Arc::new(SourceView::open(dir.path(), SourceLimits::default()).unwrap());
    let request = RenderRequest {
        app: "budget".into(),
        ..RenderRequest::default()
    };
    plugin.render_blocking(&request, view).map(|output| {
        output
            .expect("the program is valid Jsonnet")
            .manifests
            .len()
    })
}

/// A program whose cost grows with `n`: folds over `n` numbers, then emits one ConfigMap.
fn folding_program(n: u64) -> String {
    format!(
        r#"local total = std.foldl(function(sum, x) sum + x % 7, std.range(1, {n}), 0);
[{{ apiVersion: "v1", kind: "ConfigMap", metadata: {{ name: "sum" }}, data: {{ total: std.toString(total) }} }}]"#
    )
}

#[test]
fn a_render_that_outruns_its_step_budget_stops_with_a_typed_error() {
    let limits = CallLimits {
        fuel: Some(200_000_000),
        timeout: std::time::Duration::from_secs(120),
        ..CallLimits::RENDER
    };
    // Well inside the budget: renders.
    assert_eq!(render_jsonnet(&folding_program(1_000), limits), Ok(1));
    // Far past it: the budget stops the call long before the (generous) deadline, with its own failure.
    let error = render_jsonnet(&folding_program(50_000_000), limits).unwrap_err();
    assert_eq!(
        error.failure,
        Failure::OutOfSteps {
            budget: 200_000_000
        },
        "{error}"
    );
    assert!(error.to_string().contains("step budget"), "{error}");
    // OutOfSteps, not Timeout: the budget, not the deadline, stopped it (however slow the machine).
    // The budget is per call: the next render has all of it again.
    assert_eq!(render_jsonnet(&folding_program(1_000), limits), Ok(1));
}

#[test]
fn the_default_step_budget_renders_ordinary_apps() {
    assert_eq!(
        render_jsonnet(&folding_program(100_000), CallLimits::RENDER),
        Ok(1)
    );
}
