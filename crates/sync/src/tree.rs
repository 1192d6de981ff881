//! The resource tree of an app: its own objects and, under them, what their controllers made, found through
//! ownerReferences (Deployment -> ReplicaSet -> Pod, CronJob -> Job -> Pod, Service -> EndpointSlice, ...).
//!
//! Secrets are never part of a tree: not as the app's own objects, not as descendants, and nothing is reached
//! through them. Pure: the caller lists the objects and says each node's health and sync.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;
use weft_sdk::Health;

use crate::status::{HealthCode, SyncCode, image_tag, workload_image};
use weft_core::resource::{ResourceRef, version_of};

/// One object of the tree.
///
/// On the wire it is a ResourceRef (`group, version, kind, namespace, name, ref`) plus the node's facts. `version`
/// is the API version, as in every ResourceRef; the image tag a workload runs is `imageVersion`, so that the two
/// meanings of "version" never share a field.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// The API group; empty for the core group.
    pub group: String,
    /// The API version (`v1` of `apps/v1`).
    pub version: String,
    /// The kind.
    pub kind: String,
    /// The namespace; empty for cluster-scoped objects.
    pub namespace: String,
    /// The name.
    pub name: String,
    /// `group:kind:namespace:name`, the token the resource route parses back.
    pub r#ref: String,
    /// `metadata.uid`, for objects that exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// `metadata.creationTimestamp`, for objects that exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// The object's health.
    pub health: HealthCode,
    /// Why, when there is something to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health_message: Option<String>,
    /// Whether the object matches git; only the app's own objects have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncCode>,
    /// The image tag the object runs (its first container's, see [`image_tag`]), for objects that run pods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_version: Option<String>,
    /// The `ref`s of this node's owners in this tree (not owners outside it, never a Secret), sorted.
    pub parent_refs: Vec<String>,
}

/// What the caller knows of one node: the verdict of its health plugin and, for the app's own objects, its sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeStatus {
    /// The health.
    pub health: HealthCode,
    /// The health message, if any.
    pub health_message: Option<String>,
    /// The sync; ignored for descendants, which git does not declare.
    pub sync: Option<SyncCode>,
}

impl NodeStatus {
    /// A status from a plugin's verdict (an empty message becomes none).
    pub fn new(health: &Health, sync: Option<SyncCode>) -> Self {
        NodeStatus {
            health: health.status.into(),
            health_message: (!health.message.is_empty()).then(|| health.message.clone()),
            sync,
        }
    }
}

/// One object that can be a node.
struct Entry<'a> {
    object: &'a Value,
    reference: ResourceRef,
    token: String,
    is_root: bool,
}

impl Entry<'_> {
    /// The order of siblings and of roots: kind, then name, namespace and group.
    fn sort_key(&self) -> (&str, &str, &str, &str) {
        (
            &self.reference.kind,
            &self.reference.name,
            &self.reference.namespace,
            &self.reference.group,
        )
    }
}

/// Builds an app's tree.
///
/// `roots` are the app's own objects (live where they exist, so that they carry their uid); `candidates` are the
/// live objects that may descend from them (extra objects are fine, only those reached are kept). A candidate is a
/// descendant when one of its `ownerReferences` names the uid of a root or of another descendant, transitively;
/// one owned by several nodes lists them all in `parentRefs`, and ownership cycles end where they meet a node
/// already placed. An object that is both a root and a candidate is taken from `roots`. Objects that cannot be
/// named (no apiVersion, kind or name) and core Secrets are skipped.
///
/// Order: roots by kind, then name, namespace and group; each node is followed by its children (same order)
/// before the next root, depth first, so a node comes right after the first of its parents that is placed.
///
/// `status` is asked once for each node that is kept (never for a Secret); the sync it gives is kept for roots
/// only.
pub fn build_tree(
    roots: &[Value],
    candidates: &[Value],
    status: impl Fn(&Value) -> NodeStatus,
) -> Vec<Node> {
    let mut entries: Vec<Entry<'_>> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (objects, is_root) in [(roots, true), (candidates, false)] {
        for object in objects {
            let Ok(reference) = ResourceRef::of(object) else {
                continue;
            };
            if reference.is_secret() {
                continue;
            }
            let token = reference.token();
            if seen.insert(token.clone()) {
                entries.push(Entry {
                    object,
                    reference,
                    token,
                    is_root,
                });
            }
        }
    }

    // Owner edges among the entries, through uids.
    let mut by_uid: HashMap<&str, usize> = HashMap::new();
    for (index, entry) in entries.iter().enumerate() {
        if let Some(uid) = uid_of(entry.object) {
            by_uid.entry(uid).or_insert(index);
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); entries.len()];
    let mut parents: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); entries.len()];
    for (index, entry) in entries.iter().enumerate() {
        for owner_uid in owner_uids(entry.object) {
            if let Some(&owner) = by_uid.get(owner_uid)
                && owner != index
                && parents[index].insert(owner)
            {
                children[owner].push(index);
            }
        }
    }
    for list in &mut children {
        list.sort_by(|a, b| entries[*a].sort_key().cmp(&entries[*b].sort_key()));
    }

    // Depth first from the roots, each node placed once.
    let mut root_order: Vec<usize> = (0..entries.len()).filter(|i| entries[*i].is_root).collect();
    root_order.sort_by(|a, b| entries[*a].sort_key().cmp(&entries[*b].sort_key()));
    let mut placed = vec![false; entries.len()];
    let mut order: Vec<usize> = Vec::new();
    for root in root_order {
        let mut stack = vec![root];
        while let Some(index) = stack.pop() {
            if placed[index] {
                continue;
            }
            placed[index] = true;
            order.push(index);
            stack.extend(children[index].iter().rev().filter(|c| !placed[**c]));
        }
    }

    order
        .into_iter()
        .map(|index| {
            let entry = &entries[index];
            let mut parent_refs: Vec<String> = parents[index]
                .iter()
                .filter(|p| placed[**p])
                .map(|p| entries[*p].token.clone())
                .collect();
            parent_refs.sort();
            node(entry, status(entry.object), parent_refs)
        })
        .collect()
}

fn node(entry: &Entry<'_>, status: NodeStatus, parent_refs: Vec<String>) -> Node {
    let object = entry.object;
    let metadata = object.get("metadata");
    let text = |field: &str| {
        metadata
            .and_then(|m| m.get(field))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let reference = &entry.reference;
    Node {
        group: reference.group.clone(),
        version: version_of(api_version).to_string(),
        kind: reference.kind.clone(),
        namespace: reference.namespace.clone(),
        name: reference.name.clone(),
        r#ref: entry.token.clone(),
        uid: text("uid"),
        created_at: text("creationTimestamp"),
        health: status.health,
        health_message: status.health_message,
        sync: if entry.is_root { status.sync } else { None },
        image_version: workload_image(object).map(image_tag),
        parent_refs,
    }
}

fn uid_of(object: &Value) -> Option<&str> {
    object
        .get("metadata")?
        .get("uid")?
        .as_str()
        .filter(|uid| !uid.is_empty())
}

fn owner_uids(object: &Value) -> impl Iterator<Item = &str> {
    object
        .get("metadata")
        .and_then(|m| m.get("ownerReferences"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|owner| owner.get("uid").and_then(Value::as_str))
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use serde_json::json;

    use super::*;

    fn object(api_version: &str, kind: &str, name: &str, uid: &str, owners: &[&str]) -> Value {
        let owners: Vec<Value> = owners
            .iter()
            .map(|uid| json!({"apiVersion": "v1", "kind": "Owner", "name": "o", "uid": uid}))
            .collect();
        json!({
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {
                "name": name,
                "namespace": "shop",
                "uid": uid,
                "creationTimestamp": "2025-01-02T03:04:05Z",
                "ownerReferences": owners,
            },
        })
    }

    fn with_image(mut object: Value, image: &str) -> Value {
        let pod_spec = json!({"containers": [{"name": "main", "image": image}]});
        object["spec"] = if object["kind"] == "Pod" {
            pod_spec
        } else {
            json!({"template": {"spec": pod_spec}})
        };
        object
    }

    fn healthy(_: &Value) -> NodeStatus {
        NodeStatus::new(&Health::healthy(""), Some(SyncCode::Synced))
    }

    fn refs(tree: &[Node]) -> Vec<&str> {
        tree.iter().map(|n| n.r#ref.as_str()).collect()
    }

    #[test]
    fn a_deployment_owns_replica_sets_that_own_pods() {
        let deployment = with_image(object("apps/v1", "Deployment", "web", "d1", &[]), "web:2.0");
        let rs_old = with_image(
            object("apps/v1", "ReplicaSet", "web-1", "rs1", &["d1"]),
            "web:1.0",
        );
        let rs_new = with_image(
            object("apps/v1", "ReplicaSet", "web-2", "rs2", &["d1"]),
            "web:2.0",
        );
        let pod_old = with_image(object("v1", "Pod", "web-1-a", "p1", &["rs1"]), "web:1.0");
        let pod_new = with_image(object("v1", "Pod", "web-2-a", "p2", &["rs2"]), "web:2.0");
        let service = object("v1", "Service", "web", "s1", &[]);
        let slice = object(
            "discovery.k8s.io/v1",
            "EndpointSlice",
            "web-x",
            "e1",
            &["s1"],
        );
        let stranger = object("v1", "Pod", "other", "p9", &["nobody"]);

        let roots = [service.clone(), deployment.clone()];
        let candidates = [
            pod_new, slice, rs_new, stranger, pod_old, rs_old, deployment, service,
        ];
        let tree = build_tree(&roots, &candidates, |object| {
            let kind = object["kind"].as_str().unwrap();
            if kind == "Pod" {
                NodeStatus::new(&Health::progressing("starting"), Some(SyncCode::OutOfSync))
            } else {
                healthy(object)
            }
        });
        assert_eq!(
            refs(&tree),
            [
                "apps:Deployment:shop:web",
                "apps:ReplicaSet:shop:web-1",
                ":Pod:shop:web-1-a",
                "apps:ReplicaSet:shop:web-2",
                ":Pod:shop:web-2-a",
                ":Service:shop:web",
                "discovery.k8s.io:EndpointSlice:shop:web-x",
            ]
        );
        let pod = &tree[2];
        assert_eq!(pod.parent_refs, ["apps:ReplicaSet:shop:web-1"]);
        assert_eq!(pod.health, HealthCode::Progressing);
        assert_eq!(pod.health_message.as_deref(), Some("starting"));
        // Descendants have no sync even if the caller gives one; roots keep theirs.
        assert_eq!(pod.sync, None);
        assert_eq!(tree[0].sync, Some(SyncCode::Synced));
        assert_eq!(tree[0].image_version.as_deref(), Some("2.0"));
        assert_eq!(tree[1].image_version.as_deref(), Some("1.0"));
        assert_eq!(tree[5].image_version, None);
        assert_eq!(tree[0].parent_refs, Vec::<String>::new());
        assert_eq!(tree[0].uid.as_deref(), Some("d1"));
        assert_eq!(tree[0].version, "v1");

        let wire = serde_json::to_value(&tree[1]).unwrap();
        assert_eq!(
            wire,
            json!({
                "group": "apps", "version": "v1", "kind": "ReplicaSet", "namespace": "shop", "name": "web-1",
                "ref": "apps:ReplicaSet:shop:web-1", "uid": "rs1", "createdAt": "2025-01-02T03:04:05Z",
                "health": "healthy", "imageVersion": "1.0", "parentRefs": ["apps:Deployment:shop:web"],
            })
        );
    }

    #[test]
    fn a_node_with_two_owners_lists_both_and_appears_once() {
        let a = object("example.dev/v1", "Widget", "a", "ua", &[]);
        let b = object("example.dev/v1", "Widget", "b", "ub", &[]);
        let shared = object("v1", "ConfigMap", "shared", "uc", &["ub", "ua", "ua"]);
        let tree = build_tree(&[b, a], &[shared], healthy);
        assert_eq!(
            refs(&tree),
            [
                "example.dev:Widget:shop:a",
                ":ConfigMap:shop:shared",
                "example.dev:Widget:shop:b",
            ]
        );
        assert_eq!(
            tree[1].parent_refs,
            ["example.dev:Widget:shop:a", "example.dev:Widget:shop:b"]
        );
    }

    #[test]
    fn secrets_are_never_nodes_nor_reached_through() {
        let secret_root = object("v1", "Secret", "db-password", "sec1", &[]);
        let deployment = object("apps/v1", "Deployment", "web", "d1", &[]);
        let secret_child = object("v1", "Secret", "web-token", "sec2", &["d1"]);
        let under_secret = object("v1", "ConfigMap", "from-secret", "c1", &["sec2"]);
        let under_root_secret = object("v1", "ConfigMap", "from-root-secret", "c2", &["sec1"]);
        let asked = RefCell::new(Vec::new());
        let tree = build_tree(
            &[secret_root, deployment],
            &[secret_child, under_secret, under_root_secret],
            |object| {
                asked
                    .borrow_mut()
                    .push(object["kind"].as_str().unwrap().to_string());
                healthy(object)
            },
        );
        assert_eq!(refs(&tree), ["apps:Deployment:shop:web"]);
        assert_eq!(asked.into_inner(), ["Deployment"]);
    }

    #[test]
    fn ownership_cycles_end() {
        let root = object("apps/v1", "Deployment", "web", "d1", &[]);
        // x and y own each other, and x is also owned by the root; z owns itself.
        let x = object("example.dev/v1", "Thing", "x", "ux", &["d1", "uy"]);
        let y = object("example.dev/v1", "Thing", "y", "uy", &["ux"]);
        let z = object("example.dev/v1", "Thing", "z", "uz", &["uz", "ux"]);
        let tree = build_tree(&[root], &[x, y, z], healthy);
        assert_eq!(
            refs(&tree),
            [
                "apps:Deployment:shop:web",
                "example.dev:Thing:shop:x",
                "example.dev:Thing:shop:y",
                "example.dev:Thing:shop:z",
            ]
        );
        assert_eq!(
            tree[1].parent_refs,
            ["apps:Deployment:shop:web", "example.dev:Thing:shop:y"]
        );
        assert_eq!(tree[3].parent_refs, ["example.dev:Thing:shop:x"]);
    }

    #[test]
    fn missing_roots_and_unnamed_objects() {
        // A root that does not exist yet: no uid, no children, the caller's `missing`.
        let desired = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}});
        let unnamed = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"ownerReferences": [{"uid": "d1"}]}});
        let tree = build_tree(&[desired], &[unnamed], |_| {
            NodeStatus::new(&Health::missing(""), Some(SyncCode::OutOfSync))
        });
        assert_eq!(tree.len(), 1);
        assert_eq!(tree[0].uid, None);
        assert_eq!(tree[0].health, HealthCode::Missing);
        assert_eq!(tree[0].health_message, None);
        assert_eq!(tree[0].sync, Some(SyncCode::OutOfSync));
    }

    #[test]
    fn a_planted_secret_value_never_reaches_the_wire() {
        let planted = "c3VwZXItc2VjcmV0LXBsYW50ZWQ=";
        let mut secret = object("v1", "Secret", "db-password", "sec1", &[]);
        secret["data"] = json!({"password": planted});
        secret["stringData"] = json!({"plain": "super-secret-planted"});
        let mut owned = secret.clone();
        owned["metadata"]["name"] = json!("db-password-copy");
        owned["metadata"]["uid"] = json!("sec2");
        owned["metadata"]["ownerReferences"] = json!([{"uid": "d1"}]);
        let deployment = with_image(object("apps/v1", "Deployment", "web", "d1", &[]), "web:1");
        let tree = build_tree(&[secret, deployment], &[owned], healthy);
        let wire = serde_json::to_string(&tree).unwrap();
        assert!(!wire.contains(planted), "{wire}");
        assert!(!wire.contains("super-secret-planted"), "{wire}");
        assert!(!wire.contains("db-password"), "{wire}");
        assert!(!wire.contains("Secret"), "{wire}");
        assert!(wire.contains("apps:Deployment:shop:web"), "{wire}");
    }
}
