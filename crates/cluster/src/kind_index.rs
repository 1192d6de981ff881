//! The pure part of the kind catalog: what one served kind is ([`KindInfo`]) and the index discovery fills,
//! `(group, kind)` to the versions it is served at with the preferred one first.

use std::collections::HashMap;

use kube::Client;
use kube::api::{Api, DynamicObject};
use kube::discovery::{ApiCapabilities, ApiResource, Scope, verbs};
use serde_json::{Map, Value};

use super::group_kind;

/// One served kind at one version: what to build an `Api<DynamicObject>` from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindInfo {
    /// Group, version, kind and plural resource name.
    pub resource: ApiResource,
    /// Whether objects of the kind live in namespaces.
    pub namespaced: bool,
    /// The verbs the server allows on the collection and its objects (`get`, `list`, `watch`, `patch`...).
    pub verbs: Vec<String>,
}

impl KindInfo {
    fn new(resource: ApiResource, capabilities: &ApiCapabilities) -> Self {
        KindInfo {
            resource,
            namespaced: capabilities.scope == Scope::Namespaced,
            verbs: capabilities.operations.clone(),
        }
    }

    /// `group/Kind`, or `Kind` for the core group.
    pub fn group_kind(&self) -> String {
        group_kind(&self.resource.group, &self.resource.kind)
    }

    /// Whether the server allows `verb` (see [`kube::discovery::verbs`]).
    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|served| served == verb)
    }

    /// An API handle for the kind: in `namespace` for namespaced kinds when given, else across the cluster.
    pub fn api(&self, client: Client, namespace: Option<&str>) -> Api<DynamicObject> {
        match namespace {
            Some(namespace) if self.namespaced => {
                Api::namespaced_with(client, namespace, &self.resource)
            }
            _ => Api::all_with(client, &self.resource),
        }
    }

    /// An object as JSON with `apiVersion` and `kind` set (list items and some responses leave them out).
    pub fn to_json(&self, object: DynamicObject) -> Value {
        let mut map = match object.data {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let (api_version, kind) = match object.types {
            Some(types) if !types.api_version.is_empty() && !types.kind.is_empty() => {
                (types.api_version, types.kind)
            }
            _ => (
                self.resource.api_version.clone(),
                self.resource.kind.clone(),
            ),
        };
        map.insert("apiVersion".into(), Value::String(api_version));
        map.insert("kind".into(), Value::String(kind));
        let metadata = serde_json::to_value(&object.metadata).unwrap_or(Value::Null);
        map.insert("metadata".into(), metadata);
        Value::Object(map)
    }
}

/// One kind at every version it is served at.
#[derive(Debug, Clone)]
pub(crate) struct KindVersions {
    /// At the group's preferred version, or the most stable version serving it when the preferred one does not.
    pub preferred: KindInfo,
    /// Every served version, most preferred first.
    pub versions: Vec<KindInfo>,
}

/// The pure index discovery fills: `(group, kind)` to its served versions.
#[derive(Debug, Default)]
pub(crate) struct KindIndex {
    kinds: HashMap<(String, String), KindVersions>,
}

impl KindIndex {
    /// Adds one group: its preferred version and its versions in priority order (most stable, newest first),
    /// each with its top-level resources.
    pub fn add_group(
        &mut self,
        preferred: &str,
        versions: Vec<(String, Vec<(ApiResource, ApiCapabilities)>)>,
    ) {
        let ordered = versions
            .iter()
            .filter(|(version, _)| version == preferred)
            .chain(versions.iter().filter(|(version, _)| version != preferred));
        for (_, resources) in ordered {
            for (resource, capabilities) in resources {
                let info = KindInfo::new(resource.clone(), capabilities);
                let key = (resource.group.clone(), resource.kind.clone());
                match self.kinds.get_mut(&key) {
                    None => {
                        self.kinds.insert(
                            key,
                            KindVersions {
                                preferred: info.clone(),
                                versions: vec![info],
                            },
                        );
                    }
                    Some(entry) => {
                        let same_version = entry
                            .versions
                            .iter_mut()
                            .find(|known| known.resource.version == info.resource.version);
                        match same_version {
                            // Two resources of one kind at one version: keep the listable one.
                            Some(known)
                                if !known.supports(verbs::LIST) && info.supports(verbs::LIST) =>
                            {
                                if entry.preferred.resource.version == info.resource.version {
                                    entry.preferred = info.clone();
                                }
                                *known = info;
                            }
                            Some(_) => {}
                            None => entry.versions.push(info),
                        }
                    }
                }
            }
        }
    }

    #[cfg(test)]
    fn preferred(&self, group: &str, kind: &str) -> Option<&KindInfo> {
        self.kinds
            .get(&(group.to_string(), kind.to_string()))
            .map(|entry| &entry.preferred)
    }

    /// How many kinds are indexed.
    pub fn kind_count(&self) -> usize {
        self.kinds.len()
    }

    /// Every served `group/version` (`v1` for the core group) and `group/version/Kind`, sorted, as Helm's
    /// `.Capabilities.APIVersions` lists them.
    pub fn api_versions(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for versions in self.kinds.values() {
            for info in &versions.versions {
                let resource = &info.resource;
                let group_version = if resource.group.is_empty() {
                    resource.version.clone()
                } else {
                    format!("{}/{}", resource.group, resource.version)
                };
                out.push(format!("{group_version}/{}", resource.kind));
                out.push(group_version);
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The versions `group/kind` is served at.
    pub fn versions(&self, group: &str, kind: &str) -> Option<&KindVersions> {
        self.kinds.get(&(group.to_string(), kind.to_string()))
    }
}

pub(crate) fn at_version(versions: &KindVersions, version: &str) -> Option<KindInfo> {
    versions
        .versions
        .iter()
        .find(|info| info.resource.version == version)
        .cloned()
}

#[cfg(test)]
mod tests {
    use kube::core::GroupVersionKind;

    use super::*;

    fn resource(group: &str, version: &str, kind: &str, plural: &str) -> ApiResource {
        ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural)
    }

    fn capabilities(scope: Scope, operations: &[&str]) -> ApiCapabilities {
        ApiCapabilities {
            scope,
            subresources: Vec::new(),
            operations: operations.iter().map(|op| op.to_string()).collect(),
        }
    }

    #[test]
    fn api_versions_list_each_group_version_and_each_kind_in_it() {
        let mut index = KindIndex::default();
        index.add_group(
            "v1",
            vec![(
                "v1".into(),
                vec![(
                    resource("", "v1", "Pod", "pods"),
                    capabilities(Scope::Namespaced, &["list"]),
                )],
            )],
        );
        index.add_group(
            "v1",
            vec![
                (
                    "v1".into(),
                    vec![(
                        resource("apps", "v1", "Deployment", "deployments"),
                        capabilities(Scope::Namespaced, &["list"]),
                    )],
                ),
                (
                    "v1beta1".into(),
                    vec![(
                        resource("apps", "v1beta1", "Deployment", "deployments"),
                        capabilities(Scope::Namespaced, &["list"]),
                    )],
                ),
            ],
        );
        assert_eq!(
            index.api_versions(),
            [
                "apps/v1",
                "apps/v1/Deployment",
                "apps/v1beta1",
                "apps/v1beta1/Deployment",
                "v1",
                "v1/Pod"
            ]
        );
    }

    #[test]
    fn the_preferred_version_wins_and_others_stay_reachable() {
        let mut index = KindIndex::default();
        let all = capabilities(Scope::Namespaced, &["get", "list", "watch", "patch"]);
        index.add_group(
            "v2",
            vec![
                (
                    "v2".into(),
                    vec![(
                        resource(
                            "autoscaling",
                            "v2",
                            "HorizontalPodAutoscaler",
                            "horizontalpodautoscalers",
                        ),
                        all.clone(),
                    )],
                ),
                (
                    "v1".into(),
                    vec![
                        (
                            resource(
                                "autoscaling",
                                "v1",
                                "HorizontalPodAutoscaler",
                                "horizontalpodautoscalers",
                            ),
                            all.clone(),
                        ),
                        (
                            resource("autoscaling", "v1", "OldOnly", "oldonlys"),
                            all.clone(),
                        ),
                    ],
                ),
            ],
        );
        let hpa = index
            .preferred("autoscaling", "HorizontalPodAutoscaler")
            .unwrap();
        assert_eq!(hpa.resource.version, "v2");
        assert!(hpa.namespaced);
        let versions = index
            .versions("autoscaling", "HorizontalPodAutoscaler")
            .unwrap();
        assert_eq!(
            at_version(versions, "v1").unwrap().resource.api_version,
            "autoscaling/v1"
        );
        assert!(at_version(versions, "v3").is_none());
        // A kind missing from the preferred version is served at the best version that has it.
        assert_eq!(
            index
                .preferred("autoscaling", "OldOnly")
                .unwrap()
                .resource
                .version,
            "v1"
        );
        assert!(index.preferred("autoscaling", "Missing").is_none());
    }

    #[test]
    fn the_listable_resource_of_a_kind_is_kept() {
        let mut index = KindIndex::default();
        index.add_group(
            "v1",
            vec![(
                "v1".into(),
                vec![
                    (
                        resource("", "v1", "Thing", "thingviews"),
                        capabilities(Scope::Cluster, &["create"]),
                    ),
                    (
                        resource("", "v1", "Thing", "things"),
                        capabilities(Scope::Cluster, &["get", "list", "watch"]),
                    ),
                ],
            )],
        );
        let thing = index.preferred("", "Thing").unwrap();
        assert_eq!(thing.resource.plural, "things");
        assert!(!thing.namespaced);
        assert!(thing.supports(verbs::WATCH));
        assert_eq!(thing.group_kind(), "Thing");
    }

    #[test]
    fn objects_get_their_types_back() {
        let info = KindInfo::new(
            resource("apps", "v1", "Deployment", "deployments"),
            &capabilities(Scope::Namespaced, &["list"]),
        );
        let mut object = DynamicObject::new("web", &info.resource).within("shop");
        object.types = None;
        object.data = serde_json::json!({"spec": {"replicas": 2}});
        let json = info.to_json(object);
        assert_eq!(json["apiVersion"], "apps/v1");
        assert_eq!(json["kind"], "Deployment");
        assert_eq!(json["metadata"]["namespace"], "shop");
        assert_eq!(json["spec"]["replicas"], 2);
        assert_eq!(info.group_kind(), "apps/Deployment");
    }
}
