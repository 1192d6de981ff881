//! Test helpers: manifests, plans and a native call of the gate with given settings.

use serde_json::{Value, json};
use weft_sdk::PluginError;
use weft_sdk::gate::{AppFacts, Change, DeployGate, GateRequest, Image, PlannedObject, Verdict};

use crate::PolicyGate;

/// The reference of the object the one-object helpers plan.
pub const OBJECT: &str = "v1 Pod shop/web";

/// A Pod with `spec`.
pub fn pod(spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "shop"}, "spec": spec})
}

/// A Deployment whose pod template has `spec`.
pub fn deployment(spec: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"replicas": 1, "template": {"metadata": {"labels": {"app": "web"}}, "spec": spec}}})
}

/// One planned object.
pub fn planned(reference: &str, change: Change, manifest: Value) -> PlannedObject {
    PlannedObject {
        reference: reference.to_string(),
        change,
        manifest,
        diff: String::new(),
    }
}

/// An image fact of the request.
pub fn image(reference: &str, digest: Option<&str>, pinned_in_source: bool) -> Image {
    Image {
        reference: reference.to_string(),
        digest: digest.map(str::to_string),
        pinned_in_source,
        objects: vec![OBJECT.to_string()],
    }
}

/// A request for these objects and images.
pub fn request(objects: Vec<PlannedObject>, images: Vec<Image>) -> GateRequest {
    GateRequest {
        app: AppFacts {
            name: "shop".into(),
            org: None,
            env: "main".into(),
            cluster: "staging".into(),
            namespace: Some("shop".into()),
        },
        revision: "0123456789abcdef0123456789abcdef01234567".into(),
        objects,
        images,
        build: None,
    }
}

/// Calls the gate as the host would, with `settings` as the registry entry's settings.
pub fn evaluate(settings: &str, request: &GateRequest) -> Result<Verdict, PluginError> {
    weft_sdk::settings::with_settings(settings, || PolicyGate::evaluate(request))
}

/// `(rule, message)` for every reason `rules` find in `manifest`, planned for creation as [`OBJECT`] with these
/// image facts.
pub fn findings_with(rules: &[&str], manifest: Value, images: Vec<Image>) -> Vec<(String, String)> {
    let settings =
        json!({"rules": rules, "allowed_registries": ["registry.example.com", "ghcr.io/acme"]});
    let request = request(vec![planned(OBJECT, Change::Create, manifest)], images);
    let verdict = evaluate(&settings.to_string(), &request).expect("the gate answers");
    verdict
        .reasons()
        .iter()
        .map(|reason| {
            assert_eq!(reason.object, OBJECT);
            (reason.rule.clone(), reason.message.clone())
        })
        .collect()
}

/// `(rule, message)` for every reason `rule` finds in `manifest`.
pub fn findings(rule: &str, manifest: Value) -> Vec<(String, String)> {
    findings_with(&[rule], manifest, Vec::new())
}

/// The messages `rule` gives for `manifest`.
pub fn messages(rule: &str, manifest: Value) -> Vec<String> {
    findings(rule, manifest)
        .into_iter()
        .map(|(_, message)| message)
        .collect()
}

/// The rule names of the reasons `rule` gives for `manifest`, without repeats.
pub fn rules_hit(rule: &str, manifest: Value) -> Vec<String> {
    let mut rules: Vec<String> = findings(rule, manifest)
        .into_iter()
        .map(|(rule, _)| rule)
        .collect();
    rules.dedup();
    rules
}

/// Sets the field at JSON `pointer` (`/spec/securityContext/runAsNonRoot`), making objects on the way; a numeric
/// step indexes an existing list.
pub fn set(value: &mut Value, pointer: &str, new: Value) {
    let mut at = value;
    for step in pointer.trim_start_matches('/').split('/') {
        at = match at {
            Value::Array(items) => &mut items[step.parse::<usize>().expect("a list index")],
            other => {
                if !other.is_object() {
                    *other = json!({});
                }
                other
                    .as_object_mut()
                    .expect("an object")
                    .entry(step)
                    .or_insert(Value::Null)
            }
        };
    }
    *at = new;
}

/// `value` with the field at `pointer` set to `new`.
pub fn with(mut value: Value, pointer: &str, new: Value) -> Value {
    set(&mut value, pointer, new);
    value
}

/// `value` without the field at `pointer`.
pub fn without(mut value: Value, pointer: &str) -> Value {
    let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
    if let Some(Value::Object(map)) = value.pointer_mut(parent) {
        map.remove(key);
    }
    value
}
