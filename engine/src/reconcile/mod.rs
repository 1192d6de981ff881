//! The reconciler loop: every app on an interval (with jitter) and soon after a watch event on one of its objects,
//! refresh its source (ref -> commit), compare its render with the cluster, and publish its status; automated apps
//! out of sync get a sync queued, self-heal reverts drift with backoff, and an app whose syncs keep failing backs
//! off and says so.

mod due;
mod requests;
pub mod retry;
mod round;
mod schedule;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};
use jiff::Timestamp;

use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;
use weft_cluster::LiveEvent;
use weft_store::Store;

use crate::deploy::Clusters;
use crate::directory::AppDirectory;
use crate::queue::Queue;
use weft_app::AppSpec;
use weft_apply::observe::AppStatus;
use weft_apply::operation::{Operation, OperationPhase};
use weft_core::metrics::metrics;
use weft_sync::status::SyncCode;

pub use due::DueQueue;
pub use requests::ReconcileRequests;
use retry::RetryCount;
use schedule::Schedule;
use weft_apply::views::{AppView, AppViews};

/// Backoff of one app's self-heal: 5 s, doubling, capped.
#[derive(Debug, Clone, Default)]
struct Backoff {
    failures: u32,
    until: Option<Instant>,
}

/// The first delay of self-heal (failed syncs wait as the app's retry policy says).
pub const BACKOFF_START: Duration = Duration::from_secs(5);
/// The longest delay.
pub const BACKOFF_CAP: Duration = Duration::from_secs(300);

/// The delay after `failures` consecutive heals: 5 s doubling, capped at 5 minutes.
pub fn backoff_delay(failures: u32) -> Duration {
    ExponentialBuilder::new()
        .with_min_delay(BACKOFF_START)
        .with_max_delay(BACKOFF_CAP)
        .with_factor(2.0)
        .without_max_times()
        .build()
        .nth(failures.saturating_sub(1) as usize)
        .unwrap_or(BACKOFF_CAP)
}

/// Spreads an interval by up to ±10%, from a number that differs per app and per round.
pub fn jittered(interval: Duration, seed: u64) -> Duration {
    let spread = interval.as_millis() as u64 / 10;
    if spread == 0 {
        return interval;
    }
    // A generator seeded by the app and round: the same inputs give the same spread (tests replay it).
    let offset = fastrand::Rng::with_seed(seed).u64(0..=2 * spread);
    Duration::from_millis(interval.as_millis() as u64 - spread + offset)
}

/// What automation should do about an app, decided from its status and history. Pure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AutomationDecision {
    /// Nothing: in sync, not automated, or an operation is in flight.
    Nothing,
    /// A new commit or changed parameters: sync.
    Sync,
    /// Drift on the synced revision with self-heal on: sync with force.
    Heal,
    /// Out of sync, but waiting after failures.
    Wait,
}

/// Decides automation for one app.
pub fn decide(
    app: &AppSpec,
    suspended: bool,
    sync: SyncCode,
    revision_changed: bool,
    in_flight: bool,
    backing_off: bool,
) -> AutomationDecision {
    if !app.sync.automated || suspended || in_flight || sync != SyncCode::OutOfSync {
        return AutomationDecision::Nothing;
    }
    if backing_off {
        return AutomationDecision::Wait;
    }
    if revision_changed {
        AutomationDecision::Sync
    } else if app.sync.self_heal {
        AutomationDecision::Heal
    } else {
        AutomationDecision::Nothing
    }
}

/// Why automation leaves an out-of-sync app alone: every object out of sync is one a sync would delete, and no
/// automated sync will. Either the last sync of this very revision refused an empty render (whatever else
/// changed: an empty render never deletes anything, so syncing it again would only fail again), or nothing but the
/// render changed since the last sync (`revision_changed` false) and the app does not prune, or its last sync of
/// this revision succeeded and kept them (behind the prune fuse, or as never-prune kinds), so the same sync would
/// keep them again and only a confirmed one may go further. `None` when a sync could change something. Without
/// this, self-heal would sync the same revision again and again, keeping the same objects and adding an operation
/// (and, for a sync that succeeds, a history entry) each time.
pub fn prunes_held(
    app: &AppSpec,
    status: &AppStatus,
    last: Option<&Operation>,
    revision: &str,
    revision_changed: bool,
) -> Option<String> {
    let out: Vec<&weft_apply::observe::ResourceStatus> = status
        .resources
        .iter()
        .filter(|r| r.sync == SyncCode::OutOfSync)
        .collect();
    if out.is_empty() || !out.iter().all(|r| r.requires_pruning) {
        return None;
    }
    let of_this_revision = last.filter(|op| op.revision.as_deref() == Some(revision));
    if of_this_revision.is_some_and(|op| {
        op.phase == OperationPhase::Error
            && op.fuse_tripped.as_deref() == Some(weft_apply::syncer::EMPTY_RENDER)
    }) {
        return Some(format!(
            "the render of {revision} is empty, and {EMPTY}: {} live object(s) kept; waiting for a new revision",
            out.len(),
            EMPTY = weft_apply::syncer::EMPTY_RENDER,
        ));
    }
    if revision_changed {
        return None;
    }
    if !app.sync.prune {
        return Some(format!(
            "out of sync only by {} object(s) no longer rendered; the app does not prune, so a sync would change \
             nothing (sync with prune to delete them)",
            out.len()
        ));
    }
    let kept = of_this_revision.filter(|op| {
        op.phase == OperationPhase::Succeeded
            && out.iter().all(|object| {
                op.resources.iter().any(|result| {
                    result.status == weft_apply::operation::ResultStatus::Kept
                        && result.reference == object.reference
                })
            })
    })?;
    Some(format!(
        "out of sync only by {} object(s) the last sync of this revision kept from pruning{}; waiting for a \
         confirmed sync or a new revision",
        out.len(),
        kept.fuse_tripped
            .as_deref()
            .map(|why| format!(" ({why})"))
            .unwrap_or_default()
    ))
}

/// Whether the app asks for something its last sync did not apply: a new commit, changed parameters, a changed
/// environment (a rotated Secret), or a rotated render seed (`seed`, the fingerprint of the seed it renders with
/// now; a sync recorded without one is taken as rendered with it).
fn revision_changed_of(
    state: &crate::deploy::AppState,
    revision: &str,
    app: &AppSpec,
    environment: &Option<String>,
    seed: &Option<String>,
) -> bool {
    state.synced_revision.as_deref() != Some(revision)
        || state.synced_digest.as_deref() != Some(app.render_digest().as_str())
        || &state.synced_environment != environment
        || (state.synced_seed.is_some() && &state.synced_seed != seed)
}

/// Reconciles every app.
#[derive(Debug, Clone)]
pub struct Reconciler {
    /// The store.
    pub store: Store,
    /// Queues syncs.
    pub queue: Queue,
    /// Renders and compares, for each cluster.
    pub clusters: Clusters,
    /// The apps.
    pub apps: AppDirectory,
    /// Published views.
    pub views: AppViews,
    /// How often each app is reconciled.
    pub interval: Duration,
    /// How many apps are reconciled at once.
    pub parallelism: usize,
    /// How often an unchanged app is compared in full all the same.
    pub full_compare: Duration,
    /// Apps asked (through the API) to be reconciled now.
    pub requests: ReconcileRequests,
    /// The replicas sharing the store, when this one shares the apps with others: it reconciles only those it
    /// owns.
    pub membership: watch::Receiver<crate::replicas::Membership>,
}

/// What a comparison was made from: while none of it changes and no watch event touched the app's objects (or
/// the Secrets its workloads read), comparing again would find what the last comparison found.
#[derive(Debug, Clone, PartialEq)]
struct Inputs {
    /// The commit the app's ref resolved to.
    revision: String,
    /// The app's spec as it renders (parameters, values, sources).
    render_digest: String,
    /// The app's stored state as the decision reads it.
    synced_revision: Option<String>,
    synced_digest: Option<String>,
    synced_environment: Option<String>,
    /// The fingerprint of the seed the app renders with now, and of the one its last sync rendered with.
    seed: Option<String>,
    synced_seed: Option<String>,
    automation_suspended: bool,
    pinned_version: Option<String>,
    /// The latest operation and its phase.
    operation: Option<(String, OperationPhase)>,
}

impl Inputs {
    /// Whether these are `other` but for the latest operation (which a comparison does not read: only the
    /// automation decision after it does).
    fn same_but_operation(&self, other: &Inputs) -> bool {
        Inputs {
            operation: None,
            ..self.clone()
        } == Inputs {
            operation: None,
            ..other.clone()
        }
    }
}

/// The reconciler's memory of one app between visits (handed to the task that reconciles it, and back).
#[derive(Debug, Clone, Default)]
struct Tracked {
    /// Self-heals in a row: a fight with another controller must not become a tight loop.
    heal: Backoff,
    /// Failed automated syncs in a row, for the app's retry policy.
    retries: RetryCount,
    /// The automated syncs this reconciler queued and what each was asked to apply (an operation id and its ask):
    /// a failure counts against the ask it tried.
    queued: Option<(String, String)>,
    /// When automation's wait ends, so the app is looked at then rather than at its next interval.
    wake_at: Option<Instant>,
    /// Nothing the app's last comparison rests on has changed since (no watch event, no spec change).
    clean: bool,
    /// What the last full comparison was made from, and when.
    compared: Option<(Inputs, Instant)>,
    /// The Secrets (namespace, name) its desired workloads read: a change to one dirties the app.
    secrets: BTreeSet<(String, String)>,
    /// A request to reconcile it now, with the time its source must have been fetched since.
    requested: Option<std::time::Instant>,
}

/// How old a repository's last fetch may be for the reconciler to resolve a ref from it: a quarter of the
/// interval, at most 15 s. Every app of a repository then shares one fetch per poll (10,000 apps of one
/// repository: one `git fetch`, not 10,000), and a new commit is seen at most that much later than on a fetch of
/// its own. A sync or a refresh through the API always fetches.
pub fn poll_freshness(interval: Duration) -> Duration {
    (interval / 4).min(Duration::from_secs(15))
}

/// A wait of about a second after a watch event: changes come in bursts (a rollout's status updates).
const DEBOUNCE: Duration = Duration::from_secs(1);

/// After a status-only watch event (a controller reporting a rollout's progress), an app compared less than this
/// long ago waits until this long after that comparison: one rollout's updates come spread over seconds, and each
/// comparison would find the same sync with fresher health. A change of what an object declares (drift, for
/// self-heal) waits only [`DEBOUNCE`].
const STATUS_DEBOUNCE: Duration = Duration::from_secs(5);

/// When an app touched by a watch event is compared: about a second after the event (`soon`), or for a
/// status-only event no sooner than [`STATUS_DEBOUNCE`] after its last comparison.
fn due_after_event(status_only: bool, soon: Instant, compared_at: Option<Instant>) -> Instant {
    match compared_at {
        Some(at) if status_only => soon.max(at + STATUS_DEBOUNCE),
        _ => soon,
    }
}

/// The most watch events taken in one turn of the reconciler's loop.
const EVENTS_PER_TURN: usize = 1024;

/// The change feed dropped events this reconciler had not read (it fell too far behind).
#[derive(Debug)]
struct MissedEvents;

impl Reconciler {
    /// Publishes what the reconciler saw of app `name`; its error, shown to the app's tenants, carries no server
    /// path.
    async fn publish(&self, name: &str, mut view: AppView) {
        view.error = view.error.map(|e| weft_core::redact::for_tenants(&e));
        self.views.write().await.insert(name.to_string(), view);
    }

    /// Runs until `shutdown` turns `true`: apps are taken most overdue first, up to `parallelism` at once, so one
    /// slow app (an API server that does not answer its dry runs, a chart that takes long) holds one slot and
    /// the rest of the fleet goes on; watch events bring an app forward and mark it changed. On shutdown the
    /// reconciles in flight are dropped where they stand: they only read and, at most, queue an operation in
    /// one transaction.
    pub async fn run(self, mut shutdown: watch::Receiver<bool>) {
        let this = std::sync::Arc::new(self);
        let parallelism = this.parallelism.max(1);
        let mut events = this.clusters.subscribe();
        let mut membership = this.membership.clone();
        let mut schedule = Schedule::default();
        let mut tasks: JoinSet<(String, Tracked)> = JoinSet::new();
        let mut directory_changed = true;
        loop {
            if *shutdown.borrow() {
                tasks.abort_all();
                return;
            }
            let now = Instant::now();
            if std::mem::take(&mut directory_changed) {
                let apps = this.apps.read().await;
                // With replicas sharing the store, the apps this one owns; the others' views come from them.
                let membership = membership.borrow_and_update().clone();
                let mine: BTreeMap<String, AppSpec> = apps
                    .iter()
                    .filter(|(name, _)| membership.owns(name))
                    .map(|(name, spec)| (name.clone(), spec.clone()))
                    .collect();
                schedule.own(mine, now);
                this.views
                    .write()
                    .await
                    .retain(|name, _| apps.contains_key(name));
            }
            schedule.start_due(&this, &mut tasks, parallelism, now);
            let wake_at = schedule.next_due().unwrap_or(now + this.interval);
            tokio::select! {
                _ = tokio::time::sleep_until(wake_at) => {}
                _ = shutdown.changed() => {}
                _ = this.apps.changed() => directory_changed = true,
                Ok(()) = membership.changed() => directory_changed = true,
                _ = this.requests.requested() => {
                    schedule.take_requests(this.requests.take(), Instant::now());
                }
                Some(done) = tasks.join_next_with_id(), if !tasks.is_empty() => {
                    schedule.finish(done, this.interval);
                }
                event = events.recv() => {
                    // Events come in bursts (a fleet rolling out): everything already waiting is taken in this
                    // turn of the loop, up to a bound that keeps shutdown and finished reconciles prompt.
                    let soon = Instant::now() + DEBOUNCE;
                    let mut next = Some(event.map_err(|_| MissedEvents));
                    let mut taken = 0;
                    while let Some(event) = next.take() {
                        this.on_live_event(event, soon, &mut schedule);
                        taken += 1;
                        if taken < EVENTS_PER_TURN {
                            next = events.try_recv().map(|event| event.map_err(|_| MissedEvents));
                        }
                    }
                }
            }
        }
    }

    /// What a watch event means for the apps: the app whose object it is (or owns it) is compared again soon; a
    /// Secret that workloads read dirties its readers; missed events dirty every app.
    fn on_live_event(
        &self,
        event: Result<(String, LiveEvent), MissedEvents>,
        soon: Instant,
        schedule: &mut Schedule,
    ) {
        let status_only = event.as_ref().is_ok_and(|(_, event)| event.status_only);
        match event {
            Ok((cluster, event)) => {
                // One of the app's objects, or an object one of them owns (an operator-made child a health check
                // reads).
                let app = event.app.clone().or_else(|| {
                    self.clusters.get(&cluster).and_then(|member| {
                        member.deployer.syncer().live().app_owning(&event.reference)
                    })
                });
                if let Some(app) = app {
                    schedule.touch(&app, status_only, soon);
                } else if event.reference.is_secret() {
                    // A Secret a workload reads: its version is in the app's environment fingerprint.
                    let key = (
                        event.reference.namespace.clone(),
                        event.reference.name.clone(),
                    );
                    for app in schedule.readers_of(&key) {
                        schedule.touch(&app, status_only, soon);
                    }
                    // Apps in flight may read it too: compare them again to be sure.
                    schedule.touch_in_flight();
                }
            }
            // Missed events: every app is compared again, soon.
            Err(MissedEvents) => {
                metrics().watch_events_missed.inc();
                schedule.all_again(soon);
            }
        }
    }

    /// The app's latest operation that is not a dry run, given its latest operation: a dry run (a plan, `weft diff
    /// --server`) changes nothing, so it is never the app's last operation.
    async fn last_real_operation(
        &self,
        name: &str,
        latest: Option<Operation>,
    ) -> Option<Operation> {
        match latest {
            Some(latest) if latest.dry_run => self
                .store
                .operations::<Operation>(name, 100)
                .await
                .ok()?
                .into_iter()
                .find(|op| !op.dry_run),
            other => other,
        }
    }

    /// Reconciles one app now, with what the reconciler remembers of it; returns that memory, updated.
    async fn reconcile(&self, name: &str, mut memory: Tracked) -> Tracked {
        let member = {
            let apps = self.apps.read().await;
            apps.get(name)
                .and_then(|app| self.clusters.for_app(app).ok().cloned())
        };
        let Some(member) = member else {
            self.visit(name, &mut memory).await;
            return memory;
        };
        // A cluster that stops answering mid-visit (its requests wait on timeouts of minutes): the visit is
        // dropped where it stands (it only reads and, at most, queues an operation in one transaction) and the app
        // is unknown for that reason.
        let unreachable = tokio::select! {
            _ = self.visit(name, &mut memory) => None,
            reason = member.until_unreachable() => Some(reason),
        };
        if let Some(reason) = unreachable {
            memory.clean = false;
            let mut views = self.views.write().await;
            let view = views.entry(name.to_string()).or_default();
            view.replica = Some(self.membership.borrow().me.clone());
            view.error = Some(weft_core::redact::for_tenants(&reason));
            view.status = None;
            view.reconciled_at = Some(Timestamp::now());
        }
        memory
    }
}

/// The objects a status finds out of sync, at most five, each with its health (`missing` when it is not live).
fn out_of_sync_summary(status: Option<&AppStatus>) -> String {
    let Some(status) = status else {
        return "(not compared)".into();
    };
    let drifted: Vec<String> = status
        .resources
        .iter()
        .filter(|r| r.sync == SyncCode::OutOfSync || r.requires_pruning)
        .map(|r| {
            let what = if r.requires_pruning {
                "to prune".to_string()
            } else {
                r.health.to_string()
            };
            format!("{} ({what})", r.reference)
        })
        .collect();
    match drifted.len() {
        0 => "nothing (a new revision or environment)".into(),
        n if n > 5 => format!("{} and {} more", drifted[..5].join(", "), n - 5),
        _ => drifted.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_apply::observe::ResourceStatus;
    use weft_apply::operation::Trigger;
    use weft_core::resource::ResourceRef;
    use weft_sync::status::{AppHealth, HealthCode};

    fn status(objects: &[(&str, SyncCode, bool)]) -> AppStatus {
        AppStatus {
            sync: if objects.iter().any(|o| o.1 == SyncCode::OutOfSync) {
                SyncCode::OutOfSync
            } else {
                SyncCode::Synced
            },
            health: AppHealth {
                status: HealthCode::Healthy,
                message: None,
            },
            resources: objects
                .iter()
                .map(|(name, sync, prune)| ResourceStatus {
                    reference: ResourceRef::new("", "ConfigMap", "shop", *name),
                    sync: *sync,
                    health: HealthCode::Healthy,
                    health_message: None,
                    requires_pruning: *prune,
                })
                .collect(),
            declared_version: None,
            running_version: None,
            image_moves: Vec::new(),
        }
    }

    fn kept_sync(revision: &str) -> Operation {
        let mut operation = Operation::start("op-1", "shop", Trigger::SelfHeal);
        operation.revision = Some(revision.into());
        operation.fuse_tripped = Some("an empty render deletes nothing".into());
        for name in ["a", "b"] {
            operation
                .resources
                .push(weft_apply::operation::ResourceResult {
                    reference: ResourceRef::new("", "ConfigMap", "shop", name),
                    action: weft_sync::plan::Action::Prune,
                    status: weft_apply::operation::ResultStatus::Kept,
                    message: "an empty render deletes nothing".into(),
                });
        }
        operation.finish(
            OperationPhase::Succeeded,
            "synced; 2 objects kept from pruning",
        );
        operation
    }

    #[test]
    fn prunes_the_fuse_kept_hold_automation_until_a_confirmed_sync_or_a_new_revision() {
        let mut pruning = app(true, true);
        pruning.sync.prune = true;
        let only_prunes = status(&[
            ("a", SyncCode::OutOfSync, true),
            ("b", SyncCode::OutOfSync, true),
        ]);
        let last = kept_sync("rev-1");
        let held = prunes_held(&pruning, &only_prunes, Some(&last), "rev-1", false).unwrap();
        assert!(held.contains("waiting for a confirmed sync"), "{held}");
        // The last sync was of another revision, failed, or there was none: a sync may still do something.
        assert_eq!(
            prunes_held(&pruning, &only_prunes, Some(&last), "rev-2", false),
            None
        );
        assert_eq!(
            prunes_held(&pruning, &only_prunes, None, "rev-1", false),
            None
        );
        let mut failed = kept_sync("rev-1");
        failed.phase = OperationPhase::Failed;
        assert_eq!(
            prunes_held(&pruning, &only_prunes, Some(&failed), "rev-1", false),
            None
        );
        // An object the last sync did not keep (deleted, and made again by hand since) is for self-heal to delete.
        let returned = status(&[
            ("a", SyncCode::OutOfSync, true),
            ("z", SyncCode::OutOfSync, true),
        ]);
        assert_eq!(
            prunes_held(&pruning, &returned, Some(&last), "rev-1", false),
            None
        );
        // Any other drift is for a sync to fix.
        let drifted = status(&[
            ("a", SyncCode::OutOfSync, true),
            ("c", SyncCode::OutOfSync, false),
        ]);
        assert_eq!(
            prunes_held(&pruning, &drifted, Some(&last), "rev-1", false),
            None
        );
        assert_eq!(
            prunes_held(
                &pruning,
                &status(&[("a", SyncCode::Synced, false)]),
                Some(&last),
                "rev-1",
                false
            ),
            None
        );
        // An app that does not prune never deletes them: nothing a sync would change.
        let keeping = app(true, true);
        assert!(!keeping.sync.prune);
        assert!(prunes_held(&keeping, &only_prunes, None, "rev-1", false).is_some());
        // Once the revision (or the parameters, or the environment) changed, a sync may do something.
        assert_eq!(
            prunes_held(&pruning, &only_prunes, Some(&last), "rev-1", true),
            None
        );
        assert_eq!(
            prunes_held(&keeping, &only_prunes, None, "rev-1", true),
            None
        );
    }

    #[test]
    fn a_refused_empty_render_holds_automation_until_a_new_revision() {
        let pruning = app(true, true);
        let only_prunes = status(&[
            ("a", SyncCode::OutOfSync, true),
            ("b", SyncCode::OutOfSync, true),
        ]);
        let mut refused = kept_sync("rev-2");
        refused.fuse_tripped = Some(weft_apply::syncer::EMPTY_RENDER.into());
        refused.finish(OperationPhase::Error, "the render of rev-2 is empty");
        // The refused sync never became the synced revision, so the revision reads as changed: held all the same.
        let held = prunes_held(&pruning, &only_prunes, Some(&refused), "rev-2", true).unwrap();
        assert!(held.contains("render of rev-2 is empty"), "{held}");
        assert!(held.contains("waiting for a new revision"), "{held}");
        // A new revision is tried; so is any drift besides the objects it would delete.
        assert_eq!(
            prunes_held(&pruning, &only_prunes, Some(&refused), "rev-3", true),
            None
        );
        let drifted = status(&[
            ("a", SyncCode::OutOfSync, true),
            ("c", SyncCode::OutOfSync, false),
        ]);
        assert_eq!(
            prunes_held(&pruning, &drifted, Some(&refused), "rev-2", true),
            None
        );
        // An error of another kind (a failed apply) is for backoff, not a hold.
        let mut failed = refused.clone();
        failed.fuse_tripped = None;
        assert_eq!(
            prunes_held(&pruning, &only_prunes, Some(&failed), "rev-2", true),
            None
        );
    }

    fn app(automated: bool, self_heal: bool) -> AppSpec {
        let mut app: AppSpec = toml::from_str(
            "name = \"shop\"\ntype = \"yaml\"\nnamespace = \"shop\"\nsource = { path = \".\" }\n",
        )
        .unwrap();
        app.sync.automated = automated;
        app.sync.self_heal = self_heal;
        app
    }

    #[test]
    fn automation_syncs_new_revisions_heals_drift_and_waits_after_failures() {
        use AutomationDecision::*;
        use SyncCode::*;
        let automated = app(true, false);
        let healing = app(true, true);
        let manual = app(false, false);
        assert_eq!(
            decide(&manual, false, OutOfSync, true, false, false),
            Nothing
        );
        assert_eq!(
            decide(&automated, false, Synced, true, false, false),
            Nothing
        );
        assert_eq!(
            decide(&automated, false, OutOfSync, true, false, false),
            Sync
        );
        assert_eq!(
            decide(&automated, false, OutOfSync, false, false, false),
            Nothing
        );
        assert_eq!(
            decide(&healing, false, OutOfSync, false, false, false),
            Heal
        );
        assert_eq!(
            decide(&healing, false, OutOfSync, false, true, false),
            Nothing
        );
        assert_eq!(decide(&healing, false, OutOfSync, false, false, true), Wait);
        assert_eq!(
            decide(&healing, true, OutOfSync, true, false, false),
            Nothing
        );
        assert_eq!(
            decide(&automated, false, Unknown, true, false, false),
            Nothing
        );
    }

    #[test]
    fn backoff_doubles_from_five_seconds_and_is_capped() {
        assert_eq!(backoff_delay(1), Duration::from_secs(5));
        assert_eq!(backoff_delay(2), Duration::from_secs(10));
        assert_eq!(backoff_delay(4), Duration::from_secs(40));
        assert_eq!(backoff_delay(7), Duration::from_secs(300));
        assert_eq!(backoff_delay(40), Duration::from_secs(300));
    }

    #[test]
    fn a_status_update_soon_after_a_comparison_waits_for_the_status_debounce_and_drift_does_not() {
        let compared = Instant::now();
        let soon = compared + Duration::from_secs(1);
        assert_eq!(
            due_after_event(true, soon, Some(compared)),
            compared + STATUS_DEBOUNCE
        );
        assert_eq!(due_after_event(false, soon, Some(compared)), soon, "drift");
        assert_eq!(due_after_event(true, soon, None), soon, "never compared");
        let later = compared + Duration::from_secs(60);
        assert_eq!(due_after_event(true, later, Some(compared)), later);
    }

    #[test]
    fn jitter_stays_within_ten_percent_and_varies() {
        let interval = Duration::from_secs(180);
        let samples: Vec<Duration> = (0..200).map(|seed| jittered(interval, seed)).collect();
        assert!(
            samples
                .iter()
                .all(|d| *d >= Duration::from_secs(162) && *d <= Duration::from_secs(198))
        );
        let distinct: std::collections::BTreeSet<_> = samples.iter().collect();
        assert!(distinct.len() > 100, "{}", distinct.len());
    }
}
