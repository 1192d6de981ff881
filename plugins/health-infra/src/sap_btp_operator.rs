//! SAP BTP service operator (`services.cloud.sap.com`): service instances and bindings report `Succeeded` and
//! `Failed` conditions, each stamped with the generation it describes.

use weft_sdk::{Health, Object, Value};

use crate::fields::present;

/// `ServiceInstance` and `ServiceBinding`.
pub(crate) fn service_resource(obj: &Object) -> Health {
    if obj.is_deleting() {
        return Health::progressing("Resource is being deleted");
    }
    if present(obj, "status").is_some()
        && present(obj, "status.conditions").is_some_and(|c| c.is_array() || c.is_object())
    {
        let generation = present(obj, "metadata.generation").and_then(Value::as_f64);
        for c in obj.conditions() {
            let observed = c.field("observedGeneration").and_then(Value::as_f64);
            if let (Some(observed), Some(generation)) = (observed, generation)
                && observed != generation
            {
                return Health::progressing("Waiting for spec update to be observed");
            }
            if (c.condition_type() == "Succeeded" && c.is_false())
                || (c.condition_type() == "Failed" && c.is_true())
            {
                return Health::degraded(c.message());
            }
        }
        return Health::healthy("Ready to use");
    }
    Health::progressing("Waiting for status")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    #[test]
    fn binding_with_a_stale_condition_waits_for_the_spec() {
        let h = assess_yaml::<InfraHealth>(
            "apiVersion: services.cloud.sap.com/v1\nkind: ServiceBinding\nmetadata: {name: b, generation: 3}\n\
             status:\n  conditions:\n  - {type: Succeeded, status: 'True', observedGeneration: 2}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            h,
            Health::progressing("Waiting for spec update to be observed")
        );
    }

    #[test]
    fn empty_conditions_are_ready() {
        let h = assess_yaml::<InfraHealth>(
            "apiVersion: services.cloud.sap.com/v1\nkind: ServiceInstance\nmetadata: {name: i}\nstatus: {conditions: []}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(h, Health::healthy("Ready to use"));
    }
}
