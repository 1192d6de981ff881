//! The per-object diff: whether a live object has drifted from what the app wants, which fields differ, and a
//! unified YAML diff to show. Two comparisons: [`diff_predicted`] compares the server's dry-run prediction with
//! the live object (exact, defaults appear on both sides); [`diff_subset`] compares only what the desired object
//! states, for when no dry-run is available.
//!
//! Paths in [`FieldChange`] are JSON pointers. In a list whose items are matched by key (the keys server-side apply
//! merges the list by, [`weft_k8s::lists::for_apply`]: containers by `name`, ports by `containerPort` or `port`
//! and `protocol`, ...), the index is the item's index in the desired (or
//! predicted) list; live items that no desired item matches are numbered after the desired items, in live order,
//! as the unified diff shows them.

use std::cmp::Ordering;

use serde::Serialize;
use serde_json::{Map, Value};
use similar::TextDiff;

use weft_core::resource::ResourceRef;
use weft_k8s::lists::{self, ListMerge, ObjectKind, item_key};

use weft_core::field_manager::FIELD_MANAGER;
use weft_k8s::fieldset::owners::{managed_fields, owners_of, pointer_path};

use crate::normalize::{
    IgnoreRule, ignored_by_managers, is_secret, normalize_for_diff, redact_secret_values,
    remove_fields,
};

/// Lines of context around each change in the unified diff.
const CONTEXT_LINES: usize = 3;

/// Which comparison produced a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum DiffMode {
    /// The server's dry-run apply of the desired object compared with the live object.
    Predicted,
    /// Only the fields the desired object states compared with the live object.
    Subset,
}

/// One difference between live and desired.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldChange {
    /// Where, as a JSON pointer (see the module documentation for list indices).
    pub path: String,
    /// The live value; absent when live lacks the field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<Value>,
    /// The desired value; absent when the desired object lacks the field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desired: Option<Value>,
    /// The field managers other than Weft that own the field in the live object (its `metadata.managedFields`):
    /// who changed it, e.g. `kubectl-edit`, `kubectl-patch`, `hpa-controller`. A sync takes the field back (Weft
    /// applies with force) unless an ignore rule leaves it to them. Empty when only Weft owns it, or nobody.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<String>,
}

/// How one live object differs from what the app wants.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObjectDiff {
    /// The object compared.
    pub reference: ResourceRef,
    /// The comparison used.
    pub mode: DiffMode,
    /// The differences, leaf by leaf (a whole sub-tree when one side lacks it), sorted by path.
    pub changes: Vec<FieldChange>,
    /// A unified diff of the compared YAML (`--- live/…`, `+++ desired/…`); empty when nothing differs.
    pub unified: String,
}

impl ObjectDiff {
    /// Whether live matches what the app wants.
    pub fn is_synced(&self) -> bool {
        self.changes.is_empty()
    }
}

/// Compares the server's prediction (`predicted`, the dry-run apply of the desired object) with `live`, both
/// normalized ([`normalize_for_diff`]) with the `rules` that select `reference`; Secret values are redacted. The
/// object is synced exactly when the two normalized objects are equal.
pub fn diff_predicted(
    reference: &ResourceRef,
    predicted: &Value,
    live: &Value,
    rules: &[IgnoreRule],
) -> ObjectDiff {
    let (raw_live, raw_predicted) = (live, predicted);
    let (live, predicted) = prepare(reference, live, predicted, rules);
    let mut changes = Vec::new();
    let kind = ObjectKind::of(&predicted);
    compare_whole(
        &kind,
        &mut Vec::new(),
        Some(&live),
        Some(&predicted),
        &mut changes,
    );
    let unified = if changes.is_empty() {
        String::new()
    } else {
        render_unified(reference, Some(&live), Some(&predicted))
    };
    ObjectDiff {
        reference: reference.clone(),
        mode: DiffMode::Predicted,
        changes: with_owners(sorted(changes), raw_predicted, raw_live),
        unified,
    }
}

/// Compares only what `desired` states with `live`, both normalized with the `rules` that select `reference`;
/// Secret values are redacted. Every field desired states must equal live (maps key by key, keys desired does not
/// state are ignored). Lists server-side apply merges by key (containers by `name`, ports by `containerPort` or
/// `port` and `protocol`, ...) match items by key: a desired item live lacks is drift, and so is a live item
/// desired lacks. Other lists compare item by item, and a length difference is drift. Scalars compare exactly.
/// The unified diff shows live restricted to what desired states (plus unmatched live items of keyed lists)
/// against desired.
pub fn diff_subset(
    reference: &ResourceRef,
    desired: &Value,
    live: &Value,
    rules: &[IgnoreRule],
) -> ObjectDiff {
    let (raw_live, raw_desired) = (live, desired);
    let (live, desired) = prepare(reference, live, desired, rules);
    let mut changes = Vec::new();
    let kind = ObjectKind::of(&desired);
    let restricted = compare_subset(&kind, &mut Vec::new(), &desired, Some(&live), &mut changes);
    let unified = if changes.is_empty() {
        String::new()
    } else {
        render_unified(reference, restricted.as_ref(), Some(&desired))
    };
    ObjectDiff {
        reference: reference.clone(),
        mode: DiffMode::Subset,
        changes: with_owners(sorted(changes), raw_desired, raw_live),
        unified,
    }
}

/// A unified YAML diff of one object that exists on one side only or on both: `live` is `None` for an object
/// about to be created, `desired` is `None` for one about to be pruned. Both are normalized (no ignore rules) and
/// Secret values are redacted. Empty when the two are equal.
pub fn unified(reference: &ResourceRef, live: Option<&Value>, desired: Option<&Value>) -> String {
    let mut live = live.map(|object| normalize_for_diff(reference, object, &[]));
    let mut desired = desired.map(|object| normalize_for_diff(reference, object, &[]));
    let secret = live
        .iter()
        .chain(&desired)
        .any(|object| is_secret(reference, object));
    if secret {
        redact_secret_values(live.as_mut(), desired.as_mut());
    }
    render_unified(reference, live.as_ref(), desired.as_ref())
}

/// Normalizes both sides and redacts Secret values; returns `(live, desired)`.
fn prepare(
    reference: &ResourceRef,
    live: &Value,
    desired: &Value,
    rules: &[IgnoreRule],
) -> (Value, Value) {
    let others_own = ignored_by_managers(reference, live, rules);
    let mut live = normalize_for_diff(reference, live, rules);
    let mut desired = normalize_for_diff(reference, desired, rules);
    remove_fields(&mut live, &others_own);
    remove_fields(&mut desired, &others_own);
    if is_secret(reference, &live) || is_secret(reference, &desired) {
        redact_secret_values(Some(&mut live), Some(&mut desired));
    }
    (live, desired)
}

/// Names, on each change, the field managers other than Weft that own the field in `live` ([`FieldChange::owners`]);
/// `compared` is the other side as given (the prediction or the desired object), whose list numbering the
/// changes' pointers follow.
fn with_owners(mut changes: Vec<FieldChange>, compared: &Value, live: &Value) -> Vec<FieldChange> {
    let entries = managed_fields(live);
    if entries.is_empty() {
        return changes;
    }
    for change in &mut changes {
        if let Some(path) = pointer_path(compared, live, &change.path) {
            change.owners = owners_of(&entries, &path)
                .into_iter()
                .filter(|manager| *manager != FIELD_MANAGER)
                .map(str::to_string)
                .collect();
        }
    }
    changes
}

fn render_unified(
    reference: &ResourceRef,
    live: Option<&Value>,
    desired: Option<&Value>,
) -> String {
    let live = live.map(to_yaml).unwrap_or_default();
    let desired = desired.map(to_yaml).unwrap_or_default();
    if live == desired {
        return String::new();
    }
    let token = reference.token();
    TextDiff::from_lines(&live, &desired)
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .header(&format!("live/{token}"), &format!("desired/{token}"))
        .to_string()
}

/// The object as the diff shows it: its keys sorted, printed as `weft render` prints ([`weft_core::yaml`]).
fn to_yaml(value: &Value) -> String {
    let mut sorted = value.clone();
    sorted.sort_all_objects();
    weft_core::yaml::to_yaml(&sorted)
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

impl Segment {
    fn escaped(&self) -> String {
        match self {
            Segment::Key(key) => key.replace('~', "~0").replace('/', "~1"),
            Segment::Index(index) => index.to_string(),
        }
    }
}

/// Keys sort as strings, indices as numbers (`/2` before `/10`).
fn compare_segments(a: &Segment, b: &Segment) -> Ordering {
    match (a, b) {
        (Segment::Index(a), Segment::Index(b)) => a.cmp(b),
        (a, b) => a.escaped().cmp(&b.escaped()),
    }
}

/// A change before its path is rendered.
struct Change {
    path: Vec<Segment>,
    live: Option<Value>,
    desired: Option<Value>,
}

fn record(path: &[Segment], live: Option<&Value>, desired: Option<&Value>, out: &mut Vec<Change>) {
    out.push(Change {
        path: path.to_vec(),
        live: live.cloned(),
        desired: desired.cloned(),
    });
}

fn sorted(mut changes: Vec<Change>) -> Vec<FieldChange> {
    changes.sort_by(|a, b| {
        a.path
            .iter()
            .zip(&b.path)
            .map(|(x, y)| compare_segments(x, y))
            .find(|ordering| ordering.is_ne())
            .unwrap_or_else(|| a.path.len().cmp(&b.path.len()))
    });
    changes
        .into_iter()
        .map(|change| FieldChange {
            path: change
                .path
                .iter()
                .map(|s| format!("/{}", s.escaped()))
                .collect(),
            live: change.live,
            desired: change.desired,
            owners: Vec::new(),
        })
        .collect()
}

/// How the items of the list at `path` of an object of `kind` are matched: by the keys server-side apply merges
/// it by ([`weft_k8s::lists::for_apply`], the same rules the simulator applies with), when the list has them.
fn list_keys(
    kind: &ObjectKind<'_>,
    path: &[Segment],
    desired: &[Value],
) -> Option<&'static [&'static str]> {
    if desired.is_empty() {
        return None;
    }
    let fields: Vec<&str> = path
        .iter()
        .filter_map(|segment| match segment {
            Segment::Key(key) => Some(key.as_str()),
            Segment::Index(_) => None,
        })
        .collect();
    match lists::for_apply(kind, &fields, desired) {
        ListMerge::Keyed(keys) => Some(keys),
        ListMerge::Set | ListMerge::Atomic => None,
    }
}

/// How the items of a keyed list pair up.
struct Matching {
    /// For each desired item, the index of its live item.
    pairs: Vec<Option<usize>>,
    /// Live items no desired item matched, in live order.
    unmatched_live: Vec<usize>,
}

/// Pairs desired items with live items by key, each live item used once (so repeated keys pair in order). `None`
/// when the list is not keyed or the matched live items are in another order than desired: order is part of the
/// object (containers, env), so such lists are compared item by item.
fn match_by_key(
    kind: &ObjectKind<'_>,
    path: &[Segment],
    desired: &[Value],
    live: &[Value],
) -> Option<Matching> {
    let keys = list_keys(kind, path, desired)?;
    let key_of = |item: &Value| item.is_object().then(|| item_key(item, keys));
    let live_keys: Vec<Option<Map<String, Value>>> = live.iter().map(key_of).collect();
    let mut used = vec![false; live.len()];
    let mut pairs = Vec::with_capacity(desired.len());
    for item in desired {
        let wanted = key_of(item);
        let found = (0..live.len()).find(|&j| !used[j] && live_keys[j] == wanted);
        if let Some(j) = found {
            used[j] = true;
        }
        pairs.push(found);
    }
    let in_order = pairs.iter().flatten().is_sorted();
    in_order.then(|| Matching {
        pairs,
        unmatched_live: (0..live.len()).filter(|&j| !used[j]).collect(),
    })
}

/// The full comparison (predicted mode): every difference, either side.
fn compare_whole(
    kind: &ObjectKind<'_>,
    path: &mut Vec<Segment>,
    live: Option<&Value>,
    desired: Option<&Value>,
    out: &mut Vec<Change>,
) {
    match (live, desired) {
        (Some(Value::Object(live)), Some(Value::Object(desired))) => {
            let mut keys: Vec<&String> = live.keys().chain(desired.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                path.push(Segment::Key(key.clone()));
                compare_whole(kind, path, live.get(key), desired.get(key), out);
                path.pop();
            }
        }
        (Some(Value::Array(live)), Some(Value::Array(desired))) => {
            if let Some(matching) = match_by_key(kind, path, desired, live) {
                for (i, (item, pair)) in desired.iter().zip(&matching.pairs).enumerate() {
                    path.push(Segment::Index(i));
                    compare_whole(kind, path, pair.map(|j| &live[j]), Some(item), out);
                    path.pop();
                }
                for (k, &j) in matching.unmatched_live.iter().enumerate() {
                    path.push(Segment::Index(desired.len() + k));
                    record(path, Some(&live[j]), None, out);
                    path.pop();
                }
            } else {
                for i in 0..live.len().max(desired.len()) {
                    path.push(Segment::Index(i));
                    compare_whole(kind, path, live.get(i), desired.get(i), out);
                    path.pop();
                }
            }
        }
        (live, desired) if live != desired => record(path, live, desired, out),
        _ => {}
    }
}

/// The subset comparison: records where live differs from what `desired` states and returns live restricted to
/// what desired states (`None` when live lacks the field).
fn compare_subset(
    kind: &ObjectKind<'_>,
    path: &mut Vec<Segment>,
    desired: &Value,
    live: Option<&Value>,
    out: &mut Vec<Change>,
) -> Option<Value> {
    let Some(live) = live else {
        record(path, None, Some(desired), out);
        return None;
    };
    match (desired, live) {
        (Value::Object(desired), Value::Object(live)) => {
            let mut restricted = Map::new();
            for (key, wanted) in desired.iter().filter(|(_, v)| !v.is_null()) {
                path.push(Segment::Key(key.clone()));
                if let Some(value) = compare_subset(kind, path, wanted, live.get(key), out) {
                    restricted.insert(key.clone(), value);
                }
                path.pop();
            }
            Some(Value::Object(restricted))
        }
        (Value::Array(desired), Value::Array(live)) => Some(Value::Array(compare_subset_list(
            kind, path, desired, live, out,
        ))),
        (desired, live) => {
            if desired != live {
                record(path, Some(live), Some(desired), out);
            }
            Some(live.clone())
        }
    }
}

fn compare_subset_list(
    kind: &ObjectKind<'_>,
    path: &mut Vec<Segment>,
    desired: &[Value],
    live: &[Value],
    out: &mut Vec<Change>,
) -> Vec<Value> {
    let mut restricted = Vec::new();
    if let Some(matching) = match_by_key(kind, path, desired, live) {
        for (i, (item, pair)) in desired.iter().zip(&matching.pairs).enumerate() {
            path.push(Segment::Index(i));
            restricted.extend(compare_subset(
                kind,
                path,
                item,
                pair.map(|j| &live[j]),
                out,
            ));
            path.pop();
        }
        for (k, &j) in matching.unmatched_live.iter().enumerate() {
            path.push(Segment::Index(desired.len() + k));
            record(path, Some(&live[j]), None, out);
            restricted.push(live[j].clone());
            path.pop();
        }
    } else {
        for (i, item) in desired.iter().enumerate() {
            path.push(Segment::Index(i));
            restricted.extend(compare_subset(kind, path, item, live.get(i), out));
            path.pop();
        }
        for (i, item) in live.iter().enumerate().skip(desired.len()) {
            path.push(Segment::Index(i));
            record(path, Some(item), None, out);
            restricted.push(item.clone());
            path.pop();
        }
    }
    restricted
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::normalize::{REDACTED_CHANGED_DESIRED, REDACTED_CHANGED_LIVE};

    const CONTAINERS: &str = "/spec/template/spec/containers";

    fn web() -> ResourceRef {
        ResourceRef::new("apps", "Deployment", "shop", "web")
    }

    /// The Deployment as git has it: no defaults.
    fn desired_deployment() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{
                        "name": "web", "image": "nginx:1.27",
                        "ports": [{"containerPort": 80}],
                        "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    }]},
                },
            },
        })
    }

    /// The same Deployment as the server has it: defaults, status, managedFields and bookkeeping.
    fn live_deployment() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {
                "name": "web", "namespace": "shop", "labels": {"app": "web"},
                "uid": "0d1f", "resourceVersion": "4711", "generation": 1,
                "creationTimestamp": "2025-01-01T00:00:00Z",
                "annotations": {"deployment.kubernetes.io/revision": "1"},
                "managedFields": [{"manager": "weft", "operation": "Apply", "fieldsV1": {"f:spec": {}}}],
            },
            "spec": {
                "replicas": 2,
                "revisionHistoryLimit": 10,
                "progressDeadlineSeconds": 600,
                "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"creationTimestamp": null, "labels": {"app": "web"}},
                    "spec": {
                        "containers": [{
                            "name": "web", "image": "nginx:1.27",
                            "ports": [{"containerPort": 80, "protocol": "TCP"}],
                            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                            "resources": {},
                            "terminationMessagePath": "/dev/termination-log",
                            "terminationMessagePolicy": "File",
                            "imagePullPolicy": "IfNotPresent",
                        }],
                        "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler",
                        "securityContext": {}, "terminationGracePeriodSeconds": 30,
                    },
                },
            },
            "status": {"replicas": 2, "readyReplicas": 2, "observedGeneration": 1},
        })
    }

    fn paths(diff: &ObjectDiff) -> Vec<&str> {
        diff.changes.iter().map(|c| c.path.as_str()).collect()
    }

    #[test]
    fn subset_ignores_server_defaults_status_and_managed_fields() {
        let diff = diff_subset(&web(), &desired_deployment(), &live_deployment(), &[]);
        assert_eq!(diff.changes, vec![]);
        assert!(diff.is_synced());
        assert_eq!(diff.unified, "");
        assert_eq!(diff.mode, DiffMode::Subset);
    }

    #[test]
    fn subset_reports_a_changed_image_once() {
        let mut live = live_deployment();
        live["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:1.26");
        let diff = diff_subset(&web(), &desired_deployment(), &live, &[]);
        assert!(!diff.is_synced());
        assert_eq!(
            diff.changes,
            vec![FieldChange {
                path: format!("{CONTAINERS}/0/image"),
                live: Some(json!("nginx:1.26")),
                desired: Some(json!("nginx:1.27")),
                owners: Vec::new(),
            }]
        );
        assert!(diff.unified.starts_with(
            "--- live/apps:Deployment:shop:web\n+++ desired/apps:Deployment:shop:web\n"
        ));
        assert!(
            diff.unified.contains("-        image: nginx:1.26\n"),
            "{}",
            diff.unified
        );
        assert!(
            diff.unified.contains("+        image: nginx:1.27\n"),
            "{}",
            diff.unified
        );
        // Live is restricted to what desired states: defaulted fields do not clutter the diff.
        assert!(
            !diff.unified.contains("terminationMessagePath"),
            "{}",
            diff.unified
        );
        assert!(!diff.unified.contains("readyReplicas"), "{}", diff.unified);
    }

    #[test]
    fn subset_index_is_the_desired_index_for_keyed_lists() {
        // Desired has a sidecar first; live lacks it. The web container is desired index 1, live index 0.
        let mut desired = desired_deployment();
        let containers = desired["spec"]["template"]["spec"]["containers"]
            .as_array_mut()
            .unwrap();
        containers.insert(0, json!({"name": "proxy", "image": "envoy:1"}));
        let mut live = live_deployment();
        live["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:1.26");
        let diff = diff_subset(&web(), &desired, &live, &[]);
        assert_eq!(
            paths(&diff),
            vec![format!("{CONTAINERS}/0"), format!("{CONTAINERS}/1/image")]
        );
        assert_eq!(diff.changes[0].live, None);
        assert_eq!(
            diff.changes[0].desired,
            Some(json!({"name": "proxy", "image": "envoy:1"}))
        );
    }

    #[test]
    fn an_env_var_removed_from_git_is_drift() {
        let mut desired = desired_deployment();
        desired["spec"]["template"]["spec"]["containers"][0]["env"] =
            json!([{"name": "B", "value": "2"}]);
        let diff = diff_subset(&web(), &desired, &live_deployment(), &[]);
        assert_eq!(
            diff.changes,
            vec![FieldChange {
                path: format!("{CONTAINERS}/0/env/1"),
                live: Some(json!({"name": "A", "value": "1"})),
                desired: None,
                owners: Vec::new(),
            }]
        );
        assert!(
            diff.unified.contains("-        - name: A\n"),
            "{}",
            diff.unified
        );
    }

    #[test]
    fn an_extra_port_with_another_protocol_is_drift() {
        let mut live = live_deployment();
        live["spec"]["template"]["spec"]["containers"][0]["ports"] = json!([{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 80, "protocol": "UDP"}]);
        let diff = diff_subset(&web(), &desired_deployment(), &live, &[]);
        assert_eq!(paths(&diff), vec![format!("{CONTAINERS}/0/ports/1")]);
    }

    #[test]
    fn reordered_keyed_items_are_drift() {
        let mut live = live_deployment();
        live["spec"]["template"]["spec"]["containers"][0]["env"] =
            json!([{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]);
        let diff = diff_subset(&web(), &desired_deployment(), &live, &[]);
        assert!(!diff.is_synced());
        let predicted = diff_predicted(&web(), &live_deployment(), &live, &[]);
        assert!(!predicted.is_synced());
    }

    #[test]
    fn plain_lists_compare_item_by_item() {
        let mut desired = desired_deployment();
        desired["spec"]["template"]["spec"]["containers"][0]["args"] = json!(["--a", "--b"]);
        let mut live = live_deployment();
        live["spec"]["template"]["spec"]["containers"][0]["args"] = json!(["--a", "--b", "--c"]);
        let diff = diff_subset(&web(), &desired, &live, &[]);
        assert_eq!(diff.changes.len(), 1);
        assert_eq!(diff.changes[0].path, format!("{CONTAINERS}/0/args/2"));
        assert_eq!(diff.changes[0].live, Some(json!("--c")));
        live["spec"]["template"]["spec"]["containers"][0]["args"] = json!(["--a", "--x"]);
        let diff = diff_subset(&web(), &desired, &live, &[]);
        assert_eq!(paths(&diff), vec![format!("{CONTAINERS}/0/args/1")]);
    }

    #[test]
    fn null_in_desired_means_absent_and_scalars_compare_exactly() {
        let mut desired = desired_deployment();
        desired["spec"]["paused"] = Value::Null;
        let live = live_deployment();
        assert!(diff_subset(&web(), &desired, &live, &[]).is_synced());
        desired["spec"]["replicas"] = json!("2");
        let diff = diff_subset(&web(), &desired, &live, &[]);
        assert_eq!(paths(&diff), vec!["/spec/replicas"]);
    }

    #[test]
    fn ignore_rules_hide_replicas() {
        let mut live = live_deployment();
        live["spec"]["replicas"] = json!(5);
        let without = diff_subset(&web(), &desired_deployment(), &live, &[]);
        assert_eq!(paths(&without), vec!["/spec/replicas"]);
        let rule = IgnoreRule {
            group: Some("apps".into()),
            kind: Some("Deployment".into()),
            json_pointers: vec!["/spec/replicas".into()],
            ..IgnoreRule::default()
        };
        assert!(
            diff_subset(
                &web(),
                &desired_deployment(),
                &live,
                std::slice::from_ref(&rule)
            )
            .is_synced()
        );
        let mut predicted = live_deployment();
        predicted["spec"]["replicas"] = json!(2);
        assert!(!diff_predicted(&web(), &predicted, &live, &[]).is_synced());
        assert!(diff_predicted(&web(), &predicted, &live, &[rule]).is_synced());
    }

    #[test]
    fn wildcard_pointers_cover_every_container() {
        let mut desired = desired_deployment();
        let containers = desired["spec"]["template"]["spec"]["containers"]
            .as_array_mut()
            .unwrap();
        containers.push(json!({"name": "log", "image": "fluent:1"}));
        let mut live = live_deployment();
        let live_containers = live["spec"]["template"]["spec"]["containers"]
            .as_array_mut()
            .unwrap();
        live_containers[0]["image"] = json!("nginx:1.26");
        live_containers.push(json!({"name": "log", "image": "fluent:2"}));
        let without = diff_subset(&web(), &desired, &live, &[]);
        assert_eq!(
            paths(&without),
            vec![
                format!("{CONTAINERS}/0/image"),
                format!("{CONTAINERS}/1/image")
            ]
        );
        let rule = IgnoreRule {
            json_pointers: vec![format!("{CONTAINERS}/*/image")],
            ..IgnoreRule::default()
        };
        assert!(diff_subset(&web(), &desired, &live, &[rule]).is_synced());
    }

    #[test]
    fn name_globs_select_objects() {
        let mut live = live_deployment();
        live["spec"]["replicas"] = json!(5);
        let rule = IgnoreRule {
            name: Some("we*".into()),
            json_pointers: vec!["/spec/replicas".into()],
            ..IgnoreRule::default()
        };
        assert!(
            diff_subset(
                &web(),
                &desired_deployment(),
                &live,
                std::slice::from_ref(&rule)
            )
            .is_synced()
        );
        let other = IgnoreRule {
            name: Some("api*".into()),
            ..rule
        };
        assert!(!diff_subset(&web(), &desired_deployment(), &live, &[other]).is_synced());
    }

    #[test]
    fn predicted_equal_and_unequal() {
        // The dry-run result: what live would be, with its own bookkeeping.
        let mut predicted = live_deployment();
        predicted["metadata"]["resourceVersion"] = json!("4712");
        predicted["metadata"]["generation"] = json!(2);
        predicted["metadata"]["managedFields"] = json!([{"manager": "weft", "operation": "Apply"}, {"manager": "kube-controller-manager"}]);
        predicted["status"] = json!({});
        let diff = diff_predicted(&web(), &predicted, &live_deployment(), &[]);
        assert_eq!(diff.changes, vec![]);
        assert_eq!(diff.unified, "");
        assert_eq!(diff.mode, DiffMode::Predicted);

        predicted["spec"]["replicas"] = json!(3);
        predicted["spec"]["paused"] = json!(true);
        predicted["spec"]["template"]["spec"]["containers"][0]["env"][1]["value"] = json!("3");
        let mut live = live_deployment();
        live["spec"]["minReadySeconds"] = json!(5);
        let diff = diff_predicted(&web(), &predicted, &live, &[]);
        assert_eq!(
            diff.changes,
            vec![
                FieldChange {
                    path: "/spec/minReadySeconds".into(),
                    live: Some(json!(5)),
                    desired: None,
                    owners: Vec::new(),
                },
                FieldChange {
                    path: "/spec/paused".into(),
                    live: None,
                    desired: Some(json!(true)),
                    owners: Vec::new(),
                },
                FieldChange {
                    path: "/spec/replicas".into(),
                    live: Some(json!(2)),
                    desired: Some(json!(3)),
                    owners: Vec::new(),
                },
                FieldChange {
                    path: format!("{CONTAINERS}/0/env/1/value"),
                    live: Some(json!("2")),
                    desired: Some(json!("3")),
                    owners: Vec::new(),
                },
            ]
        );
        // Predicted mode shows the whole normalized objects, defaults included, but no status.
        assert!(
            diff.unified.contains("-  replicas: 2\n+  replicas: 3\n"),
            "{}",
            diff.unified
        );
        assert!(!diff.unified.contains("managedFields"), "{}", diff.unified);
        assert!(!diff.unified.contains("readyReplicas"), "{}", diff.unified);
    }

    #[test]
    fn an_empty_label_map_equals_an_absent_one() {
        let mut predicted = live_deployment();
        predicted["metadata"]["labels"] = json!({});
        let mut live = live_deployment();
        live["metadata"].as_object_mut().unwrap().remove("labels");
        assert!(diff_predicted(&web(), &predicted, &live, &[]).is_synced());
        assert!(diff_predicted(&web(), &live, &predicted, &[]).is_synced());
        let mut desired = desired_deployment();
        desired["metadata"]["labels"] = json!({});
        desired["metadata"]["annotations"] = json!({});
        assert!(diff_subset(&web(), &desired, &live, &[]).is_synced());
        // A real label is still drift.
        predicted["metadata"]["labels"] = json!({"tier": "front"});
        assert_eq!(
            paths(&diff_predicted(&web(), &predicted, &live, &[])),
            vec!["/metadata/labels"]
        );
    }

    #[test]
    fn paths_sort_numerically_and_escape() {
        let live = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "annotations": {"a/b~c": "1"}},
            "data": {"list": (0..12).map(|i| json!(i)).collect::<Vec<_>>()}});
        let mut predicted = live.clone();
        predicted["data"]["list"][2] = json!(20);
        predicted["data"]["list"][10] = json!(100);
        predicted["metadata"]["annotations"]["a/b~c"] = json!("2");
        let reference = ResourceRef::of(&live).unwrap();
        let diff = diff_predicted(&reference, &predicted, &live, &[]);
        assert_eq!(
            paths(&diff),
            vec![
                "/data/list/2",
                "/data/list/10",
                "/metadata/annotations/a~1b~0c"
            ]
        );
    }

    fn secret_texts() -> Vec<String> {
        // Plaintexts, and their base64 as the server stores them.
        [
            "hunter2-plain",
            "old-password",
            "admin",
            "aHVudGVyMi1wbGFpbg==",
            "b2xkLXBhc3N3b3Jk",
            "YWRtaW4=",
        ]
        .map(String::from)
        .to_vec()
    }

    fn assert_no_secret(text: &str) {
        for secret in secret_texts() {
            assert!(!text.contains(&secret), "{secret:?} shown in {text}");
        }
    }

    #[test]
    fn secret_values_never_show() {
        let reference = ResourceRef::new("", "Secret", "shop", "db");
        let desired = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db", "namespace": "shop"},
            "stringData": {"password": "hunter2-plain"}, "data": {"user": "YWRtaW4="}});
        let live = json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": "db", "namespace": "shop",
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"stringData\":{\"password\":\"old-password\"}}"}},
            "data": {"password": "b2xkLXBhc3N3b3Jk", "user": "YWRtaW4="}});
        let subset = diff_subset(&reference, &desired, &live, &[]);
        assert_eq!(
            subset.changes,
            vec![FieldChange {
                path: "/data/password".into(),
                live: Some(json!(REDACTED_CHANGED_LIVE)),
                desired: Some(json!(REDACTED_CHANGED_DESIRED)),
                owners: Vec::new(),
            }]
        );
        assert!(subset.unified.contains("password"), "{}", subset.unified);
        assert_no_secret(&serde_json::to_string(&subset).unwrap());

        let mut predicted = live.clone();
        predicted["data"]["password"] = json!("aHVudGVyMi1wbGFpbg==");
        let diff = diff_predicted(&reference, &predicted, &live, &[]);
        assert_eq!(paths(&diff), vec!["/data/password"]);
        assert_no_secret(&serde_json::to_string(&diff).unwrap());

        // Create and prune show the keys but no values.
        let create = unified(&reference, None, Some(&desired));
        assert!(create.contains("+  password: \"<redacted>\""), "{create}");
        assert_no_secret(&create);
        let prune = unified(&reference, Some(&live), None);
        assert!(prune.contains("-  user: \"<redacted>\""), "{prune}");
        assert_no_secret(&prune);
        // Even under a reference that does not say Secret.
        let mislabelled = unified(
            &ResourceRef::new("", "ConfigMap", "shop", "db"),
            None,
            Some(&desired),
        );
        assert_no_secret(&mislabelled);
    }

    #[test]
    fn secret_string_data_equal_to_live_data_is_synced() {
        let reference = ResourceRef::new("", "Secret", "shop", "db");
        let desired = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db", "namespace": "shop"},
            "stringData": {"password": "hunter2-plain"}});
        let live = json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": {"name": "db", "namespace": "shop"},
            "data": {"password": "aHVudGVyMi1wbGFpbg=="}});
        assert!(diff_subset(&reference, &desired, &live, &[]).is_synced());
    }

    #[test]
    fn unified_for_create_and_prune() {
        let create = unified(&web(), None, Some(&desired_deployment()));
        assert!(
            create.starts_with(
                "--- live/apps:Deployment:shop:web\n+++ desired/apps:Deployment:shop:web\n"
            ),
            "{create}"
        );
        assert!(create.contains("+kind: Deployment\n"), "{create}");
        assert!(
            !create
                .lines()
                .any(|line| line.starts_with('-') && !line.starts_with("---")),
            "{create}"
        );
        let prune = unified(&web(), Some(&live_deployment()), None);
        assert!(prune.contains("-kind: Deployment\n"), "{prune}");
        assert!(!prune.contains("managedFields"), "{prune}");
        assert!(!prune.contains("status:"), "{prune}");
        assert_eq!(
            unified(
                &web(),
                Some(&desired_deployment()),
                Some(&desired_deployment())
            ),
            ""
        );
    }

    #[test]
    fn each_change_names_the_other_managers_that_own_the_field_and_a_manager_rule_hides_them() {
        let reference = ResourceRef::new("", "ConfigMap", "shop", "greeting");
        let entry = |manager: &str, fields: Value| json!({"manager": manager, "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": fields});
        let live = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "greeting", "namespace": "shop", "managedFields": [
                {"manager": "weft", "operation": "Apply", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:data": {"f:NAME": {}}}},
                entry("kubectl-patch", json!({"f:data": {"f:GREETING": {}}})),
                entry("kubectl-edit", json!({"f:data": {"f:EXTRA": {}}})),
            ]},
            "data": {"NAME": "web", "GREETING": "hi", "EXTRA": "x"}
        });
        let predicted = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "greeting", "namespace": "shop"},
            "data": {"NAME": "shop", "GREETING": "hello", "EXTRA": "x"}
        });
        let diff = diff_predicted(&reference, &predicted, &live, &[]);
        let owners: Vec<(&str, Vec<String>)> = diff
            .changes
            .iter()
            .map(|c| (c.path.as_str(), c.owners.clone()))
            .collect();
        assert_eq!(
            owners,
            vec![
                ("/data/GREETING", vec!["kubectl-patch".to_string()]),
                ("/data/NAME", vec![]),
            ]
        );
        let serialized = serde_json::to_value(&diff.changes[0]).unwrap();
        assert_eq!(serialized["owners"], json!(["kubectl-patch"]));
        let ignore_patches = IgnoreRule {
            managed_fields_managers: vec!["kubectl-patch".into()],
            ..IgnoreRule::default()
        };
        let diff = diff_predicted(&reference, &predicted, &live, &[ignore_patches]);
        let paths: Vec<&str> = diff.changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, vec!["/data/NAME"]);
    }

    #[test]
    fn diffs_serialize_in_camel_case() {
        let mut live = live_deployment();
        live["spec"]["replicas"] = json!(4);
        let diff = diff_subset(&web(), &desired_deployment(), &live, &[]);
        let json = serde_json::to_value(&diff).unwrap();
        assert_eq!(json["mode"], json!("subset"));
        assert_eq!(json["reference"]["kind"], json!("Deployment"));
        assert_eq!(
            json["changes"],
            json!([{"path": "/spec/replicas", "live": 4, "desired": 2}])
        );
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (0u8..4).prop_map(Value::from),
            "[ab]{0,2}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("name|port|[ab]", inner.clone()), 0..4)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
                proptest::collection::vec(("[ab]", inner), 0..3).prop_map(|entries| {
                    Value::Array(
                        entries
                            .into_iter()
                            .map(|(name, value)| json!({"name": name, "value": value}))
                            .collect(),
                    )
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn predicted_is_synced_exactly_when_normalized_objects_are_equal(live in json_value(), predicted in json_value()) {
            let reference = ResourceRef::new("example.com", "Widget", "ns", "w");
            let diff = diff_predicted(&reference, &predicted, &live, &[]);
            let equal = normalize_for_diff(&reference, &live, &[]) == normalize_for_diff(&reference, &predicted, &[]);
            prop_assert_eq!(diff.is_synced(), equal);
            prop_assert_eq!(diff.unified.is_empty(), equal);
        }

        #[test]
        fn subset_of_itself_is_synced(object in json_value()) {
            let reference = ResourceRef::new("example.com", "Widget", "ns", "w");
            prop_assert!(diff_subset(&reference, &object, &object, &[]).is_synced());
        }
    }
}
