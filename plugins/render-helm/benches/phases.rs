//! Where a render's time goes, natively: the render bench's 200-object chart (engine/benches/render.rs) rendered
//! with render-helm built for the host, timed phase by phase — loading the chart from its directory, resolving its
//! dependencies and values, executing the templates, and splitting and parsing the output into manifests — over
//! 31 renders (the first apart), medians printed. The Wasm figure is the render bench's; this one says which phase
//! to look at.
//!
//! Run: `cargo bench -p render-helm --bench phases [-- CHART_DIR]` (another chart of 200 objects, such as the render
//! bench's umbrella chart, instead).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use render_helm::{chart, engine, manifests, options};
use weft_sdk::testing::DirSource;

const OBJECTS: usize = 200;

/// The render bench's chart (`tests/render/helm/bench/deployments`, shared with `engine/benches/render.rs`).
fn bench_chart() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render/helm/bench/deployments")
}

/// The time of each phase of one render.
#[derive(Default, Clone, Copy)]
struct Phases {
    load: Duration,
    resolve: Duration,
    execute: Duration,
    collect: Duration,
    /// Writing each object as the JSON text the component returns (in Wasm), and reading it back (the host does).
    handover: Duration,
}

fn render(dir: &Path) -> Phases {
    let source = DirSource::new(dir);
    let options = options::Options::from_parameters(&[]).unwrap();
    let user = options::user_values(&[], &options).unwrap();
    let settings = engine::Settings {
        release: "large".into(),
        namespace: "bench".into(),
        kube_version: options.kube_version.clone(),
        api_versions: options.api_versions.clone(),
        max_steps: options.max_steps,
    };
    let started = Instant::now();
    let loaded = chart::load(&source, "").unwrap();
    let loaded_at = Instant::now();
    let root = chart::dependencies::resolve(&loaded, &user).unwrap();
    let resolved_at = Instant::now();
    let rendered = engine::render(&root, user, &settings).unwrap();
    let executed_at = Instant::now();
    let objects = manifests::collect(&rendered).unwrap();
    let collected_at = Instant::now();
    let texts: Vec<String> = objects.iter().map(|m| m.object.to_string()).collect();
    let read_back: Vec<serde_json::Value> = texts
        .iter()
        .map(|text| serde_json::from_str(text).unwrap())
        .collect();
    let handed_over_at = Instant::now();
    assert_eq!(read_back.len(), OBJECTS);
    Phases {
        load: loaded_at - started,
        resolve: resolved_at - loaded_at,
        execute: executed_at - resolved_at,
        collect: collected_at - executed_at,
        handover: handed_over_at - collected_at,
    }
}

fn median(samples: &[Phases], phase: impl Fn(&Phases) -> Duration) -> Duration {
    let mut times: Vec<Duration> = samples.iter().map(phase).collect();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let given = std::env::args()
        .skip(1)
        .find(|arg| !arg.starts_with('-'))
        .map(PathBuf::from);
    let dir = given.clone().unwrap_or_else(bench_chart);
    let _first = render(&dir);
    let samples: Vec<Phases> = (0..30).map(|_| render(&dir)).collect();
    match &given {
        Some(chart) => println!(
            "render-helm phases, natively: {} (medians of 30)",
            chart.display()
        ),
        None => println!(
            "render-helm phases, natively: a Helm chart of {OBJECTS} Deployments (medians of 30)"
        ),
    }
    println!("  load    {:.2?}", median(&samples, |p| p.load));
    println!("  resolve {:.2?}", median(&samples, |p| p.resolve));
    println!("  execute {:.2?}", median(&samples, |p| p.execute));
    println!("  collect {:.2?}", median(&samples, |p| p.collect));
    println!(
        "  total   {:.2?}",
        median(&samples, |p| p.load + p.resolve + p.execute + p.collect)
    );
    println!(
        "  handover {:.2?} (the objects as JSON text and read back, as the component and the host do)",
        median(&samples, |p| p.handover)
    );
}
