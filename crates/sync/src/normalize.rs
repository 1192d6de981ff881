//! Preparing objects for a drift comparison: dropping what the server owns (status, managedFields, bookkeeping
//! metadata), applying an app's ignore rules (Argo CD `ignoreDifferences`: JSON pointers, and the fields other
//! field managers own), hiding Secret values so that no diff ever shows one, and leaving ignored fields out of what
//! is applied when the app asks for it (Argo CD's `RespectIgnoreDifferences=true`).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use weft_core::field_manager::FIELD_MANAGER;
use weft_core::resource::ResourceRef;
use weft_k8s::fieldset::owners::{managed_fields, owners_of, pointer_path};
use weft_k8s::fieldset::path::{remove_at as remove_field, value_at};
use weft_k8s::fieldset::{FieldPath, FieldSet};

/// What a Secret value is shown as when both sides agree, or when only one side has the key.
pub const REDACTED: &str = "<redacted>";
/// What the live side of a changed Secret value is shown as.
pub const REDACTED_CHANGED_LIVE: &str = "<redacted: changed (live)>";
/// What the desired side of a changed Secret value is shown as.
pub const REDACTED_CHANGED_DESIRED: &str = "<redacted: changed (desired)>";

/// The annotation `kubectl apply` writes; it repeats the whole object (Secret values included), so it is never
/// compared or shown.
pub const LAST_APPLIED_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// `metadata` fields the server writes for its own bookkeeping; never drift.
const SERVER_METADATA_FIELDS: &[&str] = &[
    "managedFields",
    "resourceVersion",
    "uid",
    "generation",
    "creationTimestamp",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
];

/// The Secret fields whose values are never shown.
const SECRET_VALUE_FIELDS: &[&str] = &["data", "stringData"];

/// Why an ignore rule is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiffError {
    /// A JSON pointer is the empty string, which would name the whole object.
    #[error(
        "ignore rule json pointer \"\" is empty (it would ignore the whole object); a pointer starts with '/', e.g. /spec/replicas"
    )]
    EmptyPointer,
    /// A JSON pointer does not start with `/`.
    #[error("ignore rule json pointer {pointer:?} does not start with '/' (e.g. /spec/replicas)")]
    PointerWithoutSlash {
        /// The pointer as configured.
        pointer: String,
    },
    /// A `~` in a JSON pointer is not followed by `0` (for `~`) or `1` (for `/`), as RFC 6901 requires.
    #[error(
        "ignore rule json pointer {pointer:?}: '~' must be followed by 0 (meaning '~') or 1 (meaning '/')"
    )]
    PointerEscape {
        /// The pointer as configured.
        pointer: String,
    },
    /// A rule lists no JSON pointer and no field manager, so it would ignore nothing.
    #[error(
        "ignore rule for {selector} has no json_pointers and no managed_fields_managers, so it ignores nothing"
    )]
    NoPointers {
        /// The objects the rule selects, e.g. `apps/Deployment named web*`.
        selector: String,
    },
    /// A rule uses jq path expressions, which Weft does not evaluate.
    #[error(
        "ignore rule for {selector}: jq_path_expressions ({expression:?}) are not supported; name the fields with \
         json_pointers (a `*` segment stands for every list item or map entry, e.g. \
         /spec/template/spec/containers/*/image) or with managed_fields_managers"
    )]
    JqPath {
        /// The objects the rule selects.
        selector: String,
        /// The first expression.
        expression: String,
    },
    /// A rule's name pattern has a `*` other than at its end.
    #[error("ignore rule name {name:?}: '*' may only end the name (a prefix glob such as web-*)")]
    NameGlob {
        /// The name pattern as configured.
        name: String,
    },
}

/// Fields to leave out of the comparison for the objects a rule selects, like an Argo CD `ignoreDifferences`
/// entry. A rule selects an object when every field that is set matches (`group` and `kind` exactly, `namespace`
/// exactly, `name` exactly or as a prefix when it ends with `*`). Each JSON pointer (RFC 6901) names a field that is
/// removed from both sides; a segment `*` stands for every element of the list or map at that level, e.g.
/// `/spec/template/spec/containers/*/image`. A pointer that names nothing in an object is not an error. Each field
/// manager named in `managed_fields_managers` (`hpa-controller`, `kubectl-edit`, ...) has the fields the live
/// object's `metadata.managedFields` say it owns removed from both sides.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct IgnoreRule {
    /// The API group the rule is limited to (empty for the core group); any group when unset.
    pub group: Option<String>,
    /// The kind the rule is limited to; any kind when unset.
    pub kind: Option<String>,
    /// The object name, or a name prefix followed by `*`; any name when unset.
    pub name: Option<String>,
    /// The namespace the rule is limited to; any namespace when unset.
    pub namespace: Option<String>,
    /// The fields to ignore, as JSON pointers.
    #[serde(default)]
    pub json_pointers: Vec<String>,
    /// Field managers whose fields are ignored (Argo CD's `managedFieldsManagers`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub managed_fields_managers: Vec<String>,
    /// Argo CD's `jqPathExpressions`: accepted in the schema only to be refused with a message saying what to use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jq_path_expressions: Vec<String>,
}

impl IgnoreRule {
    /// Checks the rule: at least one pointer, every pointer well formed, `*` only at the end of `name`. The error
    /// names the offending pointer or pattern.
    pub fn validate(&self) -> Result<(), DiffError> {
        if let Some(expression) = self.jq_path_expressions.first() {
            return Err(DiffError::JqPath {
                selector: self.selector(),
                expression: expression.clone(),
            });
        }
        if self.json_pointers.is_empty() && self.managed_fields_managers.is_empty() {
            return Err(DiffError::NoPointers {
                selector: self.selector(),
            });
        }
        for pointer in &self.json_pointers {
            parse_pointer(pointer)?;
        }
        if let Some(name) = &self.name
            && name.trim_end_matches('*').contains('*')
        {
            return Err(DiffError::NameGlob { name: name.clone() });
        }
        Ok(())
    }

    /// Whether the rule selects the object `reference` names.
    pub fn applies_to(&self, reference: &ResourceRef) -> bool {
        let exact =
            |wanted: &Option<String>, actual: &str| wanted.as_deref().is_none_or(|w| w == actual);
        exact(&self.group, &reference.group)
            && exact(&self.kind, &reference.kind)
            && exact(&self.namespace, &reference.namespace)
            && self
                .name
                .as_deref()
                .is_none_or(|pattern| match pattern.strip_suffix('*') {
                    Some(prefix) => reference.name.starts_with(prefix),
                    None => reference.name == pattern,
                })
    }

    /// The objects the rule selects, in words, for messages.
    fn selector(&self) -> String {
        let kind = match (&self.group, &self.kind) {
            (Some(group), Some(kind)) if !group.is_empty() => format!("{group}/{kind}"),
            (_, Some(kind)) => kind.clone(),
            (Some(group), None) => format!("group {group:?}"),
            (None, None) => "any kind".to_string(),
        };
        let mut selector = kind;
        if let Some(namespace) = &self.namespace {
            selector.push_str(&format!(" in {namespace}"));
        }
        if let Some(name) = &self.name {
            selector.push_str(&format!(" named {name}"));
        }
        selector
    }
}

/// One step of a parsed JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// A map key, or a list index written in decimal.
    Field(String),
    /// `*`: every element at this level.
    Each,
}

/// Parses an RFC 6901 pointer into its steps, unescaping `~1` and `~0`.
fn parse_pointer(pointer: &str) -> Result<Vec<Step>, DiffError> {
    if pointer.is_empty() {
        return Err(DiffError::EmptyPointer);
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(DiffError::PointerWithoutSlash {
            pointer: pointer.to_string(),
        });
    };
    rest.split('/')
        .map(|segment| {
            if segment == "*" {
                return Ok(Step::Each);
            }
            unescape(segment)
                .map(Step::Field)
                .ok_or_else(|| DiffError::PointerEscape {
                    pointer: pointer.to_string(),
                })
        })
        .collect()
}

fn unescape(segment: &str) -> Option<String> {
    let mut out = String::with_capacity(segment.len());
    let mut chars = segment.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// A list index as RFC 6901 writes one: decimal digits, no leading zero.
fn list_index(segment: &str) -> Option<usize> {
    let canonical = segment == "0" || !segment.starts_with('0');
    let digits = !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit());
    if canonical && digits {
        segment.parse().ok()
    } else {
        None
    }
}

/// Removes what `steps` names from `value`.
fn remove_at(value: &mut Value, steps: &[Step]) {
    let Some((step, rest)) = steps.split_first() else {
        return;
    };
    match (value, step) {
        (Value::Object(map), Step::Each) if rest.is_empty() => map.clear(),
        (Value::Object(map), Step::Each) => map.values_mut().for_each(|v| remove_at(v, rest)),
        (Value::Object(map), Step::Field(key)) if rest.is_empty() => {
            map.remove(key);
        }
        (Value::Object(map), Step::Field(key)) => {
            if let Some(child) = map.get_mut(key) {
                remove_at(child, rest);
            }
        }
        (Value::Array(items), Step::Each) if rest.is_empty() => items.clear(),
        (Value::Array(items), Step::Each) => items.iter_mut().for_each(|v| remove_at(v, rest)),
        (Value::Array(items), Step::Field(segment)) => {
            if let Some(index) = list_index(segment)
                && index < items.len()
            {
                if rest.is_empty() {
                    items.remove(index);
                } else {
                    remove_at(&mut items[index], rest);
                }
            }
        }
        _ => {}
    }
}

/// The fields of `live` that the `rules` selecting `reference` ignore because a listed field manager owns them
/// (`managed_fields_managers`), deepest first, as `fieldsV1` paths.
pub fn ignored_by_managers(
    reference: &ResourceRef,
    live: &Value,
    rules: &[IgnoreRule],
) -> Vec<FieldPath> {
    let managers: Vec<&str> = rules
        .iter()
        .filter(|rule| rule.applies_to(reference))
        .flat_map(|rule| rule.managed_fields_managers.iter().map(String::as_str))
        .collect();
    if managers.is_empty() {
        return Vec::new();
    }
    let mut owned = FieldSet::default();
    for entry in managed_fields(live) {
        if managers.contains(&entry.manager.as_str()) {
            owned = owned.union(&entry.fields);
        }
    }
    let mut paths = owned.members();
    paths.sort_by_key(|path| std::cmp::Reverse(path.len()));
    paths
}

/// Removes the fields at `paths` (deepest first, as [`ignored_by_managers`] gives them) from `object`: a field with
/// nothing under it in the set goes, and so does a list item or map the set names once what it held is gone (an
/// item whose other fields another manager set stays). A keyed item keeps its key fields until it goes itself.
pub fn remove_fields(object: &mut Value, paths: &[FieldPath]) {
    for path in paths {
        let Some((last, parent)) = path.split_last() else {
            continue;
        };
        let identity = |element: &str| -> Option<Map<String, Value>> {
            serde_json::from_str(element.strip_prefix("k:")?).ok()
        };
        let is_key_field = parent
            .last()
            .and_then(|element| identity(element))
            .is_some_and(|key| last.strip_prefix("f:").is_some_and(|f| key.contains_key(f)));
        if is_key_field {
            continue;
        }
        let has_members_under = paths
            .iter()
            .any(|other| other.len() > path.len() && other.starts_with(path));
        let emptied = match value_at(object, path) {
            None => false,
            Some(Value::Object(map)) => match identity(last) {
                Some(key) => map.keys().all(|field| key.contains_key(field)),
                None => map.is_empty(),
            },
            Some(_) => !has_members_under,
        };
        if !has_members_under || emptied {
            remove_field(object, path);
        }
    }
}

/// What is applied when the app respects its ignore rules (Argo CD's `RespectIgnoreDifferences=true`): `desired`
/// without the fields the rules selecting `reference` ignore, so that server-side apply releases them to whoever
/// else owns them (an HPA keeps the replicas it set). A field a JSON pointer ignores that the live object has and
/// that only Weft owns keeps its live value (left out, the server would delete it); one live lacks is left out.
/// Fields a listed manager owns are left out. An object not yet live is applied whole.
pub fn respect_ignored(
    reference: &ResourceRef,
    desired: &Value,
    live: Option<&Value>,
    rules: &[IgnoreRule],
) -> Value {
    let Some(live) = live else {
        return desired.clone();
    };
    let mut applied = desired.clone();
    let entries = managed_fields(live);
    for rule in rules.iter().filter(|rule| rule.applies_to(reference)) {
        for pointer in &rule.json_pointers {
            let Ok(steps) = parse_pointer(pointer) else {
                continue;
            };
            let mut concrete = Vec::new();
            expand(desired, &steps, String::new(), &mut concrete);
            for at in concrete {
                let Some(path) = pointer_path(desired, live, &at) else {
                    continue;
                };
                let others = owners_of(&entries, &path)
                    .into_iter()
                    .any(|manager| manager != FIELD_MANAGER);
                match value_at(live, &path) {
                    Some(value) if !others => {
                        if let Some(slot) = applied.pointer_mut(&at) {
                            *slot = value.clone();
                        }
                    }
                    _ => {
                        if let Ok(steps) = parse_pointer(&at) {
                            remove_at(&mut applied, &steps);
                        }
                    }
                }
            }
        }
    }
    remove_fields(&mut applied, &ignored_by_managers(reference, live, rules));
    applied
}

/// The concrete pointers (no `*`) that `steps` names in `value`, each prefixed with `prefix`.
fn expand(value: &Value, steps: &[Step], prefix: String, out: &mut Vec<String>) {
    let Some((step, rest)) = steps.split_first() else {
        out.push(prefix);
        return;
    };
    let escape = |key: &str| key.replace('~', "~0").replace('/', "~1");
    match (value, step) {
        (Value::Object(map), Step::Each) => {
            for (key, child) in map {
                expand(child, rest, format!("{prefix}/{}", escape(key)), out);
            }
        }
        (Value::Array(items), Step::Each) => {
            for (index, child) in items.iter().enumerate() {
                expand(child, rest, format!("{prefix}/{index}"), out);
            }
        }
        (Value::Object(map), Step::Field(key)) => {
            if let Some(child) = map.get(key) {
                expand(child, rest, format!("{prefix}/{}", escape(key)), out);
            }
        }
        (Value::Array(items), Step::Field(segment)) => {
            if let Some(child) = list_index(segment).and_then(|index| items.get(index)) {
                expand(child, rest, format!("{prefix}/{segment}"), out);
            }
        }
        _ => {}
    }
}

/// Whether an object is a core-group Secret, by its reference or by its own `apiVersion` and `kind` (either is
/// enough: a wrong reference must not expose values).
pub fn is_secret(reference: &ResourceRef, object: &Value) -> bool {
    reference.is_secret() || weft_core::secrets::is_secret(object)
}

/// The object as it is compared: `status`, the server's bookkeeping metadata (managedFields, resourceVersion, uid,
/// generation, creationTimestamp, selfLink, deletion timestamps) and the `last-applied-configuration` annotation
/// removed; map fields set to `null` removed (null means absent); a Secret's `stringData` folded into `data` as the
/// server stores it (base64, `stringData` winning); the fields named by the `rules` that select `reference`
/// removed; and empty maps and lists directly under `metadata` (`labels: {}`, `finalizers: []`) removed, since
/// they mean the same as absent. `ownerReferences` are kept. Object keys come out sorted. Ignore rules see the
/// object after the Secret folding, so they name `/data/...`, not `/stringData/...`; a rule pointer that does not
/// parse is skipped here (configuration reports it through [`IgnoreRule::validate`]).
pub fn normalize_for_diff(reference: &ResourceRef, object: &Value, rules: &[IgnoreRule]) -> Value {
    let mut object = object.clone();
    drop_null_fields(&mut object);
    if is_secret(reference, &object) {
        fold_string_data(&mut object);
    }
    drop_server_fields(&mut object);
    for rule in rules.iter().filter(|rule| rule.applies_to(reference)) {
        for pointer in &rule.json_pointers {
            if let Ok(steps) = parse_pointer(pointer) {
                remove_at(&mut object, &steps);
            }
        }
    }
    drop_empty_metadata(&mut object);
    object.sort_all_objects();
    object
}

fn drop_null_fields(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_null_fields);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_fields),
        _ => {}
    }
}

fn drop_server_fields(object: &mut Value) {
    let Some(root) = object.as_object_mut() else {
        return;
    };
    root.remove("status");
    let Some(metadata) = root.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    for field in SERVER_METADATA_FIELDS {
        metadata.remove(*field);
    }
    if let Some(annotations) = metadata
        .get_mut("annotations")
        .and_then(Value::as_object_mut)
    {
        annotations.remove(LAST_APPLIED_ANNOTATION);
    }
}

fn drop_empty_metadata(object: &mut Value) {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.retain(|_, v| match v {
            Value::Object(map) => !map.is_empty(),
            Value::Array(items) => !items.is_empty(),
            _ => true,
        });
    }
}

/// Moves a Secret's string `stringData` entries into `data`, base64-encoded, as the API server does on write.
fn fold_string_data(object: &mut Value) {
    let Some(root) = object.as_object_mut() else {
        return;
    };
    let Some(Value::Object(mut string_data)) = root.remove("stringData") else {
        return;
    };
    let data = root
        .entry("data")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(data) = data {
        let keys: Vec<String> = string_data
            .iter()
            .filter(|(_, v)| v.is_string())
            .map(|(k, _)| k.clone())
            .collect();
        for key in keys {
            if let Some(Value::String(plain)) = string_data.remove(&key) {
                data.insert(key, Value::String(STANDARD.encode(plain.as_bytes())));
            }
        }
    }
    if !string_data.is_empty() {
        root.insert("stringData".to_string(), Value::Object(string_data));
    }
}

/// Which side of a comparison a value is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Live,
    Desired,
}

/// Replaces every value of a Secret's `data` and `stringData` on both sides by a placeholder, after comparing
/// them: [`REDACTED`] on both sides when the values are equal (or when only one side has the key, so the key shows
/// as added or removed), [`REDACTED_CHANGED_LIVE`] and [`REDACTED_CHANGED_DESIRED`] when they differ, so the key
/// shows as changed. No hash of the value is shown: a hash of a short secret gives it away by brute force. Keys
/// stay visible. A `data` that is not a map is replaced whole. Call it after [`normalize_for_diff`], only for
/// Secrets ([`is_secret`]); comparing the redacted objects gives the same verdict per key as comparing the values.
pub fn redact_secret_values(mut live: Option<&mut Value>, mut desired: Option<&mut Value>) {
    for field in SECRET_VALUE_FIELDS {
        let live_values = live.as_deref().and_then(|o| o.get(*field)).cloned();
        let desired_values = desired.as_deref().and_then(|o| o.get(*field)).cloned();
        if let Some(object) = live.as_deref_mut() {
            redact_field(object, field, desired_values.as_ref(), Side::Live);
        }
        if let Some(object) = desired.as_deref_mut() {
            redact_field(object, field, live_values.as_ref(), Side::Desired);
        }
    }
}

fn redact_field(object: &mut Value, field: &str, other: Option<&Value>, side: Side) {
    let Some(values) = object.get_mut(field) else {
        return;
    };
    match values {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                let placeholder = match other.and_then(|o| o.get(key.as_str())) {
                    Some(theirs) if theirs != value => match side {
                        Side::Live => REDACTED_CHANGED_LIVE,
                        Side::Desired => REDACTED_CHANGED_DESIRED,
                    },
                    _ => REDACTED,
                };
                *value = Value::String(placeholder.to_string());
            }
        }
        whole => *whole = Value::String(REDACTED.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn deployment(name: &str) -> ResourceRef {
        ResourceRef::new("apps", "Deployment", "shop", name)
    }

    #[test]
    fn server_fields_go_and_owner_references_stay() {
        let live = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {
                "name": "c", "namespace": "shop", "uid": "u-1", "resourceVersion": "7", "generation": 3,
                "creationTimestamp": "2024-01-01T00:00:00Z", "selfLink": "/x", "managedFields": [{"manager": "weft"}],
                "deletionTimestamp": "2024-01-02T00:00:00Z", "deletionGracePeriodSeconds": 30,
                "ownerReferences": [{"kind": "App", "name": "a", "uid": "o-1"}],
                "annotations": {LAST_APPLIED_ANNOTATION: "{...}", "team": "web"},
                "labels": {}, "finalizers": [],
            },
            "data": {"k": "v", "gone": null},
            "status": {"phase": "x"},
        });
        let normalized = normalize_for_diff(&ResourceRef::of(&live).unwrap(), &live, &[]);
        assert_eq!(
            normalized,
            json!({
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {
                    "name": "c", "namespace": "shop",
                    "ownerReferences": [{"kind": "App", "name": "a", "uid": "o-1"}],
                    "annotations": {"team": "web"},
                },
                "data": {"k": "v"},
            })
        );
        // Non-empty finalizers are kept.
        let finalizing = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": ["x"]}});
        let normalized =
            normalize_for_diff(&ResourceRef::of(&finalizing).unwrap(), &finalizing, &[]);
        assert_eq!(normalized["metadata"]["finalizers"], json!(["x"]));
    }

    #[test]
    fn an_annotations_map_left_empty_counts_as_absent() {
        let live = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "annotations": {LAST_APPLIED_ANNOTATION: "{}"}}});
        let normalized = normalize_for_diff(&ResourceRef::of(&live).unwrap(), &live, &[]);
        assert_eq!(normalized["metadata"], json!({"name": "c"}));
    }

    #[test]
    fn pointers_parse_with_escapes_and_wildcards() {
        assert_eq!(
            parse_pointer("/metadata/annotations/example.com~1x~0y").unwrap(),
            vec![
                Step::Field("metadata".into()),
                Step::Field("annotations".into()),
                Step::Field("example.com/x~y".into())
            ]
        );
        assert_eq!(
            parse_pointer("/spec/*/image").unwrap(),
            vec![
                Step::Field("spec".into()),
                Step::Each,
                Step::Field("image".into())
            ]
        );
        assert_eq!(parse_pointer(""), Err(DiffError::EmptyPointer));
        assert_eq!(
            parse_pointer("/a~2b"),
            Err(DiffError::PointerEscape {
                pointer: "/a~2b".into()
            })
        );
    }

    #[test]
    fn bad_rules_name_the_pointer() {
        let rule = IgnoreRule {
            kind: Some("Deployment".into()),
            json_pointers: vec!["/spec/replicas".into(), "spec/template".into()],
            ..IgnoreRule::default()
        };
        let message = rule.validate().unwrap_err().to_string();
        assert!(message.contains("\"spec/template\""), "{message}");
        assert!(message.contains("does not start with '/'"), "{message}");

        let escape = IgnoreRule {
            json_pointers: vec!["/metadata/annotations/a~b".into()],
            ..IgnoreRule::default()
        };
        let message = escape.validate().unwrap_err().to_string();
        assert!(message.contains("/metadata/annotations/a~b"), "{message}");

        let empty = IgnoreRule {
            json_pointers: vec![String::new()],
            ..IgnoreRule::default()
        };
        assert_eq!(empty.validate(), Err(DiffError::EmptyPointer));

        let none = IgnoreRule {
            group: Some("apps".into()),
            kind: Some("Deployment".into()),
            name: Some("web*".into()),
            ..IgnoreRule::default()
        };
        let message = none.validate().unwrap_err().to_string();
        assert!(message.contains("apps/Deployment named web*"), "{message}");

        let glob = IgnoreRule {
            name: Some("w*b".into()),
            json_pointers: vec!["/spec".into()],
            ..IgnoreRule::default()
        };
        assert!(matches!(glob.validate(), Err(DiffError::NameGlob { .. })));

        let good = IgnoreRule {
            name: Some("web-*".into()),
            json_pointers: vec![
                "/spec/replicas".into(),
                "/spec/template/spec/containers/*/image".into(),
            ],
            ..IgnoreRule::default()
        };
        assert_eq!(good.validate(), Ok(()));
    }

    #[test]
    fn jq_path_expressions_are_refused_saying_what_to_use_instead() {
        let rule = IgnoreRule {
            kind: Some("Deployment".into()),
            jq_path_expressions: vec![".spec.replicas".into()],
            ..IgnoreRule::default()
        };
        let message = rule.validate().unwrap_err().to_string();
        assert!(message.contains("\".spec.replicas\""), "{message}");
        assert!(message.contains("json_pointers"), "{message}");
        let managers_only = IgnoreRule {
            managed_fields_managers: vec!["hpa-controller".into()],
            ..IgnoreRule::default()
        };
        assert_eq!(managers_only.validate(), Ok(()));
    }

    fn scaled_live() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "managedFields": [
                {"manager": "weft", "operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:metadata": {"f:labels": {"f:app": {}}},
                    "f:spec": {"f:paused": {}, "f:template": {"f:spec": {"f:containers": {
                        "k:{\"name\":\"app\"}": {".": {}, "f:name": {}, "f:image": {}}}}}}}},
                {"manager": "hpa-controller", "operation": "Update", "subresource": "scale", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:spec": {"f:replicas": {}}}},
                {"manager": "kubectl-edit", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:spec": {"f:template": {"f:spec": {"f:containers": {
                        "k:{\"name\":\"debug\"}": {".": {}, "f:name": {}, "f:image": {}}}}}}}}
            ]},
            "spec": {"replicas": 7, "paused": false, "template": {"spec": {"containers": [
                {"name": "app", "image": "app:1"}, {"name": "debug", "image": "busybox"}]}}}
        })
    }

    #[test]
    fn fields_a_listed_manager_owns_are_removed_and_an_item_it_added_goes_whole() {
        let live = scaled_live();
        let reference = deployment("web");
        let rule = IgnoreRule {
            managed_fields_managers: vec!["hpa-controller".into(), "kubectl-edit".into()],
            ..IgnoreRule::default()
        };
        let paths = ignored_by_managers(&reference, &live, std::slice::from_ref(&rule));
        let mut object = live.clone();
        remove_fields(&mut object, &paths);
        assert_eq!(
            object["spec"],
            json!({"paused": false, "template": {"spec": {"containers": [{"name": "app", "image": "app:1"}]}}})
        );
        let other = IgnoreRule {
            kind: Some("StatefulSet".into()),
            ..rule
        };
        assert!(ignored_by_managers(&reference, &live, &[other]).is_empty());
    }

    #[test]
    fn respecting_ignored_fields_releases_those_others_own_and_keeps_weft_s_own_at_their_live_value()
     {
        let live = scaled_live();
        let reference = deployment("web");
        let desired = json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"replicas": 2, "paused": true, "minReadySeconds": 5,
                     "template": {"spec": {"containers": [{"name": "app", "image": "app:2"}]}}}
        });
        let rule = IgnoreRule {
            kind: Some("Deployment".into()),
            json_pointers: vec![
                "/spec/replicas".into(),
                "/spec/paused".into(),
                "/spec/minReadySeconds".into(),
            ],
            ..IgnoreRule::default()
        };
        let applied = respect_ignored(
            &reference,
            &desired,
            Some(&live),
            std::slice::from_ref(&rule),
        );
        // The HPA's replicas are left to it; Weft's own paused keeps its live value; a field live lacks is left out.
        assert_eq!(
            applied["spec"],
            json!({"paused": false, "template": {"spec": {"containers": [{"name": "app", "image": "app:2"}]}}})
        );
        assert_eq!(
            respect_ignored(&reference, &desired, None, &[rule]),
            desired
        );
        let by_manager = IgnoreRule {
            managed_fields_managers: vec!["hpa-controller".into()],
            ..IgnoreRule::default()
        };
        let applied = respect_ignored(&reference, &desired, Some(&live), &[by_manager]);
        assert!(applied["spec"].get("replicas").is_none());
        assert_eq!(applied["spec"]["paused"], json!(true));
    }

    #[test]
    fn rules_select_by_every_field_that_is_set() {
        let rule = IgnoreRule {
            group: Some("apps".into()),
            kind: Some("Deployment".into()),
            name: Some("web-*".into()),
            namespace: None,
            json_pointers: vec!["/spec/replicas".into()],
            ..IgnoreRule::default()
        };
        assert!(rule.applies_to(&deployment("web-1")));
        assert!(rule.applies_to(&deployment("web-")));
        assert!(!rule.applies_to(&deployment("web")));
        assert!(!rule.applies_to(&deployment("api-1")));
        assert!(!rule.applies_to(&ResourceRef::new("apps", "StatefulSet", "shop", "web-1")));
        assert!(!rule.applies_to(&ResourceRef::new("", "Deployment", "shop", "web-1")));

        let exact = IgnoreRule {
            name: Some("web".into()),
            namespace: Some("shop".into()),
            ..rule.clone()
        };
        assert!(exact.applies_to(&deployment("web")));
        assert!(!exact.applies_to(&deployment("web-1")));
        assert!(!exact.applies_to(&ResourceRef::new("apps", "Deployment", "other", "web")));

        let core = IgnoreRule {
            group: Some(String::new()),
            kind: None,
            name: None,
            ..rule
        };
        assert!(core.applies_to(&ResourceRef::new("", "ConfigMap", "shop", "c")));
        assert!(!core.applies_to(&deployment("web")));
    }

    #[test]
    fn rules_remove_fields_lists_items_and_wildcards() {
        let object = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "annotations": {"a/b": "1"}},
            "spec": {"replicas": 3, "args": ["x", "y", "z"], "template": {"spec": {"containers": [
                {"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}
            ]}}},
        });
        let rule = IgnoreRule {
            json_pointers: vec![
                "/spec/replicas".into(),
                "/spec/args/1".into(),
                "/spec/template/spec/containers/*/image".into(),
                "/metadata/annotations/a~1b".into(),
                "/spec/not/there".into(),
                "/spec/args/01".into(),
            ],
            ..IgnoreRule::default()
        };
        let normalized =
            normalize_for_diff(&deployment("web"), &object, std::slice::from_ref(&rule));
        assert_eq!(
            normalized,
            json!({
                "apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "web"},
                "spec": {"args": ["x", "z"], "template": {"spec": {"containers": [{"name": "a"}, {"name": "b"}]}}},
            })
        );
        // A rule for another object changes nothing.
        let elsewhere = IgnoreRule {
            name: Some("api".into()),
            ..rule
        };
        let untouched = normalize_for_diff(&deployment("web"), &object, &[elsewhere]);
        assert_eq!(untouched["spec"]["replicas"], json!(3));
    }

    #[test]
    fn rules_deserialize_strictly() {
        let rule: IgnoreRule = serde_norway::from_str(
            "group: apps\nkind: Deployment\nname: web-*\njson_pointers: [/spec/replicas]\n",
        )
        .unwrap();
        assert_eq!(rule.name.as_deref(), Some("web-*"));
        assert_eq!(rule.json_pointers, vec!["/spec/replicas".to_string()]);
        let unknown = serde_norway::from_str::<IgnoreRule>("kind: X\njsonPointers: [/a]\n");
        assert!(unknown.is_err());
    }

    #[test]
    fn secret_string_data_folds_into_data() {
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
            "data": {"user": "YWRtaW4=", "password": "b2xk"}, "stringData": {"password": "new"}});
        let normalized = normalize_for_diff(&ResourceRef::of(&secret).unwrap(), &secret, &[]);
        assert_eq!(
            normalized["data"],
            json!({"user": "YWRtaW4=", "password": "bmV3"})
        );
        assert!(normalized.get("stringData").is_none());
        // Not a Secret: stringData stays as it is.
        let other = json!({"apiVersion": "example.com/v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"a": "b"}});
        let normalized = normalize_for_diff(&ResourceRef::of(&other).unwrap(), &other, &[]);
        assert_eq!(normalized["stringData"], json!({"a": "b"}));
    }

    #[test]
    fn secret_values_become_placeholders_that_only_say_whether_they_changed() {
        let mut live =
            json!({"data": {"same": "c2FtZQ==", "changed": "b2xk", "live-only": "eA=="}});
        let mut desired =
            json!({"data": {"same": "c2FtZQ==", "changed": "bmV3", "desired-only": "eQ=="}});
        redact_secret_values(Some(&mut live), Some(&mut desired));
        assert_eq!(
            live["data"],
            json!({"same": REDACTED, "changed": REDACTED_CHANGED_LIVE, "live-only": REDACTED})
        );
        assert_eq!(
            desired["data"],
            json!({"same": REDACTED, "changed": REDACTED_CHANGED_DESIRED, "desired-only": REDACTED})
        );
        let mut alone = json!({"data": "not-a-map", "stringData": {"k": "plain"}});
        redact_secret_values(None, Some(&mut alone));
        assert_eq!(
            alone,
            json!({"data": REDACTED, "stringData": {"k": REDACTED}})
        );
    }

    #[test]
    fn secrets_are_recognised_by_reference_or_by_content() {
        let object = json!({"apiVersion": "v1", "kind": "Secret"});
        assert!(is_secret(
            &ResourceRef::new("", "ConfigMap", "", "x"),
            &object
        ));
        assert!(is_secret(
            &ResourceRef::new("", "Secret", "", "x"),
            &json!({})
        ));
        assert!(!is_secret(
            &ResourceRef::new("", "ConfigMap", "", "x"),
            &json!({"apiVersion": "v1", "kind": "ConfigMap"})
        ));
    }
}
