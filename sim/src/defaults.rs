//! Defaulted fields, filled in on every write as kube-apiserver does, so a dry-run shows them.

use serde_json::{Map, Value, json};

use crate::ids::IdSource;
use crate::resource::ResourceType;

/// Fills in the defaults for an object of a resource.
pub fn apply_defaults(resource: &ResourceType, object: &mut Value, ids: &IdSource) {
    match (resource.group.as_str(), resource.kind.as_str()) {
        ("apps", "Deployment") => {
            let spec = child(object, "spec");
            set_default(spec, "replicas", json!(1));
            set_default(spec, "revisionHistoryLimit", json!(10));
            set_default(spec, "progressDeadlineSeconds", json!(600));
            let strategy = child(spec, "strategy");
            set_default(strategy, "type", json!("RollingUpdate"));
            if strategy.get("type") == Some(&json!("RollingUpdate")) {
                let rolling = child(strategy, "rollingUpdate");
                set_default(rolling, "maxSurge", json!("25%"));
                set_default(rolling, "maxUnavailable", json!("25%"));
            }
            default_template(spec);
        }
        ("apps", "ReplicaSet") => {
            let spec = child(object, "spec");
            set_default(spec, "replicas", json!(1));
            default_template(spec);
        }
        ("apps", "StatefulSet") => {
            let spec = child(object, "spec");
            set_default(spec, "replicas", json!(1));
            set_default(spec, "podManagementPolicy", json!("OrderedReady"));
            set_default(spec, "revisionHistoryLimit", json!(10));
            let strategy = child(spec, "updateStrategy");
            set_default(strategy, "type", json!("RollingUpdate"));
            default_template(spec);
        }
        ("apps", "DaemonSet") => {
            let spec = child(object, "spec");
            set_default(spec, "revisionHistoryLimit", json!(10));
            let strategy = child(spec, "updateStrategy");
            set_default(strategy, "type", json!("RollingUpdate"));
            default_template(spec);
        }
        ("batch", "Job") => {
            default_job_selector(object);
            let spec = child(object, "spec");
            set_default(spec, "backoffLimit", json!(6));
            set_default(spec, "completions", json!(1));
            set_default(spec, "parallelism", json!(1));
            default_template(spec);
        }
        ("batch", "CronJob") => {
            let spec = child(object, "spec");
            set_default(spec, "concurrencyPolicy", json!("Allow"));
            set_default(spec, "suspend", json!(false));
            set_default(spec, "successfulJobsHistoryLimit", json!(3));
            set_default(spec, "failedJobsHistoryLimit", json!(1));
            if let Some(job_spec) = spec.pointer_mut("/jobTemplate/spec") {
                default_template(job_spec);
            }
        }
        ("", "Pod") => default_pod_spec(child(object, "spec")),
        ("", "Service") => default_service(object, ids),
        ("", "Namespace") => {
            let status = child(object, "status");
            set_default(status, "phase", json!("Active"));
        }
        ("", "PersistentVolumeClaim") => {
            let spec = child(object, "spec");
            set_default(spec, "volumeMode", json!("Filesystem"));
        }
        ("", "Secret") => {
            fold_string_data(object);
            set_default(object_map(object), "type", json!("Opaque"));
        }
        _ => {}
    }
}

/// A Secret's `stringData` is write-only, as in kube-apiserver: each entry is base64-encoded into `data` (where it
/// wins over an entry of the same key) and the field is dropped, so it is never stored or returned.
fn fold_string_data(object: &mut Value) {
    use base64::Engine as _;
    let Some(map) = object.as_object_mut() else {
        return;
    };
    let Some(Value::Object(plain)) = map.remove("stringData") else {
        return;
    };
    let data = map
        .entry("data")
        .or_insert_with(|| Value::Object(Map::new()));
    if !data.is_object() {
        *data = Value::Object(Map::new());
    }
    if let Value::Object(data) = data {
        for (key, value) in plain {
            if let Value::String(text) = value {
                data.insert(
                    key,
                    Value::String(base64::engine::general_purpose::STANDARD.encode(text)),
                );
            }
        }
    }
}

/// The status a new object of a built-in kind with a status starts with, as kube-apiserver answers a create: an
/// empty status (a Service's with an empty load balancer), a CustomResourceDefinition's with its storage version
/// recorded. Controllers fill it in later.
pub fn initial_status(resource: &ResourceType, object: &Value) -> Option<Value> {
    if resource.custom || !resource.status_subresource || object.get("status").is_some() {
        return None;
    }
    Some(match (resource.group.as_str(), resource.kind.as_str()) {
        ("", "Service") => json!({"loadBalancer": {}}),
        ("", "Pod") => json!({"phase": "Pending", "qosClass": qos_class(object)}),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => {
            let stored: Vec<Value> = object
                .pointer("/spec/versions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|version| version.get("storage").and_then(Value::as_bool) == Some(true))
                .filter_map(|version| version.get("name").cloned())
                .collect();
            json!({"acceptedNames": {"kind": "", "plural": ""}, "storedVersions": stored})
        }
        _ => json!({}),
    })
}

/// A pod's quality-of-service class: `Guaranteed` when every container's CPU and memory limits are set and equal
/// its requests (requests default to limits), `BestEffort` when no container asks for or limits anything, else
/// `Burstable`.
fn qos_class(pod: &Value) -> &'static str {
    let containers: Vec<&Value> = ["containers", "initContainers"]
        .iter()
        .filter_map(|field| {
            pod.pointer(&format!("/spec/{field}"))
                .and_then(Value::as_array)
        })
        .flatten()
        .collect();
    let resources = |container: &Value, kind: &str, name: &str| {
        container
            .pointer(&format!("/resources/{kind}/{name}"))
            .cloned()
    };
    let any_set = containers.iter().any(|container| {
        ["requests", "limits"].iter().any(|kind| {
            container
                .pointer(&format!("/resources/{kind}"))
                .and_then(Value::as_object)
                .is_some_and(|map| !map.is_empty())
        })
    });
    if !any_set {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|container| {
        ["cpu", "memory"].iter().all(|name| {
            let limit = resources(container, "limits", name);
            let request = resources(container, "requests", name).or_else(|| limit.clone());
            limit.is_some() && limit == request
        })
    });
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

fn object_map(value: &mut Value) -> &mut Value {
    if !value.is_object() {
        *value = Value::Object(Map::new());
    }
    value
}

fn child<'a>(parent: &'a mut Value, key: &str) -> &'a mut Value {
    let parent = object_map(parent);
    let Value::Object(map) = parent else {
        unreachable!("object_map makes an object")
    };
    let slot = map
        .entry(key.to_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    slot
}

fn set_default(parent: &mut Value, key: &str, value: Value) {
    if let Value::Object(map) = parent
        && map.get(key).is_none_or(Value::is_null)
    {
        map.insert(key.to_owned(), value);
    }
}

/// Jobs select their pods by the job's uid unless they bring their own selector, as kube-apiserver does.
fn default_job_selector(object: &mut Value) {
    let uid = object
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if uid.is_empty() || object.pointer("/spec/selector").is_some() {
        return;
    }
    let spec = child(object, "spec");
    spec["selector"] = json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}});
    let labels = child(child(child(spec, "template"), "metadata"), "labels");
    for (key, value) in [
        ("batch.kubernetes.io/controller-uid", &uid),
        ("batch.kubernetes.io/job-name", &name),
        ("controller-uid", &uid),
        ("job-name", &name),
    ] {
        set_default(labels, key, json!(value));
    }
}

fn default_template(spec: &mut Value) {
    if spec.get("template").is_some_and(Value::is_object) {
        let template = child(spec, "template");
        default_pod_spec(child(template, "spec"));
    }
}

fn default_pod_spec(spec: &mut Value) {
    set_default(spec, "restartPolicy", json!("Always"));
    set_default(spec, "terminationGracePeriodSeconds", json!(30));
    set_default(spec, "dnsPolicy", json!("ClusterFirst"));
    set_default(spec, "schedulerName", json!("default-scheduler"));
    set_default(spec, "securityContext", json!({}));
    for list in ["containers", "initContainers"] {
        if let Some(Value::Array(containers)) = spec.get_mut(list) {
            containers.iter_mut().for_each(default_container);
        }
    }
}

fn default_container(container: &mut Value) {
    let image = container
        .get("image")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let tag = image.rsplit('/').next().unwrap_or_default();
    let pull_policy = if !tag.contains(':') || tag.ends_with(":latest") {
        "Always"
    } else {
        "IfNotPresent"
    };
    set_default(container, "imagePullPolicy", json!(pull_policy));
    set_default(
        container,
        "terminationMessagePath",
        json!("/dev/termination-log"),
    );
    set_default(container, "terminationMessagePolicy", json!("File"));
    set_default(container, "resources", json!({}));
    if let Some(Value::Array(ports)) = container.get_mut("ports") {
        for port in ports {
            set_default(port, "protocol", json!("TCP"));
        }
    }
}

fn default_service(object: &mut Value, ids: &IdSource) {
    let spec = child(object, "spec");
    set_default(spec, "type", json!("ClusterIP"));
    set_default(spec, "sessionAffinity", json!("None"));
    let service_type = spec
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("ClusterIP")
        .to_owned();
    if service_type != "ExternalName" {
        if spec.get("clusterIP").is_none_or(Value::is_null) {
            set_default(spec, "clusterIP", json!(ids.cluster_ip()));
        }
        let cluster_ip = spec.get("clusterIP").cloned().unwrap_or(Value::Null);
        set_default(spec, "clusterIPs", json!([cluster_ip]));
        set_default(spec, "ipFamilies", json!(["IPv4"]));
        set_default(spec, "ipFamilyPolicy", json!("SingleStack"));
        set_default(spec, "internalTrafficPolicy", json!("Cluster"));
    }
    let node_ports = service_type == "NodePort" || service_type == "LoadBalancer";
    if node_ports {
        set_default(spec, "externalTrafficPolicy", json!("Cluster"));
    }
    if let Some(Value::Array(ports)) = spec.get_mut("ports") {
        for (index, port) in ports.iter_mut().enumerate() {
            set_default(port, "protocol", json!("TCP"));
            let number = port.get("port").cloned().unwrap_or(Value::Null);
            set_default(port, "targetPort", number.clone());
            if node_ports {
                let base = number.as_u64().unwrap_or(0) % 2000;
                set_default(port, "nodePort", json!(30000 + base + index as u64));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::builtin_type;

    fn resource(kind: &str) -> std::sync::Arc<ResourceType> {
        builtin_type(kind).expect("builtin")
    }

    #[test]
    fn a_secrets_string_data_is_folded_into_data_and_never_kept() {
        let mut secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
            "data": {"user": "YWRtaW4=", "password": "b2xk"}, "stringData": {"password": "new", "token": "t"}});
        apply_defaults(&resource("Secret"), &mut secret, &IdSource::default());
        assert!(secret.get("stringData").is_none(), "{secret}");
        assert_eq!(
            secret["data"],
            json!({"user": "YWRtaW4=", "password": "bmV3", "token": "dA=="})
        );
        assert_eq!(secret["type"], "Opaque");
    }

    #[test]
    fn deployments_get_replicas_strategy_and_container_defaults() {
        let mut deployment = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a", "image": "nginx:1.27", "ports": [{"containerPort": 80}]},
            {"name": "b", "image": "busybox"}
        ]}}}});
        apply_defaults(
            &resource("Deployment"),
            &mut deployment,
            &IdSource::default(),
        );
        assert_eq!(deployment["spec"]["replicas"], 1);
        assert_eq!(
            deployment["spec"]["strategy"]["rollingUpdate"]["maxSurge"],
            "25%"
        );
        let containers = &deployment["spec"]["template"]["spec"]["containers"];
        assert_eq!(containers[0]["imagePullPolicy"], "IfNotPresent");
        assert_eq!(containers[0]["ports"][0]["protocol"], "TCP");
        assert_eq!(containers[1]["imagePullPolicy"], "Always");
        assert_eq!(
            deployment["spec"]["template"]["spec"]["restartPolicy"],
            "Always"
        );
    }

    #[test]
    fn a_new_object_starts_with_the_status_kube_apiserver_gives_it() {
        let deployment = json!({"spec": {}});
        assert_eq!(
            initial_status(&resource("Deployment"), &deployment),
            Some(json!({}))
        );
        let best_effort = json!({"spec": {"containers": [{"name": "a", "image": "x"}]}});
        assert_eq!(
            initial_status(&resource("Pod"), &best_effort),
            Some(json!({"phase": "Pending", "qosClass": "BestEffort"}))
        );
        let guaranteed = json!({"spec": {"containers": [{"name": "a", "image": "x",
            "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]}});
        assert_eq!(
            initial_status(&resource("Pod"), &guaranteed).map(|status| status["qosClass"].clone()),
            Some(json!("Guaranteed"))
        );
        let definition = json!({"spec": {"versions": [{"name": "v1alpha1", "storage": false},
            {"name": "v1", "storage": true}]}});
        assert_eq!(
            initial_status(&resource("CustomResourceDefinition"), &definition)
                .map(|status| status["storedVersions"].clone()),
            Some(json!(["v1"]))
        );
        assert_eq!(initial_status(&resource("ConfigMap"), &json!({})), None);
    }

    #[test]
    fn explicit_values_are_kept() {
        let mut deployment = json!({"spec": {"replicas": 0, "strategy": {"type": "Recreate"}}});
        apply_defaults(
            &resource("Deployment"),
            &mut deployment,
            &IdSource::default(),
        );
        assert_eq!(deployment["spec"]["replicas"], 0);
        assert!(
            deployment["spec"]["strategy"]
                .get("rollingUpdate")
                .is_none()
        );
    }

    #[test]
    fn services_get_a_cluster_ip_and_target_ports() {
        let mut service = json!({"spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}});
        apply_defaults(&resource("Service"), &mut service, &IdSource::default());
        assert!(
            service["spec"]["clusterIP"]
                .as_str()
                .is_some_and(|ip| ip.starts_with("10.96."))
        );
        assert_eq!(service["spec"]["ports"][0]["targetPort"], 80);
        assert!(
            service["spec"]["ports"][0]["nodePort"]
                .as_u64()
                .is_some_and(|port| port >= 30000)
        );
    }
}
