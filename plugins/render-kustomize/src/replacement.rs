//! `replacements` (and Kustomize's `ReplacementTransformer`): copying a value from one field of one object
//! into fields of the objects its targets select, with Kustomize's rules for types, delimiters and creation.

use std::fmt;

use serde::Deserialize;
use serde_json::Value;
use weft_sdk::RenderError;

use crate::documents::{Schema, parse_value};
use crate::fieldpath::dotted::{self, MatchError, PathError};
use crate::gofields::{each, fold, fold_as};
use crate::resid::{Gvk, ResId};
use crate::resource::Resource;
use crate::selector::labels_and_annotations_match;
use crate::tree::Tree;

/// Where a source or target field path defaults to.
pub const DEFAULT_FIELD_PATH: &str = "metadata.name";

/// One `replacements` entry: a replacement inline, or a file holding one or a list of them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplacementField {
    /// A file (relative to the kustomization) holding the replacement or replacements.
    #[serde(default)]
    pub path: String,
    /// The inline replacement's source.
    #[serde(default)]
    pub source: Option<SourceSelector>,
    /// The inline replacement's targets.
    #[serde(default)]
    pub targets: Option<Vec<TargetSelector>>,
}

/// A replacement: where the value comes from and where it goes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Replacement {
    /// The source of the value.
    #[serde(default)]
    pub source: Option<SourceSelector>,
    /// The fields to write it to.
    #[serde(default)]
    pub targets: Option<Vec<TargetSelector>>,
}

/// The one object (and field) a value comes from.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SourceSelector {
    /// Group.
    #[serde(default)]
    pub group: String,
    /// Version.
    #[serde(default)]
    pub version: String,
    /// Kind.
    #[serde(default)]
    pub kind: String,
    /// Name (current or any earlier one).
    #[serde(default)]
    pub name: String,
    /// Namespace.
    #[serde(default)]
    pub namespace: String,
    /// The field, dotted (default `metadata.name`).
    #[serde(default)]
    pub field_path: String,
    /// Delimiter and index to take part of the value.
    #[serde(default)]
    pub options: Option<FieldOptions>,
}

/// Objects to write to, and where.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TargetSelector {
    /// The objects included.
    #[serde(default)]
    pub select: Option<Selector>,
    /// Objects excluded from those.
    #[serde(default)]
    pub reject: Vec<Selector>,
    /// The fields, dotted (default `metadata.name`).
    #[serde(default)]
    pub field_paths: Vec<String>,
    /// Delimiter, index and creation.
    #[serde(default)]
    pub options: Option<FieldOptions>,
}

/// Which objects a target includes or rejects: the fields of a patch target (one type, as in Kustomize), matched
/// here exactly rather than as regular expressions (empty parts match anything, a name matches the object's
/// current or any earlier one), and label and annotation selectors.
pub type Selector = crate::selector::TargetSelector;

/// How a field is read or written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldOptions {
    /// Splits the field's text.
    #[serde(default)]
    pub delimiter: String,
    /// Which part of the split (a target: negative prepends, past the end appends).
    #[serde(default)]
    pub index: i64,
    /// Reserved by Kustomize; unused.
    #[serde(default)]
    pub encoding: String,
    /// Create the field when missing.
    #[serde(default)]
    pub create: bool,
}

/// Why a replacement failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplacementError {
    /// An entry without a source or without targets.
    #[error("replacements must specify a source and at least one target")]
    Incomplete,
    /// No object is the source.
    #[error("nothing selected by {0}")]
    NoSource(String),
    /// Several objects are.
    #[error("multiple matches for selector {0}")]
    SeveralSources(String),
    /// The source's field path cannot be followed.
    #[error("error looking up replacement source: {0}")]
    SourceLookup(PathError),
    /// The source's field is absent or empty.
    #[error("fieldPath `{path}` is missing for replacement source {selector}")]
    MissingSourceField {
        /// The field path.
        path: String,
        /// The source.
        selector: String,
    },
    /// A delimiter on a map or list.
    #[error("delimiter option can only be used with scalar nodes")]
    DelimiterOnNonScalar,
    /// A source index outside the split value.
    #[error("options.index {index} is out of bounds for value {value}")]
    IndexOutOfBounds {
        /// The index.
        index: i64,
        /// The value split.
        value: String,
    },
    /// A target without `select`.
    #[error("target must specify resources to select")]
    NoSelect,
    /// A label or annotation selector that does not parse.
    #[error("{0}")]
    BadSelector(String),
    /// A target field that is missing (or cannot be created, or the path cannot be followed).
    #[error(
        "unable to find {}field \"{path}\" in replacement target{}",
        if *.create { "or create " } else { "" },
        .reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default()
    )]
    TargetField {
        /// The field path.
        path: String,
        /// Whether creation was asked.
        create: bool,
        /// Why, when the path could not be followed.
        reason: Option<String>,
    },
    /// A value whose type the target field cannot take (a number into a boolean, anything into null).
    #[error("cannot decode {value} `{text}` as {target} in field \"{path}\"")]
    TypeMismatch {
        /// What the value reads as.
        value: &'static str,
        /// Its text.
        text: String,
        /// What the target holds.
        target: &'static str,
        /// The target field path.
        path: String,
    },
}

impl fmt::Display for SourceSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_id(
            f,
            [
                ("group", &self.group),
                ("version", &self.version),
                ("kind", &self.kind),
                ("name", &self.name),
                ("namespace", &self.namespace),
            ],
        )
    }
}

fn write_id(f: &mut fmt::Formatter<'_>, parts: [(&str, &String); 5]) -> fmt::Result {
    let set: Vec<String> = parts
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    write!(f, "[{}]", set.join(", "))
}

/// Whether one identity is selected: every non-empty part equal, namespaces compared as Kustomize does.
fn id_selected(id: &ResId, group: &str, version: &str, kind: &str, name: &str, ns: &str) -> bool {
    let gvk = Gvk::selector(group, version, kind);
    if !id.gvk.is_selected_by(&gvk) || !(name.is_empty() || name == id.name) {
        return false;
    }
    ns.is_empty()
        || ResId {
            gvk,
            name: String::new(),
            namespace: ns.to_string(),
        }
        .same_namespace(id)
}

impl SourceSelector {
    fn selects(&self, resource: &Resource) -> bool {
        resource.any_id(|id| {
            id_selected(
                id,
                &self.group,
                &self.version,
                &self.kind,
                &self.name,
                &self.namespace,
            )
        })
    }
}

impl Selector {
    fn has_id(&self) -> bool {
        [
            &self.group,
            &self.version,
            &self.kind,
            &self.name,
            &self.namespace,
        ]
        .iter()
        .any(|s| !s.is_empty())
    }

    fn selects_id(&self, resource: &Resource) -> bool {
        resource.any_id(|id| {
            id_selected(
                id,
                &self.group,
                &self.version,
                &self.kind,
                &self.name,
                &self.namespace,
            )
        })
    }

    fn selects_labels(&self, resource: &Resource) -> Result<bool, ReplacementError> {
        labels_and_annotations_match(resource, &self.label_selector, &self.annotation_selector)
            .map_err(ReplacementError::BadSelector)
    }
}

/// Reads a kustomization's `replacements` entries (in `dir`, from `file`) into the replacements they hold, in
/// order: inline ones as written, `path:` files as the replacement or list of replacements they hold (read as
/// Kustomize reads them: keys in any case, unknown keys ignored).
pub fn load(
    fields: &[ReplacementField],
    dir: &str,
    file: &str,
    tree: &mut Tree<'_>,
) -> Result<Vec<Replacement>, RenderError> {
    let fail = |message: String| RenderError::in_file(message, file, None);
    let mut replacements = Vec::new();
    for field in fields {
        if field.path.is_empty() {
            replacements.push(Replacement {
                source: field.source.clone(),
                targets: field.targets.clone(),
            });
            continue;
        }
        if field.source.is_some() || field.targets.as_ref().is_some_and(|t| !t.is_empty()) {
            return Err(fail(
                "cannot specify both path and inline replacement".to_string(),
            ));
        }
        let (path, bytes) = tree.read_in(dir, &field.path, file)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| RenderError::in_file("not UTF-8 text", &path, None))?;
        let mut value = parse_value(&text, Schema::Yaml11)
            .map_err(|e| RenderError::in_file(e.to_string(), &path, None))?;
        fold_file(&mut value);
        let invalid = |e: serde_json::Error| {
            RenderError::in_file(format!("invalid replacement: {e}"), &path, None)
        };
        match value {
            Value::Array(_) => replacements
                .extend(serde_json::from_value::<Vec<Replacement>>(value).map_err(invalid)?),
            Value::Object(_) => {
                replacements.push(serde_json::from_value::<Replacement>(value).map_err(invalid)?)
            }
            _ => {
                return Err(RenderError::in_file(
                    "unsupported replacement type encountered within replacement path: not a map or a list",
                    &path,
                    None,
                ));
            }
        }
    }
    Ok(replacements)
}

/// Applies `replacements`, in order, to `resources` (what Kustomize's `ReplacementTransformer` does with its
/// list, and what a kustomization's `replacements` do after its other transformers).
pub fn apply(
    resources: &mut [Resource],
    replacements: &[Replacement],
) -> Result<(), ReplacementError> {
    for replacement in replacements {
        let (Some(source), Some(targets)) = (&replacement.source, &replacement.targets) else {
            return Err(ReplacementError::Incomplete);
        };
        let value = source_value(resources, source)?;
        for target in targets {
            let select = target.select.as_ref().ok_or(ReplacementError::NoSelect)?;
            for resource in resources.iter_mut() {
                if !is_target(resource, select, &target.reject)? {
                    continue;
                }
                copy_to_target(resource, &value, target)?;
                resource.stringify_annotations();
            }
        }
    }
    Ok(())
}

/// Whether a target's `select` includes the resource and no `reject` excludes it. As in Kustomize, a reject's
/// label and annotation selectors and its identity part exclude separately.
fn is_target(
    resource: &Resource,
    select: &Selector,
    rejects: &[Selector],
) -> Result<bool, ReplacementError> {
    if !select.selects_labels(resource)? {
        return Ok(false);
    }
    for reject in rejects {
        if (reject.label_selector.is_empty() && reject.annotation_selector.is_empty())
            || !reject.selects_labels(resource)?
        {
            continue;
        }
        return Ok(false);
    }
    if !select.selects_id(resource) {
        return Ok(false);
    }
    Ok(!rejects
        .iter()
        .any(|reject| reject.has_id() && reject.selects_id(resource)))
}

/// The value a source gives: its field, or the part of it its options pick.
fn source_value(
    resources: &[Resource],
    source: &SourceSelector,
) -> Result<Value, ReplacementError> {
    let mut matches = resources.iter().filter(|r| source.selects(r));
    let Some(found) = matches.next() else {
        return Err(ReplacementError::NoSource(source.to_string()));
    };
    if matches.next().is_some() {
        return Err(ReplacementError::SeveralSources(source.to_string()));
    }
    let path = if source.field_path.is_empty() {
        DEFAULT_FIELD_PATH
    } else {
        &source.field_path
    };
    let value = dotted::lookup(&found.object, &dotted::split(path))
        .map_err(ReplacementError::SourceLookup)?;
    let value = match value {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) if m.is_empty() => None,
        Some(Value::Array(a)) if a.is_empty() => None,
        Some(v) => Some(v.clone()),
    }
    .ok_or_else(|| ReplacementError::MissingSourceField {
        path: path.to_string(),
        selector: source.to_string(),
    })?;
    let Some(options) = source.options.as_ref().filter(|o| !o.delimiter.is_empty()) else {
        return Ok(value);
    };
    if value.is_object() || value.is_array() {
        return Err(ReplacementError::DelimiterOnNonScalar);
    }
    let text = dotted::scalar_text(&value);
    let parts: Vec<&str> = text.split(options.delimiter.as_str()).collect();
    let part = usize::try_from(options.index)
        .ok()
        .and_then(|i| parts.get(i))
        .ok_or_else(|| ReplacementError::IndexOutOfBounds {
            index: options.index,
            value: text.clone(),
        })?;
    Ok(if value.is_string() {
        Value::String(part.to_string())
    } else {
        dotted::resolve_plain(part)
    })
}

/// Writes `value` into every field of `resource` at the target's field paths.
fn copy_to_target(
    resource: &mut Resource,
    value: &Value,
    target: &TargetSelector,
) -> Result<(), ReplacementError> {
    let default = [DEFAULT_FIELD_PATH.to_string()];
    let paths = if target.field_paths.is_empty() {
        &default[..]
    } else {
        &target.field_paths[..]
    };
    let options = target.options.clone().unwrap_or_default();
    for path in paths {
        let mut failure = None;
        let visited = dotted::for_each_match(
            &mut resource.object,
            &dotted::split(path),
            options.create,
            &mut |found| match set_field(found.node, found.created, value, &options, path) {
                Ok(()) => Ok(()),
                Err(e) => {
                    let message = e.to_string();
                    failure = Some(e);
                    Err(message)
                }
            },
        );
        match visited {
            Ok(0) => {
                return Err(ReplacementError::TargetField {
                    path: path.clone(),
                    create: options.create,
                    reason: None,
                });
            }
            Ok(_) => {}
            Err(MatchError::Visit(message)) => {
                return Err(failure.unwrap_or(ReplacementError::BadSelector(message)));
            }
            Err(MatchError::Path(e)) => {
                return Err(ReplacementError::TargetField {
                    path: path.clone(),
                    create: options.create,
                    reason: Some(e.to_string()),
                });
            }
        }
    }
    Ok(())
}

/// The YAML tag a JSON value would carry, for messages.
fn tag_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "!!null",
        Value::Bool(_) => "!!bool",
        Value::Number(n) if n.is_f64() => "!!float",
        Value::Number(_) => "!!int",
        Value::String(_) => "!!str",
        Value::Array(_) => "!!seq",
        Value::Object(_) => "!!map",
    }
}

/// Sets one target field as Kustomize does: a map or list target takes the value whole; a scalar target keeps
/// its type and takes the value's text (a string stays a string, a number must still read as a number); a
/// created field takes a map or list whole and a scalar's text read as plain YAML.
fn set_field(
    node: &mut Value,
    created: bool,
    value: &Value,
    options: &FieldOptions,
    path: &str,
) -> Result<(), ReplacementError> {
    let mut text = dotted::scalar_text(value);
    let mut value = value.clone();
    if !options.delimiter.is_empty() {
        if !created && (node.is_object() || node.is_array()) {
            return Err(ReplacementError::DelimiterOnNonScalar);
        }
        let current = if created {
            String::new()
        } else {
            dotted::scalar_text(node)
        };
        let mut parts: Vec<String> = current
            .split(options.delimiter.as_str())
            .map(str::to_string)
            .collect();
        match usize::try_from(options.index) {
            Err(_) => parts.insert(0, text),
            Ok(i) if i >= parts.len() => parts.push(text),
            Ok(i) => parts[i] = text,
        }
        text = parts.join(&options.delimiter);
        value = Value::String(text.clone());
    }
    if created {
        *node = if value.is_object() || value.is_array() {
            value
        } else {
            dotted::resolve_plain(&text)
        };
        return Ok(());
    }
    match node {
        Value::Object(_) | Value::Array(_) => *node = value,
        Value::String(_) => *node = Value::String(text),
        _ => {
            let read = dotted::resolve_plain(&text);
            let same = matches!(
                (&read, &*node),
                (Value::Number(_), Value::Number(_))
                    | (Value::Bool(_), Value::Bool(_))
                    | (Value::Null, Value::Null)
            );
            if !same {
                return Err(ReplacementError::TypeMismatch {
                    value: tag_of(&read),
                    text,
                    target: tag_of(node),
                    path: path.to_string(),
                });
            }
            *node = read;
        }
    }
    Ok(())
}

/// A `replacements` `path:` file as Kustomize reads it (through sigs.k8s.io/yaml, leniently): one replacement
/// or a list of them, keys folded as Go folds them and unknown keys ignored.
pub fn fold_file(value: &mut Value) {
    if value.is_array() {
        each(value, |v| fold_entry(v, true));
    } else {
        fold_entry(value, true);
    }
}

/// Renames the keys of one `replacements` entry (a file's replacement when `lenient`, which also drops the
/// keys no field takes) and of its source, targets, selectors and options.
pub(crate) fn fold_entry(value: &mut Value, lenient: bool) {
    let entry = if lenient {
        fold_as::<Replacement>(value, true)
    } else {
        fold::<ReplacementField>(value)
    };
    let Some(entry) = entry else {
        return;
    };
    if let Some(source) = entry.get_mut("source")
        && let Some(source) = fold_as::<SourceSelector>(source, lenient)
        && let Some(options) = source.get_mut("options")
    {
        fold_as::<FieldOptions>(options, lenient);
    }
    if let Some(targets) = entry.get_mut("targets") {
        each(targets, |target| {
            let Some(target) = fold_as::<TargetSelector>(target, lenient) else {
                return;
            };
            if let Some(select) = target.get_mut("select") {
                fold_as::<Selector>(select, lenient);
            }
            if let Some(reject) = target.get_mut("reject") {
                each(reject, |r| {
                    fold_as::<Selector>(r, lenient);
                });
            }
            if let Some(options) = target.get_mut("options") {
                fold_as::<FieldOptions>(options, lenient);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn resources() -> Vec<Resource> {
        let mut deployment = Resource::new(
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web", "labels": {"tier": "front"}},
                   "spec": {"replicas": 1, "template": {"spec": {"containers": [
                       {"name": "app", "image": "nginx:1.0", "env": [{"name": "A", "value": "x"}]},
                       {"name": "app-side", "image": "side"}]}}}}),
            None,
        );
        deployment.store_previous_id();
        deployment.set_name("p-web");
        vec![
            Resource::new(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "src"},
                       "data": {"num": "5", "word": "hello", "list": "a,b,c"}}),
                None,
            ),
            deployment,
        ]
    }

    fn replacement(source: Value, targets: Value) -> Replacement {
        serde_json::from_value(json!({"source": source, "targets": targets})).unwrap()
    }

    #[test]
    fn scalar_targets_keep_their_type_and_created_fields_read_as_plain_yaml() {
        let mut rs = resources();
        let r = replacement(
            json!({"kind": "ConfigMap", "fieldPath": "data.num"}),
            json!([{"select": {"name": "web"}, "options": {"create": true}, "fieldPaths": [
                "spec.replicas", "spec.template.spec.containers.[name=app].env.[name=A].value",
                "spec.fresh"]}]),
        );
        apply(&mut rs, &[r]).unwrap();
        let spec = &rs[1].object["spec"];
        assert_eq!(spec["replicas"], json!(5));
        assert_eq!(spec["fresh"], json!(5));
        let containers = &spec["template"]["spec"]["containers"];
        assert_eq!(containers[0]["env"][0]["value"], json!("5"));
        assert_eq!(
            containers[1]["env"],
            json!([{"name": "A", "value": 5}]),
            "[name=app] also matches app-side, and creates the element there"
        );
    }

    #[test]
    fn delimiters_pick_a_part_of_the_source_and_replace_a_part_of_the_target() {
        let mut rs = resources();
        let r = replacement(
            json!({"kind": "ConfigMap", "fieldPath": "data.list",
                   "options": {"delimiter": ",", "index": 2}}),
            json!([{"select": {"kind": "Deployment"},
                    "fieldPaths": ["spec.template.spec.containers.*.image"],
                    "options": {"delimiter": ":", "index": 1}}]),
        );
        apply(&mut rs, &[r]).unwrap();
        let containers = &rs[1].object["spec"]["template"]["spec"]["containers"];
        assert_eq!(containers[0]["image"], "nginx:c");
        assert_eq!(containers[1]["image"], "side:c");
    }

    #[test]
    fn targets_are_selected_by_any_name_and_labels_and_rejected() {
        let mut rs = resources();
        let r = replacement(
            json!({"kind": "ConfigMap", "name": "src"}),
            json!([{"select": {"name": "web", "labelSelector": "tier=front"},
                    "reject": [{"kind": "ConfigMap"}], "options": {"create": true},
                    "fieldPaths": ["metadata.labels.src"]}]),
        );
        apply(&mut rs, &[r]).unwrap();
        assert_eq!(rs[1].object["metadata"]["labels"]["src"], "src");
        let r = replacement(
            json!({"kind": "ConfigMap", "name": "src"}),
            json!([{"select": {"kind": "Deployment"}, "reject": [{"labelSelector": "tier=front"}],
                    "options": {"create": true}, "fieldPaths": ["metadata.labels.other"]}]),
        );
        apply(&mut rs, &[r]).unwrap();
        assert!(rs[1].object["metadata"]["labels"].get("other").is_none());
    }

    #[test]
    fn sources_must_be_one_object_with_the_field() {
        let mut rs = resources();
        let none = replacement(json!({"kind": "Secret"}), json!([]));
        assert!(matches!(
            apply(&mut rs, &[none]),
            Err(ReplacementError::NoSource(_))
        ));
        let several = replacement(json!({}), json!([]));
        assert!(matches!(
            apply(&mut rs, &[several]),
            Err(ReplacementError::SeveralSources(_))
        ));
        let missing = replacement(
            json!({"kind": "ConfigMap", "fieldPath": "data.nope"}),
            json!([]),
        );
        assert!(matches!(
            apply(&mut rs, &[missing]),
            Err(ReplacementError::MissingSourceField { .. })
        ));
        let incomplete: Replacement =
            serde_json::from_value(json!({"source": {"kind": "ConfigMap"}})).unwrap();
        assert_eq!(
            apply(&mut rs, &[incomplete]),
            Err(ReplacementError::Incomplete)
        );
    }

    #[test]
    fn missing_target_fields_and_type_clashes_fail() {
        let mut rs = resources();
        let missing = replacement(
            json!({"kind": "ConfigMap", "fieldPath": "data.word"}),
            json!([{"select": {"kind": "Deployment"}, "fieldPaths": ["spec.nope"]}]),
        );
        let err = apply(&mut rs, &[missing]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unable to find field \"spec.nope\" in replacement target"
        );
        let clash = replacement(
            json!({"kind": "ConfigMap", "fieldPath": "data.word"}),
            json!([{"select": {"kind": "Deployment"}, "fieldPaths": ["spec.replicas"]}]),
        );
        assert!(matches!(
            apply(&mut rs, &[clash]),
            Err(ReplacementError::TypeMismatch { .. })
        ));
    }
}
