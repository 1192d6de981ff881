//! `vars` (deprecated in Kustomize, still common): a name bound to a field of one object, attached to that
//! object in the kustomization declaring it and read at the very end of the build (after prefixes, suffixes,
//! hashes and name references), then substituted for `$(NAME)` in the var reference fields.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::fieldpath::dotted::{self, split_var_path};
use crate::fieldpath::{FieldSpec, walk};
use crate::resid::{Gvk, ResId};
use crate::resource::Resource;

/// Where a var's value is read when its `fieldref` names no field.
pub const DEFAULT_FIELD_PATH: &str = "metadata.name";

/// One `vars` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Var {
    /// The name substituted for `$(NAME)`.
    pub name: String,
    /// The object holding the value.
    pub objref: ObjectRef,
    /// The field holding it.
    #[serde(default)]
    pub fieldref: FieldRef,
}

/// The object a var reads: by gvk (or `apiVersion`), its name as written, and optionally its namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ObjectRef {
    /// `group/version`, overriding `group` and `version` when set.
    #[serde(default)]
    pub api_version: String,
    /// Group.
    #[serde(default)]
    pub group: String,
    /// Version.
    #[serde(default)]
    pub version: String,
    /// Kind.
    #[serde(default)]
    pub kind: String,
    /// Name.
    #[serde(default)]
    pub name: String,
    /// Namespace.
    #[serde(default)]
    pub namespace: String,
}

/// The field a var reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldRef {
    /// Dotted, `name[0]` for list elements (default `metadata.name`).
    #[serde(default)]
    pub field_path: String,
}

/// Why vars could not be declared or resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VarError {
    /// The objref names several objects.
    #[error("found {count} resId matches for var '{name}' (unable to disambiguate)")]
    Ambiguous {
        /// The var.
        name: String,
        /// How many objects matched.
        count: usize,
    },
    /// Two vars of one name.
    #[error("var '{0}' already encountered")]
    Duplicate(String),
    /// The objref named no object.
    #[error("var '{0}' cannot be mapped to a field in the set of known resources")]
    NotFound(String),
    /// The object has no such field.
    #[error("field specified in var '{name}' ({path}) not found in corresponding resource")]
    FieldNotFound {
        /// The var.
        name: String,
        /// Its field path.
        path: String,
    },
    /// A var reference field that is a list of something other than strings.
    #[error("invalid value type expect a string, in a list at '{path}' of {object}")]
    NonStringItem {
        /// The field spec's path.
        path: String,
        /// The object.
        object: String,
    },
}

impl Var {
    /// The gvk the objref names (`apiVersion` winning over `group` and `version`).
    fn gvk(&self) -> Gvk {
        let r = &self.objref;
        if r.api_version.is_empty() {
            return Gvk::selector(&r.group, &r.version, &r.kind);
        }
        let mut gvk = Gvk::selector(&r.group, &r.version, &r.kind);
        match r.api_version.split('/').collect::<Vec<_>>().as_slice() {
            [group, version] => {
                gvk.group = group.to_string();
                gvk.version = version.to_string();
            }
            [version] => gvk.version = version.to_string(),
            _ => {}
        }
        gvk
    }

    fn field_path(&self) -> &str {
        if self.fieldref.field_path.is_empty() {
            DEFAULT_FIELD_PATH
        } else {
            &self.fieldref.field_path
        }
    }

    /// Whether `id` is the object this var names: same gvk and name, and, when the objref gives a namespace
    /// (or the kind is cluster-scoped), the same namespace.
    fn names(&self, id: &ResId) -> bool {
        let wanted = ResId {
            gvk: self.gvk(),
            name: self.objref.name.clone(),
            namespace: self.objref.namespace.clone(),
        };
        if wanted.namespace.is_empty() && !wanted.gvk.is_cluster_scoped() {
            wanted.gvk == id.gvk && wanted.name == id.name
        } else {
            wanted.matches(id)
        }
    }
}

/// The vars declared so far in a build.
#[derive(Debug, Clone, Default)]
pub struct VarSet {
    vars: BTreeMap<String, Var>,
}

impl VarSet {
    /// Declares a kustomization's `vars` over its resources (after its transformers ran): each var is attached
    /// to the one object it names, if any, and joins the set; a name already in the set is an error.
    pub fn merge(&mut self, incoming: &[Var], resources: &mut [Resource]) -> Result<(), VarError> {
        for var in incoming {
            let matched: Vec<usize> = resources
                .iter()
                .enumerate()
                .filter(|(_, r)| r.any_id(|id| var.names(id)))
                .map(|(i, _)| i)
                .collect();
            match matched.as_slice() {
                [] => {}
                [one] => resources[*one].var_names.push(var.name.clone()),
                several => {
                    return Err(VarError::Ambiguous {
                        name: var.name.clone(),
                        count: several.len(),
                    });
                }
            }
        }
        for var in incoming {
            if self.vars.contains_key(&var.name) {
                return Err(VarError::Duplicate(var.name.clone()));
            }
            self.vars.insert(var.name.clone(), var.clone());
        }
        Ok(())
    }

    /// Whether no var was declared.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// Reads every var's value from the object it is attached to, then substitutes `$(NAME)` in the fields
    /// `specs` name. A var attached to no object, or whose field is missing, is an error; a `$(NAME)` naming
    /// no var (or a var holding a map or a list) is left as written.
    pub fn resolve(&self, resources: &mut [Resource], specs: &[FieldSpec]) -> Result<(), VarError> {
        if self.vars.is_empty() {
            return Ok(());
        }
        let mut values: BTreeMap<String, Value> = BTreeMap::new();
        for (name, var) in &self.vars {
            let holder = resources
                .iter()
                .find(|r| r.var_names.iter().any(|n| n == name))
                .ok_or_else(|| VarError::NotFound(name.clone()))?;
            let not_found = || VarError::FieldNotFound {
                name: name.clone(),
                path: var.field_path().to_string(),
            };
            let value = dotted::lookup(&holder.object, &split_var_path(var.field_path()))
                .map_err(|_| not_found())?
                .ok_or_else(not_found)?;
            if let Some(primitive) = primitive(value) {
                values.insert(name.clone(), primitive);
            }
        }
        for resource in resources.iter_mut() {
            let gvk = resource.gvk();
            let object = resource.current_id().to_string();
            for spec in specs.iter().filter(|s| gvk.is_selected_by(&s.gvk)) {
                walk(&mut resource.object, &spec.path, false, &mut |node| {
                    substitute_node(node, &values).map_err(|()| VarError::NonStringItem {
                        path: spec.path_text(),
                        object: object.clone(),
                    })
                })?;
            }
            resource.stringify_annotations();
        }
        Ok(())
    }
}

/// A field's value as a var holds it: scalars keep their type (null reads as its text); maps and lists are
/// not values a var can hold.
fn primitive(value: &Value) -> Option<Value> {
    match value {
        Value::Object(_) | Value::Array(_) => None,
        Value::Null => Some(Value::String("null".to_string())),
        scalar => Some(scalar.clone()),
    }
}

/// Substitutes in one var reference field: a string; a map's string values; a list's items, which must all
/// be strings. Other scalars and null are left alone.
fn substitute_node(node: &mut Value, values: &BTreeMap<String, Value>) -> Result<(), ()> {
    match node {
        Value::String(text) => *node = substitute(text, values),
        Value::Object(map) => {
            for value in map.values_mut() {
                if let Value::String(text) = value {
                    *value = substitute(text, values);
                }
            }
        }
        Value::Array(items) => {
            if items.iter().any(|item| !item.is_string()) {
                return Err(());
            }
            for item in items.iter_mut() {
                if let Value::String(text) = item {
                    *item = substitute(text, values);
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Expands `$(NAME)` in `input`: a text that is exactly one reference takes the var's value with its type;
/// elsewhere the value's text is spliced in. `$$` is a literal `$`; an unknown name or an unclosed `$(` stays
/// as written.
pub fn substitute(input: &str, values: &BTreeMap<String, Value>) -> Value {
    let mut out = String::new();
    let mut rest = input;
    while let Some(at) = rest.find('$') {
        let after = &rest[at + 1..];
        if after.is_empty() {
            break;
        }
        out.push_str(&rest[..at]);
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(open) = after.strip_prefix('(') {
            match open.find(')') {
                Some(close) => {
                    let name = &open[..close];
                    let mapped = values.get(name);
                    if input.len() == name.len() + 3 && at == 0 && input.ends_with(')') {
                        return mapped
                            .cloned()
                            .unwrap_or_else(|| Value::String(input.to_string()));
                    }
                    match mapped {
                        Some(value) => out.push_str(&dotted::scalar_text(value)),
                        None => {
                            out.push_str("$(");
                            out.push_str(name);
                            out.push(')');
                        }
                    }
                    rest = &open[close + 1..];
                }
                None => {
                    out.push_str("$(");
                    rest = open;
                }
            }
        } else {
            let c = after.chars().next().expect("not empty");
            out.push('$');
            out.push(c);
            rest = &after[c.len_utf8()..];
        }
    }
    out.push_str(rest);
    Value::String(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn values() -> BTreeMap<String, Value> {
        [
            ("SVC".to_string(), json!("p-web")),
            ("PORT".to_string(), json!(8080)),
        ]
        .into()
    }

    #[test]
    fn whole_references_keep_their_type_and_embedded_ones_are_spliced() {
        assert_eq!(substitute("$(PORT)", &values()), json!(8080));
        assert_eq!(
            substitute("http://$(SVC):$(PORT)/", &values()),
            json!("http://p-web:8080/")
        );
        assert_eq!(substitute("$(NOPE)", &values()), json!("$(NOPE)"));
        assert_eq!(substitute("a $(NOPE) b", &values()), json!("a $(NOPE) b"));
        assert_eq!(
            substitute("$$(SVC) $x $(", &values()),
            json!("$(SVC) $x $(")
        );
        assert_eq!(substitute("cost: 5$", &values()), json!("cost: 5$"));
    }

    fn resource(object: Value) -> Resource {
        Resource::new(object, None)
    }

    fn var(name: &str, kind: &str, object: &str, path: &str) -> Var {
        Var {
            name: name.into(),
            objref: ObjectRef {
                api_version: "v1".into(),
                kind: kind.into(),
                name: object.into(),
                ..Default::default()
            },
            fieldref: FieldRef {
                field_path: path.into(),
            },
        }
    }

    #[test]
    fn vars_read_the_final_object_and_fill_reference_fields() {
        let mut service = resource(
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                   "spec": {"ports": [{"port": 8080}]}}),
        );
        let pod = resource(
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p",
            "annotations": {"a": "$(SVC)"}},
            "spec": {"containers": [{"command": ["curl", "$(SVC):$(PORT)"],
                                     "env": [{"name": "P", "value": "$(PORT)"}]}]}}),
        );
        service.store_previous_id();
        service.set_name("x-web");
        let mut resources = vec![service, pod];
        let mut set = VarSet::default();
        set.merge(
            &[
                var("SVC", "Service", "web", ""),
                var("PORT", "Service", "web", "spec.ports[0].port"),
            ],
            &mut resources,
        )
        .unwrap();
        set.resolve(&mut resources, &crate::defaults::var_references())
            .unwrap();
        let pod = &resources[1].object;
        assert_eq!(pod["metadata"]["annotations"]["a"], "x-web");
        assert_eq!(
            pod["spec"]["containers"][0]["command"],
            json!(["curl", "x-web:8080"])
        );
        assert_eq!(pod["spec"]["containers"][0]["env"][0]["value"], json!(8080));
    }

    #[test]
    fn duplicate_unmatched_and_ambiguous_vars_fail() {
        let cm = |name: &str, ns: &str| {
            resource(json!({"apiVersion": "v1", "kind": "ConfigMap",
                            "metadata": {"name": name, "namespace": ns}}))
        };
        let mut resources = vec![cm("a", "x"), cm("a", "y")];
        let mut set = VarSet::default();
        assert_eq!(
            set.merge(&[var("A", "ConfigMap", "a", "")], &mut resources),
            Err(VarError::Ambiguous {
                name: "A".into(),
                count: 2
            })
        );
        let mut scoped = var("A", "ConfigMap", "a", "");
        scoped.objref.namespace = "x".into();
        set.merge(std::slice::from_ref(&scoped), &mut resources)
            .unwrap();
        assert_eq!(
            set.merge(&[scoped], &mut resources),
            Err(VarError::Duplicate("A".into()))
        );
        let mut set = VarSet::default();
        set.merge(&[var("B", "ConfigMap", "b", "")], &mut resources)
            .unwrap();
        assert_eq!(
            set.resolve(&mut resources, &[]),
            Err(VarError::NotFound("B".into()))
        );
    }
}
