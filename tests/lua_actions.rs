//! Argo CD's own Lua resource actions run unchanged: every `discoveryTests` and `actionTests` case of its
//! `resource_customizations/*/*/actions/action_test.yaml` (the corpus in `tests/conformance/argocd-actions`, see
//! its LICENSES.md) through the `health-lua` sandbox natively and through the host (Wasm), judged as Argo CD's
//! `TestLuaResourceActionsScript` judges them: each offered action must be one of the expected ones; an action's
//! error must be the expected message; each returned object must match the expected one in every field the
//! expected one states (Weft's subset diff, as gitops-engine's two-way diff), after Argo CD's test normalizer has
//! fixed the times the scripts write. The deviations are listed in `KNOWN_DEVIATIONS`, each with its reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};
use weft_core::resource::ResourceRef;
use weft_health::action_scripts::add_configured_actions;
use weft_health::actions::ActionError;
use weft_health::settings::HealthChecks;
use weft_health::{AssessOptions, HealthAssessor};
use weft_plugin_host::registry::{Provenance, Registry};
use weft_plugin_host::{ActionCallError, HostConfig, Impact, PluginHost};
use weft_sync::diff::diff_subset;

/// Cases that do not pass, by `<kind dir>/<case>`, with the reason. Empty: every case passes.
const KNOWN_DEVIATIONS: &[(&str, &str)] = &[];

fn corpus() -> PathBuf {
    weft_tests::workspace().join("tests/conformance/argocd-actions/resource_customizations")
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Suite {
    #[serde(default)]
    discovery_tests: Vec<DiscoveryTest>,
    #[serde(default)]
    action_tests: Vec<ActionTest>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DiscoveryTest {
    input_path: String,
    #[serde(default)]
    result: Vec<health_lua::actions::ActionOffer>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ActionTest {
    action: String,
    input_path: String,
    #[serde(default)]
    expected_output_path: Option<String>,
    #[serde(default)]
    expected_error_message: Option<String>,
    #[serde(default)]
    parameters: BTreeMap<String, String>,
}

/// One kind's suite: its `actions` directory, `group`, `Kind`.
struct KindSuite {
    dir: PathBuf,
    group: String,
    kind: String,
    suite: Suite,
}

fn suites() -> Vec<KindSuite> {
    let mut found = Vec::new();
    let mut groups: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    groups.sort();
    for group in groups {
        let mut kinds: Vec<PathBuf> = std::fs::read_dir(&group)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        kinds.sort();
        for kind in kinds {
            let dir = kind.join("actions");
            // Argo CD's runner reads files named exactly `action_test.yaml` (one kind has `actions_test.yaml`,
            // which it never runs; neither does this test).
            let Ok(text) = std::fs::read_to_string(dir.join("action_test.yaml")) else {
                continue;
            };
            let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
            found.push(KindSuite {
                dir,
                group: name(&group),
                kind: name(&kind),
                suite: serde_norway::from_str(&text).unwrap(),
            });
        }
    }
    found
}

fn read_yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The expected objects of an action test: one object, or Argo CD's list of `{unstructuredObj: ...}`.
fn expected_objects(path: &Path) -> Vec<Value> {
    match read_yaml(path) {
        Value::Array(items) => items
            .into_iter()
            .map(|item| item["unstructuredObj"].clone())
            .collect(),
        object => vec![object],
    }
}

/// What running a case gave: offers, or objects, or an error's message.
enum Ran {
    Offers(Vec<health_lua::actions::ActionOffer>),
    Objects(Vec<(Impact, Value)>),
    Failed(String),
}

/// Runs cases one way (natively or through Wasm).
trait Runner {
    fn discover(&self, suite: &KindSuite, object: &Value) -> Ran;
    fn run(
        &self,
        suite: &KindSuite,
        action: &str,
        object: &Value,
        params: &[(String, String)],
    ) -> Ran;
}

/// The sandbox as a library: the scripts' source, compiled by the first run.
struct Native;

impl Runner for Native {
    fn discover(&self, suite: &KindSuite, object: &Value) -> Ran {
        let Ok(script) = std::fs::read_to_string(suite.dir.join("discovery.lua")) else {
            return Ran::Offers(Vec::new());
        };
        match health_lua::actions::discover(&mut health_lua::Program::Source(script), object) {
            Ok(offers) => Ran::Offers(offers),
            Err(message) => Ran::Failed(message),
        }
    }

    fn run(
        &self,
        suite: &KindSuite,
        action: &str,
        object: &Value,
        params: &[(String, String)],
    ) -> Ran {
        let script = std::fs::read_to_string(suite.dir.join(action).join("action.lua")).unwrap();
        match health_lua::actions::run(&mut health_lua::Program::Source(script), object, params) {
            Ok(impacted) => Ran::Objects(
                impacted
                    .into_iter()
                    .map(|item| {
                        let operation = match item.operation {
                            health_lua::actions::Operation::Patch => Impact::Patch,
                            health_lua::actions::Operation::Create => Impact::Create,
                        };
                        (operation, item.object)
                    })
                    .collect(),
            ),
            Err(message) => Ran::Failed(message),
        }
    }
}

/// The host: the corpus loaded as a `lua_dirs` entry (compiled at load time), each case a sandboxed call.
struct ThroughWasm {
    assessor: HealthAssessor,
    runtime: tokio::runtime::Runtime,
}

impl ThroughWasm {
    fn new() -> Self {
        let mut registry = Registry::new();
        registry
            .add_dir(weft_tests::builtin_plugins(), Provenance::BuiltIn)
            .unwrap();
        let health = HealthChecks {
            lua_dirs: vec![corpus()],
            ..HealthChecks::default()
        };
        add_configured_actions(&mut registry, &health).expect("every corpus script compiles");
        let host = PluginHost::new(HostConfig {
            cache_dir: None,
            ..HostConfig::default()
        })
        .unwrap();
        ThroughWasm {
            assessor: HealthAssessor::new(host, registry, AssessOptions::default()),
            runtime: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap(),
        }
    }

    fn failed(error: ActionError) -> Ran {
        match error {
            ActionError::Call {
                source: ActionCallError::Script(message),
                ..
            } => Ran::Failed(message),
            other => Ran::Failed(format!("(host) {other}")),
        }
    }
}

impl Runner for ThroughWasm {
    fn discover(&self, suite: &KindSuite, object: &Value) -> Ran {
        let Some(actions) = self
            .assessor
            .lua_actions(&suite.group, &suite.kind)
            .unwrap()
        else {
            return Ran::Offers(Vec::new());
        };
        match self.runtime.block_on(actions.discover(object)) {
            Ok(offers) => Ran::Offers(
                offers
                    .into_iter()
                    .map(|offer| health_lua::actions::ActionOffer {
                        name: offer.name,
                        disabled: offer.disabled,
                        icon_class: offer.icon_class,
                        display_name: offer.display_name,
                        params: offer
                            .params
                            .into_iter()
                            .map(|p| health_lua::actions::ActionParam {
                                name: p.name,
                                value: p.value,
                                kind: p.kind,
                                default: p.default,
                            })
                            .collect(),
                    })
                    .collect(),
            ),
            Err(error) => Self::failed(error),
        }
    }

    fn run(
        &self,
        suite: &KindSuite,
        action: &str,
        object: &Value,
        params: &[(String, String)],
    ) -> Ran {
        let actions = self
            .assessor
            .lua_actions(&suite.group, &suite.kind)
            .unwrap()
            .expect("the kind has actions");
        match self
            .runtime
            .block_on(actions.run(action, object, params.to_vec()))
        {
            Ok(changes) => Ran::Objects(
                changes
                    .into_iter()
                    .map(|change| (change.operation, change.object))
                    .collect(),
            ),
            Err(error) => Self::failed(error),
        }
    }
}

/// Sets `value` at `path`, making the maps on the way (`unstructured.SetNestedField`).
fn set(object: &mut Value, path: &[&str], value: Value) {
    let mut at = object;
    for key in &path[..path.len() - 1] {
        if !at.get(*key).is_some_and(Value::is_object) {
            at[*key] = json!({});
        }
        at = &mut at[*key];
    }
    at[path[path.len() - 1]] = value;
}

/// Argo CD's `testNormalizer`: the times and identities the scripts write, fixed on both sides.
fn normalize(object: &mut Value) {
    let api_version = object["apiVersion"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let group = api_version
        .rsplit_once('/')
        .map_or("", |(group, _)| group)
        .to_string();
    let kind = object["kind"].as_str().unwrap_or_default().to_string();
    let restarted = || json!({"kubectl.kubernetes.io/restartedAt": "0001-01-01T00:00:00Z"});
    let flux = || json!({"reconcile.fluxcd.io/requestedAt": "By Argo CD at: 0001-01-01T00:00:00"});
    match (group.as_str(), kind.as_str()) {
        ("batch", "Job") => {
            if let Some(conditions) = object
                .pointer_mut("/status/conditions")
                .and_then(Value::as_array_mut)
            {
                for condition in conditions {
                    if condition["type"] == "FailureTarget" {
                        condition["lastTransitionTime"] = json!("0001-01-01T00:00:00Z");
                    }
                }
            }
        }
        ("apps", "DaemonSet" | "StatefulSet") => set(
            object,
            &["spec", "template", "metadata", "annotations"],
            restarted(),
        ),
        ("apps", "Deployment") => {
            set(
                object,
                &["spec", "template", "metadata", "annotations"],
                restarted(),
            );
            set(object, &["status"], Value::Null);
            set(object, &["metadata", "creationTimestamp"], Value::Null);
            set(object, &["metadata", "generation"], Value::Null);
        }
        ("argoproj.io", "Rollout") => set(object, &["spec", "restartAt"], Value::Null),
        ("argoproj.io", "Workflow") => {
            set(object, &["metadata", "resourceVersion"], Value::Null);
            set(object, &["metadata", "uid"], Value::Null);
            set(
                object,
                &[
                    "metadata",
                    "annotations",
                    "workflows.argoproj.io/scheduled-time",
                ],
                Value::Null,
            );
        }
        ("external-secrets.io", "ExternalSecret" | "PushSecret") => set(
            object,
            &["metadata", "annotations"],
            json!({"force-sync": "0001-01-01T00:00:00Z"}),
        ),
        ("postgresql.cnpg.io", "Cluster") => {
            let mut annotations = object
                .pointer("/metadata/annotations")
                .cloned()
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({}));
            annotations["cnpg.io/reloadedAt"] = json!("0001-01-01T00:00:00Z");
            annotations["kubectl.kubernetes.io/restartedAt"] = json!("0001-01-01T00:00:00Z");
            set(object, &["metadata", "annotations"], annotations);
            set(object, &["status", "targetPrimaryTimestamp"], Value::Null);
        }
        ("helm.toolkit.fluxcd.io", "HelmRelease")
        | (
            "source.toolkit.fluxcd.io",
            "Bucket" | "GitRepository" | "HelmChart" | "HelmRepository" | "OCIRepository",
        )
        | ("image.toolkit.fluxcd.io", "ImageRepository" | "ImageUpdateAutomation")
        | ("kustomize.toolkit.fluxcd.io", "Kustomization")
        | ("notification.toolkit.fluxcd.io", "Receiver") => {
            set(object, &["metadata", "annotations"], flux())
        }
        _ => {}
    }
}

fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Judges one action case's objects as Argo CD does; `Err` says what differs.
fn judge_objects(
    source: &Value,
    ran: Vec<(Impact, Value)>,
    expected: &[Value],
) -> Result<(), String> {
    for (operation, mut result) in ran {
        let same_kind =
            |u: &Value| u["apiVersion"] == result["apiVersion"] && u["kind"] == result["kind"];
        let generated = (result["kind"] == "Job" && source["kind"] == "CronJob")
            || (result["kind"] == "Workflow"
                && (source["kind"] == "CronWorkflow" || source["kind"] == "WorkflowTemplate"));
        let found = expected.iter().find(|u| {
            same_kind(u)
                && text(u, "/metadata/namespace") == text(&result, "/metadata/namespace")
                && if generated {
                    text(u, "/metadata/name").starts_with(text(source, "/metadata/name"))
                } else {
                    text(u, "/metadata/name") == text(&result, "/metadata/name")
                }
        });
        let Some(expected) = found else {
            return Err(format!(
                "no expected object matches the returned {} {}",
                result["kind"],
                text(&result, "/metadata/name")
            ));
        };
        match operation {
            Impact::Patch => {
                if result["apiVersion"] != source["apiVersion"]
                    || result["kind"] != source["kind"]
                    || text(&result, "/metadata/name") != text(source, "/metadata/name")
                    || text(&result, "/metadata/namespace") != text(source, "/metadata/namespace")
                {
                    return Err("a patch of another object".into());
                }
            }
            Impact::Create if generated => {
                result["metadata"]["name"] = expected["metadata"]["name"].clone();
            }
            Impact::Create => {}
        }
        let mut expected = expected.clone();
        normalize(&mut expected);
        normalize(&mut result);
        let reference = ResourceRef::of(&expected).map_err(|e| e.to_string())?;
        let diff = diff_subset(&reference, &expected, &result, &[]);
        if !diff.is_synced() {
            return Err(format!(
                "the output differs from the expected one:\n{}",
                diff.unified
            ));
        }
    }
    Ok(())
}

/// An offer as Argo CD's `ResourceAction` holds it at the corpus's commit: its `ResourceActionParam` has only a
/// name, so a parameter's `default`, `type` and `value` (which its scripts and suites write) are dropped on both
/// sides before comparing, as there.
fn as_argo_reads(offer: &health_lua::actions::ActionOffer) -> health_lua::actions::ActionOffer {
    health_lua::actions::ActionOffer {
        params: offer
            .params
            .iter()
            .map(|p| health_lua::actions::ActionParam {
                name: p.name.clone(),
                ..Default::default()
            })
            .collect(),
        ..offer.clone()
    }
}

/// Runs every case one way: (passed, failed cases with why).
fn run_corpus(runner: &dyn Runner) -> (usize, usize, Vec<(String, String)>) {
    let (mut discovery_passed, mut action_passed, mut failures) = (0, 0, Vec::new());
    for suite in suites() {
        let label = format!("{}/{}", suite.group, suite.kind);
        for test in &suite.suite.discovery_tests {
            let case = format!("{label}/discovery/{}", test.input_path);
            let object = read_yaml(&suite.dir.join(&test.input_path));
            match runner.discover(&suite, &object) {
                Ran::Offers(offers) => match offers
                    .iter()
                    .map(as_argo_reads)
                    .find(|o| !test.result.iter().map(as_argo_reads).any(|e| e == *o))
                {
                    None => discovery_passed += 1,
                    Some(offer) => failures.push((case, format!("unexpected offer {offer:?}"))),
                },
                Ran::Failed(message) => failures.push((case, message)),
                Ran::Objects(_) => unreachable!(),
            }
        }
        for test in &suite.suite.action_tests {
            let case = format!("{label}/actions/{}/{}", test.action, test.input_path);
            let object = read_yaml(&suite.dir.join(&test.input_path));
            let params: Vec<(String, String)> = test
                .parameters
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let ran = runner.run(&suite, &test.action, &object, &params);
            let verdict = match (ran, &test.expected_error_message) {
                (Ran::Failed(message), Some(expected)) if message == *expected => Ok(()),
                (Ran::Failed(message), Some(expected)) => {
                    Err(format!("error {message:?}, expected {expected:?}"))
                }
                (Ran::Objects(_), Some(expected)) => {
                    Err(format!("no error, expected {expected:?}"))
                }
                (Ran::Failed(message), None) => Err(message),
                (Ran::Objects(objects), None) => {
                    let path = suite
                        .dir
                        .join(test.expected_output_path.as_deref().unwrap_or_default());
                    judge_objects(&object, objects, &expected_objects(&path))
                }
                (Ran::Offers(_), _) => unreachable!(),
            };
            match verdict {
                Ok(()) => action_passed += 1,
                Err(why) => failures.push((case, why)),
            }
        }
    }
    (discovery_passed, action_passed, failures)
}

fn check(way: &str, runner: &dyn Runner) {
    let (discovery, actions, failures) = run_corpus(runner);
    let unexpected: Vec<&(String, String)> = failures
        .iter()
        .filter(|(case, _)| !KNOWN_DEVIATIONS.iter().any(|(known, _)| case == known))
        .collect();
    println!(
        "{way}: {discovery} discovery cases and {actions} action cases pass, {} fail ({} known deviations)",
        failures.len(),
        failures.len() - unexpected.len()
    );
    assert!(discovery > 0 && actions > 0, "the corpus is empty");
    assert!(unexpected.is_empty(), "{way}: {unexpected:#?}");
}

#[test]
fn argo_cds_action_corpus_passes_natively() {
    check("natively", &Native);
}

#[test]
fn argo_cds_action_corpus_passes_through_wasm() {
    check("through Wasm", &ThroughWasm::new());
}
