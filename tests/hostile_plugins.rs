//! Plugins that loop, hoard memory, recurse, panic or answer with 100 MiB: each call ends with the right typed
//! error within its limit, and the same engine keeps answering well-behaved calls afterwards.

use std::sync::Arc;
use std::time::{Duration, Instant};

use weft_engine::plugin::{
    CallError, CallLimits, Failure, HealthPlugin, HostConfig, NoRelated, PluginHost, World,
};
use weft_engine::registry::{Provenance, Registry};
use weft_sdk::Health;

fn load(host: &PluginHost, dir: &std::path::Path, name: &str) -> HealthPlugin {
    let mut registry = Registry::new();
    registry.add_dir(dir, Provenance::BuiltIn).unwrap();
    let plugin = registry.get(name).unwrap();
    let component = host
        .load_component_file(
            name,
            World::HealthCheck,
            &plugin.component_path().unwrap(),
            plugin.manifest.sha256.as_deref(),
        )
        .unwrap();
    let limits = CallLimits::HEALTH.with_overrides(&plugin.manifest.limits);
    host.health_plugin(&component, limits).unwrap()
}

fn object(kind: &str) -> String {
    format!(r#"{{"apiVersion":"hostile.weft.dev/v1","kind":"{kind}","metadata":{{"name":"x"}}}}"#)
}

fn call(plugin: &HealthPlugin, kind: &str) -> (Result<Option<Health>, CallError>, Duration) {
    let started = Instant::now();
    let outcome = plugin
        .assess_blocking(&[object(kind)], Arc::new(NoRelated))
        .map(|(mut results, _)| results.pop().unwrap().unwrap());
    (outcome, started.elapsed())
}

#[test]
fn every_misbehaviour_becomes_a_typed_error_and_the_engine_recovers() {
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        ..HostConfig::default()
    })
    .unwrap();
    let hostile = load(&host, weft_tests::test_plugins(), "hostile");
    let core = load(&host, weft_tests::builtin_plugins(), "health-core");
    let limits = hostile.limits();
    let deployment = r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1},
        "status":{"replicas":1,"updatedReplicas":1,"availableReplicas":1}}"#
        .to_string();

    type Expect = fn(&Failure) -> bool;
    let cases: [(&str, Expect); 5] = [
        ("Loop", |f| matches!(f, Failure::Timeout(_))),
        ("Allocate", |f| matches!(f, Failure::OutOfMemory { .. })),
        ("Recurse", |f| matches!(f, Failure::StackOverflow)),
        (
            "Panic",
            |f| matches!(f, Failure::Panic(m) if m.contains("hostile plugin panicked on purpose")),
        ),
        (
            "Huge",
            |f| matches!(f, Failure::OutputTooLarge { size, .. } if *size >= 100 << 20),
        ),
    ];
    for (kind, expected) in cases {
        let (outcome, elapsed) = call(&hostile, kind);
        let error = outcome.expect_err(kind);
        assert_eq!(error.plugin, "hostile");
        assert!(
            expected(&error.failure),
            "{kind}: unexpected failure {error}"
        );
        // Generous: the point is that the call ends, not how fast (benchmarks measure speed).
        assert!(
            elapsed < limits.timeout + Duration::from_secs(5),
            "{kind} took {elapsed:?}"
        );
        eprintln!("{kind:<9} -> {error} in {elapsed:?}");

        // The same plugin and another plugin on the same engine still answer.
        let (calm, _) = call(&hostile, "Calm");
        assert_eq!(
            calm.unwrap(),
            Some(Health::healthy("well behaved")),
            "after {kind}"
        );
        let (results, _) = core
            .assess_blocking(std::slice::from_ref(&deployment), Arc::new(NoRelated))
            .unwrap();
        assert_eq!(
            results[0].as_ref().unwrap(),
            &Some(Health::healthy("")),
            "after {kind}"
        );
    }
}

#[test]
fn the_timeout_is_the_configured_one() {
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        ..HostConfig::default()
    })
    .unwrap();
    let hostile = load(&host, weft_tests::test_plugins(), "hostile");
    let (outcome, _) = call(&hostile, "Loop");
    // The manifest sets 1 s (instead of the 100 ms default for health checks).
    assert_eq!(hostile.limits().timeout, Duration::from_secs(1));
    assert_eq!(
        outcome.unwrap_err().failure,
        Failure::Timeout(Duration::from_secs(1))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_calls_in_parallel_do_not_disturb_good_ones() {
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        ..HostConfig::default()
    })
    .unwrap();
    let hostile = load(&host, weft_tests::test_plugins(), "hostile");
    let mut calls = Vec::new();
    for i in 0..8 {
        let plugin = hostile.clone();
        let kind = if i % 2 == 0 { "Loop" } else { "Calm" };
        calls.push(tokio::spawn(async move {
            (
                kind,
                plugin.assess(vec![object(kind)], Arc::new(NoRelated)).await,
            )
        }));
    }
    for call in calls {
        let (kind, outcome) = call.await.unwrap();
        match kind {
            "Loop" => assert!(matches!(outcome.unwrap_err().failure, Failure::Timeout(_))),
            _ => assert_eq!(
                outcome.unwrap().0[0].as_ref().unwrap(),
                &Some(Health::healthy("well behaved"))
            ),
        }
    }
}
