//! External Secrets Operator (`external-secrets.io`): stores, secrets and push secrets report a `Ready`
//! condition; a ClusterExternalSecret appends its conditions, so its newest (last) one is its state.

use weft_sdk::shapes::condition_verdict;
use weft_sdk::{Health, Object};

/// A SecretStore.
pub(crate) fn secret_store(obj: &Object) -> Health {
    ready_or_waiting(obj, "Waiting for SecretStore")
}

/// A ClusterSecretStore.
pub(crate) fn cluster_secret_store(obj: &Object) -> Health {
    ready_or_waiting(obj, "Waiting for ClusterSecretStore")
}

/// A PushSecret.
pub(crate) fn push_secret(obj: &Object) -> Health {
    ready_or_waiting(obj, "Waiting for PushSecret")
}

/// An ExternalSecret. With `refreshPolicy: OnChange` a `Ready` condition older than the last refresh describes a
/// previous spec, so it is not trusted yet.
pub(crate) fn external_secret(obj: &Object) -> Health {
    let on_change = obj.str("spec.refreshPolicy") == Some("OnChange");
    let refreshed = obj.str("status.refreshTime");
    let current = obj.conditions().find(|c| {
        c.condition_type() == "Ready"
            && (!on_change || {
                // RFC 3339 timestamps in UTC compare as text.
                let changed = c.field("lastTransitionTime").and_then(|t| t.as_str());
                matches!((changed, refreshed), (Some(changed), Some(refreshed)) if changed >= refreshed)
            })
    });
    match current {
        None => Health::progressing("Waiting for ExternalSecret"),
        Some(ready) if ready.is_true() => Health::healthy(ready.message()),
        Some(ready) if ready.is_false() => Health::degraded(ready.message()),
        // Argo CD's script returns nothing here, which Argo CD reports as unknown.
        Some(ready) => Health::unknown(ready.message()),
    }
}

/// A ClusterExternalSecret: its last condition, if it is `Ready`, `PartiallyReady` or `NotReady` and `True`.
pub(crate) fn cluster_external_secret(obj: &Object) -> Health {
    match obj.conditions().last() {
        Some(last) if last.is_true() && last.condition_type() == "Ready" => {
            Health::healthy(last.message())
        }
        Some(last)
            if last.is_true() && matches!(last.condition_type(), "PartiallyReady" | "NotReady") =>
        {
            Health::degraded(last.message())
        }
        _ => Health::progressing("Waiting for ClusterExternalSecret"),
    }
}

fn ready_or_waiting(obj: &Object, waiting: &str) -> Health {
    condition_verdict(obj, "Ready").unwrap_or_else(|| Health::progressing(waiting))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::ClusterHealth;

    #[test]
    fn on_change_secret_ignores_a_stale_ready_condition() {
        let base = "apiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\nspec: {refreshPolicy: OnChange}\n";
        let stale = format!(
            "{base}status:\n  refreshTime: '2024-05-02T10:00:00Z'\n  conditions:\n  \
             - {{type: Ready, status: 'True', message: synced, lastTransitionTime: '2024-05-01T10:00:00Z'}}"
        );
        assert_eq!(
            assess_yaml::<ClusterHealth>(&stale).unwrap(),
            Some(Health::progressing("Waiting for ExternalSecret"))
        );
        let fresh = stale.replace("2024-05-01", "2024-05-03");
        assert_eq!(
            assess_yaml::<ClusterHealth>(&fresh).unwrap(),
            Some(Health::healthy("synced"))
        );
    }
}
