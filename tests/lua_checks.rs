//! Lua and CEL checks through the Wasm sandbox: our own Argo CD-style scripts pass their kinds' cases, hostile
//! scripts end with the right verdict and leave the engine working, CEL checks answer in Flux's shape, and the
//! lookup order between scripts and plugins is the documented one.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use weft_health::scripts::{self, LuaScript, add_lua_scripts, read_lua_dir};
use weft_health::settings::CelCheck;
use weft_health::{AssessOptions, Assessment, HealthAssessor, ObjectSet};
use weft_plugin_host::registry::{Provenance, Registry};
use weft_plugin_host::{HostConfig, PluginHost};
use weft_sdk::testing::{read_health_suite, read_object};
use weft_sdk::{Health, Status};

fn scripts_dir() -> PathBuf {
    weft_tests::workspace().join("tests/lua/resource_customizations")
}

fn builtin_registry() -> Registry {
    let mut registry = Registry::new();
    registry
        .add_dir(weft_tests::builtin_plugins(), Provenance::BuiltIn)
        .unwrap();
    registry
}

/// The built-in plugins, with health-lua's memory cap lowered to `memory_mib`, so a test script reaches it fast
/// (omnilua allocates a few hundred MiB per second, and a Lua check's deadline is one second).
fn builtin_registry_with_lua_memory(memory_mib: u32) -> Registry {
    let mut registry = Registry::new();
    for plugin in builtin_registry().plugins() {
        let mut manifest = plugin.manifest.clone();
        if manifest.name == scripts::LUA_TEMPLATE {
            manifest.limits.memory_mib = Some(memory_mib);
        }
        registry
            .add(manifest, plugin.provenance, plugin.manifest_path.clone())
            .unwrap();
    }
    registry
}

fn assessor(registry: Registry) -> HealthAssessor {
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        ..HostConfig::default()
    })
    .unwrap();
    HealthAssessor::new(host, registry, AssessOptions::default())
}

fn assess(assessor: &HealthAssessor, objects: &[Value]) -> Vec<Assessment> {
    assessor
        .assess_blocking(objects, Arc::new(ObjectSet::default()))
        .unwrap()
}

fn lua(key: &str, script: &str) -> LuaScript {
    LuaScript {
        key: key.into(),
        script: script.into(),
        origin: format!("test script for {key}"),
    }
}

fn object(api_version: &str, kind: &str, name: &str, status: Value) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, "status": status})
}

#[test]
fn our_argo_style_scripts_pass_their_kinds_cases_through_wasm() {
    let mut registry = builtin_registry();
    let scripts = read_lua_dir(&scripts_dir()).unwrap();
    assert!(scripts.len() >= 12, "{} scripts", scripts.len());
    add_lua_scripts(&mut registry, &scripts).unwrap();
    let assessor = assessor(registry);
    let (mut passed, mut failures) = (0, Vec::new());
    for script in &scripts {
        let (group, kind) = script.key.split_once('/').unwrap();
        let dir = scripts_dir()
            .join(group.replace('*', "_"))
            .join(kind.replace('*', "_"));
        let suite = read_health_suite(&dir.join("health_test.yaml")).unwrap();
        let objects: Vec<Value> = suite
            .iter()
            .map(|case| read_object(&case.input).unwrap().into_value())
            .collect();
        let started = Instant::now();
        let results = assess(&assessor, &objects);
        let per_case = started.elapsed() / objects.len() as u32;
        for (case, result) in suite.iter().zip(results) {
            let expected_plugin = format!("lua:{}", script.key);
            if result.health.as_ref() == Some(&case.expected)
                && result.answered_by.as_deref() == Some(expected_plugin.as_str())
            {
                passed += 1;
            } else {
                failures.push(format!(
                    "{}: expected {:?} from {expected_plugin}, got {:?} from {:?}",
                    case.input.display(),
                    case.expected,
                    result.health,
                    result.answered_by
                ));
            }
        }
        println!(
            "lua:{}: {} cases, {per_case:.1?} per case",
            script.key,
            suite.len()
        );
    }
    println!("lua scripts: {passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(passed >= 50, "only {passed} cases");
}

#[test]
fn hostile_scripts_get_the_right_verdict_and_the_engine_keeps_working() {
    let mut registry = builtin_registry_with_lua_memory(16);
    let group = "hostile.weft.dev";
    let hostile = [
        ("Loop", "while true do end"),
        (
            "Allocate",
            "local t = {} for i = 1, 1e9 do t[i] = {i, i, i, i, i, i, i, i} end",
        ),
        (
            "Recurse",
            "local function f(n) return f(n + 1) + 1 end return f(1)",
        ),
        ("Error", "error('boom')"),
        ("Garbage", "return 42"),
        ("Invalid", "return {status = 'Fine', message = 'whatever'}"),
        ("Nothing", "return nil"),
        (
            "Escape",
            "return {status = 'Healthy', message = tostring(io) .. tostring(os.execute) .. tostring(require)}",
        ),
    ];
    let scripts: Vec<LuaScript> = hostile
        .iter()
        .map(|(kind, script)| lua(&format!("{group}/{kind}"), script))
        .collect();
    add_lua_scripts(&mut registry, &scripts).unwrap();
    add_lua_scripts(
        &mut registry,
        &read_lua_dir(&scripts_dir().join("cert-manager.io/Certificate")).unwrap(),
    )
    .unwrap();
    let assessor = assessor(registry);
    let objects: Vec<Value> = hostile
        .iter()
        .map(|(kind, _)| object(&format!("{group}/v1"), kind, "x", json!({})))
        .collect();
    let started = Instant::now();
    let results: Vec<Assessment> = objects
        .iter()
        .map(|object| {
            let started = Instant::now();
            let result = assess(&assessor, std::slice::from_ref(object)).remove(0);
            println!("{:?} in {:?}", result.health, started.elapsed());
            result
        })
        .collect();
    let elapsed = started.elapsed();
    let verdict = |i: usize| {
        results[i]
            .health
            .clone()
            .unwrap_or_else(|| Health::unknown("none"))
    };
    // health-lua's manifest gives Lua checks Argo CD's one second.
    let timeout = Duration::from_secs(1);

    let looped = verdict(0);
    assert_eq!(looped.status, Status::Unknown);
    assert!(
        looped.message.contains("lua:hostile.weft.dev/Loop")
            && looped.message.contains("timed out"),
        "{looped:?}"
    );
    println!("hostile scripts: {elapsed:?} for the pass");
    let hoarded = verdict(1);
    assert_eq!(hoarded.status, Status::Unknown);
    assert!(hoarded.message.contains("ran out of memory"), "{hoarded:?}");
    // Lua's call stack lives on the heap: endless recursion ends at Lua's stack limit or at the memory cap.
    let recursed = verdict(2);
    assert_eq!(recursed.status, Status::Unknown);
    assert!(
        recursed.message.contains("stack overflow")
            || recursed.message.contains("ran out of memory"),
        "{recursed:?}"
    );
    assert_eq!(verdict(3), Health::unknown("health.lua:1: boom"));
    assert_eq!(
        verdict(4),
        Health::unknown("expect table output from Lua script, not number")
    );
    assert_eq!(verdict(5), Health::unknown(health_lua::INVALID_STATUS));
    // No opinion: the next candidate (the generic fallback) answers instead.
    assert_eq!(results[6].answered_by.as_deref(), Some("health-generic"));
    // No io, no os.execute; require exists (for "os" only).
    let escape = verdict(7);
    assert!(escape.message.starts_with("nilnilfunction"), "{escape:?}");
    for (i, result) in results.iter().enumerate().take(6) {
        assert_eq!(
            result.answered_by.as_deref(),
            Some(format!("lua:{group}/{}", hostile[i].0).as_str())
        );
    }
    // The pass ends: a batch that failed is retried object by object within one more deadline in all (the
    // assessor's retries share it; `hostile_plugins` checks that by the verdicts), so this bound only catches a
    // hang, never a slow machine.
    assert!(
        elapsed < timeout * 6 + Duration::from_secs(300),
        "took {elapsed:?}"
    );

    // The same engine still answers well-behaved scripts.
    let certificate = read_object(
        &weft_tests::conformance().join("argocd/cert-manager.io/Certificate/healthy_issued.yaml"),
    )
    .unwrap()
    .into_value();
    let after = assess(&assessor, &[certificate]);
    assert_eq!(
        after[0].health,
        Some(Health::healthy("Certificate issued successfully"))
    );
    assert_eq!(
        after[0].answered_by.as_deref(),
        Some("lua:cert-manager.io/Certificate")
    );
}

#[test]
fn os_time_reads_the_hosts_clock_through_the_sandbox() {
    let mut registry = builtin_registry();
    let script = r#"
local y, mo, d, h, mi, s = string.match(obj.status.lastHeartbeat, "(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)Z")
local beat = os.time({year = y, month = mo, day = d, hour = h, min = mi, sec = s})
local age = os.time() - beat
if age > 600 then
  return {status = "Degraded", message = "No heartbeat since " .. os.date("!%Y-%m-%d %H:%M", beat)}
end
return {status = "Healthy", message = "Heartbeat is recent"}
"#;
    add_lua_scripts(&mut registry, &[lua("example.weft.dev/Beacon", script)]).unwrap();
    let assessor = assessor(registry);
    let beacon = |at: &str| {
        object(
            "example.weft.dev/v1",
            "Beacon",
            at,
            json!({"lastHeartbeat": at}),
        )
    };
    let results = assess(
        &assessor,
        &[
            beacon("2020-03-04T05:06:07Z"),
            beacon("2999-01-01T00:00:00Z"),
        ],
    );
    assert_eq!(
        results[0].health,
        Some(Health::degraded("No heartbeat since 2020-03-04 05:06"))
    );
    assert_eq!(
        results[1].health,
        Some(Health::healthy("Heartbeat is recent"))
    );
}

#[test]
fn argo_cds_nulls_case_mapping_and_typed_fields_hold_through_wasm() {
    let mut registry = builtin_registry();
    let group = "compat.weft.dev";
    let scripts = [
        (
            "Nulls",
            "return {status = 'Healthy', message = #obj.status.items .. ':' .. table.concat(obj.status.items, ',')}",
        ),
        (
            "Case",
            "return {status = 'Healthy', message = string.upper(obj.status.text) .. '/' .. obj.status.text:lower()}",
        ),
        (
            "Typed",
            "return {status = 'Healthy', message = obj.status.count}",
        ),
    ];
    let luas: Vec<LuaScript> = scripts
        .iter()
        .map(|(kind, script)| lua(&format!("{group}/{kind}"), script))
        .collect();
    add_lua_scripts(&mut registry, &luas).unwrap();
    let assessor = assessor(registry);
    let status = json!({"items": ["a", null, "c", null], "text": "État Ünï", "count": 3});
    let objects: Vec<Value> = scripts
        .iter()
        .map(|(kind, _)| object(&format!("{group}/v1"), kind, "x", status.clone()))
        .collect();
    let results = assess(&assessor, &objects);
    // gopher-lua's `Append` skips a null; its `string.upper`/`lower` are Unicode-aware.
    assert_eq!(results[0].health, Some(Health::healthy("2:a,c")));
    assert_eq!(
        results[1].health,
        Some(Health::healthy("ÉTAT ÜNÏ/état ünï"))
    );
    // A number message is Argo CD's empty health: no opinion, so the generic fallback answers.
    assert_eq!(results[2].answered_by.as_deref(), Some("health-generic"));
}

fn cel(kind: &str, current: &str, in_progress: Option<&str>, failed: Option<&str>) -> CelCheck {
    CelCheck {
        kind: kind.into(),
        current: current.into(),
        in_progress: in_progress.map(Into::into),
        failed: failed.map(Into::into),
        message: None,
    }
}

#[test]
fn cel_checks_answer_in_fluxs_shape_through_wasm() {
    let mut registry = builtin_registry();
    let checks = [
        cel(
            "cert-manager.io/Certificate",
            "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
            Some(
                "!has(self.status) || status.conditions.exists(c, c.type == 'Issuing' && c.status == 'True')",
            ),
            Some("status.conditions.exists(c, c.type == 'Ready' && c.status == 'False')"),
        ),
        cel(
            "k8s.mariadb.com/MariaDB",
            "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
            Some(
                "!has(status.conditions) || status.conditions.exists(c, c.type == 'Ready' && c.status == 'False' && c.reason != 'Failed')",
            ),
            Some("status.conditions.exists(c, c.type == 'Ready' && c.reason == 'Failed')"),
        ),
        CelCheck {
            message: Some("'phase ' + status.phase".into()),
            ..cel(
                "argoproj.io/AnalysisRun",
                "status.phase == 'Successful'",
                Some("!has(self.status) || status.phase in ['Pending', 'Running']"),
                Some("status.phase in ['Failed', 'Error']"),
            )
        },
    ];
    for (index, check) in checks.iter().enumerate() {
        let instance = scripts::cel_instance(check, &format!("test check {index}")).unwrap();
        registry
            .add_instance(scripts::CEL_TEMPLATE, instance, Provenance::User)
            .unwrap();
    }
    let assessor = assessor(registry);
    let corpus = weft_tests::conformance().join("argocd");
    let cases: [(&str, Status, &str); 9] = [
        (
            "cert-manager.io/Certificate/healthy_issued.yaml",
            Status::Healthy,
            "Certificate issued successfully",
        ),
        (
            "cert-manager.io/Certificate/progressing_issuing.yaml",
            Status::Progressing,
            "Issuing certificate as Secret does not exist",
        ),
        (
            "cert-manager.io/Certificate/progressing_noStatus.yaml",
            Status::Progressing,
            "",
        ),
        (
            "k8s.mariadb.com/MariaDB/restore_complete.yaml",
            Status::Healthy,
            "Running",
        ),
        (
            "k8s.mariadb.com/MariaDB/mariadb_error.yaml",
            Status::Degraded,
            "Error creating ConfigMap",
        ),
        (
            "k8s.mariadb.com/MariaDB/statefulset_not_ready.yaml",
            Status::Progressing,
            "Not ready",
        ),
        (
            "k8s.mariadb.com/MariaDB/no_status.yaml",
            Status::Progressing,
            "",
        ),
        (
            "argoproj.io/AnalysisRun/successfulAnalysisRun.yaml",
            Status::Healthy,
            "phase Successful",
        ),
        (
            "argoproj.io/AnalysisRun/failedAnalysisRun.yaml",
            Status::Degraded,
            "phase Failed",
        ),
    ];
    let objects: Vec<Value> = cases
        .iter()
        .map(|(file, ..)| read_object(&corpus.join(file)).unwrap().into_value())
        .collect();
    let results = assess(&assessor, &objects);
    for ((file, status, message), result) in cases.iter().zip(&results) {
        let kind = file.rsplit_once('/').unwrap().0;
        assert_eq!(
            result.health,
            Some(Health::new(*status, *message)),
            "{file}"
        );
        assert_eq!(
            result.answered_by.as_deref(),
            Some(format!("cel:{kind}").as_str())
        );
    }
    let broken = cel("example.com/Widget", "status.ready ==", None, None);
    let error = scripts::cel_instance(&broken, "weft.toml health.cel[0]")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("example.com/Widget") && error.contains("\"status.ready ==\""),
        "{error}"
    );
}

#[test]
fn scripts_and_plugins_follow_one_lookup_order() {
    let mut registry = builtin_registry();
    add_lua_scripts(
        &mut registry,
        &[
            lua(
                "apps/Deployment",
                "if obj.metadata.name == 'pass' then return nil end return {status = 'Healthy', message = 'exact script'}",
            ),
            lua("*", "return {status = 'Suspended', message = 'wildcard script'}"),
        ],
    )
    .unwrap();
    let assessor = assessor(registry);
    let deployment = |name: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "generation": 1},
               "spec": {"replicas": 1},
               "status": {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "availableReplicas": 1}})
    };
    let results = assess(
        &assessor,
        &[
            deployment("mine"),
            deployment("pass"),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "status": {"phase": "Running"}}),
            object("example.com/v1", "Thing", "t", json!({})),
        ],
    );
    let answered: Vec<&str> = results
        .iter()
        .map(|r| r.answered_by.as_deref().unwrap_or("-"))
        .collect();
    // A user script for an exact key beats the built-in plugin; one with no opinion hands over to it; a built-in
    // plugin's exact key beats a user wildcard; a user wildcard beats the built-in wildcard (the generic fallback).
    assert_eq!(
        answered,
        ["lua:apps/Deployment", "health-core", "health-core", "lua:*"]
    );
    assert_eq!(results[0].health, Some(Health::healthy("exact script")));
    assert_eq!(
        results[3].health,
        Some(Health::suspended("wildcard script"))
    );
}

#[test]
fn the_hosts_bytecode_runs_in_the_sandbox_and_bytecode_that_is_not_is_unknown() {
    let mut registry = builtin_registry();
    // Compiled by the host: a runtime error still names the script's line.
    add_lua_scripts(
        &mut registry,
        &[lua(
            "example.weft.dev/Lined",
            "local hs = {}\nlocal missing = nil\nhs.status = missing.status\nreturn hs",
        )],
    )
    .unwrap();
    // Settings whose bytecode was changed after it was compiled, and bytes that are no chunk at all.
    let good: Value =
        serde_json::from_str(&health_lua::settings_for("return nil").unwrap()).unwrap();
    let mut changed = good.clone();
    let mut bytes = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        good["bytecode"].as_str().unwrap(),
    )
    .unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    changed["bytecode"] = json!(base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        &bytes
    ));
    let garbage = vec![0x1bu8; 300];
    let forged = json!({
        "bytecode": base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &garbage),
        "digest": health_lua::precompiled::digest(&garbage),
    });
    for (kind, settings) in [("Changed", changed), ("Forged", forged)] {
        registry
            .add_instance(
                scripts::LUA_TEMPLATE,
                weft_plugin_host::registry::PluginInstance {
                    name: format!("lua:example.weft.dev/{kind}"),
                    kinds: vec![format!("example.weft.dev/{kind}")],
                    settings: settings.to_string(),
                    origin: "test settings".into(),
                },
                Provenance::User,
            )
            .unwrap();
    }
    let assessor = assessor(registry);
    let results = assess(
        &assessor,
        &[
            object("example.weft.dev/v1", "Lined", "a", json!({})),
            object("example.weft.dev/v1", "Changed", "b", json!({})),
            object("example.weft.dev/v1", "Forged", "c", json!({})),
        ],
    );
    let lined = results[0].health.clone().unwrap();
    assert!(
        lined.status == Status::Unknown && lined.message.starts_with("health.lua:3:"),
        "{lined:?}"
    );
    for (result, expected) in results[1..].iter().zip(["digest", "not a Lua 5.2 chunk"]) {
        let health = result.health.clone().unwrap();
        assert_eq!(health.status, Status::Unknown, "{health:?}");
        assert!(
            health.message.contains("precompiled script") && health.message.contains(expected),
            "{health:?}"
        );
    }
    assert_eq!(
        results[2].answered_by.as_deref(),
        Some("lua:example.weft.dev/Forged")
    );
}
