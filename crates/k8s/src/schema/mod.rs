//! How each list field of each built-in Kubernetes kind merges, as the Kubernetes OpenAPI document says: its
//! server-side apply list type (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`) and its strategic merge
//! patch strategy (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`), plus the few non-list fields
//! with a patch strategy.
//!
//! The data is a generated table (`schema/table.rs`, from `gen/schema_table.py`) of definitions, each with the
//! fields that lead to lists, and of kinds pointing at their root definition. A path is looked up by walking it
//! from the kind's root: no allocation, a linear scan of a few fields per step.

mod table;

use table::{DEFS, KINDS};

/// How a list is merged by server-side apply (`x-kubernetes-list-type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListType {
    /// Replaced whole (also what an unmarked list is).
    Atomic,
    /// A set of scalars, merged by value.
    Set,
    /// A map keyed by these fields of its items.
    Map(&'static [&'static str]),
}

/// How a strategic merge patch treats a field (`x-kubernetes-patch-strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchStrategy {
    /// No strategy: a list is replaced, an object merged.
    Default,
    /// `merge`: a list is merged (by the merge key, or as a set of scalars when it has none).
    Merge,
    /// `replace`.
    Replace,
    /// `retainKeys` (possibly with `merge`: see the bool).
    RetainKeys {
        /// Whether the strategy is `merge,retainKeys` rather than `retainKeys` alone.
        merge: bool,
    },
}

/// What the schema says about one list field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListSchema {
    /// The server-side apply list type; `None` when the list is unmarked (which server-side apply treats as
    /// [`ListType::Atomic`]).
    pub list_type: Option<ListType>,
    /// The strategic merge patch strategy.
    pub patch_strategy: PatchStrategy,
    /// The strategic merge patch merge key (`x-kubernetes-patch-merge-key`), when there is one. It can differ from
    /// the list-map keys: container `ports` are keyed by `containerPort` and `protocol` for server-side apply but
    /// merged by `containerPort` alone by a strategic merge patch.
    pub patch_merge_key: Option<&'static str>,
}

/// Marks a [`Field`] whose value (or list item, or map value) is a scalar, an opaque type, or an object none of whose
/// fields matter for merging.
pub(crate) const NO_DEF: u16 = u16::MAX;

/// One field of a definition in the generated table. Only the fields that matter for merging are listed: lists,
/// fields with a patch strategy, and objects or maps that lead to those.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    /// The field's name.
    pub(crate) name: &'static str,
    /// The definition (index into `DEFS`) of the field's value, of its list items, or of its map values; or
    /// [`NO_DEF`].
    pub(crate) def: u16,
    /// Whether the field is a map (`additionalProperties`): a path steps through it by any key.
    pub(crate) map: bool,
    /// The field's list schema when it is a list (or, with `map`, when the map's values are lists).
    pub(crate) list: Option<ListSchema>,
    /// The patch strategy of a non-list field ([`PatchStrategy::Default`] when unmarked).
    pub(crate) strategy: PatchStrategy,
}

/// What the schema says about the field at `path` (field names from the object root; list items are stepped
/// through transparently, so `["spec","template","spec","containers","ports"]` is the ports of any container;
/// a map's values are stepped through by any key) in an object of `group`/`version`/`kind` (group "" for core).
/// `None` when the kind is not a built-in one, or the path is not in its schema, or not a list.
///
/// A path has no steps for list indexes; the step after a map field is the key (any string, `*` included).
pub fn list_at(group: &str, version: &str, kind: &str, path: &[&str]) -> Option<ListSchema> {
    list_of(resolve(root(group, version, kind)?, path)?)
}

/// The same, for whichever version of the kind the schema has (the first it knows, preferring the one in
/// which it is stable); for callers that know only group and kind.
///
/// Versions are tried in Kubernetes' priority order: stable before beta before alpha, and the newest first within
/// each, so `autoscaling`/`HorizontalPodAutoscaler` is looked up in `v2`, and a kind only in beta and alpha (such
/// as `resource.k8s.io`/`DeviceTaintRule`) in its newest of those. Only that one version is consulted.
pub fn list_at_any_version(group: &str, kind: &str, path: &[&str]) -> Option<ListSchema> {
    list_of(resolve(root_any_version(group, kind)?, path)?)
}

/// The patch strategy of the (non-list) field at `path`, e.g. `retainKeys`; `None` when unmarked or unknown.
///
/// Paths are as for [`list_at`]. A list's strategy is part of its [`ListSchema`]: for a list this is `None`.
pub fn field_strategy(
    group: &str,
    version: &str,
    kind: &str,
    path: &[&str],
) -> Option<PatchStrategy> {
    let field = match resolve(root(group, version, kind)?, path)? {
        Target::Map(field) => field,
        Target::Value(field) if field.list.is_none() => field,
        Target::Value(_) => return None,
    };
    (field.strategy != PatchStrategy::Default).then_some(field.strategy)
}

/// The fields that identify an item of a list in a strategic merge patch: its list-map keys when they include
/// its merge key (ports are told apart by protocol too), else the merge key alone; `None` when the list has no
/// merge key (it merges as a set of scalars, or is replaced).
pub fn strategic_keys(list: &ListSchema) -> Option<&'static [&'static str]> {
    let key = list.patch_merge_key?;
    if let Some(ListType::Map(keys)) = list.list_type
        && keys.contains(&key)
    {
        return Some(keys);
    }
    // The merge key as a one-key list, borrowed from the table where a list declares it.
    DEFS.iter()
        .flat_map(|fields| fields.iter())
        .filter_map(|field| field.list.as_ref())
        .find_map(|list| list.patch_merge_key.as_ref().filter(|k| **k == key))
        .map(std::slice::from_ref)
}

/// Whether the schema knows this group/version/kind.
pub fn is_builtin(group: &str, version: &str, kind: &str) -> bool {
    root(group, version, kind).is_some()
}

/// Every built-in kind the schema knows, as (group, version, kind): by group and kind, then version priority
/// (stable before beta before alpha, newer first).
pub fn kinds() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    KINDS
        .iter()
        .map(|&(group, version, kind, _)| (group, version, kind))
}

/// The root definition of a group/version/kind.
fn root(group: &str, version: &str, kind: &str) -> Option<u16> {
    KINDS
        .iter()
        .find(|&&(g, v, k, _)| k == kind && g == group && v == version)
        .map(|&(_, _, _, def)| def)
}

/// The root definition of a group/kind's preferred version (the table lists it first).
fn root_any_version(group: &str, kind: &str) -> Option<u16> {
    KINDS
        .iter()
        .find(|&&(g, _, k, _)| k == kind && g == group)
        .map(|&(_, _, _, def)| def)
}

/// Where a path ends.
enum Target {
    /// At a map field itself (the path has no key after it).
    Map(&'static Field),
    /// At a field's value: a non-map field, or a map's value (the path's last step was its key).
    Value(&'static Field),
}

/// The field a path ends at, walking from definition `def`.
fn resolve(mut def: u16, path: &[&str]) -> Option<Target> {
    let mut steps = path.iter();
    let mut name = *steps.next()?;
    loop {
        let field = DEFS
            .get(usize::from(def))?
            .iter()
            .find(|f| f.name == name)?;
        if field.map && steps.next().is_none() {
            return Some(Target::Map(field));
        }
        match steps.next() {
            None => return Some(Target::Value(field)),
            Some(next) => {
                name = next;
                def = field.def;
            }
        }
    }
}

/// The list schema of where a path ends, if that is a list.
fn list_of(target: Target) -> Option<ListSchema> {
    match target {
        Target::Map(_) => None,
        Target::Value(field) => field.list,
    }
}

#[cfg(test)]
mod strategic_keys_tests {
    use super::*;

    #[test]
    fn strategic_keys_are_the_list_map_keys_that_include_the_merge_key_or_the_merge_key_alone() {
        let ports = list_at(
            "apps",
            "v1",
            "Deployment",
            &["spec", "template", "spec", "containers", "ports"],
        )
        .unwrap();
        assert_eq!(
            strategic_keys(&ports),
            Some(&["containerPort", "protocol"][..])
        );
        let host_ips = list_at("", "v1", "Pod", &["status", "hostIPs"]).unwrap();
        assert_eq!(strategic_keys(&host_ips), Some(&["ip"][..]));
        let finalizers = list_at("", "v1", "Pod", &["metadata", "finalizers"]).unwrap();
        assert_eq!(strategic_keys(&finalizers), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POD_SPEC: [&str; 3] = ["spec", "template", "spec"];

    fn deployment(path: &[&str]) -> Option<ListSchema> {
        list_at("apps", "v1", "Deployment", path)
    }

    fn in_pod_template(rest: &[&'static str]) -> Vec<&'static str> {
        let mut path: Vec<&str> = POD_SPEC.to_vec();
        path.extend_from_slice(rest);
        path
    }

    #[test]
    fn deployment_containers_are_a_map_keyed_by_name_merged_by_name() {
        let containers = deployment(&in_pod_template(&["containers"])).unwrap();
        assert_eq!(containers.list_type, Some(ListType::Map(&["name"])));
        assert_eq!(containers.patch_strategy, PatchStrategy::Merge);
        assert_eq!(containers.patch_merge_key, Some("name"));
    }

    #[test]
    fn container_ports_are_a_map_keyed_by_port_and_protocol() {
        let ports = deployment(&in_pod_template(&["containers", "ports"])).unwrap();
        assert_eq!(
            ports.list_type,
            Some(ListType::Map(&["containerPort", "protocol"]))
        );
        assert_eq!(ports.patch_strategy, PatchStrategy::Merge);
        assert_eq!(ports.patch_merge_key, Some("containerPort"));
    }

    #[test]
    fn service_ports_are_a_map_keyed_by_port_and_protocol() {
        let ports = list_at("", "v1", "Service", &["spec", "ports"]).unwrap();
        assert_eq!(ports.list_type, Some(ListType::Map(&["port", "protocol"])));
        assert_eq!(ports.patch_merge_key, Some("port"));
    }

    #[test]
    fn finalizers_are_a_set_merged_in_any_kind() {
        for (group, version, kind) in kinds() {
            let finalizers = list_at(group, version, kind, &["metadata", "finalizers"])
                .unwrap_or_else(|| panic!("{group}/{version} {kind} has no metadata.finalizers"));
            assert_eq!(finalizers.list_type, Some(ListType::Set));
            assert_eq!(finalizers.patch_strategy, PatchStrategy::Merge);
            assert_eq!(finalizers.patch_merge_key, None);
        }
    }

    #[test]
    fn owner_references_are_keyed_by_uid() {
        let owners = list_at("", "v1", "ConfigMap", &["metadata", "ownerReferences"]).unwrap();
        assert_eq!(owners.list_type, Some(ListType::Map(&["uid"])));
        assert_eq!(owners.patch_strategy, PatchStrategy::Merge);
        assert_eq!(owners.patch_merge_key, Some("uid"));
    }

    #[test]
    fn pod_volumes_merge_and_retain_keys_by_name() {
        let volumes = list_at("", "v1", "Pod", &["spec", "volumes"]).unwrap();
        assert_eq!(volumes.list_type, Some(ListType::Map(&["name"])));
        assert_eq!(
            volumes.patch_strategy,
            PatchStrategy::RetainKeys { merge: true }
        );
        assert_eq!(volumes.patch_merge_key, Some("name"));
        assert_eq!(deployment(&in_pod_template(&["volumes"])), Some(volumes));
    }

    #[test]
    fn container_args_are_atomic_without_a_strategy() {
        let args = list_at("", "v1", "Pod", &["spec", "containers", "args"]).unwrap();
        assert!(matches!(args.list_type, None | Some(ListType::Atomic)));
        assert_eq!(args.patch_strategy, PatchStrategy::Default);
        assert_eq!(args.patch_merge_key, None);
    }

    #[test]
    fn cron_job_containers_are_reached_through_the_job_template() {
        let path = [
            "spec",
            "jobTemplate",
            "spec",
            "template",
            "spec",
            "containers",
        ];
        let containers = list_at("batch", "v1", "CronJob", &path).unwrap();
        assert_eq!(containers.list_type, Some(ListType::Map(&["name"])));
        assert_eq!(containers.patch_merge_key, Some("name"));
        let env = [&path[..], &["env"]].concat();
        assert_eq!(
            list_at("batch", "v1", "CronJob", &env)
                .unwrap()
                .patch_merge_key,
            Some("name")
        );
    }

    #[test]
    fn custom_resource_definition_versions_are_atomic_not_keyed_by_name() {
        // Unlike most lists of named items, the OpenAPI document marks `spec.versions` atomic, with no strategy.
        let versions = list_at(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            &["spec", "versions"],
        );
        let versions = versions.unwrap();
        assert_eq!(versions.list_type, Some(ListType::Atomic));
        assert_eq!(versions.patch_strategy, PatchStrategy::Default);
        assert_eq!(versions.patch_merge_key, None);
    }

    #[test]
    fn a_crd_schema_is_walked_through_its_recursive_properties_by_any_key() {
        let mut path = vec!["spec", "versions", "schema", "openAPIV3Schema"];
        for _ in 0..5 {
            path.extend(["properties", "anything"]);
        }
        path.push("required");
        let crd = |path: &[&str]| {
            list_at(
                "apiextensions.k8s.io",
                "v1",
                "CustomResourceDefinition",
                path,
            )
        };
        assert_eq!(crd(&path).unwrap().list_type, Some(ListType::Atomic));
        path.pop();
        path.push("x-kubernetes-validations");
        assert_eq!(
            crd(&path).unwrap().list_type,
            Some(ListType::Map(&["rule"]))
        );
        // The map itself, without a key, is not a list.
        assert_eq!(crd(&path[..5]), None);
    }

    #[test]
    fn a_map_of_lists_gives_the_list_schema_of_its_values() {
        let extra = list_at(
            "certificates.k8s.io",
            "v1",
            "CertificateSigningRequest",
            &["spec", "extra", "groups"],
        );
        assert_eq!(extra.unwrap().list_type, None);
        assert_eq!(
            list_at(
                "certificates.k8s.io",
                "v1",
                "CertificateSigningRequest",
                &["spec", "extra"]
            ),
            None
        );
    }

    #[test]
    fn a_custom_kind_gives_none() {
        assert_eq!(
            list_at("example.com", "v1", "Widget", &["spec", "items"]),
            None
        );
        assert_eq!(
            list_at_any_version("example.com", "Widget", &["metadata", "finalizers"]),
            None
        );
        assert!(!is_builtin("example.com", "v1", "Widget"));
    }

    #[test]
    fn an_unknown_path_gives_none() {
        assert_eq!(deployment(&["spec", "nonsense", "containers"]), None);
        assert_eq!(
            deployment(&in_pod_template(&["containers", "image", "ports"])),
            None
        );
        assert_eq!(deployment(&[]), None);
    }

    #[test]
    fn config_map_data_is_a_map_not_a_list() {
        assert_eq!(list_at("", "v1", "ConfigMap", &["data"]), None);
        assert_eq!(list_at("", "v1", "ConfigMap", &["data", "key"]), None);
    }

    #[test]
    fn a_field_that_is_not_a_list_gives_none() {
        assert_eq!(deployment(&["spec", "template"]), None);
        assert_eq!(deployment(&in_pod_template(&["containers", "image"])), None);
    }

    #[test]
    fn deployment_strategy_retains_keys() {
        let strategy = field_strategy("apps", "v1", "Deployment", &["spec", "strategy"]);
        assert_eq!(strategy, Some(PatchStrategy::RetainKeys { merge: false }));
        assert_eq!(
            field_strategy("apps", "v1", "Deployment", &["spec", "template"]),
            None
        );
        assert_eq!(
            field_strategy("apps", "v1", "Deployment", &in_pod_template(&["volumes"])),
            None
        );
    }

    #[test]
    fn pod_disruption_budget_selector_is_replaced() {
        let strategy = field_strategy("policy", "v1", "PodDisruptionBudget", &["spec", "selector"]);
        assert_eq!(strategy, Some(PatchStrategy::Replace));
    }

    #[test]
    fn any_version_prefers_the_stable_one() {
        let metrics = ["spec", "metrics"];
        assert!(list_at("autoscaling", "v2", "HorizontalPodAutoscaler", &metrics).is_some());
        assert_eq!(
            list_at("autoscaling", "v1", "HorizontalPodAutoscaler", &metrics),
            None
        );
        assert_eq!(
            list_at_any_version("autoscaling", "HorizontalPodAutoscaler", &metrics),
            list_at("autoscaling", "v2", "HorizontalPodAutoscaler", &metrics)
        );
        let containers = in_pod_template(&["containers"]);
        assert_eq!(
            list_at_any_version("apps", "Deployment", &containers),
            deployment(&containers)
        );
    }

    #[test]
    fn every_version_of_a_kind_is_kept() {
        assert!(is_builtin("autoscaling", "v1", "HorizontalPodAutoscaler"));
        assert!(is_builtin("autoscaling", "v2", "HorizontalPodAutoscaler"));
        assert!(is_builtin("resource.k8s.io", "v1beta1", "ResourceClaim"));
        assert!(!is_builtin("apps", "v1beta1", "Deployment"));
    }

    #[test]
    fn list_kinds_and_meta_kinds_are_not_builtin_objects() {
        assert!(!is_builtin("apps", "v1", "DeploymentList"));
        assert!(!is_builtin("", "v1", "Status"));
        assert!(!is_builtin("", "v1", "WatchEvent"));
        assert!(!is_builtin("apps", "v1", "DeleteOptions"));
    }

    #[test]
    fn the_table_has_at_least_sixty_kinds() {
        assert!(kinds().count() >= 60, "{} kinds", kinds().count());
    }

    #[test]
    fn the_table_is_consistent() {
        for fields in DEFS {
            for field in *fields {
                assert!(
                    field.def == NO_DEF || usize::from(field.def) < DEFS.len(),
                    "{}",
                    field.name
                );
                if let Some(ListSchema {
                    list_type: Some(ListType::Map(keys)),
                    ..
                }) = field.list
                {
                    assert!(!keys.is_empty(), "{}", field.name);
                }
            }
        }
        for &(group, version, kind, def) in KINDS {
            assert!(usize::from(def) < DEFS.len(), "{group}/{version} {kind}");
            assert_eq!(
                KINDS
                    .iter()
                    .filter(|k| (k.0, k.1, k.2) == (group, version, kind))
                    .count(),
                1
            );
        }
    }
}
