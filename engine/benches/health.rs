//! Health assessment through the plugin host next to the same check compiled natively, over the Deployment
//! objects of the conformance corpus. Prints per-object medians, the Wasm/native ratio and cold-start costs.
//!
//! Targets on a 2-core machine: (a) one object per call with a fresh instance < 40 us median; (b) a batch per
//! call, per object, within 2.0x of native; loading a cached compiled plugin < 2 ms.
//!
//! Run: `cargo bench -p weft-engine --bench health`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod support;

use weft_plugin_host::{HealthPlugin, HostConfig, NoRelated, PluginHost, World};

const BATCH: usize = 256;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Times `calls` calls of one object each (a fresh instance per call), cycling through `objects`.
fn one_object_per_call(
    plugin: &HealthPlugin,
    objects: &[String],
    related: &Arc<NoRelated>,
    calls: usize,
) -> Vec<Duration> {
    objects
        .iter()
        .cycle()
        .take(calls)
        .map(|object| {
            let started = Instant::now();
            plugin
                .assess_blocking(std::slice::from_ref(object), related.clone())
                .unwrap();
            started.elapsed()
        })
        .collect()
}

fn deployments(workspace: &Path) -> Vec<String> {
    let corpus = workspace.join("tests/conformance/gitops-engine/cases.json");
    let cases = weft_sdk::testing::read_corpus(&corpus).expect("corpus");
    cases
        .iter()
        .filter(|c| c.kind == "Deployment")
        .map(|c| {
            weft_sdk::testing::read_object(&c.file)
                .expect("fixture")
                .value()
                .to_string()
        })
        .collect()
}

fn main() {
    let workspace = support::workspace();
    let registry = support::builtin_registry(&workspace);
    let objects = deployments(&workspace);
    assert!(!objects.is_empty(), "no Deployments in the corpus");
    let core = registry.get("health-core").expect("health-core installed");
    let component_path = core.component_path().expect("component");

    // Cold start: first compile, then loads of the cached compiled file by fresh hosts.
    let cache = std::env::temp_dir().join(format!("weft-bench-cache-{}", std::process::id()));
    let config = || HostConfig {
        cache_dir: Some(cache.clone()),
        ..HostConfig::default()
    };
    let first = PluginHost::new(config())
        .unwrap()
        .load_component_file("health-core", World::HealthCheck, &component_path, None)
        .unwrap();
    let host = PluginHost::new(config()).unwrap();
    let cached: Vec<Duration> = (0..20)
        .map(|_| {
            host.load_component_file("health-core", World::HealthCheck, &component_path, None)
                .unwrap()
                .load_time
        })
        .collect();
    let _ = std::fs::remove_dir_all(&cache);
    let component = host
        .load_component_file("health-core", World::HealthCheck, &component_path, None)
        .unwrap();
    let plugin = host
        .health_plugin(&component, weft_plugin_host::CallLimits::HEALTH)
        .unwrap();
    let related: Arc<NoRelated> = Arc::new(NoRelated);

    // Warm up.
    for object in objects.iter().cycle().take(200) {
        plugin
            .assess_blocking(std::slice::from_ref(object), related.clone())
            .unwrap();
    }

    // (a) One object per call, fresh instance each time.
    let single = one_object_per_call(&plugin, &objects, &related, 4000);

    // (b) A batch per call (one instance per batch), per object.
    let batch: Vec<String> = objects.iter().cycle().take(BATCH).cloned().collect();
    let batched: Vec<Duration> = (0..300)
        .map(|_| {
            let started = Instant::now();
            plugin.assess_blocking(&batch, related.clone()).unwrap();
            started.elapsed() / BATCH as u32
        })
        .collect();

    // Native: the same crate compiled for the host, JSON parsing included as in the plugin.
    let native: Vec<Duration> = (0..300)
        .map(|_| {
            let started = Instant::now();
            for json in &batch {
                let object = weft_sdk::Object::from_json(json).unwrap();
                std::hint::black_box(
                    weft_sdk::testing::assess::<health_core::CoreHealth>(&object).unwrap(),
                );
            }
            started.elapsed() / BATCH as u32
        })
        .collect();

    // The same single-object call on hosts that keep more or less of each instance's memory resident.
    let keep_resident: Vec<(usize, Duration)> = [0usize, 64 << 10, 256 << 10, 384 << 10, 1 << 20]
        .into_iter()
        .map(|bytes| {
            let host = PluginHost::new(HostConfig {
                cache_dir: None,
                keep_resident_bytes: bytes,
                ..HostConfig::default()
            })
            .unwrap();
            let component = host
                .load_component_file("health-core", World::HealthCheck, &component_path, None)
                .unwrap();
            let plugin = host
                .health_plugin(&component, weft_plugin_host::CallLimits::HEALTH)
                .unwrap();
            (
                bytes,
                median(one_object_per_call(&plugin, &objects, &related, 3000)),
            )
        })
        .collect();
    // Instance setup alone: an empty batch.
    let empty: Vec<Duration> = (0..3000)
        .map(|_| {
            let started = Instant::now();
            plugin.assess_blocking(&[], related.clone()).unwrap();
            started.elapsed()
        })
        .collect();

    let (single, batched, native) = (median(single), median(batched), median(native));
    let ratio = batched.as_secs_f64() / native.as_secs_f64();
    println!(
        "health bench: {} Deployment objects from the conformance corpus",
        objects.len()
    );
    println!(
        "  (a) one object per call, fresh instance: {:>9.2?} median per object (target < 40us)",
        single
    );
    println!(
        "      of which instance setup (empty batch): {:>9.2?} median",
        median(empty)
    );
    for (bytes, time) in keep_resident {
        println!(
            "      with {:>4} KiB kept resident per slot:   {time:>9.2?} median per object",
            bytes / 1024
        );
    }
    println!(
        "  (b) batch of {BATCH} per call:              {:>9.2?} median per object",
        batched
    );
    println!(
        "      native (same crate, host build):    {:>9.2?} median per object",
        native
    );
    println!("      wasm/native ratio (batch):          {ratio:>9.2} (target <= 2.0)");
    println!(
        "  cold start: first compile {:.2?}; cached compiled load {:.2?} median (target < 2ms)",
        first.load_time,
        median(cached)
    );
}
