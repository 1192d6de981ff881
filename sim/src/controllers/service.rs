//! The service and ingress controllers: LoadBalancer Services and Ingresses get an ingress IP.

use serde_json::json;

use super::context::{Context, is_deleting, text};

/// The address every simulated Ingress is published at.
pub const INGRESS_ADDRESS: &str = "172.18.255.200";

/// Runs one pass over Services and Ingresses.
pub fn reconcile(context: &Context) {
    for service in context.due("", "services") {
        if is_deleting(&service) || text(&service, "/spec/type") != "LoadBalancer" {
            continue;
        }
        if service
            .pointer("/status/loadBalancer/ingress/0/ip")
            .is_some()
        {
            continue;
        }
        let ip = context.server.ids().load_balancer_ip();
        let status = json!({"loadBalancer": {"ingress": [{"ip": ip, "ipMode": "VIP"}]}});
        context.write_status("", "services", &service, status, "service-controller");
    }
    for ingress in context.due("networking.k8s.io", "ingresses") {
        if is_deleting(&ingress)
            || ingress
                .pointer("/status/loadBalancer/ingress/0/ip")
                .is_some()
        {
            continue;
        }
        let status = json!({"loadBalancer": {"ingress": [{"ip": INGRESS_ADDRESS}]}});
        context.write_status(
            "networking.k8s.io",
            "ingresses",
            &ingress,
            status,
            "ingress-controller",
        );
    }
}
