//! Memory of the live cache per object: deploys N fleet apps (`weft_sim::fleet`, ten objects each, labelled as
//! Weft labels them) into an in-process simulator, waits until their Deployments are available, then watches the
//! kinds Weft watches for them (their own kinds and the tree's children: ReplicaSets, Pods, EndpointSlices,
//! Endpoints) and prints the resident-set growth per cached object beside the objects' size as compact JSON (as
//! cached, and as the server sends them with `managedFields`). `cargo bench -p weft-cluster --bench live_memory` (`LIVE_BENCH_APPS`,
//! default 2,000).

use std::time::{Duration, Instant};

use weft_cluster::{KindCatalog, LiveCache};
use weft_core::tracking::TRACKING_LABEL;
use weft_sim::apiserver::WriteOptions;
use weft_sim::{SimConfig, Simulator};

/// The kinds Weft watches for a fleet app: its own and the resource tree's children.
const KINDS: &[(&str, &str)] = &[
    ("", "Namespace"),
    ("apps", "Deployment"),
    ("", "Service"),
    ("", "ServiceAccount"),
    ("rbac.authorization.k8s.io", "Role"),
    ("rbac.authorization.k8s.io", "RoleBinding"),
    ("", "Secret"),
    ("policy", "PodDisruptionBudget"),
    ("", "ConfigMap"),
    ("apps", "ReplicaSet"),
    ("", "Pod"),
    ("discovery.k8s.io", "EndpointSlice"),
    ("", "Endpoints"),
];

fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|statm| statm.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let apps: usize = std::env::var("LIVE_BENCH_APPS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(2_000);
    let sim = Simulator::new(SimConfig {
        watch_history: 1_000,
        ..SimConfig::fast()
    });
    let server = sim.api_server().clone();
    let options = WriteOptions::manager("weft");
    for index in 0..apps {
        let name = format!("app-{index:05}");
        weft_sim::fleet::deploy(&server, &name, &[(TRACKING_LABEL, &name)], &options)
            .expect("deploy");
    }
    let deadline = Instant::now() + Duration::from_secs(1800);
    loop {
        let available = weft_sim::fleet::available_deployments(&server);
        if available == apps {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "only {available} of {apps} available"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    let client = sim.client();
    let before = resident_bytes();
    let cache = LiveCache::new(client.clone(), KindCatalog::new(client));
    for (group, kind) in KINDS {
        cache.ensure(group, kind).await.expect("watched");
    }
    let after = resident_bytes();
    let objects = cache.all();
    let cached_json: usize = objects
        .iter()
        .map(|object| serde_json::to_vec(object).map_or(0, |bytes| bytes.len()))
        .sum();
    // The same objects as the server sends them.
    let (mut served_json, mut served_count) = (0, 0);
    for (group, kind) in KINDS {
        let resource = server.resource_for_kind(group, kind).expect("served");
        for object in server.objects(&resource.key(), None) {
            served_json += object.json.len();
            served_count += 1;
        }
    }
    let count = objects.len().max(1);
    println!("== live cache: {apps} fleet apps, {count} cached objects ==");
    println!(
        "resident-set growth: {} bytes per cached object ({:.1} KiB per app)",
        after.saturating_sub(before) / count as u64,
        after.saturating_sub(before) as f64 / apps as f64 / 1024.0
    );
    println!(
        "compact JSON per object: {} bytes as cached (no managedFields), {} bytes as the server sends it",
        cached_json / count,
        served_json / served_count.max(1)
    );
}
