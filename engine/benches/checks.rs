//! Lua and CEL health checks through the plugin host, next to the built-in Rust plugins for the same kinds: the
//! per-check median and p99 with one object per call (a fresh instance and a fresh Lua state each time), and the
//! per-object median with a batch per call.
//!
//! Targets on a 2-core machine: a Lua check no slower than Argo CD's own (about 100-200 us per check); a CEL check
//! under 30 us.
//!
//! Run: `cargo bench -p weft-engine --bench checks`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use weft_health::scripts::{self, read_lua_dir};
use weft_health::settings::CelCheck;
mod support;

use weft_plugin_host::registry::{Provenance, Registry};
use weft_plugin_host::{CallLimits, HealthPlugin, HostConfig, NoRelated, PluginHost, World};

const CALLS: usize = 3000;
const BATCH: usize = 64;

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

/// The objects of a kind's cases in the Argo CD corpus.
fn objects(workspace: &Path, script_dir: &str) -> Vec<String> {
    let cases =
        weft_sdk::testing::read_corpus(&workspace.join("tests/conformance/argocd/cases.json"))
            .expect("corpus");
    cases
        .iter()
        .filter(|c| c.file.parent().is_some_and(|p| p.ends_with(script_dir)))
        .map(|c| {
            weft_sdk::testing::read_object(&c.file)
                .expect("fixture")
                .value()
                .to_string()
        })
        .collect()
}

/// The loaded plugin for a registry entry (an instance shares its template's component).
fn load(host: &PluginHost, registry: &Registry, name: &str) -> HealthPlugin {
    let registered = registry
        .get(name)
        .unwrap_or_else(|| panic!("{name} registered"));
    let base_name = registered.instance_of().unwrap_or(name);
    let base = registry.get(base_name).unwrap();
    let component = host
        .load_component_file(
            base_name,
            World::HealthCheck,
            &base.component_path().unwrap(),
            base.manifest.sha256.as_deref(),
        )
        .unwrap();
    let limits = CallLimits::HEALTH.with_overrides(&base.manifest.limits);
    let plugin = host.health_plugin(&component, limits).unwrap();
    match registered.settings() {
        Some(settings) => plugin.instance(name, settings),
        None => plugin,
    }
}

struct Figures {
    median: Duration,
    p99: Duration,
    batched: Duration,
    setup: Duration,
}

fn measure(plugin: &HealthPlugin, objects: &[String]) -> Figures {
    let related = Arc::new(NoRelated);
    for object in objects.iter().cycle().take(200) {
        let (results, _) = plugin
            .assess_blocking(std::slice::from_ref(object), related.clone())
            .unwrap();
        assert!(
            matches!(results[0], Ok(Some(_))),
            "{}: {results:?}",
            plugin.name()
        );
    }
    let mut single: Vec<Duration> = objects
        .iter()
        .cycle()
        .take(CALLS)
        .map(|object| {
            let started = Instant::now();
            plugin
                .assess_blocking(std::slice::from_ref(object), related.clone())
                .unwrap();
            started.elapsed()
        })
        .collect();
    let batch: Vec<String> = objects.iter().cycle().take(BATCH).cloned().collect();
    let mut batched: Vec<Duration> = (0..200)
        .map(|_| {
            let started = Instant::now();
            plugin.assess_blocking(&batch, related.clone()).unwrap();
            started.elapsed() / BATCH as u32
        })
        .collect();
    let mut setup: Vec<Duration> = (0..1000)
        .map(|_| {
            let started = Instant::now();
            plugin.assess_blocking(&[], related.clone()).unwrap();
            started.elapsed()
        })
        .collect();
    Figures {
        median: percentile(&mut single, 0.5),
        p99: percentile(&mut single, 0.99),
        batched: percentile(&mut batched, 0.5),
        setup: percentile(&mut setup, 0.5),
    }
}

fn cel(kind: &str, current: &str, in_progress: &str, failed: &str) -> CelCheck {
    CelCheck {
        kind: kind.into(),
        current: current.into(),
        in_progress: Some(in_progress.into()),
        failed: Some(failed.into()),
        message: None,
    }
}

fn main() {
    let workspace = support::workspace();
    let builtins = support::builtin_registry(&workspace);
    let mut registry = builtins.clone();
    let lua_dir = workspace.join("tests/lua/resource_customizations");
    scripts::add_lua_scripts(&mut registry, &read_lua_dir(&lua_dir).expect("scripts"))
        .expect("lua");
    let ready = "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')";
    let checks = [
        cel(
            "cert-manager.io/Certificate",
            ready,
            "!has(self.status) || status.conditions.exists(c, c.type == 'Issuing' && c.status == 'True')",
            "status.conditions.exists(c, c.type == 'Ready' && c.status == 'False')",
        ),
        cel(
            "argoproj.io/AnalysisRun",
            "status.phase == 'Successful'",
            "!has(self.status) || status.phase in ['Pending', 'Running']",
            "status.phase in ['Failed', 'Error']",
        ),
        cel(
            "k8s.mariadb.com/MariaDB",
            ready,
            "!has(status.conditions) || status.conditions.exists(c, c.type == 'Ready' && c.status == 'False' && c.reason != 'Failed')",
            "status.conditions.exists(c, c.type == 'Ready' && c.reason == 'Failed')",
        ),
    ];
    let mut cel_registry = builtins.clone();
    for check in &checks {
        let instance = scripts::cel_instance(check, "bench").expect("cel compiles");
        cel_registry
            .add_instance(scripts::CEL_TEMPLATE, instance, Provenance::User)
            .expect("cel");
    }
    let host = PluginHost::new(HostConfig::default()).unwrap();
    println!(
        "checks bench: per check through the host; one object per call = a fresh instance (and Lua state)"
    );
    println!(
        "  {:<30} {:<22} {:>9} {:>9} {:>13} {:>13}",
        "kind", "plugin", "median", "p99", "batch/object", "empty call"
    );
    for (kind, native) in [
        ("cert-manager.io/Certificate", "health-cluster"),
        ("argoproj.io/AnalysisRun", "health-delivery"),
        ("k8s.mariadb.com/MariaDB", "health-data"),
    ] {
        let objects = objects(&workspace, kind);
        assert!(!objects.is_empty(), "no cases for {kind}");
        for (label, name, registry) in [
            ("lua", format!("lua:{kind}"), &registry),
            ("cel", format!("cel:{kind}"), &cel_registry),
            ("rust", native.to_string(), &registry),
        ] {
            let plugin = load(&host, registry, &name);
            let figures = measure(&plugin, &objects);
            let plugin_label = if label == "rust" {
                format!("rust ({native})")
            } else {
                label.to_string()
            };
            println!(
                "  {kind:<30} {plugin_label:<22} {:>9.1?} {:>9.1?} {:>13.1?} {:>13.1?}",
                figures.median, figures.p99, figures.batched, figures.setup
            );
        }
    }
}
