//! Before the plan boundary: turn rendered objects into the desired set (namespaced, stamped), gather the app's
//! live set from the watch cache, and diff each object. Reads the cluster (discovery, server-side dry-run apply),
//! never changes it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Value;

use k8s_openapi::api::core::v1::Secret;
use kube::Api;

use super::dry_runs::{DryRunInputs, InSyncDryRuns};
use weft_cluster::{Applier, ApplyError, ApplyOptions, ClusterError, KindCatalog, LiveCache};
use weft_core::metrics::metrics;
use weft_core::resource::{RefError, ResourceRef, resource_version};
use weft_core::tracking::{AppIdentity, Ownership, Tracker, ownership, stamp};
use weft_sync::diff::{DiffMode, ObjectDiff, diff_predicted, diff_subset};
use weft_sync::fingerprint::{secrets_to_look_up, stamp_fingerprints};
use weft_sync::normalize::IgnoreRule;
use weft_sync::order::placement;
use weft_sync::recreate::refuses_in_place;
use weft_sync::shared::{Claim, claim};

/// Why the desired set or the live set could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A rendered object cannot be named.
    #[error("rendered object #{index}: {source}")]
    Unnamed {
        /// Its position in the render.
        index: usize,
        /// What is missing.
        source: RefError,
    },
    /// The cluster does not serve a rendered object's kind (and the render does not define it as a CRD).
    #[error("{reference}: {source}")]
    Kind {
        /// The object.
        reference: ResourceRef,
        /// Discovery's answer.
        source: ClusterError,
    },
    /// The cluster could not be watched.
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// A rendered object is outside the namespaces Weft may manage on the cluster (nothing is applied).
    #[error("{0}; nothing of this render is applied")]
    OutOfScope(weft_cluster::OutOfScope),
}

/// The desired set, the live set, and how each desired object differs from its live counterpart.
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    /// Desired objects: namespaced and stamped with the app's tracking label and annotation.
    pub desired: Vec<Value>,
    /// Every live object tracked for this app (its own and copies of them), in the kinds looked at.
    pub live: Vec<Value>,
    /// Per desired object that exists live: its diff (hooks are not compared).
    pub diffs: BTreeMap<ResourceRef, ObjectDiff>,
    /// The kinds looked at, `(group, kind)`.
    pub kinds: BTreeSet<(String, String)>,
    /// Desired objects a server-side dry run says the API will not update in place (an immutable field changed),
    /// with the API's message.
    pub refused: BTreeMap<ResourceRef, String>,
    /// Desired objects that exist live tracked for another app (another org's, another incarnation of this name,
    /// another app of the org, an orphan): held (never applied over; an admin may hand orphans to this app) or
    /// released by that app (taken over).
    pub others: BTreeMap<ResourceRef, Claim>,
    /// The `metadata.managedFields` of the live objects that differ, read from the server (the live cache drops
    /// them): who changed each differing field, and what an app that respects its ignore rules leaves out.
    pub managed_fields: BTreeMap<ResourceRef, Value>,
}

impl Comparison {
    /// The live object with that reference.
    pub fn live_object(&self, reference: &ResourceRef) -> Option<&Value> {
        self.live
            .iter()
            .find(|o| ResourceRef::of(o).ok().as_ref() == Some(reference))
    }

    /// The live object with that reference, with its `metadata.managedFields` when it differs (read for the
    /// comparison), else as the cache holds it (without them).
    pub fn live_with_managed_fields(&self, reference: &ResourceRef) -> Option<Value> {
        let mut live = self.live_object(reference)?.clone();
        if let (Some(entries), Some(metadata)) = (
            self.managed_fields.get(reference),
            live.get_mut("metadata").and_then(Value::as_object_mut),
        ) {
            metadata.insert("managedFields".into(), entries.clone());
        }
        Some(live)
    }

    /// The desired object with that reference.
    pub fn desired_object(&self, reference: &ResourceRef) -> Option<&Value> {
        self.desired
            .iter()
            .find(|o| ResourceRef::of(o).ok().as_ref() == Some(reference))
    }
}

/// Reads what a comparison needs from the cluster.
#[derive(Clone)]
pub struct Comparer {
    client: kube::Client,
    catalog: Arc<KindCatalog>,
    live: Arc<LiveCache>,
    applier: Applier,
    /// Dry runs that found objects in sync, so an unchanged object is not dry-run again.
    in_sync: Arc<InSyncDryRuns>,
}

impl std::fmt::Debug for Comparer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Comparer").finish_non_exhaustive()
    }
}

impl Comparer {
    /// A comparer over one cluster.
    pub fn new(
        client: kube::Client,
        catalog: Arc<KindCatalog>,
        live: Arc<LiveCache>,
        applier: Applier,
    ) -> Self {
        Comparer {
            client,
            catalog,
            live,
            applier,
            in_sync: Arc::new(InSyncDryRuns::default()),
        }
    }

    /// Makes rendered objects desired: namespaced kinds without a namespace go to `namespace`; every object is
    /// stamped for the app `app` identifies. Kinds defined by a CustomResourceDefinition in the same render are taken at the scope
    /// the CRD declares (the cluster cannot know them yet).
    pub async fn desired(
        &self,
        app: &AppIdentity,
        namespace: &str,
        rendered: &[Value],
    ) -> Result<Vec<Value>, CompareError> {
        let defined = defined_kinds(rendered);
        let mut desired = Vec::with_capacity(rendered.len());
        for (index, object) in rendered.iter().enumerate() {
            let mut object = object.clone();
            let reference = ResourceRef::of(&object)
                .map_err(|source| CompareError::Unnamed { index, source })?;
            let namespaced = match self
                .catalog
                .resolve(&reference.group, &reference.kind)
                .await
            {
                Ok(info) => info.namespaced,
                Err(source) => {
                    match defined.get(&(reference.group.clone(), reference.kind.clone())) {
                        Some(namespaced) => *namespaced,
                        None => {
                            return Err(CompareError::Kind {
                                reference: reference.clone(),
                                source,
                            });
                        }
                    }
                }
            };
            if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                if namespaced {
                    if reference.namespace.is_empty() {
                        metadata.insert("namespace".into(), Value::String(namespace.to_string()));
                    }
                } else {
                    metadata.remove("namespace");
                }
            }
            let reference = ResourceRef::of(&object)
                .map_err(|source| CompareError::Unnamed { index, source })?;
            self.live
                .scope()
                .check(&reference)
                .map_err(CompareError::OutOfScope)?;
            stamp(&mut object, app, &reference);
            desired.push(object);
        }
        let versions = self.secret_versions(&desired).await?;
        stamp_fingerprints(&mut desired, &versions);
        Ok(desired)
    }

    /// The `resourceVersion` of every Secret the desired workloads read, from its metadata only (the values are
    /// never fetched); `None` for a Secret that does not exist.
    async fn secret_versions(
        &self,
        desired: &[Value],
    ) -> Result<BTreeMap<(String, String), Option<String>>, CompareError> {
        let mut versions = BTreeMap::new();
        for (namespace, name) in secrets_to_look_up(desired) {
            let secrets: Api<Secret> = Api::namespaced(self.client.clone(), &namespace);
            let version = match secrets.get_metadata_opt(&name).await {
                Ok(found) => found.and_then(|meta| meta.metadata.resource_version),
                Err(source) => {
                    return Err(CompareError::Cluster(ClusterError::Request {
                        context: format!("reading the version of Secret {namespace}/{name}"),
                        source,
                    }));
                }
            };
            versions.insert((namespace, name), version);
        }
        Ok(versions)
    }

    /// Compares the desired set with the live set. `also` names kinds to look in beyond the desired ones (the
    /// kinds the app had before, where objects to prune may be). An object a dry run found in sync is not dry-run
    /// again while nothing that finding rests on has changed.
    pub async fn compare(
        &self,
        app: &Tracker,
        desired: Vec<Value>,
        also: &BTreeSet<(String, String)>,
        ignore: &[IgnoreRule],
    ) -> Result<Comparison, CompareError> {
        self.compare_with(app, desired, also, ignore, Memory::Use)
            .await
    }

    /// [`Comparer::compare`], dry-running every object whatever earlier dry runs found (a refresh asked for, the
    /// periodic full comparison).
    pub async fn compare_fresh(
        &self,
        app: &Tracker,
        desired: Vec<Value>,
        also: &BTreeSet<(String, String)>,
        ignore: &[IgnoreRule],
    ) -> Result<Comparison, CompareError> {
        self.compare_with(app, desired, also, ignore, Memory::Bypass)
            .await
    }

    async fn compare_with(
        &self,
        app: &Tracker,
        desired: Vec<Value>,
        also: &BTreeSet<(String, String)>,
        ignore: &[IgnoreRule],
        memory: Memory,
    ) -> Result<Comparison, CompareError> {
        let looked_at = self.watch_kinds(&desired, also).await?;
        // The objects that carry the app's name and were applied for this very app (its org, its incarnation):
        // another app's leftovers under the same name are not listed, read, adopted or pruned through this one.
        let live: Vec<Value> = self
            .live
            .objects_of_app(app.name())
            .into_iter()
            .filter(|object| ownership(object, app) != Ownership::Foreign)
            .collect();
        let live_by_ref: BTreeMap<ResourceRef, &Value> = live
            .iter()
            .filter_map(|o| ResourceRef::of(o).ok().map(|r| (r, o)))
            .collect();
        let pass = Pass {
            app,
            ignore,
            memory,
            // A cluster that cannot say whether it dry-runs is compared the cautious way.
            dry_run: self.applier.supports_dry_run().await.unwrap_or(false),
            now: std::time::Instant::now(),
        };
        let mut diffs = BTreeMap::new();
        let mut learned = Learned::default();
        let mut others = BTreeMap::new();
        for object in &desired {
            let Ok(reference) = ResourceRef::of(object) else {
                continue;
            };
            let Some(live_object) = live_by_ref.get(&reference) else {
                // Not the app's: an object of that name that another app tracks (another org's, an earlier
                // incarnation's, another app's of the org) is never taken over by applying over it, nor re-created
                // as a hook, until that app releases it.
                if let Some(claim) = self.tracked_by_another(app, &reference) {
                    others.insert(reference.clone(), claim);
                }
                continue;
            };
            let is_hook = !matches!(placement(object), Ok(Some(p)) if !p.hook);
            if is_hook {
                continue;
            }
            let diff = self
                .diff_object(&pass, &reference, object, live_object, &mut learned)
                .await;
            diffs.insert(reference, diff);
        }
        Ok(Comparison {
            desired,
            live,
            diffs,
            kinds: looked_at,
            refused: learned.refused,
            others,
            managed_fields: learned.managed_fields,
        })
    }

    /// Watches every kind the render and `also` name, and returns those the live cache now holds. A kind the
    /// cluster no longer serves (or that is out of scope) holds nothing to prune; one a CRD of this very render
    /// defines is not served until the sync creates it; any other kind that cannot be watched is an error.
    async fn watch_kinds(
        &self,
        desired: &[Value],
        also: &BTreeSet<(String, String)>,
    ) -> Result<BTreeSet<(String, String)>, CompareError> {
        let mut kinds: BTreeSet<(String, String)> = also.clone();
        for object in desired {
            if let Ok(reference) = ResourceRef::of(object) {
                kinds.insert((reference.group, reference.kind));
            }
        }
        let mut looked_at = BTreeSet::new();
        for (group, kind) in &kinds {
            match self.live.ensure(group, kind).await {
                Ok(()) => {
                    looked_at.insert((group.clone(), kind.clone()));
                }
                // A kind the app had that the cluster no longer serves, or that is out of scope, has nothing to prune.
                Err(error) if error.kind_holds_nothing() => {}
                Err(error) => {
                    // A kind defined by a CRD in this very render is not served until the sync creates it.
                    let defined = defined_kinds(desired);
                    if !defined.contains_key(&(group.clone(), kind.clone())) {
                        return Err(error.into());
                    }
                }
            }
        }
        Ok(looked_at)
    }

    /// The diff of one desired object with its live one: predicted by a server-side dry run where the cluster
    /// dry-runs (or taken from an earlier dry run that found the same inputs in sync), else the desired fields
    /// compared with the live ones; with the live object's field owners when the diff needs them. What the server
    /// refuses to change in place and the owners read go into `learned`.
    async fn diff_object(
        &self,
        pass: &Pass<'_>,
        reference: &ResourceRef,
        object: &Value,
        live_object: &Value,
        learned: &mut Learned,
    ) -> ObjectDiff {
        let (app, ignore, now) = (pass.app, pass.ignore, pass.now);
        let inputs = DryRunInputs::new(app.name(), reference, object, live_object, ignore);
        let remembered = pass.memory == Memory::Use && self.in_sync.in_sync(&inputs, now);
        let diff = if pass.dry_run && remembered {
            // The same desired object against the same live version, compared under the same rules, when a
            // dry run last found it in sync: the server would predict the same.
            metrics().dry_runs_skipped.inc();
            ObjectDiff {
                reference: reference.clone(),
                mode: DiffMode::Predicted,
                changes: Vec::new(),
                unified: String::new(),
            }
        } else if pass.dry_run {
            match self
                .predict_consistently(reference, object, live_object)
                .await
            {
                Ok((predicted, live_now)) => {
                    let mut diff = diff_predicted(reference, &predicted, &live_now, ignore);
                    if let Some((owned, entries)) =
                        self.with_managed_fields(reference, &live_now, &diff).await
                    {
                        diff = diff_predicted(reference, &predicted, &owned, ignore);
                        learned.managed_fields.insert(reference.clone(), entries);
                    }
                    let inputs =
                        DryRunInputs::new(app.name(), reference, object, &live_now, ignore);
                    self.in_sync.record(inputs, diff.is_synced(), now);
                    diff
                }
                Err(error) => {
                    if let ApplyError::Api { code, message, .. } = &error
                        && refuses_in_place(*code, message)
                    {
                        learned.refused.insert(reference.clone(), message.clone());
                    }
                    diff_subset(reference, object, live_object, ignore)
                }
            }
        } else {
            diff_subset(reference, object, live_object, ignore)
        };
        match diff.mode {
            DiffMode::Subset => {
                match self
                    .with_managed_fields(reference, live_object, &diff)
                    .await
                {
                    Some((owned, entries)) => {
                        learned.managed_fields.insert(reference.clone(), entries);
                        diff_subset(reference, object, &owned, ignore)
                    }
                    None => diff,
                }
            }
            DiffMode::Predicted => diff,
        }
    }

    /// `live` with its `metadata.managedFields` read from the server, and those entries, when `diff` finds a
    /// difference (to name who made it, and for the app's rules on the fields other managers own); `None` when
    /// nothing differs or they cannot be read (the diff then names nobody).
    async fn with_managed_fields(
        &self,
        reference: &ResourceRef,
        live: &Value,
        diff: &ObjectDiff,
    ) -> Option<(Value, Value)> {
        if diff.is_synced() {
            return None;
        }
        let entries = match self.live.managed_fields(reference).await {
            Ok(entries) => entries?,
            Err(error) => {
                tracing::debug!(%reference, %error, "the managed fields of a differing object could not be read");
                return None;
            }
        };
        let mut owned = live.clone();
        owned
            .get_mut("metadata")?
            .as_object_mut()?
            .insert("managedFields".into(), entries.clone());
        Some((owned, entries))
    }

    /// Whether another app holds or released the live object `reference` names, when it is tracked for an app
    /// other than `app` (another identity, or a legacy mark `app` does not own); `None` when it is not live or is
    /// free for `app` to apply.
    fn tracked_by_another(&self, app: &Tracker, reference: &ResourceRef) -> Option<Claim> {
        let live = self.live.get(reference)?;
        match claim(&live, app) {
            Claim::Free => None,
            other => Some(other),
        }
    }
}

impl Comparer {
    /// A forced server-side dry run of `object` and a live copy of the **same** resourceVersion (the cache's, or
    /// the server's when the cache is behind), the two to be compared. Forced: the prediction is what the object would be if Weft's fields were Weft's again,
    /// so another manager's change to them shows as drift instead of hiding behind a conflict. The same version:
    /// the server predicts from its newest copy, and the watch cache may lag it (seconds, on a busy control
    /// plane); compared with an older cached copy, a prediction shows another manager's latest change (a
    /// controller's annotation on a Deployment being rolled out) as drift, and self-heal would sync for nothing
    /// (the fleet benchmark saw 5 to 47 such syncs among 10,000 new apps). So when the cache is behind the
    /// prediction, the server's copy is read instead (waiting for the watch held reconcile slots: 3,000 new apps
    /// took twice as long), and a prediction behind the copy is made again; after a few rounds (a copy that keeps
    /// moving) the last pair is compared.
    async fn predict_consistently(
        &self,
        reference: &ResourceRef,
        object: &Value,
        live_object: &Value,
    ) -> Result<(Value, Value), ApplyError> {
        let options = ApplyOptions {
            force: true,
            dry_run: true,
            default_namespace: None,
        };
        metrics().dry_runs.inc();
        let mut predicted = self.applier.apply(object, &options).await?;
        let mut live = live_object.clone();
        for _ in 0..PREDICTION_ROUNDS {
            match (resource_version(&predicted), resource_version(&live)) {
                (Some(server), Some(cached)) if server > cached => {
                    // The cache is behind: read the server's copy rather than hold a reconcile slot waiting for
                    // the watch (which, under load, is what is slow).
                    metrics().reads_through.inc();
                    match self.live.read_through(reference).await {
                        Ok(Some(copy)) => live = copy,
                        // Gone meanwhile, or unreadable: compare what there is.
                        _ => break,
                    }
                }
                (Some(server), Some(cached)) if server < cached => {
                    metrics().dry_runs.inc();
                    predicted = self.applier.apply(object, &options).await?;
                }
                // The same version, or versions that are not numbers: nothing to order.
                _ => break,
            }
        }
        Ok((predicted, live))
    }
}

/// How many times a prediction and the cached copy are brought to the same resourceVersion before the last pair
/// is compared anyway.
const PREDICTION_ROUNDS: usize = 3;

/// How one comparison compares each object.
struct Pass<'a> {
    /// The app compared.
    app: &'a Tracker,
    /// Differences to ignore.
    ignore: &'a [IgnoreRule],
    /// Whether an earlier dry run's in-sync finding may be taken.
    memory: Memory,
    /// Whether the cluster predicts objects with server-side dry runs.
    dry_run: bool,
    /// When the comparison started (dry runs remembered are judged against it).
    now: std::time::Instant,
}

/// What a comparison learns about objects beside their diffs.
#[derive(Default)]
struct Learned {
    /// Objects the server refuses to change in place, with its message.
    refused: BTreeMap<ResourceRef, String>,
    /// The `managedFields` read for objects whose diffs name their owners.
    managed_fields: BTreeMap<ResourceRef, Value>,
}

/// Whether a comparison may take an earlier dry run's in-sync finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Memory {
    /// Yes, while nothing it rests on has changed.
    Use,
    /// No: every object is dry-run.
    Bypass,
}

/// Kinds that CustomResourceDefinitions among `objects` define, with whether they are namespaced.
fn defined_kinds(objects: &[Value]) -> BTreeMap<(String, String), bool> {
    objects
        .iter()
        .filter(|o| {
            o.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
                && o.get("apiVersion")
                    .and_then(Value::as_str)
                    .is_some_and(|v| v.starts_with("apiextensions.k8s.io/"))
        })
        .filter_map(|crd| {
            let group = crd.pointer("/spec/group")?.as_str()?.to_string();
            let kind = crd.pointer("/spec/names/kind")?.as_str()?.to_string();
            let namespaced = crd.pointer("/spec/scope").and_then(Value::as_str) != Some("Cluster");
            Some(((group, kind), namespaced))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn crds_in_the_render_define_their_kinds_scope() {
        let objects = vec![
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                   "metadata": {"name": "widgets.example.com"},
                   "spec": {"group": "example.com", "scope": "Namespaced", "names": {"kind": "Widget"}}}),
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                   "metadata": {"name": "planets.example.com"},
                   "spec": {"group": "example.com", "scope": "Cluster", "names": {"kind": "Planet"}}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}),
        ];
        let defined = defined_kinds(&objects);
        assert_eq!(defined.len(), 2);
        assert!(defined[&("example.com".into(), "Widget".into())]);
        assert!(!defined[&("example.com".into(), "Planet".into())]);
    }
}
