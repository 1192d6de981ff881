//! `namePrefix` and `nameSuffix` (and the Prefix/Suffix transformer plugins): prepending or appending text to
//! the fields their field specs name (by default `metadata/name`) of every object but namespaces, CRDs and API
//! services.

use serde_json::Value;

use crate::fieldpath::{FieldSpec, walk};
use crate::resid::Gvk;
use crate::resource::Resource;

/// Kinds whose names are never prefixed or suffixed.
fn is_skipped(gvk: &Gvk) -> bool {
    gvk.kind == "CustomResourceDefinition"
        || gvk.kind == "Namespace"
        || (gvk.kind == "APIService" && gvk.group == "apiregistration.k8s.io")
}

/// Which end of a field the text goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// A prefix.
    Start,
    /// A suffix.
    End,
}

/// The field spec `namePrefix` and `nameSuffix` use: every object's `metadata/name`.
pub fn name_specs() -> Vec<FieldSpec> {
    vec![FieldSpec::new("metadata/name", Gvk::default(), false)]
}

/// Prepends `prefix` to the fields of `specs`. An object whose name a spec reaches records the prefix (even an
/// empty one), which name references use to tell objects of different kustomizations apart.
pub fn add_prefix(
    resources: &mut [Resource],
    prefix: &str,
    specs: &[FieldSpec],
) -> Result<(), String> {
    add_affix(resources, prefix, End::Start, specs)
}

/// Appends `suffix` to the fields of `specs`, as [`add_prefix`] does.
pub fn add_suffix(
    resources: &mut [Resource],
    suffix: &str,
    specs: &[FieldSpec],
) -> Result<(), String> {
    add_affix(resources, suffix, End::End, specs)
}

fn add_affix(
    resources: &mut [Resource],
    text: &str,
    end: End,
    specs: &[FieldSpec],
) -> Result<(), String> {
    for resource in resources.iter_mut() {
        let original = resource.original_id().gvk;
        if is_skipped(&original) {
            continue;
        }
        for spec in specs.iter().filter(|s| original.is_selected_by(&s.gvk)) {
            if spec.path == ["metadata", "name"] {
                match end {
                    End::Start => resource.prefixes.push(text.to_string()),
                    End::End => resource.suffixes.push(text.to_string()),
                }
                if !text.is_empty() {
                    resource.store_previous_id();
                }
            }
            walk(
                &mut resource.object,
                &spec.path,
                spec.create,
                &mut |node: &mut Value| {
                    let current = match node {
                        Value::Null => String::new(),
                        Value::String(s) => std::mem::take(s),
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        _ => {
                            return Err(format!(
                                "cannot add a name prefix or suffix at '{}': not a scalar",
                                spec.path_text()
                            ));
                        }
                    };
                    *node = Value::String(match end {
                        End::Start => format!("{text}{current}"),
                        End::End => format!("{current}{text}"),
                    });
                    Ok(())
                },
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renames_all_but_namespaces() {
        let mut rs = vec![
            Resource::new(
                json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}),
                None,
            ),
            Resource::new(
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}),
                None,
            ),
        ];
        add_prefix(&mut rs, "prod-", &name_specs()).unwrap();
        add_suffix(&mut rs, "-v2", &name_specs()).unwrap();
        assert_eq!(rs[0].name(), "prod-web-v2");
        assert_eq!(rs[0].original_id().name, "web");
        assert_eq!(rs[0].previous_ids.len(), 2);
        assert_eq!(rs[1].name(), "ns");
        assert!(rs[1].prefixes.is_empty());
    }

    #[test]
    fn field_specs_choose_the_fields_and_the_kinds() {
        let mut rs = vec![
            Resource::new(
                json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                       "spec": {"externalName": "db"}}),
                None,
            ),
            Resource::new(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}}),
                None,
            ),
        ];
        let specs = vec![
            FieldSpec::new("metadata/name", Gvk::selector("", "", "Service"), false),
            FieldSpec::new("spec/externalName", Gvk::default(), false),
        ];
        add_prefix(&mut rs, "x-", &specs).unwrap();
        assert_eq!(rs[0].name(), "x-web");
        assert_eq!(rs[0].object["spec"]["externalName"], "x-db");
        assert_eq!(rs[1].name(), "cfg");
        assert!(rs[1].prefixes.is_empty(), "no spec reached its name");
    }
}
