//! Validation of written objects; failures become 422 `Invalid` with one cause per field.

use serde_json::Value;

use crate::api_error::{ApiError, StatusCause};
use crate::resource::ResourceType;
use weft_k8s::selector::LabelSelector;

/// Whether a name is a DNS-1123 subdomain: lowercase alphanumerics, `-` and `.`, at most 253 characters.
pub fn is_dns_subdomain(name: &str) -> bool {
    name.len() <= 253
        && !name.is_empty()
        && name.split('.').all(|part| is_dns_label_part(part, 253))
}

/// Whether a name is a DNS-1123 label: lowercase alphanumerics and `-`, at most 63 characters.
pub fn is_dns_label(name: &str) -> bool {
    is_dns_label_part(name, 63)
}

fn is_dns_label_part(part: &str, max: usize) -> bool {
    let bytes = part.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= max
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
}

fn is_label_value(value: &str) -> bool {
    value.is_empty()
        || (value.len() <= 63
            && value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
            && value
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric())
            && value
                .bytes()
                .last()
                .is_some_and(|b| b.is_ascii_alphanumeric()))
}

/// Checks an object before it is stored.
pub fn validate(resource: &ResourceType, object: &Value) -> Result<(), ApiError> {
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut causes = Vec::new();
    validate_metadata(resource, name, object, &mut causes);
    match (resource.group.as_str(), resource.kind.as_str()) {
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet") => {
            validate_workload(object, &mut causes);
        }
        ("batch", "Job") => validate_job(object.get("spec"), "spec", &mut causes),
        ("batch", "CronJob") => {
            if object
                .pointer("/spec/schedule")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                causes.push(StatusCause::required("spec.schedule"));
            }
            match object.pointer("/spec/jobTemplate/spec") {
                Some(spec) => validate_job(Some(spec), "spec.jobTemplate.spec", &mut causes),
                None => causes.push(StatusCause::required("spec.jobTemplate")),
            }
        }
        ("", "Pod") => validate_pod_spec(object.get("spec"), "spec", &mut causes),
        ("", "Service") => validate_service(object, &mut causes),
        ("", "ConfigMap" | "Secret") => validate_data_keys(object, &mut causes),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => {
            validate_definition(name, object, &mut causes)
        }
        _ => {}
    }
    if causes.is_empty() {
        Ok(())
    } else {
        Err(ApiError::invalid(
            &resource.group,
            &resource.kind,
            name,
            causes,
        ))
    }
}

fn validate_metadata(
    resource: &ResourceType,
    name: &str,
    object: &Value,
    causes: &mut Vec<StatusCause>,
) {
    let label_names = matches!(resource.kind.as_str(), "Namespace" | "Service");
    if name.is_empty() {
        causes.push(StatusCause::required("metadata.name"));
    } else if label_names && !is_dns_label(name) {
        causes.push(StatusCause::invalid(
            "metadata.name",
            name,
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        ));
    } else if !label_names && !resource.custom && !is_dns_subdomain(name) {
        causes.push(StatusCause::invalid(
            "metadata.name",
            name,
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        ));
    }
    if let Some(labels) = object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
    {
        for (key, value) in labels {
            let text = value.as_str().unwrap_or_default();
            if !value.is_string() || !is_label_value(text) {
                causes.push(StatusCause::invalid(
                    "metadata.labels",
                    text,
                    &format!("label value for key \"{key}\" must be 63 characters or less, beginning and ending with an alphanumeric character"),
                ));
            }
        }
    }
}

fn validate_workload(object: &Value, causes: &mut Vec<StatusCause>) {
    let Some(spec) = object.get("spec") else {
        causes.push(StatusCause::required("spec"));
        return;
    };
    if let Some(replicas) = spec.get("replicas").and_then(Value::as_i64)
        && replicas < 0
    {
        causes.push(StatusCause::invalid(
            "spec.replicas",
            &replicas.to_string(),
            "must be greater than or equal to 0",
        ));
    }
    let selector = spec.get("selector");
    let has_requirements = selector.is_some_and(|selector| {
        selector
            .get("matchLabels")
            .and_then(Value::as_object)
            .is_some_and(|m| !m.is_empty())
            || selector
                .get("matchExpressions")
                .and_then(Value::as_array)
                .is_some_and(|m| !m.is_empty())
    });
    if !has_requirements {
        causes.push(StatusCause::required("spec.selector"));
    }
    let Some(template) = spec.get("template") else {
        causes.push(StatusCause::required("spec.template"));
        return;
    };
    if has_requirements && !LabelSelector::from_object(selector).matches_object(template) {
        causes.push(StatusCause::invalid(
            "spec.template.metadata.labels",
            &template
                .pointer("/metadata/labels")
                .map(Value::to_string)
                .unwrap_or_default(),
            "`selector` does not match template `labels`",
        ));
    }
    validate_pod_spec(template.get("spec"), "spec.template.spec", causes);
}

fn validate_job(spec: Option<&Value>, at: &str, causes: &mut Vec<StatusCause>) {
    let Some(template) = spec.and_then(|spec| spec.get("template")) else {
        causes.push(StatusCause::required(&format!("{at}.template")));
        return;
    };
    let restart = template
        .pointer("/spec/restartPolicy")
        .and_then(Value::as_str)
        .unwrap_or("Always");
    if restart != "Never" && restart != "OnFailure" {
        causes.push(StatusCause {
            reason: "FieldValueNotSupported".to_owned(),
            message: format!(
                "Unsupported value: \"{restart}\": supported values: \"OnFailure\", \"Never\""
            ),
            field: format!("{at}.template.spec.restartPolicy"),
        });
    }
    validate_pod_spec(template.get("spec"), &format!("{at}.template.spec"), causes);
}

fn validate_pod_spec(spec: Option<&Value>, at: &str, causes: &mut Vec<StatusCause>) {
    let containers = spec
        .and_then(|spec| spec.get("containers"))
        .and_then(Value::as_array);
    let Some(containers) = containers.filter(|containers| !containers.is_empty()) else {
        causes.push(StatusCause::required(&format!("{at}.containers")));
        return;
    };
    let mut names = Vec::new();
    for (index, container) in containers.iter().enumerate() {
        let field = format!("{at}.containers[{index}]");
        match container.get("name").and_then(Value::as_str) {
            None | Some("") => causes.push(StatusCause::required(&format!("{field}.name"))),
            Some(name) if !is_dns_label(name) => causes.push(StatusCause::invalid(
                &format!("{field}.name"),
                name,
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'",
            )),
            Some(name) if names.contains(&name) => causes.push(StatusCause {
                reason: "FieldValueDuplicate".to_owned(),
                message: format!("Duplicate value: \"{name}\""),
                field: format!("{field}.name"),
            }),
            Some(name) => names.push(name),
        }
        if container
            .get("image")
            .and_then(Value::as_str)
            .is_none_or(|image| image.trim().is_empty())
        {
            causes.push(StatusCause::required(&format!("{field}.image")));
        }
    }
}

fn validate_service(object: &Value, causes: &mut Vec<StatusCause>) {
    let service_type = object
        .pointer("/spec/type")
        .and_then(Value::as_str)
        .unwrap_or("ClusterIP");
    if !matches!(
        service_type,
        "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName"
    ) {
        causes.push(StatusCause {
            reason: "FieldValueNotSupported".to_owned(),
            message: format!("Unsupported value: \"{service_type}\""),
            field: "spec.type".to_owned(),
        });
    }
    let headless = object.pointer("/spec/clusterIP").and_then(Value::as_str) == Some("None");
    let ports = object.pointer("/spec/ports").and_then(Value::as_array);
    if service_type != "ExternalName" && !headless && ports.is_none_or(Vec::is_empty) {
        causes.push(StatusCause::required("spec.ports"));
    }
    for (index, port) in ports.into_iter().flatten().enumerate() {
        match port.get("port").and_then(Value::as_i64) {
            Some(number) if (1..=65535).contains(&number) => {}
            Some(number) => causes.push(StatusCause::invalid(
                &format!("spec.ports[{index}].port"),
                &number.to_string(),
                "must be between 1 and 65535, inclusive",
            )),
            None => causes.push(StatusCause::required(&format!("spec.ports[{index}].port"))),
        }
    }
}

fn validate_data_keys(object: &Value, causes: &mut Vec<StatusCause>) {
    for field in ["data", "binaryData", "stringData"] {
        for key in object
            .get(field)
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|map| map.keys())
        {
            let valid = !key.is_empty()
                && key.len() <= 253
                && key
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
            if !valid {
                causes.push(StatusCause::invalid(
                    &format!("{field}[{key}]"),
                    key,
                    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                ));
            }
        }
    }
}

fn validate_definition(name: &str, object: &Value, causes: &mut Vec<StatusCause>) {
    let text = |pointer: &str| {
        object
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let group = text("/spec/group");
    let plural = text("/spec/names/plural");
    if group.is_empty() {
        causes.push(StatusCause::required("spec.group"));
    }
    if plural.is_empty() {
        causes.push(StatusCause::required("spec.names.plural"));
    }
    if text("/spec/names/kind").is_empty() {
        causes.push(StatusCause::required("spec.names.kind"));
    }
    if object
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        causes.push(StatusCause::required("spec.versions"));
    }
    if !group.is_empty() && !plural.is_empty() && name != format!("{plural}.{group}") {
        causes.push(StatusCause::invalid(
            "metadata.name",
            name,
            "must be spec.names.plural+\".\"+spec.group",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::builtin_type;
    use serde_json::json;

    fn resource(kind: &str) -> std::sync::Arc<ResourceType> {
        builtin_type(kind).expect("builtin")
    }

    #[test]
    fn names_follow_dns_rules() {
        assert!(is_dns_subdomain("web.example-1"));
        assert!(!is_dns_subdomain("Web"));
        assert!(!is_dns_subdomain("-web"));
        assert!(is_dns_label("web-1"));
        assert!(!is_dns_label("web.1"));
        let error = validate(
            &resource("ConfigMap"),
            &json!({"metadata": {"name": "Bad_Name"}}),
        )
        .expect_err("invalid");
        assert_eq!(error.code(), 422);
    }

    #[test]
    fn deployments_need_a_matching_selector_and_images() {
        let deployment = json!({"metadata": {"name": "web"}, "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "other"}}, "spec": {"containers": [{"name": "a"}]}}
        }});
        let Err(ApiError::Invalid { causes, .. }) = validate(&resource("Deployment"), &deployment)
        else {
            panic!("expected Invalid");
        };
        let fields: Vec<&str> = causes.iter().map(|cause| cause.field.as_str()).collect();
        assert_eq!(
            fields,
            vec![
                "spec.template.metadata.labels",
                "spec.template.spec.containers[0].image"
            ]
        );
    }

    #[test]
    fn a_valid_deployment_passes() {
        let deployment = json!({"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "a", "image": "a:1"}]}}
        }});
        assert!(validate(&resource("Deployment"), &deployment).is_ok());
    }

    #[test]
    fn jobs_refuse_restart_always_and_services_need_ports() {
        let job = json!({"metadata": {"name": "j"}, "spec": {"template": {"spec": {
            "restartPolicy": "Always", "containers": [{"name": "a", "image": "a"}]}}}});
        assert!(validate(&resource("Job"), &job).is_err());
        let service = json!({"metadata": {"name": "s"}, "spec": {"ports": []}});
        assert!(validate(&resource("Service"), &service).is_err());
    }
}
