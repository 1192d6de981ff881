//! Loading plugins: pinned digests, WASI refusal, the compiled cache, the registry's choice, and the assessor's
//! fall-through and host rules, all through real components.

use std::sync::Arc;

use serde_json::json;
use weft_health::{AssessOptions, HealthAssessor, ObjectSet, PENDING_DELETION_RULE};
use weft_plugin_host::registry::{Provenance, Registry};
use weft_plugin_host::{
    CallLimits, HostConfig, LoadError, LoadOrigin, NoRelated, PluginHost, World,
};
use weft_sdk::{Health, Status};

fn host() -> PluginHost {
    PluginHost::new(HostConfig {
        cache_dir: None,
        ..HostConfig::default()
    })
    .unwrap()
}

fn builtins() -> Registry {
    let mut registry = Registry::new();
    registry
        .add_dir(weft_tests::builtin_plugins(), Provenance::BuiltIn)
        .unwrap();
    registry
}

#[test]
fn a_component_that_does_not_match_its_pin_is_refused() {
    let registry = builtins();
    let core = registry.get("health-core").unwrap();
    let path = core.component_path().unwrap();
    let wrong = "0".repeat(64);
    let err = host()
        .load_component_file("health-core", World::HealthCheck, &path, Some(&wrong))
        .unwrap_err();
    assert!(matches!(err, LoadError::Sha256Mismatch { .. }), "{err}");
    assert!(err.to_string().contains("refusing to load"));
}

#[test]
fn an_import_no_sandbox_provides_is_refused_before_compiling() {
    // wasi:http is outside the deny-all set. The component's only function body does not validate either, so a
    // compiler that saw it would fail differently: a `Refused` error shows the shape was judged first.
    let wat = r#"(component
        (import "wasi:http/outgoing-handler@0.2.9" (instance))
        (core module (func (result i32) (i64.const 0)))
    )"#;
    let bytes = wat::parse_str(wat).unwrap();
    let err = host()
        .load_component("http-user", World::HealthCheck, &bytes, None, None)
        .unwrap_err();
    assert!(matches!(err, LoadError::Refused { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("imports wasi:http/outgoing-handler@0.2.9"),
        "{err}"
    );
}

#[test]
fn a_health_check_importing_wasi_runs_in_the_guest_runtime_sandbox_and_a_renderer_may_not() {
    let wat = r#"(component
        (import "wasi:cli/environment@0.2.0" (instance (export "get-arguments" (func (result (list string))))))
    )"#;
    let bytes = wat::parse_str(wat).unwrap();
    let host = host();
    let loaded = host
        .load_component("wasi-user", World::HealthCheck, &bytes, None, None)
        .unwrap();
    assert_eq!(
        loaded.sandbox,
        weft_plugin_host::shape::Sandbox::GuestRuntime
    );
    let err = host
        .load_component("wasi-renderer", World::Renderer, &bytes, None, None)
        .unwrap_err();
    assert!(matches!(err, LoadError::Refused { .. }), "{err}");
    assert!(err.to_string().contains("health checks only"), "{err}");
}

#[test]
fn a_renderer_is_not_a_health_check() {
    let wat = "(component)";
    let bytes = wat::parse_str(wat).unwrap();
    let host = host();
    let component = host
        .load_component("empty", World::HealthCheck, &bytes, None, None)
        .unwrap();
    let err = host
        .health_plugin(&component, CallLimits::HEALTH)
        .unwrap_err();
    assert!(matches!(err, LoadError::WrongWorld { .. }), "{err}");
}

#[test]
fn a_component_loaded_for_one_world_is_refused_by_another() {
    let registry = builtins();
    let path = registry
        .get("health-core")
        .unwrap()
        .component_path()
        .unwrap();
    let host = host();
    // Renderers are compiled for the fuel-metered engine; binding that code to the health world is refused by
    // name, not left to a panic inside wasmtime.
    let component = host
        .load_component_file("health-core", World::Renderer, &path, None)
        .unwrap();
    let err = host
        .health_plugin(&component, CallLimits::HEALTH)
        .unwrap_err();
    assert!(
        err.to_string().contains("loaded as a renderer plugin"),
        "{err}"
    );
}

#[test]
fn compiled_components_are_cached_on_disk() {
    let cache = tempfile::tempdir().unwrap();
    let config = || HostConfig {
        cache_dir: Some(cache.path().join("components")),
        ..HostConfig::default()
    };
    let path = builtins()
        .get("health-core")
        .unwrap()
        .component_path()
        .unwrap();
    let first = PluginHost::new(config())
        .unwrap()
        .load_component_file("health-core", World::HealthCheck, &path, None)
        .unwrap();
    assert_eq!(first.origin, LoadOrigin::Compiled);
    let second = PluginHost::new(config())
        .unwrap()
        .load_component_file("health-core", World::HealthCheck, &path, None)
        .unwrap();
    assert_eq!(second.origin, LoadOrigin::Cache);
}

#[test]
fn the_assessor_names_who_answered_and_falls_through_on_no_opinion() {
    let assessor = HealthAssessor::new(host(), builtins(), AssessOptions::default());
    let objects = vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"paused": true}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "gone", "deletionTimestamp": "2026-01-01T00:00:00Z"}}),
        json!({"apiVersion": "example.weft.dev/v1", "kind": "Widget", "metadata": {"name": "w"},
               "status": {"conditions": [{"type": "Ready", "status": "True", "message": "fine"}]}}),
    ];
    let results = assessor
        .assess_blocking(&objects, Arc::new(ObjectSet::new(&objects)))
        .unwrap();
    assert_eq!(
        results[0].health,
        Some(Health::suspended("Deployment is paused"))
    );
    assert_eq!(results[0].answered_by.as_deref(), Some("health-core"));
    assert_eq!(
        results[1].health.as_ref().map(|h| h.status),
        Some(Status::Progressing)
    );
    assert_eq!(
        results[1].answered_by.as_deref(),
        Some(PENDING_DELETION_RULE)
    );
    assert_eq!(results[2].health, Some(Health::healthy("fine")));
    assert_eq!(results[2].answered_by.as_deref(), Some("health-widget"));
}

#[test]
fn a_plugin_sees_children_through_the_host_but_never_secrets() {
    let assessor = HealthAssessor::new(host(), builtins(), AssessOptions::default());
    let objects = vec![
        json!({"apiVersion": "example.weft.dev/v1", "kind": "Widget", "metadata": {"name": "w", "uid": "w-1"},
               "status": {"conditions": [{"type": "Ready", "status": "True", "message": "fine"}]}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "w-web", "ownerReferences": [{"uid": "w-1"}]},
               "spec": {"replicas": 2}, "status": {"availableReplicas": 1}}),
    ];
    let results = assessor
        .assess_blocking(&objects[..1], Arc::new(ObjectSet::new(&objects)))
        .unwrap();
    assert_eq!(
        results[0].health,
        Some(Health::progressing(
            "Waiting for deployment w-web: 1 of 2 replicas available"
        ))
    );
    // Without related objects the same Widget is healthy: the verdict above came from the child.
    let alone = assessor
        .assess_blocking(&objects[..1], Arc::new(NoRelated))
        .unwrap();
    assert_eq!(alone[0].health, Some(Health::healthy("fine")));
}
