//! Output order: Kustomize's legacy order (kinds in a fixed dependency order, then by gvk, namespace and name)
//! or the order of accumulation (`fifo`).

use std::cmp::Ordering;

use crate::kustomization::SortOptions;
use crate::resource::Resource;

/// Kinds placed first, in this order.
const ORDER_FIRST: &[&str] = &[
    "Namespace",
    "ResourceQuota",
    "StorageClass",
    "CustomResourceDefinition",
    "ServiceAccount",
    "PodSecurityPolicy",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "Secret",
    "Endpoints",
    "Service",
    "LimitRange",
    "PriorityClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Deployment",
    "StatefulSet",
    "CronJob",
    "PodDisruptionBudget",
];

/// Kinds placed last, in this order.
const ORDER_LAST: &[&str] = &[
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

fn rank(kind: &str, first: &[String], last: &[String]) -> i64 {
    let as_i64 = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    if let Some(i) = first.iter().position(|k| k == kind) {
        return as_i64(i) - as_i64(first.len());
    }
    if let Some(i) = last.iter().position(|k| k == kind) {
        return as_i64(i) + 1;
    }
    0
}

fn id_key(resource: &Resource) -> String {
    let or = |s: &str, empty: &str| {
        if s.is_empty() {
            empty.to_string()
        } else {
            s.to_string()
        }
    };
    format!(
        "{}|{}|{}",
        resource.gvk().sort_key(),
        or(resource.namespace(), "~X"),
        or(resource.name(), "~N")
    )
}

/// Sorts in place as `sortOptions` (or, without it, the legacy order) asks.
pub fn sort(resources: &mut [Resource], options: Option<&SortOptions>) -> Result<(), String> {
    let (first, last): (Vec<String>, Vec<String>) = match options {
        Some(o) if o.order == "fifo" => {
            if o.legacy_sort_options.is_some() {
                return Err("sortOptions.legacySortOptions is set but the order is 'fifo'".into());
            }
            return Ok(());
        }
        Some(o) if o.order == "legacy" => match &o.legacy_sort_options {
            Some(custom) => (custom.order_first.clone(), custom.order_last.clone()),
            None => defaults(),
        },
        Some(o) => {
            return Err(format!(
                "sortOptions.order must be 'legacy' or 'fifo', not '{}'",
                o.order
            ));
        }
        None => defaults(),
    };
    resources.sort_by(|a, b| {
        let (ga, gb) = (a.gvk(), b.gvk());
        if ga != gb {
            let (ra, rb) = (rank(&ga.kind, &first, &last), rank(&gb.kind, &first, &last));
            if ra != rb {
                return ra.cmp(&rb);
            }
            return ga.sort_key().cmp(&gb.sort_key());
        }
        id_key(a).cmp(&id_key(b)).then(Ordering::Equal)
    });
    Ok(())
}

fn defaults() -> (Vec<String>, Vec<String>) {
    (
        ORDER_FIRST.iter().map(|s| s.to_string()).collect(),
        ORDER_LAST.iter().map(|s| s.to_string()).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn r(api_version: &str, kind: &str, name: &str, namespace: &str) -> Resource {
        let mut metadata = json!({"name": name});
        if !namespace.is_empty() {
            metadata["namespace"] = json!(namespace);
        }
        Resource::new(
            json!({"apiVersion": api_version, "kind": kind, "metadata": metadata}),
            None,
        )
    }

    #[test]
    fn legacy_order_matches_kustomize() {
        let mut rs = vec![
            r(
                "admissionregistration.k8s.io/v1",
                "ValidatingWebhookConfiguration",
                "q",
                "",
            ),
            r("example.com/v1", "Foo", "a", ""),
            r("apps/v1", "Deployment", "b", ""),
            r("apps/v1", "Deployment", "a", "zz"),
            r("apps/v1", "Deployment", "c", "aa"),
            r("example.com/v1", "Bar", "a", ""),
            r("v1", "Service", "z", ""),
            r("v1", "ConfigMap", "y", ""),
            r("v1", "Namespace", "q", ""),
        ];
        sort(&mut rs, None).unwrap();
        let names: Vec<String> = rs
            .iter()
            .map(|r| format!("{}/{}", r.kind(), r.name()))
            .collect();
        assert_eq!(
            names,
            [
                "Namespace/q",
                "ConfigMap/y",
                "Service/z",
                "Deployment/c",
                "Deployment/a",
                "Deployment/b",
                "Bar/a",
                "Foo/a",
                "ValidatingWebhookConfiguration/q"
            ]
        );
    }
}
