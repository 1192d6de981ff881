//! Services and Ingresses, the kinds a load balancer exposes: a `LoadBalancer` Service and any Ingress are
//! progressing until `status.loadBalancer.ingress` lists at least one entry, then healthy; other Services are
//! healthy. No message.

use weft_sdk::shapes::load_balancer_assigned;
use weft_sdk::{Context, Health, Object, PluginError};

/// Assesses a core Service (`v1` only, as upstream).
pub(crate) fn service(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    if obj.version() != "v1" {
        return Ok(Some(crate::unsupported_gvk(obj, "Service")));
    }
    if obj.str("spec.type") == Some("LoadBalancer") {
        return Ok(Some(load_balancer_assigned(obj)));
    }
    Ok(Some(Health::healthy("")))
}

/// Assesses an Ingress of `networking.k8s.io` or `extensions`, at any version.
pub(crate) fn ingress(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    Ok(Some(load_balancer_assigned(obj)))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::CoreHealth;

    fn verdict(yaml: &str) -> Health {
        assess_yaml::<CoreHealth>(yaml).unwrap().unwrap()
    }

    #[test]
    fn services() {
        let base = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n";
        assert_eq!(
            verdict(&format!("{base}spec: {{type: NodePort}}")),
            Health::healthy("")
        );
        assert_eq!(verdict(base), Health::healthy(""));
        assert_eq!(
            verdict(&format!(
                "{base}spec: {{type: LoadBalancer}}\nstatus: {{loadBalancer: {{ingress: []}}}}"
            )),
            Health::progressing("")
        );
        assert_eq!(
            verdict(&format!(
                "{base}spec: {{type: LoadBalancer}}\nstatus: {{loadBalancer: {{ingress: [{{ip: 1.2.3.4}}]}}}}"
            )),
            Health::healthy("")
        );
    }

    #[test]
    fn legacy_ingress_group_is_served() {
        let h = verdict(
            "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: i}\nstatus: {}",
        );
        assert_eq!(h, Health::progressing(""));
    }
}
