//! Dry runs that found an object in sync, remembered by what they were made from: the app, the object, its desired
//! JSON, the live object but its status (and the bookkeeping that changes with it: resourceVersion, managedFields)
//! and the ignore rules. While none of that changes, the API server would predict the same object but for its
//! status, which the diff never reads, so a comparison skips the call: a rollout's status updates (each a new
//! resourceVersion) cost no dry run. Only in-sync results are kept (a digest and a time per
//! object, no manifest), each for at most a time-to-live (an hour by default, the periodic full comparison's period),
//! after which the object is dry-run again.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

use weft_core::resource::ResourceRef;
use weft_sync::normalize::IgnoreRule;

/// What a dry run was made from, hashed: `slot` says which object (app and reference), `digest` everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DryRunInputs {
    slot: u64,
    digest: [u8; 16],
}

impl DryRunInputs {
    /// The inputs of dry-running `desired` for `app` against `live`.
    pub fn new(
        app: &str,
        reference: &ResourceRef,
        desired: &Value,
        live: &Value,
        rules: &[IgnoreRule],
    ) -> Self {
        let mut hasher = Sha256::new();
        let identity = reference.to_string();
        for part in [app, identity.as_str()] {
            hash_part(&mut hasher, part);
        }
        let slot_digest = hasher.clone().finalize();
        let mut slot = [0u8; 8];
        slot.copy_from_slice(&slot_digest[..8]);
        hash_part(&mut hasher, &desired.to_string());
        hash_live(&mut hasher, live);
        hash_part(
            &mut hasher,
            &serde_json::to_string(rules).unwrap_or_default(),
        );
        let mut digest = [0u8; 16];
        digest.copy_from_slice(&hasher.finalize()[..16]);
        DryRunInputs {
            slot: u64::from_le_bytes(slot),
            digest,
        }
    }
}

/// One part of a digest, length first, so parts cannot run into each other.
fn hash_part(hasher: &mut Sha256, part: &str) {
    hasher.update((part.len() as u64).to_le_bytes());
    hasher.update(part.as_bytes());
}

/// The live object as a dry run's prediction depends on it: what it declares ([`weft_core::declared`]); `status`, a
/// controller's report, is one an apply leaves alone and the diff never reads.
fn hash_live(hasher: &mut Sha256, live: &Value) {
    // Writing into a hasher does not fail.
    let _ = weft_core::declared::write_declared(live, hasher);
}

/// The objects last found in sync, one entry per object.
#[derive(Debug)]
pub struct InSyncDryRuns {
    entries: Mutex<HashMap<u64, ([u8; 16], Instant)>>,
    ttl: Duration,
}

impl Default for InSyncDryRuns {
    fn default() -> Self {
        Self::new(Duration::from_secs(3600))
    }
}

impl InSyncDryRuns {
    /// Remembers in-sync results for `ttl`.
    pub fn new(ttl: Duration) -> Self {
        InSyncDryRuns {
            entries: Mutex::new(HashMap::new()),
            ttl,
        }
    }

    /// Whether a dry run from these inputs found the object in sync within the time-to-live before `now`.
    pub fn in_sync(&self, inputs: &DryRunInputs, now: Instant) -> bool {
        self.lock().get(&inputs.slot).is_some_and(|(digest, at)| {
            *digest == inputs.digest && now.saturating_duration_since(*at) < self.ttl
        })
    }

    /// Records a dry run's finding: in sync (kept) or not (the object's entry is dropped).
    pub fn record(&self, inputs: DryRunInputs, in_sync: bool, now: Instant) {
        let mut entries = self.lock();
        if in_sync {
            entries.insert(inputs.slot, (inputs.digest, now));
        } else {
            entries.remove(&inputs.slot);
        }
    }

    /// How many objects are remembered.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, ([u8; 16], Instant)>> {
        // Every change is one insert or remove: the map is consistent even after a panic elsewhere.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The live Deployment at resourceVersion `version`, its spec as it was applied.
    fn live(version: &str) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "web", "namespace": "shop", "resourceVersion": version, "generation": 1,
                            "managedFields": [{"manager": "weft", "operation": "Apply"}]},
               "spec": {"replicas": 2}, "status": {"replicas": 0}})
    }

    fn inputs(desired: &Value, version: &str, rules: &[IgnoreRule]) -> DryRunInputs {
        inputs_against(desired, &live(version), rules)
    }

    fn inputs_against(desired: &Value, live: &Value, rules: &[IgnoreRule]) -> DryRunInputs {
        let reference = ResourceRef::new("apps", "Deployment", "shop", "web");
        DryRunInputs::new("shop", &reference, desired, live, rules)
    }

    #[test]
    fn an_in_sync_finding_stands_while_desired_live_object_and_rules_are_the_same() {
        let memory = InSyncDryRuns::new(Duration::from_secs(60));
        let now = Instant::now();
        let desired = json!({"spec": {"replicas": 2}});
        memory.record(inputs(&desired, "7", &[]), true, now);
        assert!(memory.in_sync(&inputs(&desired, "7", &[]), now));
        // A changed manifest or other ignore rules: dry-run again.
        assert!(!memory.in_sync(&inputs(&json!({"spec": {"replicas": 3}}), "7", &[]), now));
        let rule = IgnoreRule {
            json_pointers: vec!["/spec/replicas".into()],
            ..IgnoreRule::default()
        };
        assert!(!memory.in_sync(&inputs(&desired, "7", &[rule]), now));
        // Another app's object of the same name is another entry.
        let other = DryRunInputs::new(
            "other",
            &ResourceRef::new("apps", "Deployment", "shop", "web"),
            &desired,
            &live("7"),
            &[],
        );
        assert!(!memory.in_sync(&other, now));
    }

    #[test]
    fn a_status_update_keeps_the_finding_and_any_other_live_change_drops_it() {
        let memory = InSyncDryRuns::new(Duration::from_secs(60));
        let now = Instant::now();
        let desired = json!({"spec": {"replicas": 2}});
        memory.record(inputs(&desired, "7", &[]), true, now);
        // The rollout reports progress: a new resourceVersion and managedFields entry, another status.
        let mut progressed = live("8");
        progressed["status"] = json!({"replicas": 2, "availableReplicas": 2});
        progressed["metadata"]["managedFields"] = json!([{"manager": "kube-controller-manager"}]);
        assert!(memory.in_sync(&inputs_against(&desired, &progressed, &[]), now));
        // Someone scales it by hand, or labels it: the server might predict something else.
        let mut scaled = live("9");
        scaled["spec"]["replicas"] = json!(5);
        scaled["metadata"]["generation"] = json!(2);
        assert!(!memory.in_sync(&inputs_against(&desired, &scaled, &[]), now));
        let mut labelled = live("10");
        labelled["metadata"]["labels"] = json!({"team": "x"});
        assert!(!memory.in_sync(&inputs_against(&desired, &labelled, &[]), now));
    }

    #[test]
    fn a_finding_expires_after_its_time_to_live_and_drift_forgets_it() {
        let memory = InSyncDryRuns::new(Duration::from_secs(60));
        let now = Instant::now();
        let desired = json!({"data": {"a": "1"}});
        memory.record(inputs(&desired, "1", &[]), true, now);
        assert!(memory.in_sync(&inputs(&desired, "1", &[]), now + Duration::from_secs(59)));
        assert!(!memory.in_sync(&inputs(&desired, "1", &[]), now + Duration::from_secs(60)));
        memory.record(inputs(&desired, "1", &[]), false, now);
        assert!(memory.is_empty());
        assert!(!memory.in_sync(&inputs(&desired, "1", &[]), now));
    }
}
