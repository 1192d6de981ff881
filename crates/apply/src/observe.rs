//! An app as it stands: per-object sync and health, the app's sync and health (worst of its objects), declared
//! and running versions, and the resource tree. Reads the comparison and the watch cache; changes nothing.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use weft_sdk::{Health, Status};

use super::compare::Comparison;
use super::syncer::Syncer;
use weft_core::resource::ResourceRef;
use weft_core::tracking::{Ownership, Tracker, ownership};
use weft_sync::order::placement;
use weft_sync::shared::{Claim, holder_name};
use weft_sync::status::{
    AppHealth, HealthCode, SyncCode, app_health, app_sync, declared_version, running_version,
};
use weft_sync::tree::{Node, NodeStatus, build_tree};

/// Kinds whose objects the resource tree shows under an app's own objects (made by controllers, so they carry
/// no tracking label): watched from the first time a tree is asked for.
pub const TREE_CHILD_KINDS: [(&str, &str); 7] = [
    ("apps", "ReplicaSet"),
    ("", "Pod"),
    ("apps", "ControllerRevision"),
    ("batch", "Job"),
    ("discovery.k8s.io", "EndpointSlice"),
    ("", "Endpoints"),
    ("", "PersistentVolumeClaim"),
];

/// One of the app's objects.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceStatus {
    /// The object.
    pub reference: ResourceRef,
    /// Whether it matches the render.
    pub sync: SyncCode,
    /// Its health.
    pub health: HealthCode,
    /// Why, from the health check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health_message: Option<String>,
    /// Whether it is live but no longer rendered (a prune candidate).
    pub requires_pruning: bool,
}

/// The app's state.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppStatus {
    /// Out of sync when any object is.
    pub sync: SyncCode,
    /// The worst health of its objects.
    pub health: AppHealth,
    /// Every object: desired ones (live or missing) and live ones no longer rendered.
    pub resources: Vec<ResourceStatus>,
    /// The image tag the render asks for (main workload).
    pub declared_version: Option<String>,
    /// The image tag the live main workload runs.
    pub running_version: Option<String>,
    /// Tags that now point to another digest than the one that runs (`web:1.4.2 now points to …`), for apps whose
    /// images are pinned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_moves: Vec<String>,
}

impl AppStatus {
    /// A status of this sync and health with no objects listed (what a view shows before its objects are known,
    /// and what tests of views start from).
    pub fn summary(sync: SyncCode, health: HealthCode) -> AppStatus {
        AppStatus {
            sync,
            health: AppHealth {
                status: health,
                message: None,
            },
            resources: Vec::new(),
            declared_version: None,
            running_version: None,
            image_moves: Vec::new(),
        }
    }
}

impl Syncer {
    /// The app's state from a comparison (hooks are not part of it).
    pub async fn observe(&self, app: &Tracker, comparison: &Comparison) -> AppStatus {
        let desired: Vec<&Value> = comparison
            .desired
            .iter()
            .filter(|o| matches!(placement(o), Ok(Some(p)) if !p.hook))
            .collect();
        let live_by_ref: BTreeMap<ResourceRef, &Value> = comparison
            .live
            .iter()
            .filter_map(|o| ResourceRef::of(o).ok().map(|r| (r, o)))
            .collect();

        let mut entries: Vec<(ResourceRef, SyncCode, Option<&Value>, bool)> = Vec::new();
        for object in &desired {
            let Ok(reference) = ResourceRef::of(object) else {
                continue;
            };
            let live = live_by_ref.get(&reference).copied();
            let sync = match (live, comparison.diffs.get(&reference)) {
                (None, _) => SyncCode::OutOfSync,
                (Some(_), Some(diff)) if diff.is_synced() => SyncCode::Synced,
                (Some(_), Some(_)) => SyncCode::OutOfSync,
                (Some(_), None) => SyncCode::Unknown,
            };
            entries.push((reference, sync, live, false));
        }
        let desired_refs: Vec<ResourceRef> = entries.iter().map(|e| e.0.clone()).collect();
        for (reference, object) in &live_by_ref {
            let is_hook = !matches!(placement(object), Ok(Some(p)) if !p.hook);
            if desired_refs.contains(reference)
                || is_hook
                || ownership(object, app) != Ownership::Owned
            {
                continue;
            }
            entries.push((reference.clone(), SyncCode::OutOfSync, Some(object), true));
        }

        let live_objects: Vec<Value> = entries
            .iter()
            .filter_map(|(_, _, live, _)| live.map(|o| (*o).clone()))
            .collect();
        // Children first, so that a check reading them sees them on the first pass.
        self.ensure_child_kinds().await;
        let mut verdicts = self.verdicts(live_objects).await.into_iter();
        let mut resources = Vec::new();
        let mut healths = Vec::new();
        for (reference, sync, live, requires_pruning) in entries {
            let mut health = match live {
                None => absent(app, comparison.others.get(&reference)),
                Some(_) => verdicts.next().unwrap_or_else(|| {
                    Health::new(Status::Unknown, "the health assessment returned no verdict")
                }),
            };
            // A workload whose pods cannot run is degraded now, naming the pod's reason, rather than progressing
            // until its progress deadline.
            if matches!(health.status, Status::Progressing | Status::Degraded)
                && let Some(uid) = live.and_then(uid)
                && let Some((pod, failure)) = self.failing_pod(&uid).await
            {
                health = Health::new(
                    Status::Degraded,
                    if health.message.is_empty() {
                        format!("pod {pod}: {}", failure.message)
                    } else {
                        format!("{}; pod {pod}: {}", health.message, failure.message)
                    },
                );
            }
            resources.push(ResourceStatus {
                reference: reference.clone(),
                sync,
                health: health.status.into(),
                health_message: (!health.message.is_empty()).then(|| health.message.clone()),
                requires_pruning,
            });
            healths.push((reference, health));
        }
        let live_workloads: Vec<Value> = desired
            .iter()
            .filter_map(|o| ResourceRef::of(o).ok())
            .filter_map(|r| live_by_ref.get(&r).map(|o| (*o).clone()))
            .collect();
        let desired_owned: Vec<Value> = desired.iter().map(|o| (*o).clone()).collect();
        AppStatus {
            sync: app_sync(resources.iter().map(|r| r.sync)),
            health: app_health(healths.iter().map(|(r, h)| (r, h))),
            declared_version: declared_version(&desired_owned),
            running_version: running_version(&live_workloads),
            resources,
            image_moves: Vec::new(),
        }
    }

    /// Watches the kinds children are found among: the tree's, and every kind a health plugin reads as children
    /// (`child-kinds`), so that a check sees an operator-made child in the server as it does in `weft health`.
    async fn ensure_child_kinds(&self) {
        let declared = self.health().registry().child_kinds();
        let all = TREE_CHILD_KINDS
            .iter()
            .map(|(g, k)| (g.to_string(), k.to_string()))
            .chain(declared);
        for (group, kind) in all {
            // A cluster that does not serve a kind has no such children; one that refuses the watch shows less.
            if let Err(error) = self.live().ensure(&group, &kind).await {
                tracing::debug!("cannot watch {group}/{kind} for children: {error}");
            }
        }
    }

    /// The first degraded pod among an object's descendants (by namespace/name), with its verdict.
    async fn failing_pod(&self, owner: &str) -> Option<(String, Health)> {
        let mut pods = Vec::new();
        let mut frontier = vec![owner.to_string()];
        let mut seen: std::collections::BTreeSet<String> = frontier.iter().cloned().collect();
        while let Some(next) = frontier.pop() {
            for child in self.live().children_of(&next) {
                let Some(child_uid) = uid(&child) else {
                    continue;
                };
                if !seen.insert(child_uid.clone()) {
                    continue;
                }
                if child.get("kind").and_then(Value::as_str) == Some("Pod") {
                    pods.push(child);
                } else {
                    frontier.push(child_uid);
                }
            }
        }
        pods.sort_by_key(|p| ResourceRef::of(p).ok());
        let verdicts = self.assess(pods.clone()).await;
        pods.iter().zip(verdicts).find_map(|(pod, health)| {
            let health = health?;
            (health.status == Status::Degraded).then(|| {
                let reference = ResourceRef::of(pod).ok()?;
                Some((
                    format!("{}/{}", reference.namespace, reference.name),
                    health,
                ))
            })?
        })
    }

    /// The app's resource tree: its live objects (no Secrets) and their descendants by ownerReference, with the
    /// health and sync of `status` for the app's own objects and a fresh health verdict for the others.
    pub async fn tree(&self, status: &AppStatus, comparison: &Comparison) -> Vec<Node> {
        let roots: Vec<Value> = status
            .resources
            .iter()
            .filter(|r| !r.reference.is_secret())
            .filter_map(|r| comparison.live_object(&r.reference).cloned())
            .collect();
        self.ensure_child_kinds().await;
        // Descendants, over ownerReference UIDs.
        let mut candidates: Vec<Value> = Vec::new();
        let mut frontier: Vec<String> = roots.iter().filter_map(uid).collect();
        let mut seen: std::collections::BTreeSet<String> = frontier.iter().cloned().collect();
        while let Some(owner) = frontier.pop() {
            for child in self.live().children_of(&owner) {
                if let Some(child_uid) = uid(&child)
                    && seen.insert(child_uid.clone())
                {
                    frontier.push(child_uid);
                    candidates.push(child);
                }
            }
        }
        candidates.retain(|o| !ResourceRef::of(o).is_ok_and(|r| r.is_secret()));
        let verdicts: BTreeMap<String, Health> = {
            let healths = self.verdicts(candidates.clone()).await;
            candidates
                .iter()
                .zip(healths)
                .filter_map(|(object, health)| Some((uid(object)?, health)))
                .collect()
        };
        let own: BTreeMap<ResourceRef, &ResourceStatus> = status
            .resources
            .iter()
            .map(|r| (r.reference.clone(), r))
            .collect();
        build_tree(&roots, &candidates, |object| {
            let reference = ResourceRef::of(object).ok();
            if let Some(resource) = reference.as_ref().and_then(|r| own.get(r)) {
                return NodeStatus {
                    health: resource.health,
                    health_message: resource.health_message.clone(),
                    sync: Some(resource.sync),
                };
            }
            match uid(object).and_then(|u| verdicts.get(&u)) {
                Some(health) => NodeStatus::new(health, None),
                None => NodeStatus::new(
                    &Health::new(Status::Unknown, "no health verdict for this object"),
                    None,
                ),
            }
        })
    }
}

/// The health of a desired object the app has no live copy of: missing, unless another app holds it (degraded:
/// the app cannot have it, and it is not missing) or released it (missing until a sync takes it over). The holder is
/// named as the app's audience may read it.
fn absent(app: &Tracker, other: Option<&Claim>) -> Health {
    match other {
        Some(Claim::Held { holder }) => Health::new(
            Status::Degraded,
            format!(
                "held by {}: another app applied it, and this app applies it only once that app releases it",
                holder_name(holder, &app.identity)
            ),
        ),
        Some(Claim::Released { from }) => Health::new(
            Status::Missing,
            format!(
                "released by {}: the next sync takes it over",
                holder_name(from, &app.identity)
            ),
        ),
        Some(Claim::Free) | None => Health::new(Status::Missing, "not in the cluster"),
    }
}

fn uid(object: &Value) -> Option<String> {
    object
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .map(str::to_string)
}
