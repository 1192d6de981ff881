//! The `applications.weft.dev` CustomResourceDefinition as shipped in `deploy/crds/`, and where its resources are
//! served.

use kube::api::{ApiResource, GroupVersionKind};
use serde_json::Value;

/// The definition's name.
pub const NAME: &str = "applications.weft.dev";
/// The API group.
pub const GROUP: &str = "weft.dev";
/// The served version.
pub const VERSION: &str = "v1alpha1";
/// The kind.
pub const KIND: &str = "Application";
/// The resource's plural.
pub const PLURAL: &str = "applications";

/// The ApplicationSet definition's name.
pub const SET_NAME: &str = "applicationsets.weft.dev";
/// The ApplicationSet kind.
pub const SET_KIND: &str = "ApplicationSet";
/// The ApplicationSet resource's plural.
pub const SET_PLURAL: &str = "applicationsets";
/// The ApplicationSet definition's text.
pub const SET_DEFINITION_YAML: &str =
    include_str!("../../../deploy/crds/applicationsets.weft.dev.yaml");

/// The ApplicationSet definition as an object.
pub fn set_definition() -> Result<Value, serde_norway::Error> {
    serde_norway::from_str(SET_DEFINITION_YAML)
}

/// The ApplicationSet resource, for a dynamic client.
pub fn set_api_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(GROUP, VERSION, SET_KIND), SET_PLURAL)
}

/// The finalizer that makes deleting an Application delete its app's objects first (Argo CD's
/// `resources-finalizer.argocd.argoproj.io`); without it they are left running and reported as orphaned.
pub const RESOURCES_FINALIZER: &str = "weft.dev/resources-finalizer";

/// The definition's text, as `kubectl apply -f` takes it.
pub const DEFINITION_YAML: &str = include_str!("../../../deploy/crds/applications.weft.dev.yaml");

/// The definition as an object.
pub fn definition() -> Result<Value, serde_norway::Error> {
    serde_norway::from_str(DEFINITION_YAML)
}

/// The resource, for a dynamic client.
pub fn api_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(GROUP, VERSION, KIND), PLURAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_charts_definitions_are_the_ones_weft_installs() {
        // Helm installs the chart's crds/ for a namespaced install, which cannot install them itself.
        assert_eq!(
            include_str!("../../../deploy/helm/weft/crds/applications.weft.dev.yaml"),
            DEFINITION_YAML
        );
        assert_eq!(
            include_str!("../../../deploy/helm/weft/crds/applicationsets.weft.dev.yaml"),
            SET_DEFINITION_YAML
        );
    }

    #[test]
    fn the_shipped_definition_serves_the_version_and_kind_the_controller_watches() {
        let definition = definition().unwrap();
        assert_eq!(definition["metadata"]["name"], NAME);
        assert_eq!(definition["spec"]["group"], GROUP);
        assert_eq!(definition["spec"]["names"]["kind"], KIND);
        assert_eq!(definition["spec"]["names"]["plural"], PLURAL);
        let version = &definition["spec"]["versions"][0];
        assert_eq!(version["name"], VERSION);
        assert_eq!(version["served"], true);
        assert!(version["subresources"]["status"].is_object());
        let columns: Vec<&str> = version["additionalPrinterColumns"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["name"].as_str())
            .collect();
        assert_eq!(columns, ["Sync", "Health", "Revision", "Age"]);
    }

    #[test]
    fn the_shipped_set_definition_serves_the_kind_the_set_controller_watches() {
        let definition = set_definition().unwrap();
        assert_eq!(definition["metadata"]["name"], SET_NAME);
        assert_eq!(definition["spec"]["group"], GROUP);
        assert_eq!(definition["spec"]["names"]["kind"], SET_KIND);
        assert_eq!(definition["spec"]["names"]["plural"], SET_PLURAL);
        let version = &definition["spec"]["versions"][0];
        assert_eq!(version["name"], VERSION);
        assert!(version["subresources"]["status"].is_object());
    }
}
