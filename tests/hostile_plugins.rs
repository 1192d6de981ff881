//! Plugins that loop, hoard memory, recurse, panic or answer with 100 MiB: each call ends with the right typed
//! error within its limit, and the same engine keeps answering well-behaved calls afterwards.

use std::sync::Arc;
use std::time::{Duration, Instant};

use weft_health::{AssessOptions, HealthAssessor};
use weft_plugin_host::registry::{Provenance, Registry};
use weft_plugin_host::{
    CallError, CallLimits, Failure, HealthPlugin, HostConfig, LimitCeilings, LoadError, NoRelated,
    PluginHost, World,
};
use weft_sdk::Health;

fn load(host: &PluginHost, dir: &std::path::Path, name: &str) -> HealthPlugin {
    load_with(host, dir, name, |limits| limits)
}

/// Loads with the manifest's limits changed by `adjust` (within the host's ceilings).
fn load_with(
    host: &PluginHost,
    dir: &std::path::Path,
    name: &str,
    adjust: impl Fn(CallLimits) -> CallLimits,
) -> HealthPlugin {
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
    let limits = adjust(CallLimits::HEALTH.with_overrides(&plugin.manifest.limits));
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

/// The deadline the misbehaviours other than looping get: so long that on however loaded a machine the failure
/// is decided by what the plugin does (memory, stack, panic, output), never by the clock.
const UNHURRIED: Duration = Duration::from_secs(600);

/// A host whose health ceiling lets the hostile plugin have the 256 MiB its manifest asks for, so that its
/// 100 MiB answer meets the output limit rather than the memory cap, and the unhurried deadline.
fn roomy_host() -> PluginHost {
    let defaults = LimitCeilings::default();
    PluginHost::new(HostConfig {
        cache_dir: None,
        ceilings: LimitCeilings {
            health: CallLimits {
                memory_bytes: 256 * 1024 * 1024,
                timeout: UNHURRIED,
                ..defaults.health
            },
            ..defaults
        },
        ..HostConfig::default()
    })
    .unwrap()
}

#[test]
fn every_misbehaviour_becomes_a_typed_error_and_the_engine_recovers() {
    let host = roomy_host();
    let hostile = load(&host, weft_tests::test_plugins(), "hostile");
    let unhurried = load_with(&host, weft_tests::test_plugins(), "hostile", |limits| {
        CallLimits {
            timeout: UNHURRIED,
            ..limits
        }
    });
    let core = load(&host, weft_tests::builtin_plugins(), "health-core");
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
        // Only the loop meets the manifest's 1 s deadline; the rest run unhurried.
        let plugin = if kind == "Loop" { &hostile } else { &unhurried };
        let limits = plugin.limits();
        let (outcome, elapsed) = call(plugin, kind);
        let error = outcome.expect_err(kind);
        assert_eq!(error.plugin, "hostile");
        assert!(
            expected(&error.failure),
            "{kind}: unexpected failure {error}"
        );
        // Generous: the point is that the call ends, not how fast (benchmarks measure speed).
        assert!(
            elapsed < limits.timeout + Duration::from_secs(60),
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

/// The hostile plugin installed in a directory of its own with `limits` as its manifest's `[limits]`.
fn hostile_with_limits(limits: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let installed = weft_tests::test_plugins();
    std::fs::copy(
        installed.join("hostile.wasm"),
        dir.path().join("hostile.wasm"),
    )
    .unwrap();
    let manifest = std::fs::read_to_string(installed.join("hostile.toml")).unwrap();
    let manifest = match manifest.find("[limits]") {
        Some(at) => format!("{}[limits]\n{limits}\n", &manifest[..at]),
        None => format!("{manifest}\n[limits]\n{limits}\n"),
    };
    std::fs::write(dir.path().join("hostile.toml"), manifest).unwrap();
    dir
}

#[test]
fn a_manifest_cannot_grant_itself_more_than_the_host_allows_and_running_out_is_out_of_memory() {
    let dir = hostile_with_limits("memory-mib = 4096\ntimeout-ms = 600000");
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        ..HostConfig::default()
    })
    .unwrap();
    let hostile = load(&host, dir.path(), "hostile");
    // The operator's default ceiling for health checks: 1 s and 64 MiB, whatever the manifest says.
    let ceiling = LimitCeilings::default().health;
    assert_eq!(hostile.limits().timeout, Duration::from_secs(1));
    assert_eq!(hostile.limits().memory_bytes, ceiling.memory_bytes);
    let (outcome, _) = call(&hostile, "Allocate");
    assert!(
        matches!(outcome.unwrap_err().failure, Failure::OutOfMemory { limit } if limit == ceiling.memory_bytes),
        "running out of memory is reported as such"
    );
    let (outcome, _) = call(&hostile, "Loop");
    assert_eq!(
        outcome.unwrap_err().failure,
        Failure::Timeout(Duration::from_secs(1))
    );
}

#[test]
fn retrying_a_failed_batch_one_by_one_never_multiplies_the_timeout() {
    let dir = hostile_with_limits("timeout-ms = 500");
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        ..HostConfig::default()
    })
    .unwrap();
    let mut registry = Registry::new();
    registry.add_dir(dir.path(), Provenance::User).unwrap();
    let assessor = HealthAssessor::new(host, registry, AssessOptions::default());
    let objects: Vec<serde_json::Value> = ["Loop", "Loop", "Loop", "Loop", "Calm"]
        .iter()
        .map(|kind| serde_json::from_str(&object(kind)).unwrap())
        .collect();
    let results = assessor
        .assess_blocking(&objects, Arc::new(NoRelated))
        .unwrap();
    let messages: Vec<String> = results
        .iter()
        .map(|r| r.health.as_ref().unwrap().message.clone())
        .collect();
    // The batch timed out; the retries share one more timeout: the first object's retry spends it whole, and
    // every other object is unknown saying so, instead of costing a timeout each.
    assert!(messages[0].contains("timed out"), "{messages:?}");
    for message in &messages[1..] {
        assert!(message.contains("retries ran out of time"), "{messages:?}");
    }
}

#[test]
fn a_component_that_cannot_compile_within_the_budget_is_refused_by_name_and_not_compiled_again() {
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        compile_budget: Duration::from_millis(1),
        ..HostConfig::default()
    })
    .unwrap();
    let mut registry = Registry::new();
    registry
        .add_dir(weft_tests::builtin_plugins(), Provenance::BuiltIn)
        .unwrap();
    let core = registry.get("health-core").unwrap();
    let path = core.component_path().unwrap();
    for _ in 0..2 {
        let refused = host
            .load_component_file(
                "health-core",
                World::HealthCheck,
                &path,
                core.manifest.sha256.as_deref(),
            )
            .unwrap_err();
        assert!(
            matches!(&refused, LoadError::CompileTimeout { plugin, .. } if plugin == "health-core"),
            "{refused}"
        );
    }
}

#[test]
fn a_component_past_the_size_cap_is_refused_before_it_is_read() {
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        max_component_bytes: 1024,
        ..HostConfig::default()
    })
    .unwrap();
    let path = weft_tests::builtin_plugins().join("health-core.wasm");
    let refused = host
        .load_component_file("health-core", World::HealthCheck, &path, None)
        .unwrap_err();
    assert!(
        matches!(refused, LoadError::TooLarge { limit: 1024, .. }),
        "{refused}"
    );
}
