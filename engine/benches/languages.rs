//! The same health check (the Widget example) written in Rust, Python and JavaScript, through the plugin host: the
//! median and p99 of a fresh call with one object (a fresh instance each time: CPython or SpiderMonkey included),
//! and the median per object in a batch of 64, children included (each Widget's Deployment is looked up).
//!
//! Targets on a 2-core machine: Python and JavaScript at most 2 ms per fresh call and 0.3 ms per object in a batch.
//!
//! Run: `cargo bench -p weft-engine --bench languages` (the first run installs componentize-py and componentize-js
//! and builds the two components: about a minute).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use weft_health::ObjectSet;
use weft_plugin_build::{self as build, BuildRequest};
use weft_plugin_host::{CallLimits, HealthPlugin, HostConfig, PluginHost, RelatedObjects, World};

mod support;

/// Calls per figure; `WEFT_BENCH_CALLS` raises it (for a profiler).
fn calls() -> usize {
    std::env::var("WEFT_BENCH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(500)
}
const BATCH: usize = 64;

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

/// Builds a plugin folder into `out` and returns its installed component.
fn built(workspace: &Path, folder: &Path, out: &Path) -> PathBuf {
    let sources = build::discover(&[folder.to_path_buf()]).expect("plugin folder");
    let request = BuildRequest::new(Some(workspace.to_path_buf()), sources, out.to_path_buf());
    let built = build::build(&request).expect("build");
    built[0].component.clone()
}

fn load(host: &PluginHost, name: &str, component: &Path) -> HealthPlugin {
    let loaded = host
        .load_component_file(name, World::HealthCheck, component, None)
        .expect("load");
    host.health_plugin(&loaded, CallLimits::HEALTH)
        .expect("bind")
}

/// The Widget suite's objects: each case's first document, and every document as a possible child.
fn fixtures(workspace: &Path) -> (Vec<String>, Arc<dyn RelatedObjects>) {
    let testdata = workspace.join("examples/health-widget/testdata");
    let mut widgets = Vec::new();
    let mut everything = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&testdata)
        .expect("testdata")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    files.sort();
    for file in files {
        let objects = weft_sdk::testing::read_objects(&file).expect("fixture");
        widgets.push(objects[0].value().to_string());
        everything.extend(objects.into_iter().map(|o| o.into_value()));
    }
    (widgets, Arc::new(ObjectSet::new(&everything)))
}

struct Figures {
    median: Duration,
    p99: Duration,
    batched: Duration,
    /// A call with an empty batch: instantiating the component (and its runtime) and nothing else.
    setup: Duration,
}

fn measure(
    plugin: &HealthPlugin,
    widgets: &[String],
    related: &Arc<dyn RelatedObjects>,
) -> Figures {
    let verdicts = |batch: &[String]| {
        let (results, _) = plugin
            .assess_blocking(batch, related.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", plugin.name()));
        assert!(
            results.iter().all(|r| matches!(r, Ok(Some(_)))),
            "{}: {results:?}",
            plugin.name()
        );
    };
    for widget in widgets.iter().cycle().take(50) {
        verdicts(std::slice::from_ref(widget));
    }
    let mut single: Vec<Duration> = widgets
        .iter()
        .cycle()
        .take(calls())
        .map(|widget| {
            let started = Instant::now();
            verdicts(std::slice::from_ref(widget));
            started.elapsed()
        })
        .collect();
    let batch: Vec<String> = widgets.iter().cycle().take(BATCH).cloned().collect();
    let mut batched: Vec<Duration> = (0..100)
        .map(|_| {
            let started = Instant::now();
            verdicts(&batch);
            started.elapsed() / BATCH as u32
        })
        .collect();
    let mut setup: Vec<Duration> = (0..calls())
        .map(|_| {
            let started = Instant::now();
            verdicts(&[]);
            started.elapsed()
        })
        .collect();
    Figures {
        setup: percentile(&mut setup, 0.5),
        median: percentile(&mut single, 0.5),
        p99: percentile(&mut single, 0.99),
        batched: percentile(&mut batched, 0.5),
    }
}

fn main() {
    let workspace = support::workspace();
    let builtins = support::builtin_registry(&workspace);
    let out = tempfile::tempdir().expect("tempdir");
    let python = built(
        &workspace,
        &workspace.join("sdk/python/examples/health-widget"),
        out.path(),
    );
    let javascript = built(
        &workspace,
        &workspace.join("sdk/js/examples/health-widget"),
        out.path(),
    );
    let rust = builtins
        .get("health-widget")
        .and_then(|p| p.component_path())
        .expect("the Rust widget example is built");
    let host = PluginHost::new(HostConfig::default()).expect("host");
    let (widgets, related) = fixtures(&workspace);
    println!(
        "{:<12} {:>14} {:>14} {:>18} {:>16} {:>10}",
        "language", "fresh median", "fresh p99", "per object (x64)", "instantiation", "size"
    );
    for (language, name, component, targets) in [
        ("rust", "health-widget", rust, None),
        (
            "python",
            "health-widget-py",
            python,
            Some((Duration::from_millis(2), Duration::from_micros(300))),
        ),
        (
            "javascript",
            "health-widget-js",
            javascript,
            Some((Duration::from_millis(2), Duration::from_micros(300))),
        ),
    ] {
        // `WEFT_BENCH_ONLY=python` measures one language (for a profiler).
        if std::env::var("WEFT_BENCH_ONLY").is_ok_and(|only| only != language) {
            continue;
        }
        let plugin = load(&host, name, &component);
        let figures = measure(&plugin, &widgets, &related);
        let size = std::fs::metadata(&component).map(|m| m.len()).unwrap_or(0);
        let verdict = match targets {
            Some((fresh, per_object)) => {
                if figures.median <= fresh && figures.batched <= per_object {
                    "  within target"
                } else {
                    "  OVER TARGET"
                }
            }
            None => "",
        };
        println!(
            "{language:<12} {:>14?} {:>14?} {:>18?} {:>16?} {:>7} KiB{verdict}",
            figures.median,
            figures.p99,
            figures.batched,
            figures.setup,
            size / 1024
        );
    }
}
