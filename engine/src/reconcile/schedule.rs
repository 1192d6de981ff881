//! The reconciler loop's bookkeeping: which app is due when, what each app's rounds remember, which apps are being
//! reconciled (and whether something of theirs changed meanwhile), the requests waiting, and the specs last seen.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use tokio::task::{Id, JoinError, JoinSet};
use tokio::time::Instant;

use super::requests::Pending;
use super::{DEBOUNCE, DueQueue, Reconciler, Tracked, due_after_event, jittered};
use weft_app::AppSpec;
use weft_core::metrics::metrics;

/// A reconcile that ended: the app and what its round remembers, or the task that failed.
pub(super) type Finished = Result<(Id, (String, Tracked)), JoinError>;

/// What the loop keeps between turns.
#[derive(Default)]
pub(super) struct Schedule {
    /// When each app is next due.
    queue: DueQueue<Instant>,
    /// What each app's last round remembers (taken while it is reconciled).
    tracked: HashMap<String, Tracked>,
    /// Apps being reconciled, and whether something of theirs changed meanwhile.
    in_flight: HashMap<String, bool>,
    /// The app each running task reconciles.
    task_names: HashMap<Id, String>,
    /// How many reconciles have ended (a jitter seed).
    round: u64,
    /// The specs last looked at: an app created, replaced or reloaded since is reconciled at once.
    pub(super) seen: BTreeMap<String, AppSpec>,
    /// Apps asked to be reconciled now (and since when their sources must have been fetched), until a visit
    /// takes the request.
    requested: HashMap<String, std::time::Instant>,
}

impl Schedule {
    /// Follows the apps this replica owns now: a new or changed app is due at once (or marked touched while it is
    /// reconciled), and what the loop kept of an app it no longer owns is dropped.
    pub(super) fn own(&mut self, mine: BTreeMap<String, AppSpec>, now: Instant) {
        for (name, spec) in mine.iter() {
            if self.seen.get(name) == Some(spec) {
                continue;
            }
            self.tracked.entry(name.clone()).or_default().clean = false;
            match self.in_flight.get_mut(name) {
                Some(touched) => *touched = true,
                None => self.queue.set(name, now),
            }
        }
        self.queue.retain(|name| mine.contains_key(name));
        self.tracked.retain(|name, _| mine.contains_key(name));
        self.requested.retain(|name, _| mine.contains_key(name));
        self.seen = mine;
    }

    /// When the next app is due, if any is.
    pub(super) fn next_due(&self) -> Option<Instant> {
        self.queue.next_due()
    }

    /// Marks `app` to be compared again after a watch event on an object of its: touched while it is reconciled,
    /// else due soon (a status-only event waits for the status debounce after its last comparison).
    pub(super) fn touch(&mut self, app: &str, status_only: bool, soon: Instant) {
        if let Some(touched) = self.in_flight.get_mut(app) {
            *touched = true;
        } else if let Some(memory) = self.tracked.get_mut(app) {
            memory.clean = false;
            let compared_at = memory.compared.as_ref().map(|(_, at)| *at);
            self.queue
                .sooner(app, due_after_event(status_only, soon, compared_at));
        }
    }

    /// The apps whose last round found their workloads reading the Secret `key` (namespace, name).
    pub(super) fn readers_of(&self, key: &(String, String)) -> Vec<String> {
        self.tracked
            .iter()
            .filter(|(_, memory)| memory.secrets.contains(key))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Marks every app being reconciled as touched: it is compared again when its reconcile ends.
    pub(super) fn touch_in_flight(&mut self) {
        for touched in self.in_flight.values_mut() {
            *touched = true;
        }
    }

    /// After missed watch events: every app is compared afresh, soon.
    pub(super) fn all_again(&mut self, soon: Instant) {
        for memory in self.tracked.values_mut() {
            memory.clean = false;
        }
        self.touch_in_flight();
        self.queue.all_sooner(soon);
    }

    /// Starts reconciling the apps that are due, up to `parallelism` at once.
    pub(super) fn start_due(
        &mut self,
        reconciler: &Arc<Reconciler>,
        tasks: &mut JoinSet<(String, Tracked)>,
        parallelism: usize,
        now: Instant,
    ) {
        while tasks.len() < parallelism {
            let Some(name) = self.queue.pop_due(now) else {
                break;
            };
            let mut memory = self.tracked.remove(&name).unwrap_or_default();
            memory.requested = self.requested.remove(&name);
            self.in_flight.insert(name.clone(), false);
            let reconciler = reconciler.clone();
            let task_name = name.clone();
            let handle = tasks.spawn(async move {
                let started = std::time::Instant::now();
                let memory = reconciler.reconcile(&task_name, memory).await;
                metrics()
                    .reconcile_seconds
                    .observe(started.elapsed().as_secs_f64());
                (task_name, memory)
            });
            self.task_names.insert(handle.id(), name);
        }
    }

    /// Takes what was asked: apps to refresh are due now (their sources fetched since the time asked), apps whose
    /// operation ended are looked at again soon (a failed sync's retry is due from its end).
    pub(super) fn take_requests(&mut self, pending: Pending, now: Instant) {
        for (name, since) in pending.refresh {
            if !self.seen.contains_key(&name) {
                continue;
            }
            let at = self.requested.entry(name.clone()).or_insert(since);
            *at = (*at).max(since);
            self.queue.sooner(&name, now);
        }
        for name in pending.revisit {
            match self.in_flight.get_mut(&name) {
                Some(touched) => *touched = true,
                None => self.queue.sooner(&name, now + DEBOUNCE),
            }
        }
    }

    /// Schedules an app's next round when its reconcile ends: at once when it was asked for again meanwhile, soon
    /// when something of it changed, else after the interval with jitter, and no later than automation's wake.
    pub(super) fn finish(&mut self, done: Finished, interval: std::time::Duration) {
        let (name, mut memory) = match done {
            Ok((id, (name, memory))) => {
                self.task_names.remove(&id);
                (name, memory)
            }
            // A reconcile that panicked: the app is compared afresh on its next turn.
            Err(error) => {
                let Some(name) = self.task_names.remove(&error.id()) else {
                    return;
                };
                tracing::error!(app = %name, "reconciling the app failed: {error}");
                (name, Tracked::default())
            }
        };
        let touched = self.in_flight.remove(&name).unwrap_or(false);
        if !self.seen.contains_key(&name) {
            return;
        }
        self.round += 1;
        let next = if self.requested.contains_key(&name) {
            // Asked for again while it was being reconciled.
            Instant::now()
        } else if touched {
            memory.clean = false;
            Instant::now() + DEBOUNCE
        } else {
            let seed = self.round
                ^ name
                    .bytes()
                    .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
            Instant::now() + jittered(interval, seed)
        };
        // Automation waits until a set time (a retry's backoff, self-heal's): look again then.
        let next = match memory.wake_at.take() {
            Some(at) => next.min(at.max(Instant::now())),
            None => next,
        };
        self.queue.set(&name, next);
        self.tracked.insert(name, memory);
    }
}
