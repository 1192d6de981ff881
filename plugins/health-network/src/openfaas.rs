//! OpenFaaS (openfaas.com): the operator's `Ready` and `Stalled` conditions on a `Function`, and its replica count.

use weft_sdk::{Health, Object};

/// `Function`: ready with no replicas running is scaled to zero, which is suspended.
pub(crate) fn function(obj: &Object) -> Health {
    for c in obj.conditions() {
        match c.condition_type() {
            "Ready" if c.is_false() => return Health::degraded(c.message()),
            "Stalled" if c.is_true() => return Health::degraded(c.message()),
            "Ready" if c.is_true() => {
                return if obj.i64("status.replicas").is_some_and(|n| n > 0) {
                    Health::healthy(c.message())
                } else {
                    Health::suspended("No replicas available")
                };
            }
            _ => {}
        }
    }
    Health::progressing("Waiting for Function")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::NetworkHealth;

    #[test]
    fn ready_with_replicas_is_healthy() {
        let h = assess_yaml::<NetworkHealth>(
            "apiVersion: openfaas.com/v1\nkind: Function\nmetadata: {name: f}\nstatus:\n  replicas: 2\n  conditions:\n\
             \x20 - {type: Ready, status: 'True', message: Deployment and service reconciled}\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::healthy("Deployment and service reconciled"));
    }
}
