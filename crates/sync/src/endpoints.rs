//! Where an app can be reached, from its live objects: Ingress hosts and paths (https where the Ingress has TLS for
//! the host) and LoadBalancer addresses, for the fleet list.

use std::collections::BTreeSet;

use serde_json::Value;

/// The app's endpoints, sorted and without duplicates.
pub fn endpoints(live: &[Value]) -> Vec<String> {
    let mut found = BTreeSet::new();
    for object in live {
        match object.get("kind").and_then(Value::as_str) {
            Some("Ingress") => ingress_endpoints(object, &mut found),
            Some("Service") => service_endpoints(object, &mut found),
            _ => {}
        }
    }
    found.into_iter().collect()
}

fn ingress_endpoints(ingress: &Value, found: &mut BTreeSet<String>) {
    let tls_hosts: BTreeSet<&str> = ingress
        .pointer("/spec/tls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|tls| {
            tls.get("hosts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .filter_map(Value::as_str)
        .collect();
    for rule in ingress
        .pointer("/spec/rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(host) = rule
            .get("host")
            .and_then(Value::as_str)
            .filter(|h| !h.is_empty())
        else {
            continue;
        };
        let scheme = if tls_hosts.contains(host) {
            "https"
        } else {
            "http"
        };
        let paths: Vec<&str> = rule
            .pointer("/http/paths")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| p.get("path").and_then(Value::as_str))
            .collect();
        if paths.is_empty() {
            found.insert(format!("{scheme}://{host}/"));
        }
        for path in paths {
            let path = if path.starts_with('/') {
                path.to_string()
            } else {
                format!("/{path}")
            };
            found.insert(format!("{scheme}://{host}{path}"));
        }
    }
}

fn service_endpoints(service: &Value, found: &mut BTreeSet<String>) {
    if service.pointer("/spec/type").and_then(Value::as_str) != Some("LoadBalancer") {
        return;
    }
    let ports: Vec<i64> = service
        .pointer("/spec/ports")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("port").and_then(Value::as_i64))
        .collect();
    for ingress in service
        .pointer("/status/loadBalancer/ingress")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(address) = ingress
            .get("hostname")
            .or_else(|| ingress.get("ip"))
            .and_then(Value::as_str)
        else {
            continue;
        };
        for port in &ports {
            found.insert(format!("{address}:{port}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ingresses_and_load_balancers_are_endpoints() {
        let live = vec![
            json!({"kind": "Ingress", "spec": {"tls": [{"hosts": ["shop.example.com"]}], "rules": [
                {"host": "shop.example.com", "http": {"paths": [{"path": "/"}, {"path": "api"}]}},
                {"host": "admin.example.com"},
                {"http": {"paths": [{"path": "/nohost"}]}}]}}),
            json!({"kind": "Service", "spec": {"type": "LoadBalancer", "ports": [{"port": 443}]},
                   "status": {"loadBalancer": {"ingress": [{"ip": "203.0.113.7"}]}}}),
            json!({"kind": "Service", "spec": {"type": "ClusterIP", "ports": [{"port": 80}]}}),
        ];
        assert_eq!(
            endpoints(&live),
            vec![
                "203.0.113.7:443",
                "http://admin.example.com/",
                "https://shop.example.com/",
                "https://shop.example.com/api",
            ]
        );
        assert!(endpoints(&[]).is_empty());
    }
}
