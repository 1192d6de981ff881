//! Simulator benchmark: stores 100,000 ConfigMaps, then prints list latency (whole cluster, one
//! namespace, label-selected, first page), watch fan-out latency to 100 concurrent watches, and bytes of
//! memory per stored object; then runs the controllers over 10,000 apps (`weft_sim::fleet`: a Deployment,
//! Service, PodDisruptionBudget and seven more objects each) and prints how long until every Deployment is available and
//! the CPU the controllers use at rest. Run with `cargo bench -p weft-sim`; set `SIM_BENCH_OBJECTS` and
//! `SIM_BENCH_APPS` to change the sizes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use http_body_util::BodyExt;
use serde_json::json;
use tokio::sync::mpsc;
use tower::ServiceExt;
use weft_sim::apiserver::WriteOptions;
use weft_sim::resource::ResourceKey;
use weft_sim::{SimConfig, Simulator};

const NAMESPACES: usize = 10;
const WATCHERS: usize = 100;
const WATCHED_WRITES: usize = 200;

fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// CPU seconds this process has used (user + system).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start at the last ')'.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let user: f64 = fields.get(11)?.parse().ok()?;
    let system: f64 = fields.get(12)?.parse().ok()?;
    Some((user + system) / 100.0)
}

fn percentile(samples: &mut [Duration], fraction: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * fraction).round() as usize;
    samples.get(index).copied().unwrap_or_default()
}

fn millis(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

async fn get(router: &axum::Router, uri: &str) -> (Duration, usize) {
    let started = Instant::now();
    let request = http::Request::get(uri)
        .body(Body::empty())
        .expect("request");
    let response = router.clone().oneshot(request).await.expect("response");
    assert!(
        response.status().is_success(),
        "GET {uri}: {}",
        response.status()
    );
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    (started.elapsed(), bytes.len())
}

async fn time_list(router: &axum::Router, label: &str, uri: &str, rounds: usize) {
    let mut samples = Vec::new();
    let mut size = 0;
    for _ in 0..rounds {
        let (elapsed, bytes) = get(router, uri).await;
        samples.push(elapsed);
        size = bytes;
    }
    println!(
        "list {label:<28} p50 {:>10}  p99 {:>10}  ({} KiB per response, {rounds} rounds)",
        millis(percentile(&mut samples, 0.5)),
        millis(percentile(&mut samples, 0.99)),
        size / 1024
    );
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    store_and_watch().await;
    controllers_at_rest().await;
}

/// The controllers over N apps: time until every Deployment is available, then CPU at rest.
async fn controllers_at_rest() {
    let apps: usize = std::env::var("SIM_BENCH_APPS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(10_000);
    let sim = Simulator::new(SimConfig {
        watch_history: 10_000,
        ..SimConfig::fast()
    });
    let server = sim.api_server().clone();
    let options = WriteOptions::manager("bench");
    let started = Instant::now();
    let cpu_started = cpu_seconds();
    for index in 0..apps {
        weft_sim::fleet::deploy(&server, &format!("app-{index:05}"), &[], &options)
            .expect("deploy");
        // Yield now and then, so the controllers run while apps arrive as they would.
        if index % 100 == 99 {
            tokio::task::yield_now().await;
        }
    }
    let created = started.elapsed();
    loop {
        let available = weft_sim::fleet::available_deployments(&server);
        if available == apps {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let settled = started.elapsed();
    let cpu_settled = cpu_seconds();
    println!(
        "== weft-sim bench: controllers over {apps} apps ({} objects stored) ==",
        server.object_count()
    );
    println!(
        "created in {:.1} s; every Deployment available after {:.1} s",
        created.as_secs_f64(),
        settled.as_secs_f64()
    );
    if let (Some(start), Some(settled)) = (cpu_started, cpu_settled) {
        println!("CPU until available: {:.1} s", settled - start);
    }
    // Let the last status writes and their follow-ups finish, then measure a quiet period.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let quiet = Duration::from_secs(20);
    let cpu_before = cpu_seconds();
    let revision_before = server.revision();
    tokio::time::sleep(quiet).await;
    let cpu_after = cpu_seconds();
    let writes_at_rest = server.revision() - revision_before;
    if let (Some(before), Some(after)) = (cpu_before, cpu_after) {
        println!(
            "at rest: {:.2} CPU s over {} s ({:.1}% of one core), {writes_at_rest} writes",
            after - before,
            quiet.as_secs(),
            (after - before) / quiet.as_secs_f64() * 100.0
        );
    }
}

/// The store's list and watch figures over many ConfigMaps, without controllers.
async fn store_and_watch() {
    let objects: usize = std::env::var("SIM_BENCH_OBJECTS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(100_000);
    let sim = Simulator::new(SimConfig {
        run_controllers: false,
        watch_history: 10_000,
        ..SimConfig::default()
    });
    let server = sim.api_server().clone();
    let namespaces = server
        .resource(&ResourceKey::new("", "namespaces"))
        .expect("namespaces");
    let config_maps = server
        .resource(&ResourceKey::new("", "configmaps"))
        .expect("configmaps");
    let options = WriteOptions::manager("bench");
    for index in 0..NAMESPACES {
        let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": format!("bench-{index}")}});
        server
            .create(&namespaces, "v1", "", namespace, &options)
            .expect("namespace");
    }

    let before = resident_bytes();
    let started = Instant::now();
    for index in 0..objects {
        let namespace = format!("bench-{}", index % NAMESPACES);
        let object = json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": format!("config-{index:06}"), "labels": {"app": format!("app-{}", index % 100), "tier": "bench"}},
            "data": {"key": format!("value-{index}"), "mode": "production"},
        });
        server
            .create(&config_maps, "v1", &namespace, object, &options)
            .expect("create");
    }
    let insert_time = started.elapsed();
    let after = resident_bytes();
    println!("== weft-sim bench: {objects} ConfigMaps in {NAMESPACES} namespaces ==");
    println!(
        "insert: {:.1} s, {:.0} objects/s",
        insert_time.as_secs_f64(),
        objects as f64 / insert_time.as_secs_f64()
    );
    let accounted = server.approximate_bytes();
    println!(
        "memory: {} bytes per object as stored (JSON + indexes); one object's JSON is {} bytes",
        accounted / server.object_count().max(1),
        server
            .get(&config_maps, "bench-0", "config-000000")
            .expect("stored")
            .json
            .len()
    );
    if let (Some(before), Some(after)) = (before, after) {
        println!(
            "memory: {} bytes per object of resident-set growth (including watch history of {} events)",
            after.saturating_sub(before) / objects as u64,
            10_000
        );
    }

    let router = sim.router();
    time_list(&router, "all namespaces", "/api/v1/configmaps", 5).await;
    time_list(
        &router,
        "one namespace",
        "/api/v1/namespaces/bench-3/configmaps",
        20,
    )
    .await;
    time_list(
        &router,
        "label selector (1%)",
        "/api/v1/configmaps?labelSelector=app%3Dapp-7",
        20,
    )
    .await;
    time_list(
        &router,
        "first page, limit=500",
        "/api/v1/configmaps?limit=500",
        50,
    )
    .await;
    time_list(
        &router,
        "get one object",
        "/api/v1/namespaces/bench-5/configmaps/config-000555",
        200,
    )
    .await;

    // Watch fan-out: 100 watches of the whole resource; each write is timed until every watch has it.
    let revision = server.revision();
    let (sender, mut receiver) = mpsc::unbounded_channel::<(usize, Instant)>();
    let mut watchers = Vec::new();
    for watcher in 0..WATCHERS {
        let uri =
            format!("/api/v1/configmaps?watch=true&resourceVersion={revision}&timeoutSeconds=120");
        let request = http::Request::get(uri)
            .body(Body::empty())
            .expect("request");
        let response = router.clone().oneshot(request).await.expect("watch");
        let mut body = response.into_body();
        let sender = sender.clone();
        watchers.push(tokio::spawn(async move {
            let mut received = 0;
            let mut pending = Vec::new();
            while received < WATCHED_WRITES {
                let Some(Ok(frame)) = body.frame().await else {
                    break;
                };
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                pending.extend_from_slice(&data);
                while let Some(end) = pending.iter().position(|byte| *byte == b'\n') {
                    pending.drain(..=end);
                    received += 1;
                    let _ = sender.send((watcher, Instant::now()));
                }
            }
        }));
    }
    drop(sender);
    let server_for_writes = Arc::clone(&server);
    let mut fan_out = Vec::new();
    let mut per_delivery = Vec::new();
    for index in 0..WATCHED_WRITES {
        let written = Instant::now();
        let object = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("watched-{index}")},
            "data": {"n": index.to_string()},
        });
        server_for_writes
            .create(&config_maps, "v1", "bench-0", object, &options)
            .expect("write");
        let mut delivered = 0;
        let mut last = written;
        while delivered < WATCHERS {
            let (_, at) = receiver.recv().await.expect("delivery");
            per_delivery.push(at.duration_since(written));
            last = last.max(at);
            delivered += 1;
        }
        fan_out.push(last.duration_since(written));
    }
    for watcher in watchers {
        let _ = watcher.await;
    }
    println!(
        "watch fan-out to {WATCHERS} watches: all delivered p50 {}  p99 {}  max {}; one delivery p50 {}  p99 {} ({WATCHED_WRITES} writes)",
        millis(percentile(&mut fan_out.clone(), 0.5)),
        millis(percentile(&mut fan_out.clone(), 0.99)),
        millis(percentile(&mut fan_out, 1.0)),
        millis(percentile(&mut per_delivery.clone(), 0.5)),
        millis(percentile(&mut per_delivery, 0.99)),
    );
}
