//! Helm's `lookup`: what the render's view of its destination cluster answers (`RenderRequest::lookup`), set once
//! per render. Without a view (`weft render`, an app that did not opt in, `helm template`) every lookup finds
//! nothing, an empty map, so charts take their "not installed yet" branch.
//!
//! As Helm answers: the object as a map, an empty map when it is not found; with name `""` the list object (its
//! `items`), or an empty map when there is no list. Numbers are what Kubernetes' unstructured decoding makes them:
//! int64 when integral, float64 otherwise. Which objects the view may answer is the host's rule
//! (docs/render-lookup.md); the renderer only asks.

use std::cell::RefCell;

use weft_sdk::Lookup;

use crate::template::Value;

thread_local! {
    static VIEW: RefCell<Option<Lookup>> = const { RefCell::new(None) };
}

/// Runs `render` with `view` as what `lookup` asks, then forgets it, whatever `render` returns.
pub fn with_lookup<T>(view: Option<Lookup>, render: impl FnOnce() -> T) -> T {
    let previous = VIEW.with(|current| current.replace(view));
    let result = render();
    VIEW.with(|current| current.replace(previous));
    result
}

/// Helm's `lookup apiVersion kind namespace name`: the answer as a template value, an empty map for none.
pub fn lookup(api_version: &str, kind: &str, namespace: &str, name: &str) -> Value {
    let answer = VIEW.with(|current| {
        current
            .borrow()
            .as_ref()
            .and_then(|view| view.lookup(api_version, kind, namespace, name))
    });
    match answer {
        Some(object @ serde_json::Value::Object(_)) => unstructured(&object),
        _ => Value::empty_map(),
    }
}

/// A JSON value as Kubernetes' unstructured decoding gives it to Helm: integral numbers as int64.
fn unstructured(value: &serde_json::Value) -> Value {
    match value {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(int) => Value::Int(int),
            None => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(s) => Value::string(s.as_str()),
        serde_json::Value::Array(items) => Value::list(items.iter().map(unstructured).collect()),
        serde_json::Value::Object(map) => Value::map(
            map.iter()
                .map(|(k, v)| (k.clone(), unstructured(v)))
                .collect(),
        ),
    }
}
