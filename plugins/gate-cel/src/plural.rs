//! A kind's resource name (`Deployment` → `deployments`), as policies' `resources` lists name them.
//!
//! Before a deploy there is no API server to ask for discovery, so the plural follows the Kubernetes convention:
//! lowercase; ending in `s`, `x`, `z`, `ch` or `sh` → `+es`; a consonant then `y` → `ies`; else `+s`. The few
//! built-in kinds that break the rule are listed, and the settings' `plurals` table names any other (a CRD whose
//! `spec.names.plural` is irregular).

use std::collections::BTreeMap;

/// Built-in kinds whose resource name the convention does not give.
const IRREGULAR: &[(&str, &str)] = &[
    ("endpoints", "endpoints"),
    // metrics.k8s.io names its resources after what they measure.
    ("podmetrics", "pods"),
    ("nodemetrics", "nodes"),
];

/// The resource name of `kind` in `group`: the settings' `plurals` entry for `<group>/<Kind>` or `<Kind>` when
/// there is one, else the convention.
pub fn resource_name(group: &str, kind: &str, overrides: &BTreeMap<String, String>) -> String {
    let qualified = format!("{group}/{kind}");
    if let Some(plural) = overrides.get(&qualified).or_else(|| overrides.get(kind)) {
        return plural.to_ascii_lowercase();
    }
    plural(kind)
}

/// The conventional plural of a kind.
pub fn plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if let Some((_, plural)) = IRREGULAR.iter().find(|(singular, _)| *singular == lower) {
        return (*plural).to_string();
    }
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| lower.ends_with(end))
    {
        return format!("{lower}es");
    }
    if let Some(stem) = lower.strip_suffix('y')
        && stem
            .chars()
            .last()
            .is_some_and(|c| !matches!(c, 'a' | 'e' | 'i' | 'o' | 'u'))
    {
        return format!("{stem}ies");
    }
    if lower.is_empty() {
        return lower;
    }
    format!("{lower}s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_kinds_get_their_api_resource_names() {
        for (kind, resource) in [
            ("Deployment", "deployments"),
            ("Pod", "pods"),
            ("Ingress", "ingresses"),
            ("IngressClass", "ingressclasses"),
            ("NetworkPolicy", "networkpolicies"),
            ("Endpoints", "endpoints"),
            ("EndpointSlice", "endpointslices"),
            ("ValidatingAdmissionPolicy", "validatingadmissionpolicies"),
            ("Gateway", "gateways"),
            ("ComponentStatus", "componentstatuses"),
            ("CSIStorageCapacity", "csistoragecapacities"),
            ("IPAddress", "ipaddresses"),
            ("Box", "boxes"),
            ("Quiz", "quizes"),
            ("Batch", "batches"),
            ("Mesh", "meshes"),
            ("Key", "keys"),
            ("", ""),
        ] {
            assert_eq!(plural(kind), resource, "{kind}");
        }
    }

    #[test]
    fn the_settings_name_irregular_plurals_by_kind_or_group_and_kind() {
        let overrides = BTreeMap::from([
            ("example.com/Octopus".to_string(), "octopi".to_string()),
            ("Person".to_string(), "People".to_string()),
        ]);
        assert_eq!(
            resource_name("example.com", "Octopus", &overrides),
            "octopi"
        );
        assert_eq!(
            resource_name("other.io", "Octopus", &overrides),
            "octopuses"
        );
        assert_eq!(resource_name("x.io", "Person", &overrides), "people");
        assert_eq!(
            resource_name("apps", "Deployment", &overrides),
            "deployments"
        );
    }
}
