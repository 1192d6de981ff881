//! Gateway API (gateway.networking.k8s.io): Gateways and GatewayClasses read their own conditions, routes read the
//! status each parent Gateway writes for them, and policies the status each ancestor writes (GEP-713).

use weft_sdk::{Condition, Health, Object, Value};

/// The conditions of one status entry (a route's parent, a policy's ancestor, a Gateway's listener).
pub(crate) fn entry_conditions(entry: &Value) -> impl Iterator<Item = Condition<'_>> {
    entry
        .get("conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Condition::new)
}

/// A condition's `message` when it has one (an empty one counts), as Lua's `condition.message or fallback` reads it.
fn message_or<'a>(condition: &Condition<'a>, fallback: &'a str) -> &'a str {
    condition
        .field("message")
        .and_then(Value::as_str)
        .unwrap_or(fallback)
}

/// Argo CD's reading of a Gateway API status entry's conditions (a Gateway's own, a listener's, a route parent's): a
/// `False` ResolvedRefs, then a `False` Accepted, is degraded; a Programmed that is not `True` is progressing;
/// anything else gives no verdict. Messages are the condition's own (or a stock one when it has none), after `prefix`.
fn programmed_verdict(entry: &Value, prefix: &str, programming: &str) -> Option<Health> {
    for failing in ["ResolvedRefs", "Accepted"] {
        if let Some(c) =
            entry_conditions(entry).find(|c| c.condition_type() == failing && c.is_false())
        {
            let fallback = format!("Failed condition: {failing}");
            let text = message_or(&c, &fallback);
            return Some(Health::degraded(format!("{prefix}{text}")));
        }
    }
    entry_conditions(entry)
        .find(|c| c.condition_type() == "Programmed" && !c.is_true())
        .map(|c| Health::progressing(format!("{prefix}{}", message_or(&c, programming))))
}

/// `GatewayClass`: its Accepted condition, once it is about the current generation.
pub(crate) fn gateway_class(obj: &Object) -> Health {
    let generation = obj.generation();
    let current = obj.conditions().find(|c| {
        c.condition_type() == "Accepted"
            && match (generation, c.observed_generation()) {
                (Some(generation), Some(observed)) => generation == observed,
                _ => true,
            }
    });
    match current {
        Some(c) if c.is_true() => Health::healthy(message_or(&c, "GatewayClass is accepted")),
        Some(c) if c.is_false() => Health::degraded(message_or(&c, "GatewayClass is not accepted")),
        Some(c) => Health::progressing(message_or(&c, "Waiting for GatewayClass status")),
        None => Health::progressing("Waiting for GatewayClass status"),
    }
}

/// `Gateway`: its own conditions, then each listener's.
pub(crate) fn gateway(obj: &Object) -> Health {
    let Some(status) = obj.get("status").filter(|s| s.is_object()) else {
        return Health::progressing("Waiting for Gateway status");
    };
    let has_conditions = status.get("conditions").is_some_and(|c| !c.is_null());
    if has_conditions
        && let Some(verdict) = programmed_verdict(status, "", "Gateway is still being programmed")
    {
        return verdict;
    }
    let listeners = obj.array("status.listeners");
    for listener in listeners {
        if let Some(verdict) =
            programmed_verdict(listener, "Listener: ", "Listener is still being programmed")
        {
            return verdict;
        }
    }
    if has_conditions || !listeners.is_empty() {
        Health::healthy("Gateway is healthy")
    } else {
        Health::progressing("Waiting for Gateway status")
    }
}

/// `HTTPRoute`.
pub(crate) fn http_route(obj: &Object) -> Health {
    route(obj, "HTTPRoute")
}

/// `GRPCRoute`.
pub(crate) fn grpc_route(obj: &Object) -> Health {
    route(obj, "GRPCRoute")
}

/// A route: the status each parent Gateway writes for it, skipping parents that have not seen the current
/// generation yet; healthy once one current parent reports and none objects.
fn route(obj: &Object, kind: &str) -> Health {
    let parents = obj.array("status.parents");
    let observed = |parent: &Value| match obj.generation() {
        None => true,
        Some(generation) => {
            entry_conditions(parent).any(|c| c.observed_generation() == Some(generation))
        }
    };
    for parent in parents {
        if parent.get("conditions").and_then(Value::as_array).is_none() || !observed(parent) {
            continue;
        }
        let name = parent
            .pointer("/parentRef/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let prefix = format!("Parent {name}: ");
        if let Some(verdict) =
            programmed_verdict(parent, &prefix, "Route is still being programmed")
        {
            return verdict;
        }
    }
    if parents
        .iter()
        .any(|p| entry_conditions(p).next().is_some() && observed(p))
    {
        Health::healthy(format!("{kind} is healthy"))
    } else {
        Health::progressing(format!("Waiting for {kind} status"))
    }
}

/// How a policy kind reads its `status.ancestors`: the Accepted and ResolvedRefs conditions each ancestor (a
/// Gateway, usually) writes for it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AncestorRules {
    /// Whether a condition without `observedGeneration` counts as not yet updated.
    pub unreported_is_stale: bool,
    /// Whether an ancestor that writes no Accepted condition makes the policy degraded.
    pub accepted_required: bool,
    /// Ancestor entries whose verdict does not count.
    pub ignored: fn(&Value) -> bool,
}

/// A policy attached through `targetRefs`: progressing until every ancestor has seen the current generation; degraded
/// when an ancestor does not accept it or cannot resolve its references; healthy once one accepts it.
pub(crate) fn policy_ancestors(obj: &Object, rules: AncestorRules) -> Health {
    let kind = obj.kind();
    let mut verdict = Health::progressing(format!("Waiting for {kind} status"));
    let Some(ancestors) = obj.get("status.ancestors").and_then(Value::as_array) else {
        return verdict;
    };
    let name = |ancestor: &Value| {
        ancestor
            .pointer("/ancestorRef/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    if let Some(generation) = obj.generation() {
        for ancestor in ancestors {
            let stale = entry_conditions(ancestor).any(|c| match c.observed_generation() {
                Some(observed) => observed != generation,
                None => rules.unreported_is_stale,
            });
            if stale {
                return Health::progressing(format!(
                    "Waiting for Ancestor {} to update {kind} status",
                    name(ancestor)
                ));
            }
        }
    }
    for ancestor in ancestors.iter().filter(|a| !(rules.ignored)(a)) {
        let mut accepted = false;
        for c in entry_conditions(ancestor) {
            let refused = match c.condition_type() {
                "Accepted" => {
                    accepted = true;
                    !c.is_true()
                }
                "ResolvedRefs" => !c.is_true(),
                _ => false,
            };
            if refused {
                return Health::degraded(format!("Ancestor {}: {}", name(ancestor), c.message()));
            }
            if c.condition_type() == "Accepted" {
                verdict = Health::healthy(format!("{kind} is healthy"));
            }
        }
        if rules.accepted_required && !accepted {
            verdict = Health::degraded(format!(
                "Ancestor {}: {kind} is not accepted",
                name(ancestor)
            ));
        }
    }
    verdict
}

/// `BackendTLSPolicy`. Every conformant implementation writes an entry for every policy, so an entry in which a
/// controller says it found no target of its own (Accepted not `True`, reason `TargetNotFound`) does not count.
pub(crate) fn backend_tls_policy(obj: &Object) -> Health {
    policy_ancestors(
        obj,
        AncestorRules {
            unreported_is_stale: false,
            accepted_required: false,
            ignored: |ancestor| {
                entry_conditions(ancestor)
                    .find(|c| c.condition_type() == "Accepted")
                    .is_some_and(|c| !c.is_true() && c.reason() == "TargetNotFound")
            },
        },
    )
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::NetworkHealth;

    fn verdict(yaml: &str) -> Health {
        assess_yaml::<NetworkHealth>(yaml).unwrap().unwrap()
    }

    #[test]
    fn routes_wait_while_every_parent_is_stale() {
        let h = verdict(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: r, generation: 3}\n\
             status:\n  parents:\n  - parentRef: {name: gw}\n    conditions:\n\
             \x20   - {type: Accepted, status: 'False', observedGeneration: 2, message: old}\n",
        );
        assert_eq!(h, Health::progressing("Waiting for GRPCRoute status"));
    }

    #[test]
    fn route_without_parents_waits() {
        let h = verdict(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nstatus: {parents: []}",
        );
        assert_eq!(h, Health::progressing("Waiting for HTTPRoute status"));
    }

    #[test]
    fn gateway_listener_problems_are_prefixed() {
        let h = verdict(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: g}\nstatus:\n  listeners:\n\
             \x20 - name: http\n    conditions:\n    - {type: ResolvedRefs, status: 'False'}\n",
        );
        assert_eq!(
            h,
            Health::degraded("Listener: Failed condition: ResolvedRefs")
        );
        let h = verdict(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: g}\nstatus: {}",
        );
        assert_eq!(h, Health::progressing("Waiting for Gateway status"));
    }

    #[test]
    fn gateway_class_ignores_stale_acceptance() {
        let h = verdict(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: c, generation: 2}\n\
             status:\n  conditions:\n  - {type: Accepted, status: 'True', observedGeneration: 1}\n",
        );
        assert_eq!(h, Health::progressing("Waiting for GatewayClass status"));
        let h = verdict(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: c, generation: 2}\n\
             status:\n  conditions:\n  - {type: Accepted, status: 'True', observedGeneration: 2}\n",
        );
        assert_eq!(h, Health::healthy("GatewayClass is accepted"));
    }

    #[test]
    fn backend_tls_policy_waits_for_stale_ancestors_and_skips_foreign_controllers() {
        let base = "apiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\n";
        let h = verdict(&format!(
            "{base}metadata: {{name: p, generation: 4}}\nstatus:\n  ancestors:\n  - ancestorRef: {{name: gw}}\n\
             \x20   conditions:\n    - {{type: Accepted, status: 'True', observedGeneration: 3}}\n"
        ));
        assert_eq!(
            h,
            Health::progressing("Waiting for Ancestor gw to update BackendTLSPolicy status")
        );
        let h = verdict(&format!(
            "{base}metadata: {{name: p}}\nstatus:\n  ancestors:\n  - ancestorRef: {{name: other}}\n    conditions:\n\
             \x20   - {{type: Accepted, status: 'False', reason: TargetNotFound, message: not mine}}\n\
             \x20 - ancestorRef: {{name: gw}}\n    conditions:\n    - {{type: Accepted, status: 'True'}}\n"
        ));
        assert_eq!(h, Health::healthy("BackendTLSPolicy is healthy"));
    }
}
