//! The set of resource types being served: the built-ins plus those added by CustomResourceDefinitions.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::resource::{PrinterColumn, ResourceKey, ResourceType, builtin_types};

/// Served resource types, looked up by path segments or by kind.
#[derive(Debug, Clone)]
pub struct Catalog {
    types: BTreeMap<ResourceKey, Arc<ResourceType>>,
}

impl Default for Catalog {
    fn default() -> Self {
        let types = builtin_types()
            .into_iter()
            .map(|resource| (resource.key(), resource))
            .collect();
        Self { types }
    }
}

impl Catalog {
    /// The type served at `group/version` under a plural name, if that version is served.
    pub fn by_path(&self, group: &str, version: &str, plural: &str) -> Option<Arc<ResourceType>> {
        self.types
            .get(&ResourceKey::new(group, plural))
            .filter(|resource| resource.versions.iter().any(|served| served == version))
            .cloned()
    }

    /// The type for a key.
    pub fn by_key(&self, key: &ResourceKey) -> Option<Arc<ResourceType>> {
        self.types.get(key).cloned()
    }

    /// The type of a group and kind.
    pub fn by_kind(&self, group: &str, kind: &str) -> Option<Arc<ResourceType>> {
        self.types
            .values()
            .find(|resource| resource.is(group, kind))
            .cloned()
    }

    /// Every served type.
    pub fn all(&self) -> impl Iterator<Item = &Arc<ResourceType>> {
        self.types.values()
    }

    /// Served groups with their versions, the preferred version first; the core group is left out.
    pub fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for resource in self
            .types
            .values()
            .filter(|resource| !resource.group.is_empty())
        {
            let versions = groups.entry(resource.group.clone()).or_default();
            for version in &resource.versions {
                if !versions.contains(version) {
                    versions.push(version.clone());
                }
            }
        }
        groups.into_iter().collect()
    }

    /// Types served at a group and version.
    pub fn in_group_version(&self, group: &str, version: &str) -> Vec<Arc<ResourceType>> {
        self.types
            .values()
            .filter(|resource| {
                resource.group == group && resource.versions.iter().any(|v| v == version)
            })
            .cloned()
            .collect()
    }

    /// Starts serving the kind a CustomResourceDefinition defines; returns the type, or `None` when the
    /// definition is incomplete.
    pub fn register_definition(&mut self, definition: &Value) -> Option<Arc<ResourceType>> {
        let resource = Arc::new(type_from_definition(definition)?);
        if self
            .types
            .get(&resource.key())
            .is_some_and(|existing| !existing.custom)
        {
            return None;
        }
        self.types.insert(resource.key(), resource.clone());
        Some(resource)
    }

    /// Stops serving the kind a CustomResourceDefinition defined.
    pub fn unregister_definition(&mut self, definition: &Value) -> Option<Arc<ResourceType>> {
        let resource = type_from_definition(definition)?;
        let key = resource.key();
        let existing = self.types.get(&key)?;
        if existing.custom {
            self.types.remove(&key)
        } else {
            None
        }
    }
}

/// One `additionalPrinterColumns` entry, when it has a name and a path.
fn printer_column(column: &Value) -> Option<PrinterColumn> {
    let text = |field: &str| column.get(field).and_then(Value::as_str).map(str::to_owned);
    Some(PrinterColumn {
        name: text("name")?,
        column_type: text("type").unwrap_or_else(|| "string".to_owned()),
        json_path: text("jsonPath")?,
        priority: column.get("priority").and_then(Value::as_i64).unwrap_or(0),
        description: text("description").unwrap_or_default(),
    })
}

/// Reads the served type out of a CustomResourceDefinition object.
pub fn type_from_definition(definition: &Value) -> Option<ResourceType> {
    let spec = definition.get("spec")?;
    let names = spec.get("names")?;
    let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
    let strings = |value: Option<&Value>| -> Vec<String> {
        value
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let group = text(spec.get("group"))?;
    let plural = text(names.get("plural"))?;
    let kind = text(names.get("kind"))?;
    let versions_json = spec.get("versions")?.as_array()?;
    let served: Vec<&Value> = versions_json
        .iter()
        .filter(|version| {
            version
                .get("served")
                .and_then(Value::as_bool)
                .unwrap_or(true)
        })
        .collect();
    let mut versions: Vec<String> = Vec::new();
    // The storage version is preferred.
    for version in served
        .iter()
        .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
    {
        versions.extend(text(version.get("name")));
    }
    for version in &served {
        if let Some(name) = text(version.get("name"))
            && !versions.contains(&name)
        {
            versions.push(name);
        }
    }
    if versions.is_empty() {
        return None;
    }
    let preferred = versions.first().cloned().unwrap_or_default();
    let printer_columns = served
        .iter()
        .find(|version| text(version.get("name")).as_deref() == Some(preferred.as_str()))
        .and_then(|version| version.get("additionalPrinterColumns"))
        .and_then(Value::as_array)
        .map(|columns| columns.iter().filter_map(printer_column).collect())
        .unwrap_or_default();
    let status_subresource = served
        .iter()
        .any(|version| version.pointer("/subresources/status").is_some());
    let scale_subresource = served
        .iter()
        .any(|version| version.pointer("/subresources/scale").is_some());
    Some(ResourceType {
        singular: text(names.get("singular")).unwrap_or_else(|| kind.to_ascii_lowercase()),
        group,
        versions,
        kind,
        plural,
        namespaced: spec.get("scope").and_then(Value::as_str) != Some("Cluster"),
        short_names: strings(names.get("shortNames")),
        categories: strings(names.get("categories")),
        status_subresource,
        scale_subresource,
        log_subresource: false,
        custom: true,
        review: false,
        printer_columns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn widget_definition() -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
                "versions": [
                    {"name": "v1alpha1", "served": true, "storage": false},
                    {"name": "v1", "served": true, "storage": true, "subresources": {"status": {}}}
                ]
            }
        })
    }

    #[test]
    fn a_definition_serves_its_kind_with_the_storage_version_preferred() {
        let mut catalog = Catalog::default();
        let resource = catalog
            .register_definition(&widget_definition())
            .expect("registered");
        assert_eq!(resource.versions, vec!["v1", "v1alpha1"]);
        assert!(resource.status_subresource);
        assert!(
            catalog
                .by_path("example.com", "v1alpha1", "widgets")
                .is_some()
        );
        assert!(
            catalog
                .groups()
                .iter()
                .any(|(group, _)| group == "example.com")
        );
        catalog.unregister_definition(&widget_definition());
        assert!(catalog.by_path("example.com", "v1", "widgets").is_none());
    }

    #[test]
    fn builtins_cannot_be_unregistered_by_a_definition() {
        let mut catalog = Catalog::default();
        let mut fake = widget_definition();
        fake["spec"]["group"] = json!("apps");
        fake["spec"]["names"]["plural"] = json!("deployments");
        assert!(catalog.unregister_definition(&fake).is_none());
        assert!(catalog.by_path("apps", "v1", "deployments").is_some());
    }
}
