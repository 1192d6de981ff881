//! Atlas operator (`db.atlasgo.io`): AtlasMigration and AtlasSchema report a `Ready` condition whose reason
//! names the step it is at; the reason is the message.

use weft_sdk::{Condition, Health, Object};

/// An AtlasMigration: not ready while `Reconciling` is progressing, not ready for any other reason degraded.
pub(crate) fn migration(obj: &Object) -> Health {
    from_ready(obj, |ready| ready.reason() == "Reconciling")
}

/// An AtlasSchema: progressing while the condition's message says it is `Reconciling` or `GettingDevDB`.
pub(crate) fn schema(obj: &Object) -> Health {
    from_ready(obj, |ready| {
        matches!(ready.message(), "Reconciling" | "GettingDevDB")
    })
}

fn from_ready(obj: &Object, still_working: impl Fn(&Condition<'_>) -> bool) -> Health {
    match obj.condition("Ready") {
        None => Health::progressing("Waiting for Atlas Operator"),
        Some(ready) if ready.is_true() => Health::healthy(ready.reason()),
        Some(ready) if still_working(&ready) => Health::progressing(ready.reason()),
        Some(ready) => Health::degraded(ready.reason()),
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn verdict(kind: &str, status: &str) -> Health {
        let yaml = format!(
            "apiVersion: db.atlasgo.io/v1alpha1\nkind: {kind}\nmetadata: {{name: a}}\nstatus: {status}"
        );
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn waiting_and_schema_fetching_dev_db() {
        assert_eq!(
            verdict("AtlasSchema", "{}"),
            Health::progressing("Waiting for Atlas Operator")
        );
        let getting = "{conditions: [{type: Ready, status: 'False', reason: GettingDevDB, message: GettingDevDB}]}";
        assert_eq!(
            verdict("AtlasSchema", getting),
            Health::progressing("GettingDevDB")
        );
        let failed =
            "{conditions: [{type: Ready, status: 'False', reason: Migrating, message: boom}]}";
        assert_eq!(
            verdict("AtlasMigration", failed),
            Health::degraded("Migrating")
        );
    }
}
