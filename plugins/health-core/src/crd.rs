//! CustomResourceDefinitions, as Argo CD's bundled Lua check reads them: progressing while conditions are missing,
//! while terminating or while being installed; degraded when names are not accepted, the schema is not structural,
//! or the CRD is not established; healthy otherwise. Conditions are read in order and the first that decides wins.

use weft_sdk::{Context, Health, Object, PluginError};

/// Assesses an `apiextensions.k8s.io` CustomResourceDefinition.
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    // Reached only if the host passes deleting objects on; it normally answers "Pending deletion" itself.
    if obj.is_deleting() {
        return Ok(Some(Health::progressing("CRD is terminating")));
    }
    if obj.conditions().next().is_none() {
        return Ok(Some(Health::progressing("Status conditions not found")));
    }
    let mut established = false;
    for c in obj.conditions() {
        match c.condition_type() {
            "Terminating" if c.is_true() => {
                return Ok(Some(Health::progressing(format!(
                    "CRD is terminating: {}",
                    c.message()
                ))));
            }
            "NamesAccepted" if c.is_false() => {
                return Ok(Some(Health::degraded(format!(
                    "CRD names have not been accepted: {}",
                    c.message()
                ))));
            }
            "NonStructuralSchema" if c.is_true() => {
                return Ok(Some(Health::degraded(format!(
                    "Schema violations found: {}",
                    c.message()
                ))));
            }
            "Established" if c.is_true() => established = true,
            "Established" if c.reason() == "Installing" => {
                return Ok(Some(Health::progressing("CRD is being installed")));
            }
            _ => {}
        }
    }
    Ok(Some(if established {
        Health::healthy("CRD is healthy")
    } else {
        Health::degraded("CRD is not established")
    }))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::CoreHealth;

    fn verdict(rest: &str) -> Health {
        let yaml = format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: xs.example.com}}\n{rest}"
        );
        assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn without_status_waits() {
        assert_eq!(
            verdict(""),
            Health::progressing("Status conditions not found")
        );
    }

    #[test]
    fn first_deciding_condition_wins() {
        let h = verdict(
            "status: {conditions: [{type: NonStructuralSchema, status: 'True', message: bad},\
             {type: NamesAccepted, status: 'False', message: clash}]}",
        );
        assert_eq!(h, Health::degraded("Schema violations found: bad"));
        let h = verdict("status: {conditions: [{type: NamesAccepted, status: 'True'}]}");
        assert_eq!(h, Health::degraded("CRD is not established"));
    }
}
