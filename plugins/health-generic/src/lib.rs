//! The generic fallback for kinds no plugin knows, in the spirit of kstatus (sigs.k8s.io/cli-utils `pkg/kstatus`):
//! it reads only what the Kubernetes API conventions promise, so it gives a sensible answer for any controller that
//! follows them, and a healthy one for objects that have no status to follow.
//!
//! In order:
//! 1. `status.observedGeneration` differs from `metadata.generation`: progressing, the controller has not caught up
//!    with the spec yet ("Widget generation is 3, but latest observed generation is 2").
//! 2. `Stalled` true: degraded, with its message. `Reconciling` true: progressing, with its message.
//! 3. `Ready` true: healthy; false: degraded once the controller says it is done reconciling (`Reconciling`
//!    false), progressing until then; unknown: progressing. Each with the `Ready` message.
//! 4. Anything else, including kinds with no status at all (ConfigMap, Secret, ServiceAccount, RBAC objects, ...):
//!    healthy, with an empty message.
//!
//! Pending deletion is the host's rule, applied before any plugin runs; Argo CD's nil health ("no opinion") is not
//! an answer this plugin gives: it is what the host falls back to *it* for.

use weft_sdk::shapes::{kstatus_conditions, observed_generation_lag};
use weft_sdk::{Context, Health, HealthCheck, KindTable, Object, PluginError};

/// The one key: every group and kind.
static TABLE: KindTable = KindTable::new(&[("*", assess)]);

/// The plugin.
#[derive(Debug)]
pub struct GenericHealth;

impl GenericHealth {
    /// The kinds this plugin serves (`*`).
    pub fn kinds() -> impl Iterator<Item = &'static str> {
        TABLE.keys()
    }
}

impl HealthCheck for GenericHealth {
    fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        TABLE.assess(obj, cx)
    }
}

fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    Ok(Some(
        observed_generation_lag(obj)
            .or_else(|| kstatus_conditions(obj))
            .unwrap_or_else(|| Health::healthy("")),
    ))
}

weft_sdk::export_health_check!(GenericHealth);

#[cfg(test)]
mod tests {
    use weft_sdk::testing::assess_yaml;
    use weft_sdk::{Health, Status};

    use super::GenericHealth;

    fn verdict(yaml: &str) -> Health {
        assess_yaml::<GenericHealth>(yaml).unwrap().unwrap()
    }

    fn widget(generation: i64, status: &str) -> Health {
        verdict(&format!(
            "apiVersion: example.weft.dev/v1\nkind: Widget\nmetadata: {{name: w, generation: {generation}}}\nstatus: {status}"
        ))
    }

    #[test]
    fn manifest_serves_every_kind() {
        let manifest = include_str!("../weft-plugin.toml");
        assert!(manifest.contains("name = \"health-generic\""));
        assert!(manifest.contains("world = \"health-check\""));
        assert!(manifest.contains("kinds = [\"*\"]"));
        assert_eq!(GenericHealth::kinds().collect::<Vec<_>>(), ["*"]);
    }

    #[test]
    fn objects_without_status_are_healthy() {
        for yaml in [
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: Opaque",
            "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}",
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules: []",
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: rb, generation: 1}",
        ] {
            assert_eq!(verdict(yaml), Health::healthy(""), "{yaml}");
        }
    }

    #[test]
    fn generation_lag_is_progressing() {
        let h = widget(
            3,
            "{observedGeneration: 2, conditions: [{type: Ready, status: 'True'}]}",
        );
        assert_eq!(
            h,
            Health::progressing("Widget generation is 3, but latest observed generation is 2")
        );
        // Caught up: the conditions decide.
        let h = widget(
            3,
            "{observedGeneration: 3, conditions: [{type: Ready, status: 'True', message: up}]}",
        );
        assert_eq!(h, Health::healthy("up"));
        // No observedGeneration reported: nothing can lag.
        assert_eq!(widget(3, "{phase: Whatever}"), Health::healthy(""));
    }

    #[test]
    fn stalled_is_degraded() {
        let h = widget(
            1,
            "{conditions: [{type: Ready, status: 'True'}, {type: Stalled, status: 'True', message: bad credentials}]}",
        );
        assert_eq!(h, Health::degraded("bad credentials"));
    }

    #[test]
    fn reconciling_is_progressing() {
        let h = widget(
            1,
            "{conditions: [{type: Reconciling, status: 'True', message: applying}]}",
        );
        assert_eq!(h, Health::progressing("applying"));
    }

    #[test]
    fn ready_condition() {
        let h = widget(
            1,
            "{conditions: [{type: Ready, status: 'True', message: serving}]}",
        );
        assert_eq!(h, Health::healthy("serving"));
        let h = widget(
            1,
            "{conditions: [{type: Ready, status: 'False', message: starting}]}",
        );
        assert_eq!(h, Health::progressing("starting"));
        let h = widget(
            1,
            "{conditions: [{type: Ready, status: 'False', message: quota}, {type: Reconciling, status: 'False'}]}",
        );
        assert_eq!(h, Health::degraded("quota"));
        let h = widget(1, "{conditions: [{type: Ready, status: Unknown}]}");
        assert_eq!(h.status, Status::Progressing);
    }

    #[test]
    fn other_conditions_alone_are_healthy() {
        let h = widget(
            1,
            "{conditions: [{type: Synced, status: 'False'}, {type: Stalled, status: 'False'}]}",
        );
        assert_eq!(h, Health::healthy(""));
    }
}
