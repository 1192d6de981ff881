//! Health of networking and serving custom resources (Gateway API, Gloo, Contour, Istio, Kiali, Airlock, OpenShift,
//! Knative, KServe, KEDA, OpenFaaS) with the verdicts and messages of Argo CD's health scripts, so teams moving from
//! Argo CD see the same answers.
//!
//! One module per upstream project; [`TABLE`] maps each `group/Kind` key to its rule.

mod airlock;
mod contour;
mod gateway_api;
mod gloo;
mod istio;
mod keda;
mod kiali;
mod knative;
mod kserve;
mod openfaas;
mod openshift;

use weft_sdk::rule;
use weft_sdk::{Context, Health, HealthCheck, KindTable, Object, PluginError};

/// Every kind this plugin serves, as Argo CD's customization directories name them (`*` for its `_` wildcard).
static TABLE: KindTable = KindTable::new(&[
    (
        "gateway.networking.k8s.io/BackendTLSPolicy",
        rule!(gateway_api::backend_tls_policy),
    ),
    (
        "gateway.networking.k8s.io/GRPCRoute",
        rule!(gateway_api::grpc_route),
    ),
    (
        "gateway.networking.k8s.io/Gateway",
        rule!(gateway_api::gateway),
    ),
    (
        "gateway.networking.k8s.io/GatewayClass",
        rule!(gateway_api::gateway_class),
    ),
    (
        "gateway.networking.k8s.io/HTTPRoute",
        rule!(gateway_api::http_route),
    ),
    ("gateway.solo.io/Gateway", rule!(gloo::resource)),
    (
        "gateway.solo.io/MatchableHttpGateway",
        rule!(gloo::resource),
    ),
    ("gateway.solo.io/RouteOption", rule!(gloo::resource)),
    ("gateway.solo.io/RouteTable", rule!(gloo::resource)),
    ("gateway.solo.io/VirtualHostOption", rule!(gloo::resource)),
    ("gateway.solo.io/VirtualService", rule!(gloo::resource)),
    ("gloo.solo.io/Proxy", rule!(gloo::resource)),
    ("gloo.solo.io/Settings", rule!(gloo::resource)),
    ("gloo.solo.io/Upstream", rule!(gloo::resource)),
    ("gloo.solo.io/UpstreamGroup", rule!(gloo::resource)),
    (
        "projectcontour.io/ExtensionService",
        rule!(contour::extension_service),
    ),
    ("projectcontour.io/HTTPProxy", rule!(contour::http_proxy)),
    (
        "install.istio.io/IstioOperator",
        rule!(istio::istio_operator),
    ),
    ("kiali.io/Kiali", rule!(kiali::kiali)),
    ("microgateway.airlock.com/*", rule!(airlock::resource)),
    ("route.openshift.io/Route", rule!(openshift::route)),
    (
        "apps.openshift.io/DeploymentConfig",
        rule!(openshift::deployment_config),
    ),
    (
        "operator.openshift.io/IngressController",
        rule!(openshift::ingress_controller),
    ),
    ("serving.knative.dev/Service", rule!(knative::service)),
    (
        "operator.knative.dev/KnativeEventing",
        rule!(knative::knative_eventing),
    ),
    (
        "operator.knative.dev/KnativeServing",
        rule!(knative::knative_serving),
    ),
    (
        "serving.kserve.io/InferenceService",
        rule!(kserve::inference_service),
    ),
    ("keda.sh/ScaledJob", rule!(keda::scaled_job)),
    ("keda.sh/ScaledObject", rule!(keda::scaled_object)),
    ("openfaas.com/Function", rule!(openfaas::function)),
]);

/// The plugin: dispatches on group and kind through [`TABLE`].
#[derive(Debug)]
pub struct NetworkHealth;

impl HealthCheck for NetworkHealth {
    fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        TABLE.assess(obj, cx)
    }
}

weft_sdk::export_health_check!(NetworkHealth);

#[cfg(test)]
mod tests {
    use std::path::Path;

    use weft_sdk::testing::assess_yaml;

    use super::*;

    /// The customization groups of Argo CD's corpus this plugin answers for.
    const GROUPS: [&str; 15] = [
        "gateway.networking.k8s.io",
        "gateway.solo.io",
        "gloo.solo.io",
        "projectcontour.io",
        "install.istio.io",
        "kiali.io",
        "microgateway.airlock.com",
        "route.openshift.io",
        "apps.openshift.io",
        "operator.openshift.io",
        "serving.knative.dev",
        "operator.knative.dev",
        "serving.kserve.io",
        "keda.sh",
        "openfaas.com",
    ];

    #[test]
    fn argocd_corpus() {
        let cases = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/conformance/argocd/cases.json"
        ));
        weft_sdk::testing::assert_corpus_groups::<NetworkHealth>(cases, &GROUPS);
    }

    #[test]
    fn manifest_lists_every_table_key() {
        weft_sdk::testing::assert_manifest_lists(include_str!("../weft-plugin.toml"), &TABLE);
    }

    #[test]
    fn other_kinds_are_unsupported() {
        let err =
            assess_yaml::<NetworkHealth>("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}")
                .unwrap_err();
        assert_eq!(err.kind, weft_sdk::ErrorKind::Unsupported);
    }
}
