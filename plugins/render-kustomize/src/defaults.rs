//! Kustomize's default field specs: where labels, annotations, namespaces and replica counts go, and which
//! fields of which kinds refer to other objects by name. The tables follow Kustomize's built-in configuration.

use crate::fieldpath::FieldSpec;
use crate::resid::Gvk;

fn spec(path: &str, group: &str, version: &str, kind: &str, create: bool) -> FieldSpec {
    FieldSpec::new(path, Gvk::selector(group, version, kind), create)
}

/// Where pod templates sit in each workload kind: `(group, version, kind, path to the template's metadata)`.
const TEMPLATE_METADATA: &[(&str, &str, &str, &str)] = &[
    ("", "v1", "ReplicationController", "spec/template/metadata"),
    ("", "", "Deployment", "spec/template/metadata"),
    ("", "", "ReplicaSet", "spec/template/metadata"),
    ("", "", "DaemonSet", "spec/template/metadata"),
    ("apps", "", "StatefulSet", "spec/template/metadata"),
    ("batch", "", "Job", "spec/template/metadata"),
    ("batch", "", "CronJob", "spec/jobTemplate/metadata"),
    (
        "batch",
        "",
        "CronJob",
        "spec/jobTemplate/spec/template/metadata",
    ),
];

/// Labels on metadata and pod templates (the `labels` entries with `includeTemplates`).
pub fn template_labels() -> Vec<FieldSpec> {
    let mut specs = vec![spec("metadata/labels", "", "", "", true)];
    for (group, version, kind, meta) in TEMPLATE_METADATA {
        specs.push(spec(&format!("{meta}/labels"), group, version, kind, true));
        if *kind == "StatefulSet" {
            specs.push(spec(
                "spec/volumeClaimTemplates[]/metadata/labels",
                "apps",
                "",
                "StatefulSet",
                true,
            ));
        }
    }
    specs
}

/// Labels everywhere `commonLabels` puts them: metadata, templates and selectors.
pub fn common_labels() -> Vec<FieldSpec> {
    let affinity = [
        "spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
        "spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
        "spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
        "spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
        "spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels",
    ];
    let mut specs = vec![
        spec("spec/selector", "", "v1", "Service", true),
        spec("spec/selector", "", "v1", "ReplicationController", true),
        spec("spec/selector/matchLabels", "", "", "Deployment", true),
    ];
    specs.extend(
        affinity
            .iter()
            .map(|p| spec(p, "apps", "", "Deployment", false)),
    );
    specs.push(spec(
        "spec/selector/matchLabels",
        "",
        "",
        "ReplicaSet",
        true,
    ));
    specs.push(spec("spec/selector/matchLabels", "", "", "DaemonSet", true));
    specs.push(spec(
        "spec/selector/matchLabels",
        "apps",
        "",
        "StatefulSet",
        true,
    ));
    specs.push(spec(
        "spec/volumeClaimTemplates[]/metadata/labels",
        "apps",
        "",
        "StatefulSet",
        true,
    ));
    specs.extend(
        affinity
            .iter()
            .map(|p| spec(p, "apps", "", "StatefulSet", false)),
    );
    specs.extend([
        spec("spec/selector/matchLabels", "batch", "", "Job", false),
        spec(
            "spec/jobTemplate/spec/selector/matchLabels",
            "batch",
            "",
            "CronJob",
            false,
        ),
        spec(
            "spec/selector/matchLabels",
            "policy",
            "",
            "PodDisruptionBudget",
            false,
        ),
        spec(
            "spec/podSelector/matchLabels",
            "networking.k8s.io",
            "",
            "NetworkPolicy",
            false,
        ),
        spec(
            "spec/ingress/from/podSelector/matchLabels",
            "networking.k8s.io",
            "",
            "NetworkPolicy",
            false,
        ),
        spec(
            "spec/egress/to/podSelector/matchLabels",
            "networking.k8s.io",
            "",
            "NetworkPolicy",
            false,
        ),
    ]);
    for template in template_labels() {
        if !specs.contains(&template) {
            specs.push(template);
        }
    }
    specs
}

/// Annotations on metadata and pod templates (`commonAnnotations`).
pub fn common_annotations() -> Vec<FieldSpec> {
    let mut specs = vec![spec("metadata/annotations", "", "", "", true)];
    for (group, version, kind, meta) in TEMPLATE_METADATA {
        specs.push(spec(
            &format!("{meta}/annotations"),
            group,
            version,
            kind,
            true,
        ));
    }
    specs
}

/// Where replica counts go.
pub fn replicas() -> Vec<FieldSpec> {
    [
        "Deployment",
        "ReplicationController",
        "ReplicaSet",
        "StatefulSet",
    ]
    .into_iter()
    .map(|kind| spec("spec/replicas", "", "", kind, true))
    .collect()
}

/// Namespace fields besides `metadata/namespace` (which the namespace transformer handles itself); a
/// `Namespace` object takes the namespace as its name.
pub fn namespace_fields() -> Vec<FieldSpec> {
    vec![
        spec("metadata/name", "", "", "Namespace", true),
        spec(
            "spec/service/namespace",
            "apiregistration.k8s.io",
            "",
            "APIService",
            true,
        ),
        spec(
            "spec/conversion/webhook/clientConfig/service/namespace",
            "apiextensions.k8s.io",
            "",
            "CustomResourceDefinition",
            false,
        ),
    ]
}

/// Where `vars` are substituted (`$(NAME)`): container commands, arguments, env values and mount paths of
/// every workload, NFS servers, some Service and Ingress fields, and labels and annotations of every object.
pub fn var_references() -> Vec<FieldSpec> {
    let containers = [
        "containers/args",
        "containers/command",
        "containers/env/value",
        "containers/volumeMounts/mountPath",
        "initContainers/args",
        "initContainers/command",
        "initContainers/env/value",
        "initContainers/volumeMounts/mountPath",
    ];
    let workloads: &[(&str, &str, &str)] = &[
        (
            "CronJob",
            "spec/jobTemplate/spec/template/spec",
            "spec/jobTemplate/spec/template/volumes/nfs/server",
        ),
        (
            "DaemonSet",
            "spec/template/spec",
            "spec/template/spec/volumes/nfs/server",
        ),
        (
            "Deployment",
            "spec/template/spec",
            "spec/template/spec/volumes/nfs/server",
        ),
        (
            "Job",
            "spec/template/spec",
            "spec/template/spec/volumes/nfs/server",
        ),
        ("Pod", "spec", "spec/volumes/nfs/server"),
        (
            "ReplicaSet",
            "spec/template/spec",
            "spec/template/spec/volumes/nfs/server",
        ),
        (
            "StatefulSet",
            "spec/template/spec",
            "spec/volumeClaimTemplates/spec/nfs/server",
        ),
    ];
    let mut specs = Vec::new();
    for (kind, pod, nfs) in workloads {
        for suffix in containers {
            specs.push(spec(&format!("{pod}/{suffix}"), "", "", kind, false));
        }
        specs.push(spec(nfs, "", "", kind, false));
        if *kind == "Deployment" {
            specs.push(spec(
                "spec/template/metadata/annotations",
                "",
                "",
                kind,
                false,
            ));
        }
    }
    specs.extend([
        spec("spec/rules/host", "", "", "Ingress", false),
        spec("spec/tls/hosts", "", "", "Ingress", false),
        spec("spec/tls/secretName", "", "", "Ingress", false),
        spec("spec/ports/port", "", "", "Service", false),
        spec("spec/ports/targetPort", "", "", "Service", false),
        spec("spec/nfs/server", "", "", "PersistentVolume", false),
        spec("metadata/labels", "", "", "", false),
        spec("metadata/annotations", "", "", "", false),
    ]);
    specs
}

/// A kind that other objects name, and the fields that name it.
#[derive(Debug, Clone)]
pub struct BackReference {
    /// The referred-to kind.
    pub referral: Gvk,
    /// The referring fields.
    pub fields: Vec<FieldSpec>,
}

/// Pod spec locations: `(group, version, kind, path to the pod spec)`.
const POD_SPECS: &[(&str, &str, &str, &str)] = &[
    ("", "v1", "Pod", "spec"),
    ("", "", "PodTemplate", "template/spec"),
    ("", "", "Deployment", "spec/template/spec"),
    ("", "", "ReplicaSet", "spec/template/spec"),
    ("", "", "DaemonSet", "spec/template/spec"),
    ("", "", "StatefulSet", "spec/template/spec"),
    ("", "", "Job", "spec/template/spec"),
    ("", "", "CronJob", "spec/jobTemplate/spec/template/spec"),
];

/// Workloads whose pod spec names service accounts, claims and priority classes (no ReplicaSet or
/// PodTemplate in Kustomize's table, but ReplicationController).
const SERVICE_ACCOUNT_USERS: &[(&str, &str)] = &[
    ("Pod", "spec"),
    ("StatefulSet", "spec/template/spec"),
    ("Deployment", "spec/template/spec"),
    ("ReplicationController", "spec/template/spec"),
    ("CronJob", "spec/jobTemplate/spec/template/spec"),
    ("Job", "spec/template/spec"),
    ("DaemonSet", "spec/template/spec"),
];

fn in_pod_specs(suffixes: &[&str]) -> Vec<FieldSpec> {
    let mut specs = Vec::new();
    for (group, version, kind, pod) in POD_SPECS {
        for suffix in suffixes {
            specs.push(spec(
                &format!("{pod}/{suffix}"),
                group,
                version,
                kind,
                false,
            ));
        }
    }
    specs
}

fn in_workloads(suffix: &str) -> Vec<FieldSpec> {
    SERVICE_ACCOUNT_USERS
        .iter()
        .map(|(kind, pod)| spec(&format!("{pod}/{suffix}"), "", "", kind, false))
        .collect()
}

fn back(group: &str, version: &str, kind: &str, fields: Vec<FieldSpec>) -> BackReference {
    BackReference {
        referral: Gvk::selector(group, version, kind),
        fields,
    }
}

/// Kustomize's name reference table.
pub fn name_references() -> Vec<BackReference> {
    let scale_target = || {
        vec![spec(
            "spec/scaleTargetRef/name",
            "",
            "",
            "HorizontalPodAutoscaler",
            false,
        )]
    };
    let mut config_map = in_pod_specs(&[
        "volumes/configMap/name",
        "containers/env/valueFrom/configMapKeyRef/name",
        "initContainers/env/valueFrom/configMapKeyRef/name",
        "containers/envFrom/configMapRef/name",
        "initContainers/envFrom/configMapRef/name",
        "volumes/projected/sources/configMap/name",
    ]);
    config_map.extend([
        spec("spec/configSource/configMap", "", "", "Node", false),
        spec("rules/resourceNames", "", "", "Role", false),
        spec("rules/resourceNames", "", "", "ClusterRole", false),
        spec(
            "metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap",
            "",
            "",
            "Ingress",
            false,
        ),
    ]);
    let mut secret = in_pod_specs(&[
        "volumes/secret/secretName",
        "containers/env/valueFrom/secretKeyRef/name",
        "initContainers/env/valueFrom/secretKeyRef/name",
        "containers/envFrom/secretRef/name",
        "initContainers/envFrom/secretRef/name",
        "imagePullSecrets/name",
        "volumes/projected/sources/secret/name",
    ]);
    secret.extend([
        spec("spec/tls/secretName", "", "", "Ingress", false),
        spec(
            "metadata/annotations/ingress.kubernetes.io\\/auth-secret",
            "",
            "",
            "Ingress",
            false,
        ),
        spec(
            "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret",
            "",
            "",
            "Ingress",
            false,
        ),
        spec(
            "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret",
            "",
            "",
            "Ingress",
            false,
        ),
        spec("imagePullSecrets/name", "", "", "ServiceAccount", false),
        spec("parameters/secretName", "", "", "StorageClass", false),
        spec("parameters/adminSecretName", "", "", "StorageClass", false),
        spec("parameters/userSecretName", "", "", "StorageClass", false),
        spec("parameters/secretRef", "", "", "StorageClass", false),
        spec("rules/resourceNames", "", "", "Role", false),
        spec("rules/resourceNames", "", "", "ClusterRole", false),
        spec(
            "spec/template/spec/containers/env/valueFrom/secretKeyRef/name",
            "serving.knative.dev",
            "v1",
            "Service",
            false,
        ),
        spec(
            "spec/azureFile/secretName",
            "",
            "",
            "PersistentVolume",
            false,
        ),
    ]);
    let rbac = "rbac.authorization.k8s.io";
    let admission = "admissionregistration.k8s.io";
    let mut service_account = vec![
        spec("subjects", rbac, "", "RoleBinding", false),
        spec("subjects", rbac, "", "ClusterRoleBinding", false),
    ];
    service_account.extend(in_workloads("serviceAccountName"));
    vec![
        back("", "", "Deployment", scale_target()),
        back("", "", "ReplicationController", scale_target()),
        back("", "", "ReplicaSet", scale_target()),
        back("", "", "StatefulSet", scale_target()),
        back("", "v1", "ConfigMap", config_map),
        back("", "v1", "Secret", secret),
        back(
            "",
            "v1",
            "Service",
            vec![
                spec("spec/serviceName", "apps", "", "StatefulSet", false),
                spec(
                    "spec/rules/http/paths/backend/serviceName",
                    "",
                    "",
                    "Ingress",
                    false,
                ),
                spec("spec/backend/serviceName", "", "", "Ingress", false),
                spec(
                    "spec/rules/http/paths/backend/service/name",
                    "",
                    "",
                    "Ingress",
                    false,
                ),
                spec("spec/defaultBackend/service/name", "", "", "Ingress", false),
                spec(
                    "spec/service/name",
                    "apiregistration.k8s.io",
                    "",
                    "APIService",
                    false,
                ),
                spec(
                    "webhooks/clientConfig/service",
                    admission,
                    "",
                    "ValidatingWebhookConfiguration",
                    false,
                ),
                spec(
                    "webhooks/clientConfig/service",
                    admission,
                    "",
                    "MutatingWebhookConfiguration",
                    false,
                ),
                spec("spec/rules/backendRefs/name", "", "", "HTTPRoute", false),
            ],
        ),
        back(
            "rbac.authorization.k8s.io",
            "",
            "Role",
            vec![spec("roleRef/name", rbac, "", "RoleBinding", false)],
        ),
        back(
            "rbac.authorization.k8s.io",
            "",
            "ClusterRole",
            vec![
                spec("roleRef/name", rbac, "", "RoleBinding", false),
                spec("roleRef/name", rbac, "", "ClusterRoleBinding", false),
            ],
        ),
        back("", "v1", "ServiceAccount", service_account),
        back(
            "",
            "v1",
            "PersistentVolumeClaim",
            in_workloads("volumes/persistentVolumeClaim/claimName"),
        ),
        back(
            "",
            "v1",
            "PersistentVolume",
            vec![
                spec("spec/volumeName", "", "", "PersistentVolumeClaim", false),
                spec("rules/resourceNames", "", "", "ClusterRole", false),
            ],
        ),
        back(
            "storage.k8s.io",
            "v1",
            "StorageClass",
            vec![
                spec("spec/storageClassName", "", "", "PersistentVolume", false),
                spec(
                    "spec/storageClassName",
                    "",
                    "",
                    "PersistentVolumeClaim",
                    false,
                ),
                spec(
                    "spec/volumeClaimTemplates/spec/storageClassName",
                    "",
                    "",
                    "StatefulSet",
                    false,
                ),
            ],
        ),
        back(
            "scheduling.k8s.io",
            "v1",
            "PriorityClass",
            in_workloads("priorityClassName"),
        ),
        // Kustomize's table writes this group as "networking.k8s.io/v1", so it never matches; kept as is.
        back(
            "networking.k8s.io/v1",
            "v1",
            "IngressClass",
            vec![spec("spec/ingressClassName", "", "", "Ingress", false)],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_cover_the_usual_places() {
        let labels = common_labels();
        assert!(labels.iter().any(|s| s.path_text() == "spec/selector/matchLabels" && s.gvk.kind == "Deployment"));
        assert!(
            labels
                .iter()
                .any(|s| s.path_text() == "spec/template/metadata/labels")
        );
        let refs = name_references();
        let config_map = refs
            .iter()
            .find(|r| r.referral.kind == "ConfigMap")
            .unwrap();
        assert!(config_map.fields.iter().any(|s| s.gvk.kind == "CronJob"
            && s.path_text()
                == "spec/jobTemplate/spec/template/spec/containers/envFrom/configMapRef/name"));
        assert_eq!(replicas().len(), 4);
    }
}
