//! Discovery documents: `/version`, `/api`, `/apis`, per-group-version resource lists, and aggregated
//! discovery (`apidiscovery.k8s.io/v2`) for clients that ask for it.

use serde_json::{Value, json};

use crate::catalog::Catalog;
use crate::resource::ResourceType;

/// Verbs of a collection and its objects.
const RESOURCE_VERBS: [&str; 8] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// The verbs a resource serves: only `create` for a review.
fn verbs_of(resource: &ResourceType) -> &'static [&'static str] {
    if resource.review {
        &["create"]
    } else {
        &RESOURCE_VERBS
    }
}

/// The aggregated discovery media type clients accept, and the version they asked for.
pub fn aggregated_version(accept: &str) -> Option<&'static str> {
    for media_type in accept.split(',') {
        let media_type = media_type.replace(' ', "");
        if media_type.contains("as=APIGroupDiscoveryList")
            && media_type.contains("g=apidiscovery.k8s.io")
        {
            if media_type.contains("v=v2beta1") {
                return Some("v2beta1");
            }
            if media_type.contains("v=v2") {
                return Some("v2");
            }
        }
    }
    None
}

/// The content type of an aggregated discovery response.
pub fn aggregated_content_type(version: &str) -> &'static str {
    if version == "v2beta1" {
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
    } else {
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    }
}

/// `/version`.
pub fn version_info((major, minor, patch): (u32, u32, u32)) -> Value {
    json!({
        "major": major.to_string(),
        "minor": minor.to_string(),
        "gitVersion": format!("v{major}.{minor}.{patch}"),
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2025-01-01T00:00:00Z",
        "goVersion": "go1.24.0",
        "compiler": "gc",
        "platform": "linux/amd64",
    })
}

/// `/api`.
pub fn core_versions() -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}],
    })
}

fn group_entry(group: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|version| json!({"groupVersion": format!("{group}/{version}"), "version": version}))
        .collect();
    json!({
        "name": group,
        "versions": versions,
        "preferredVersion": versions.first().cloned().unwrap_or(Value::Null),
    })
}

/// `/apis`.
pub fn group_list(catalog: &Catalog) -> Value {
    let groups: Vec<Value> = catalog
        .groups()
        .iter()
        .map(|(group, versions)| group_entry(group, versions))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/GROUP`, or `None` when the group is not served.
pub fn group(catalog: &Catalog, name: &str) -> Option<Value> {
    let (group, versions) = catalog
        .groups()
        .into_iter()
        .find(|(group, _)| group == name)?;
    let mut entry = group_entry(&group, &versions);
    entry["kind"] = json!("APIGroup");
    entry["apiVersion"] = json!("v1");
    Some(entry)
}

/// `/api/v1` or `/apis/GROUP/VERSION`, or `None` when nothing is served there.
pub fn resource_list(catalog: &Catalog, group: &str, version: &str) -> Option<Value> {
    let types = catalog.in_group_version(group, version);
    if types.is_empty() {
        return None;
    }
    let mut resources = Vec::new();
    for resource in &types {
        let mut entry = json!({
            "name": resource.plural,
            "singularName": resource.singular,
            "namespaced": resource.namespaced,
            "kind": resource.kind,
            "verbs": verbs_of(resource),
        });
        if !resource.short_names.is_empty() {
            entry["shortNames"] = json!(resource.short_names);
        }
        if !resource.categories.is_empty() {
            entry["categories"] = json!(resource.categories);
        }
        resources.push(entry);
        for (subresource, kind, verbs) in subresources(resource) {
            let mut entry = json!({
                "name": format!("{}/{subresource}", resource.plural),
                "singularName": "",
                "namespaced": resource.namespaced,
                "kind": kind,
                "verbs": verbs,
            });
            if subresource == "scale" {
                entry["group"] = json!("autoscaling");
                entry["version"] = json!("v1");
            }
            resources.push(entry);
        }
    }
    let group_version = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    }))
}

fn subresources(resource: &ResourceType) -> Vec<(&'static str, String, Vec<&'static str>)> {
    let mut list = Vec::new();
    if resource.status_subresource {
        list.push((
            "status",
            resource.kind.clone(),
            vec!["get", "patch", "update"],
        ));
    }
    if resource.scale_subresource {
        list.push(("scale", "Scale".to_owned(), vec!["get", "patch", "update"]));
    }
    if resource.log_subresource {
        list.push(("log", "Pod".to_owned(), vec!["get"]));
    }
    list
}

fn aggregated_resource(resource: &ResourceType, version: &str) -> Value {
    let mut entry = json!({
        "resource": resource.plural,
        "responseKind": {"group": resource.group, "version": version, "kind": resource.kind},
        "scope": if resource.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": resource.singular,
        "verbs": verbs_of(resource),
    });
    if !resource.short_names.is_empty() {
        entry["shortNames"] = json!(resource.short_names);
    }
    if !resource.categories.is_empty() {
        entry["categories"] = json!(resource.categories);
    }
    let subresources: Vec<Value> = subresources(resource)
        .into_iter()
        .map(|(name, kind, verbs)| {
            let (group, kind_version) = if name == "scale" {
                ("autoscaling".to_owned(), "v1".to_owned())
            } else {
                (resource.group.clone(), version.to_owned())
            };
            json!({
                "subresource": name,
                "responseKind": {"group": group, "version": kind_version, "kind": kind},
                "verbs": verbs,
            })
        })
        .collect();
    if !subresources.is_empty() {
        entry["subresources"] = Value::Array(subresources);
    }
    entry
}

fn aggregated_group(catalog: &Catalog, group: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|version| {
            let resources: Vec<Value> = catalog
                .in_group_version(group, version)
                .iter()
                .map(|resource| aggregated_resource(resource, version))
                .collect();
            json!({"version": version, "resources": resources, "freshness": "Current"})
        })
        .collect();
    json!({"metadata": {"name": group, "creationTimestamp": null}, "versions": versions})
}

/// Aggregated discovery for `/api` (core) or `/apis` (every other group).
pub fn aggregated(catalog: &Catalog, core: bool, version: &str) -> Value {
    let items: Vec<Value> = if core {
        vec![aggregated_group(catalog, "", &["v1".to_owned()])]
    } else {
        catalog
            .groups()
            .iter()
            .map(|(group, versions)| aggregated_group(catalog, group, versions))
            .collect()
    };
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": format!("apidiscovery.k8s.io/{version}"),
        "metadata": {},
        "items": items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_kubectl_accept_headers() {
        let accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        assert_eq!(aggregated_version(accept), Some("v2"));
        assert_eq!(aggregated_version("application/json"), None);
    }

    #[test]
    fn core_resources_include_subresources() {
        let catalog = Catalog::default();
        let list = resource_list(&catalog, "", "v1").expect("core");
        let names: Vec<&str> = list["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|resource| resource["name"].as_str())
            .collect();
        assert!(names.contains(&"pods"));
        assert!(names.contains(&"pods/log"));
        assert!(names.contains(&"pods/status"));
        assert!(resource_list(&catalog, "nope", "v1").is_none());
    }

    #[test]
    fn aggregated_discovery_lists_every_group() {
        let catalog = Catalog::default();
        let apis = aggregated(&catalog, false, "v2");
        let groups: Vec<&str> = apis["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|item| item["metadata"]["name"].as_str())
            .collect();
        assert!(groups.contains(&"apps"));
        assert!(groups.contains(&"apiextensions.k8s.io"));
        let core = aggregated(&catalog, true, "v2");
        assert_eq!(core["items"][0]["metadata"]["name"], "");
    }
}
