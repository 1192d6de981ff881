//! Generated table of how each list field of each built-in Kubernetes kind merges (server-side apply's
//! `x-kubernetes-list-type` and list-map keys, strategic merge patch's strategy and merge key); read through
//! [`crate::schema`].
//!
//! GENERATED: do not edit by hand. Regenerate with
//! `python3 crates/k8s/gen/schema_table.py <swagger.json>` (see `crates/k8s/gen/README.md`).
//! Source: `k8s-1.34-swagger.json`, sha256 f0cb7a8eaad46df1883eeb494771d310609c859649aff668bba3d238ffcb1a6e:
//! Kubernetes 1.34: kubernetes/kubernetes release-1.34 `api/openapi-spec/swagger.json`, as kept in
//! kubernetes-client/python v34.1.0 (5b23a44aa06010ac6ffe423d7b0e090caf7882ff) `kubernetes/swagger.json.unprocessed`.
//! 93 kinds, 348 definitions, 740 fields of which 373 lists.

use super::{Field, ListSchema, ListType, NO_DEF, PatchStrategy};

/// An object field (or a map of objects when `map`) that leads to lists, or carries a patch strategy.
const fn o(name: &'static str, def: u16, map: bool, strategy: PatchStrategy) -> Field {
    Field {
        name,
        def,
        map,
        list: None,
        strategy,
    }
}

/// A list field (or a map of lists when `map`) whose items are of definition `def` (or scalars: [`NO_DEF`]).
const fn l(name: &'static str, def: u16, map: bool, list: ListSchema) -> Field {
    Field {
        name,
        def,
        map,
        list: Some(list),
        strategy: PatchStrategy::Default,
    }
}

/// No patch strategy.
const D: PatchStrategy = PatchStrategy::Default;

/// `atomic`; no patch strategy.
const ATOMIC: ListSchema = ListSchema {
    list_type: Some(ListType::Atomic),
    patch_strategy: PatchStrategy::Default,
    patch_merge_key: None,
};
/// `atomic`; patch strategy `merge`, merge key `ip`.
const ATOMIC_MERGE_BY_IP: ListSchema = ListSchema {
    list_type: Some(ListType::Atomic),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("ip"),
};
/// `atomic`; patch strategy `merge`, merge key `type`.
const ATOMIC_MERGE_BY_TYPE: ListSchema = ListSchema {
    list_type: Some(ListType::Atomic),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("type"),
};
/// `map` keyed by `apiServerID`; no patch strategy.
const MAP_API_SERVER_ID: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["apiServerID"])),
    patch_strategy: PatchStrategy::Default,
    patch_merge_key: None,
};
/// `map` keyed by `containerPort`, `protocol`; patch strategy `merge`, merge key `containerPort`.
const MAP_CONTAINER_PORT_PROTOCOL_MERGE_BY_CONTAINER_PORT: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["containerPort", "protocol"])),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("containerPort"),
};
/// `map` keyed by `devicePath`; patch strategy `merge`, merge key `devicePath`.
const MAP_DEVICE_PATH_MERGE_BY_DEVICE_PATH: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["devicePath"])),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("devicePath"),
};
/// `map` keyed by `driver`, `device`, `pool`, `shareID`; no patch strategy.
const MAP_DRIVER_DEVICE_POOL_SHARE_ID: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["driver", "device", "pool", "shareID"])),
    patch_strategy: PatchStrategy::Default,
    patch_merge_key: None,
};
/// `map` keyed by `ip`; patch strategy `merge`, merge key `ip`.
const MAP_IP_MERGE_BY_IP: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["ip"])),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("ip"),
};
/// `map` keyed by `mountPath`; patch strategy `merge`, merge key `mountPath`.
const MAP_MOUNT_PATH_MERGE_BY_MOUNT_PATH: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["mountPath"])),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("mountPath"),
};
/// `map` keyed by `name`; no patch strategy.
const MAP_NAME: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["name"])),
    patch_strategy: PatchStrategy::Default,
    patch_merge_key: None,
};
/// `map` keyed by `name`; patch strategy `merge`, merge key `name`.
const MAP_NAME_MERGE_BY_NAME: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["name"])),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("name"),
};
/// `map` keyed by `name`; patch strategy `merge,retainKeys`, merge key `name`.
const MAP_NAME_MERGE_RETAIN_BY_NAME: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["name"])),
    patch_strategy: PatchStrategy::RetainKeys { merge: true },
    patch_merge_key: Some("name"),
};
/// `map` keyed by `port`, `protocol`; patch strategy `merge`, merge key `port`.
const MAP_PORT_PROTOCOL_MERGE_BY_PORT: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["port", "protocol"])),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("port"),
};
/// `map` keyed by `resourceID`; no patch strategy.
const MAP_RESOURCE_ID: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["resourceID"])),
    patch_strategy: PatchStrategy::Default,
    patch_merge_key: None,
};
/// `map` keyed by `rule`; patch strategy `merge`, merge key `rule`.
const MAP_RULE_MERGE_BY_RULE: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["rule"])),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("rule"),
};
/// `map` keyed by `topologyKey`, `whenUnsatisfiable`; patch strategy `merge`, merge key `topologyKey`.
const MAP_TOPOLOGY_KEY_WHEN_UNSATISFIABLE_MERGE_BY_TOPOLOGY_KEY: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["topologyKey", "whenUnsatisfiable"])),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("topologyKey"),
};
/// `map` keyed by `type`; no patch strategy.
const MAP_TYPE: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["type"])),
    patch_strategy: PatchStrategy::Default,
    patch_merge_key: None,
};
/// `map` keyed by `type`; patch strategy `merge`, merge key `type`.
const MAP_TYPE_MERGE_BY_TYPE: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["type"])),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("type"),
};
/// `map` keyed by `uid`; patch strategy `merge`, merge key `uid`.
const MAP_UID_MERGE_BY_UID: ListSchema = ListSchema {
    list_type: Some(ListType::Map(&["uid"])),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: Some("uid"),
};
/// `set`; no patch strategy.
const SET: ListSchema = ListSchema {
    list_type: Some(ListType::Set),
    patch_strategy: PatchStrategy::Default,
    patch_merge_key: None,
};
/// `set`; patch strategy `merge`.
const SET_MERGE: ListSchema = ListSchema {
    list_type: Some(ListType::Set),
    patch_strategy: PatchStrategy::Merge,
    patch_merge_key: None,
};
/// Unmarked (atomic for server-side apply); no patch strategy.
const UNMARKED: ListSchema = ListSchema {
    list_type: None,
    patch_strategy: PatchStrategy::Default,
    patch_merge_key: None,
};

/// The built-in kinds: (group, version, kind, root definition in [`DEFS`]), by group, kind, then version
/// priority (stable before beta before alpha, newer first): a group/kind's first entry is its preferred version.
#[rustfmt::skip]
pub(crate) static KINDS: &[(&str, &str, &str, u16)] = &[
    ("", "v1", "Binding", 103),
    ("", "v1", "ComponentStatus", 108),
    ("", "v1", "ConfigMap", 109),
    ("", "v1", "Endpoints", 121),
    ("", "v1", "Event", 124),
    ("", "v1", "LimitRange", 133),
    ("", "v1", "Namespace", 138),
    ("", "v1", "Node", 141),
    ("", "v1", "PersistentVolume", 148),
    ("", "v1", "PersistentVolumeClaim", 149),
    ("", "v1", "Pod", 154),
    ("", "v1", "PodTemplate", 163),
    ("", "v1", "ReplicationController", 170),
    ("", "v1", "ResourceQuota", 173),
    ("", "v1", "Secret", 179),
    ("", "v1", "Service", 183),
    ("", "v1", "ServiceAccount", 184),
    ("admissionregistration.k8s.io", "v1beta1", "MutatingAdmissionPolicy", 22),
    ("admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicy", 15),
    ("admissionregistration.k8s.io", "v1beta1", "MutatingAdmissionPolicyBinding", 23),
    ("admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicyBinding", 16),
    ("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", 2),
    ("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", 7),
    ("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding", 8),
    ("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", 13),
    ("apiextensions.k8s.io", "v1", "CustomResourceDefinition", 333),
    ("apiregistration.k8s.io", "v1", "APIService", 346),
    ("apps", "v1", "ControllerRevision", 31),
    ("apps", "v1", "DaemonSet", 32),
    ("apps", "v1", "Deployment", 35),
    ("apps", "v1", "ReplicaSet", 38),
    ("apps", "v1", "StatefulSet", 41),
    ("authentication.k8s.io", "v1", "SelfSubjectReview", 44),
    ("authentication.k8s.io", "v1", "TokenRequest", 46),
    ("authentication.k8s.io", "v1", "TokenReview", 48),
    ("authorization.k8s.io", "v1", "LocalSubjectAccessReview", 54),
    ("authorization.k8s.io", "v1", "SelfSubjectAccessReview", 58),
    ("authorization.k8s.io", "v1", "SelfSubjectRulesReview", 60),
    ("authorization.k8s.io", "v1", "SubjectAccessReview", 61),
    ("autoscaling", "v2", "HorizontalPodAutoscaler", 69),
    ("autoscaling", "v1", "HorizontalPodAutoscaler", 64),
    ("autoscaling", "v1", "Scale", 65),
    ("batch", "v1", "CronJob", 80),
    ("batch", "v1", "Job", 83),
    ("certificates.k8s.io", "v1", "CertificateSigningRequest", 92),
    ("certificates.k8s.io", "v1beta1", "ClusterTrustBundle", 98),
    ("certificates.k8s.io", "v1alpha1", "ClusterTrustBundle", 95),
    ("certificates.k8s.io", "v1alpha1", "PodCertificateRequest", 96),
    ("coordination.k8s.io", "v1", "Lease", 99),
    ("coordination.k8s.io", "v1beta1", "LeaseCandidate", 101),
    ("coordination.k8s.io", "v1alpha2", "LeaseCandidate", 100),
    ("discovery.k8s.io", "v1", "EndpointSlice", 196),
    ("events.k8s.io", "v1", "Event", 197),
    ("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", 198),
    ("flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration", 203),
    ("internal.apiserver.k8s.io", "v1alpha1", "StorageVersion", 29),
    ("networking.k8s.io", "v1", "IPAddress", 207),
    ("networking.k8s.io", "v1beta1", "IPAddress", 225),
    ("networking.k8s.io", "v1", "Ingress", 209),
    ("networking.k8s.io", "v1", "IngressClass", 210),
    ("networking.k8s.io", "v1", "NetworkPolicy", 217),
    ("networking.k8s.io", "v1", "ServiceCIDR", 222),
    ("networking.k8s.io", "v1beta1", "ServiceCIDR", 226),
    ("node.k8s.io", "v1", "RuntimeClass", 229),
    ("policy", "v1", "Eviction", 231),
    ("policy", "v1", "PodDisruptionBudget", 232),
    ("rbac.authorization.k8s.io", "v1", "ClusterRole", 236),
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", 237),
    ("rbac.authorization.k8s.io", "v1", "Role", 239),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding", 240),
    ("resource.k8s.io", "v1", "DeviceClass", 250),
    ("resource.k8s.io", "v1beta2", "DeviceClass", 301),
    ("resource.k8s.io", "v1beta1", "DeviceClass", 278),
    ("resource.k8s.io", "v1alpha3", "DeviceTaintRule", 265),
    ("resource.k8s.io", "v1", "ResourceClaim", 258),
    ("resource.k8s.io", "v1beta2", "ResourceClaim", 309),
    ("resource.k8s.io", "v1beta1", "ResourceClaim", 285),
    ("resource.k8s.io", "v1", "ResourceClaimTemplate", 261),
    ("resource.k8s.io", "v1beta2", "ResourceClaimTemplate", 312),
    ("resource.k8s.io", "v1beta1", "ResourceClaimTemplate", 288),
    ("resource.k8s.io", "v1", "ResourceSlice", 263),
    ("resource.k8s.io", "v1beta2", "ResourceSlice", 314),
    ("resource.k8s.io", "v1beta1", "ResourceSlice", 290),
    ("scheduling.k8s.io", "v1", "PriorityClass", 316),
    ("storage.k8s.io", "v1", "CSIDriver", 317),
    ("storage.k8s.io", "v1", "CSINode", 319),
    ("storage.k8s.io", "v1", "CSIStorageCapacity", 322),
    ("storage.k8s.io", "v1", "StorageClass", 323),
    ("storage.k8s.io", "v1", "VolumeAttachment", 324),
    ("storage.k8s.io", "v1", "VolumeAttributesClass", 327),
    ("storage.k8s.io", "v1beta1", "VolumeAttributesClass", 329),
    ("storage.k8s.io", "v1alpha1", "VolumeAttributesClass", 328),
    ("storagemigration.k8s.io", "v1alpha1", "StorageVersionMigration", 330),
];

/// The definitions, by index: each one's fields that matter for merging, by name.
#[rustfmt::skip]
pub(crate) static DEFS: &[&[Field]] = &[
    // 0: io.k8s.api.admissionregistration.v1.MatchResources
    &[
        l("excludeResourceRules", 3, false, ATOMIC),
        o("namespaceSelector", 343, false, D),
        o("objectSelector", 343, false, D),
        l("resourceRules", 3, false, ATOMIC),
    ],
    // 1: io.k8s.api.admissionregistration.v1.MutatingWebhook
    &[
        l("admissionReviewVersions", NO_DEF, false, ATOMIC),
        l("matchConditions", NO_DEF, false, MAP_NAME_MERGE_BY_NAME),
        o("namespaceSelector", 343, false, D),
        o("objectSelector", 343, false, D),
        l("rules", 5, false, ATOMIC),
    ],
    // 2: io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration
    &[
        o("metadata", 345, false, D),
        l("webhooks", 1, false, MAP_NAME_MERGE_BY_NAME),
    ],
    // 3: io.k8s.api.admissionregistration.v1.NamedRuleWithOperations
    &[
        l("apiGroups", NO_DEF, false, ATOMIC),
        l("apiVersions", NO_DEF, false, ATOMIC),
        l("operations", NO_DEF, false, ATOMIC),
        l("resourceNames", NO_DEF, false, ATOMIC),
        l("resources", NO_DEF, false, ATOMIC),
    ],
    // 4: io.k8s.api.admissionregistration.v1.ParamRef
    &[
        o("selector", 343, false, D),
    ],
    // 5: io.k8s.api.admissionregistration.v1.RuleWithOperations
    &[
        l("apiGroups", NO_DEF, false, ATOMIC),
        l("apiVersions", NO_DEF, false, ATOMIC),
        l("operations", NO_DEF, false, ATOMIC),
        l("resources", NO_DEF, false, ATOMIC),
    ],
    // 6: io.k8s.api.admissionregistration.v1.TypeChecking
    &[
        l("expressionWarnings", NO_DEF, false, ATOMIC),
    ],
    // 7: io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy
    &[
        o("metadata", 345, false, D),
        o("spec", 10, false, D),
        o("status", 11, false, D),
    ],
    // 8: io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding
    &[
        o("metadata", 345, false, D),
        o("spec", 9, false, D),
    ],
    // 9: io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec
    &[
        o("matchResources", 0, false, D),
        o("paramRef", 4, false, D),
        l("validationActions", NO_DEF, false, SET),
    ],
    // 10: io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec
    &[
        l("auditAnnotations", NO_DEF, false, ATOMIC),
        l("matchConditions", NO_DEF, false, MAP_NAME_MERGE_BY_NAME),
        o("matchConstraints", 0, false, D),
        l("validations", NO_DEF, false, ATOMIC),
        l("variables", NO_DEF, false, MAP_NAME_MERGE_BY_NAME),
    ],
    // 11: io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE),
        o("typeChecking", 6, false, D),
    ],
    // 12: io.k8s.api.admissionregistration.v1.ValidatingWebhook
    &[
        l("admissionReviewVersions", NO_DEF, false, ATOMIC),
        l("matchConditions", NO_DEF, false, MAP_NAME_MERGE_BY_NAME),
        o("namespaceSelector", 343, false, D),
        o("objectSelector", 343, false, D),
        l("rules", 5, false, ATOMIC),
    ],
    // 13: io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration
    &[
        o("metadata", 345, false, D),
        l("webhooks", 12, false, MAP_NAME_MERGE_BY_NAME),
    ],
    // 14: io.k8s.api.admissionregistration.v1alpha1.MatchResources
    &[
        l("excludeResourceRules", 19, false, ATOMIC),
        o("namespaceSelector", 343, false, D),
        o("objectSelector", 343, false, D),
        l("resourceRules", 19, false, ATOMIC),
    ],
    // 15: io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicy
    &[
        o("metadata", 345, false, D),
        o("spec", 18, false, D),
    ],
    // 16: io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicyBinding
    &[
        o("metadata", 345, false, D),
        o("spec", 17, false, D),
    ],
    // 17: io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicyBindingSpec
    &[
        o("matchResources", 14, false, D),
        o("paramRef", 20, false, D),
    ],
    // 18: io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicySpec
    &[
        l("matchConditions", NO_DEF, false, MAP_NAME_MERGE_BY_NAME),
        o("matchConstraints", 14, false, D),
        l("mutations", NO_DEF, false, ATOMIC),
        l("variables", NO_DEF, false, ATOMIC),
    ],
    // 19: io.k8s.api.admissionregistration.v1alpha1.NamedRuleWithOperations
    &[
        l("apiGroups", NO_DEF, false, ATOMIC),
        l("apiVersions", NO_DEF, false, ATOMIC),
        l("operations", NO_DEF, false, ATOMIC),
        l("resourceNames", NO_DEF, false, ATOMIC),
        l("resources", NO_DEF, false, ATOMIC),
    ],
    // 20: io.k8s.api.admissionregistration.v1alpha1.ParamRef
    &[
        o("selector", 343, false, D),
    ],
    // 21: io.k8s.api.admissionregistration.v1beta1.MatchResources
    &[
        l("excludeResourceRules", 26, false, ATOMIC),
        o("namespaceSelector", 343, false, D),
        o("objectSelector", 343, false, D),
        l("resourceRules", 26, false, ATOMIC),
    ],
    // 22: io.k8s.api.admissionregistration.v1beta1.MutatingAdmissionPolicy
    &[
        o("metadata", 345, false, D),
        o("spec", 25, false, D),
    ],
    // 23: io.k8s.api.admissionregistration.v1beta1.MutatingAdmissionPolicyBinding
    &[
        o("metadata", 345, false, D),
        o("spec", 24, false, D),
    ],
    // 24: io.k8s.api.admissionregistration.v1beta1.MutatingAdmissionPolicyBindingSpec
    &[
        o("matchResources", 21, false, D),
        o("paramRef", 27, false, D),
    ],
    // 25: io.k8s.api.admissionregistration.v1beta1.MutatingAdmissionPolicySpec
    &[
        l("matchConditions", NO_DEF, false, MAP_NAME_MERGE_BY_NAME),
        o("matchConstraints", 21, false, D),
        l("mutations", NO_DEF, false, ATOMIC),
        l("variables", NO_DEF, false, ATOMIC),
    ],
    // 26: io.k8s.api.admissionregistration.v1beta1.NamedRuleWithOperations
    &[
        l("apiGroups", NO_DEF, false, ATOMIC),
        l("apiVersions", NO_DEF, false, ATOMIC),
        l("operations", NO_DEF, false, ATOMIC),
        l("resourceNames", NO_DEF, false, ATOMIC),
        l("resources", NO_DEF, false, ATOMIC),
    ],
    // 27: io.k8s.api.admissionregistration.v1beta1.ParamRef
    &[
        o("selector", 343, false, D),
    ],
    // 28: io.k8s.api.apiserverinternal.v1alpha1.ServerStorageVersion
    &[
        l("decodableVersions", NO_DEF, false, SET),
        l("servedVersions", NO_DEF, false, SET),
    ],
    // 29: io.k8s.api.apiserverinternal.v1alpha1.StorageVersion
    &[
        o("metadata", 345, false, D),
        o("status", 30, false, D),
    ],
    // 30: io.k8s.api.apiserverinternal.v1alpha1.StorageVersionStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE),
        l("storageVersions", 28, false, MAP_API_SERVER_ID),
    ],
    // 31: io.k8s.api.apps.v1.ControllerRevision
    &[
        o("metadata", 345, false, D),
    ],
    // 32: io.k8s.api.apps.v1.DaemonSet
    &[
        o("metadata", 345, false, D),
        o("spec", 33, false, D),
        o("status", 34, false, D),
    ],
    // 33: io.k8s.api.apps.v1.DaemonSetSpec
    &[
        o("selector", 343, false, D),
        o("template", 164, false, D),
    ],
    // 34: io.k8s.api.apps.v1.DaemonSetStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 35: io.k8s.api.apps.v1.Deployment
    &[
        o("metadata", 345, false, D),
        o("spec", 36, false, D),
        o("status", 37, false, D),
    ],
    // 36: io.k8s.api.apps.v1.DeploymentSpec
    &[
        o("selector", 343, false, D),
        o("strategy", NO_DEF, false, PatchStrategy::RetainKeys { merge: false }),
        o("template", 164, false, D),
    ],
    // 37: io.k8s.api.apps.v1.DeploymentStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 38: io.k8s.api.apps.v1.ReplicaSet
    &[
        o("metadata", 345, false, D),
        o("spec", 39, false, D),
        o("status", 40, false, D),
    ],
    // 39: io.k8s.api.apps.v1.ReplicaSetSpec
    &[
        o("selector", 343, false, D),
        o("template", 164, false, D),
    ],
    // 40: io.k8s.api.apps.v1.ReplicaSetStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 41: io.k8s.api.apps.v1.StatefulSet
    &[
        o("metadata", 345, false, D),
        o("spec", 42, false, D),
        o("status", 43, false, D),
    ],
    // 42: io.k8s.api.apps.v1.StatefulSetSpec
    &[
        o("selector", 343, false, D),
        o("template", 164, false, D),
        l("volumeClaimTemplates", 149, false, ATOMIC),
    ],
    // 43: io.k8s.api.apps.v1.StatefulSetStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 44: io.k8s.api.authentication.v1.SelfSubjectReview
    &[
        o("metadata", 345, false, D),
        o("status", 45, false, D),
    ],
    // 45: io.k8s.api.authentication.v1.SelfSubjectReviewStatus
    &[
        o("userInfo", 51, false, D),
    ],
    // 46: io.k8s.api.authentication.v1.TokenRequest
    &[
        o("metadata", 345, false, D),
        o("spec", 47, false, D),
    ],
    // 47: io.k8s.api.authentication.v1.TokenRequestSpec
    &[
        l("audiences", NO_DEF, false, ATOMIC),
    ],
    // 48: io.k8s.api.authentication.v1.TokenReview
    &[
        o("metadata", 345, false, D),
        o("spec", 49, false, D),
        o("status", 50, false, D),
    ],
    // 49: io.k8s.api.authentication.v1.TokenReviewSpec
    &[
        l("audiences", NO_DEF, false, ATOMIC),
    ],
    // 50: io.k8s.api.authentication.v1.TokenReviewStatus
    &[
        l("audiences", NO_DEF, false, ATOMIC),
        o("user", 51, false, D),
    ],
    // 51: io.k8s.api.authentication.v1.UserInfo
    &[
        l("extra", NO_DEF, true, UNMARKED),
        l("groups", NO_DEF, false, ATOMIC),
    ],
    // 52: io.k8s.api.authorization.v1.FieldSelectorAttributes
    &[
        l("requirements", 342, false, ATOMIC),
    ],
    // 53: io.k8s.api.authorization.v1.LabelSelectorAttributes
    &[
        l("requirements", 344, false, ATOMIC),
    ],
    // 54: io.k8s.api.authorization.v1.LocalSubjectAccessReview
    &[
        o("metadata", 345, false, D),
        o("spec", 62, false, D),
    ],
    // 55: io.k8s.api.authorization.v1.NonResourceRule
    &[
        l("nonResourceURLs", NO_DEF, false, ATOMIC),
        l("verbs", NO_DEF, false, ATOMIC),
    ],
    // 56: io.k8s.api.authorization.v1.ResourceAttributes
    &[
        o("fieldSelector", 52, false, D),
        o("labelSelector", 53, false, D),
    ],
    // 57: io.k8s.api.authorization.v1.ResourceRule
    &[
        l("apiGroups", NO_DEF, false, ATOMIC),
        l("resourceNames", NO_DEF, false, ATOMIC),
        l("resources", NO_DEF, false, ATOMIC),
        l("verbs", NO_DEF, false, ATOMIC),
    ],
    // 58: io.k8s.api.authorization.v1.SelfSubjectAccessReview
    &[
        o("metadata", 345, false, D),
        o("spec", 59, false, D),
    ],
    // 59: io.k8s.api.authorization.v1.SelfSubjectAccessReviewSpec
    &[
        o("resourceAttributes", 56, false, D),
    ],
    // 60: io.k8s.api.authorization.v1.SelfSubjectRulesReview
    &[
        o("metadata", 345, false, D),
        o("status", 63, false, D),
    ],
    // 61: io.k8s.api.authorization.v1.SubjectAccessReview
    &[
        o("metadata", 345, false, D),
        o("spec", 62, false, D),
    ],
    // 62: io.k8s.api.authorization.v1.SubjectAccessReviewSpec
    &[
        l("extra", NO_DEF, true, UNMARKED),
        l("groups", NO_DEF, false, ATOMIC),
        o("resourceAttributes", 56, false, D),
    ],
    // 63: io.k8s.api.authorization.v1.SubjectRulesReviewStatus
    &[
        l("nonResourceRules", 55, false, ATOMIC),
        l("resourceRules", 57, false, ATOMIC),
    ],
    // 64: io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler
    &[
        o("metadata", 345, false, D),
    ],
    // 65: io.k8s.api.autoscaling.v1.Scale
    &[
        o("metadata", 345, false, D),
    ],
    // 66: io.k8s.api.autoscaling.v2.ExternalMetricSource
    &[
        o("metric", 73, false, D),
    ],
    // 67: io.k8s.api.autoscaling.v2.ExternalMetricStatus
    &[
        o("metric", 73, false, D),
    ],
    // 68: io.k8s.api.autoscaling.v2.HPAScalingRules
    &[
        l("policies", NO_DEF, false, ATOMIC),
    ],
    // 69: io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler
    &[
        o("metadata", 345, false, D),
        o("spec", 71, false, D),
        o("status", 72, false, D),
    ],
    // 70: io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerBehavior
    &[
        o("scaleDown", 68, false, D),
        o("scaleUp", 68, false, D),
    ],
    // 71: io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec
    &[
        o("behavior", 70, false, D),
        l("metrics", 74, false, ATOMIC),
    ],
    // 72: io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
        l("currentMetrics", 75, false, ATOMIC),
    ],
    // 73: io.k8s.api.autoscaling.v2.MetricIdentifier
    &[
        o("selector", 343, false, D),
    ],
    // 74: io.k8s.api.autoscaling.v2.MetricSpec
    &[
        o("external", 66, false, D),
        o("object", 76, false, D),
        o("pods", 78, false, D),
    ],
    // 75: io.k8s.api.autoscaling.v2.MetricStatus
    &[
        o("external", 67, false, D),
        o("object", 77, false, D),
        o("pods", 79, false, D),
    ],
    // 76: io.k8s.api.autoscaling.v2.ObjectMetricSource
    &[
        o("metric", 73, false, D),
    ],
    // 77: io.k8s.api.autoscaling.v2.ObjectMetricStatus
    &[
        o("metric", 73, false, D),
    ],
    // 78: io.k8s.api.autoscaling.v2.PodsMetricSource
    &[
        o("metric", 73, false, D),
    ],
    // 79: io.k8s.api.autoscaling.v2.PodsMetricStatus
    &[
        o("metric", 73, false, D),
    ],
    // 80: io.k8s.api.batch.v1.CronJob
    &[
        o("metadata", 345, false, D),
        o("spec", 81, false, D),
        o("status", 82, false, D),
    ],
    // 81: io.k8s.api.batch.v1.CronJobSpec
    &[
        o("jobTemplate", 86, false, D),
    ],
    // 82: io.k8s.api.batch.v1.CronJobStatus
    &[
        l("active", NO_DEF, false, ATOMIC),
    ],
    // 83: io.k8s.api.batch.v1.Job
    &[
        o("metadata", 345, false, D),
        o("spec", 84, false, D),
        o("status", 85, false, D),
    ],
    // 84: io.k8s.api.batch.v1.JobSpec
    &[
        o("podFailurePolicy", 87, false, D),
        o("selector", 343, false, D),
        o("successPolicy", 90, false, D),
        o("template", 164, false, D),
    ],
    // 85: io.k8s.api.batch.v1.JobStatus
    &[
        l("conditions", NO_DEF, false, ATOMIC_MERGE_BY_TYPE),
        o("uncountedTerminatedPods", 91, false, D),
    ],
    // 86: io.k8s.api.batch.v1.JobTemplateSpec
    &[
        o("metadata", 345, false, D),
        o("spec", 84, false, D),
    ],
    // 87: io.k8s.api.batch.v1.PodFailurePolicy
    &[
        l("rules", 89, false, ATOMIC),
    ],
    // 88: io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement
    &[
        l("values", NO_DEF, false, SET),
    ],
    // 89: io.k8s.api.batch.v1.PodFailurePolicyRule
    &[
        o("onExitCodes", 88, false, D),
        l("onPodConditions", NO_DEF, false, ATOMIC),
    ],
    // 90: io.k8s.api.batch.v1.SuccessPolicy
    &[
        l("rules", NO_DEF, false, ATOMIC),
    ],
    // 91: io.k8s.api.batch.v1.UncountedTerminatedPods
    &[
        l("failed", NO_DEF, false, SET),
        l("succeeded", NO_DEF, false, SET),
    ],
    // 92: io.k8s.api.certificates.v1.CertificateSigningRequest
    &[
        o("metadata", 345, false, D),
        o("spec", 93, false, D),
        o("status", 94, false, D),
    ],
    // 93: io.k8s.api.certificates.v1.CertificateSigningRequestSpec
    &[
        l("extra", NO_DEF, true, UNMARKED),
        l("groups", NO_DEF, false, ATOMIC),
        l("usages", NO_DEF, false, ATOMIC),
    ],
    // 94: io.k8s.api.certificates.v1.CertificateSigningRequestStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE),
    ],
    // 95: io.k8s.api.certificates.v1alpha1.ClusterTrustBundle
    &[
        o("metadata", 345, false, D),
    ],
    // 96: io.k8s.api.certificates.v1alpha1.PodCertificateRequest
    &[
        o("metadata", 345, false, D),
        o("status", 97, false, D),
    ],
    // 97: io.k8s.api.certificates.v1alpha1.PodCertificateRequestStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 98: io.k8s.api.certificates.v1beta1.ClusterTrustBundle
    &[
        o("metadata", 345, false, D),
    ],
    // 99: io.k8s.api.coordination.v1.Lease
    &[
        o("metadata", 345, false, D),
    ],
    // 100: io.k8s.api.coordination.v1alpha2.LeaseCandidate
    &[
        o("metadata", 345, false, D),
    ],
    // 101: io.k8s.api.coordination.v1beta1.LeaseCandidate
    &[
        o("metadata", 345, false, D),
    ],
    // 102: io.k8s.api.core.v1.Affinity
    &[
        o("nodeAffinity", 142, false, D),
        o("podAffinity", 155, false, D),
        o("podAntiAffinity", 157, false, D),
    ],
    // 103: io.k8s.api.core.v1.Binding
    &[
        o("metadata", 345, false, D),
    ],
    // 104: io.k8s.api.core.v1.Capabilities
    &[
        l("add", NO_DEF, false, ATOMIC),
        l("drop", NO_DEF, false, ATOMIC),
    ],
    // 105: io.k8s.api.core.v1.CephFSPersistentVolumeSource
    &[
        l("monitors", NO_DEF, false, ATOMIC),
    ],
    // 106: io.k8s.api.core.v1.CephFSVolumeSource
    &[
        l("monitors", NO_DEF, false, ATOMIC),
    ],
    // 107: io.k8s.api.core.v1.ClusterTrustBundleProjection
    &[
        o("labelSelector", 343, false, D),
    ],
    // 108: io.k8s.api.core.v1.ComponentStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
        o("metadata", 345, false, D),
    ],
    // 109: io.k8s.api.core.v1.ConfigMap
    &[
        o("metadata", 345, false, D),
    ],
    // 110: io.k8s.api.core.v1.ConfigMapProjection
    &[
        l("items", NO_DEF, false, ATOMIC),
    ],
    // 111: io.k8s.api.core.v1.ConfigMapVolumeSource
    &[
        l("items", NO_DEF, false, ATOMIC),
    ],
    // 112: io.k8s.api.core.v1.Container
    &[
        l("args", NO_DEF, false, ATOMIC),
        l("command", NO_DEF, false, ATOMIC),
        l("env", NO_DEF, false, MAP_NAME_MERGE_BY_NAME),
        l("envFrom", NO_DEF, false, ATOMIC),
        o("lifecycle", 131, false, D),
        o("livenessProbe", 166, false, D),
        l("ports", NO_DEF, false, MAP_CONTAINER_PORT_PROTOCOL_MERGE_BY_CONTAINER_PORT),
        o("readinessProbe", 166, false, D),
        l("resizePolicy", NO_DEF, false, ATOMIC),
        o("resources", 175, false, D),
        l("restartPolicyRules", 114, false, ATOMIC),
        o("securityContext", 182, false, D),
        o("startupProbe", 166, false, D),
        l("volumeDevices", NO_DEF, false, MAP_DEVICE_PATH_MERGE_BY_DEVICE_PATH),
        l("volumeMounts", NO_DEF, false, MAP_MOUNT_PATH_MERGE_BY_MOUNT_PATH),
    ],
    // 113: io.k8s.api.core.v1.ContainerImage
    &[
        l("names", NO_DEF, false, ATOMIC),
    ],
    // 114: io.k8s.api.core.v1.ContainerRestartRule
    &[
        o("exitCodes", 115, false, D),
    ],
    // 115: io.k8s.api.core.v1.ContainerRestartRuleOnExitCodes
    &[
        l("values", NO_DEF, false, SET),
    ],
    // 116: io.k8s.api.core.v1.ContainerStatus
    &[
        l("allocatedResourcesStatus", 176, false, MAP_NAME_MERGE_BY_NAME),
        o("resources", 175, false, D),
        o("user", 117, false, D),
        l("volumeMounts", NO_DEF, false, MAP_MOUNT_PATH_MERGE_BY_MOUNT_PATH),
    ],
    // 117: io.k8s.api.core.v1.ContainerUser
    &[
        o("linux", 135, false, D),
    ],
    // 118: io.k8s.api.core.v1.DownwardAPIProjection
    &[
        l("items", NO_DEF, false, ATOMIC),
    ],
    // 119: io.k8s.api.core.v1.DownwardAPIVolumeSource
    &[
        l("items", NO_DEF, false, ATOMIC),
    ],
    // 120: io.k8s.api.core.v1.EndpointSubset
    &[
        l("addresses", NO_DEF, false, ATOMIC),
        l("notReadyAddresses", NO_DEF, false, ATOMIC),
        l("ports", NO_DEF, false, ATOMIC),
    ],
    // 121: io.k8s.api.core.v1.Endpoints
    &[
        o("metadata", 345, false, D),
        l("subsets", 120, false, ATOMIC),
    ],
    // 122: io.k8s.api.core.v1.EphemeralContainer
    &[
        l("args", NO_DEF, false, ATOMIC),
        l("command", NO_DEF, false, ATOMIC),
        l("env", NO_DEF, false, MAP_NAME_MERGE_BY_NAME),
        l("envFrom", NO_DEF, false, ATOMIC),
        o("lifecycle", 131, false, D),
        o("livenessProbe", 166, false, D),
        l("ports", NO_DEF, false, MAP_CONTAINER_PORT_PROTOCOL_MERGE_BY_CONTAINER_PORT),
        o("readinessProbe", 166, false, D),
        l("resizePolicy", NO_DEF, false, ATOMIC),
        o("resources", 175, false, D),
        l("restartPolicyRules", 114, false, ATOMIC),
        o("securityContext", 182, false, D),
        o("startupProbe", 166, false, D),
        l("volumeDevices", NO_DEF, false, MAP_DEVICE_PATH_MERGE_BY_DEVICE_PATH),
        l("volumeMounts", NO_DEF, false, MAP_MOUNT_PATH_MERGE_BY_MOUNT_PATH),
    ],
    // 123: io.k8s.api.core.v1.EphemeralVolumeSource
    &[
        o("volumeClaimTemplate", 152, false, D),
    ],
    // 124: io.k8s.api.core.v1.Event
    &[
        o("metadata", 345, false, D),
    ],
    // 125: io.k8s.api.core.v1.ExecAction
    &[
        l("command", NO_DEF, false, ATOMIC),
    ],
    // 126: io.k8s.api.core.v1.FCVolumeSource
    &[
        l("targetWWNs", NO_DEF, false, ATOMIC),
        l("wwids", NO_DEF, false, ATOMIC),
    ],
    // 127: io.k8s.api.core.v1.HTTPGetAction
    &[
        l("httpHeaders", NO_DEF, false, ATOMIC),
    ],
    // 128: io.k8s.api.core.v1.HostAlias
    &[
        l("hostnames", NO_DEF, false, ATOMIC),
    ],
    // 129: io.k8s.api.core.v1.ISCSIPersistentVolumeSource
    &[
        l("portals", NO_DEF, false, ATOMIC),
    ],
    // 130: io.k8s.api.core.v1.ISCSIVolumeSource
    &[
        l("portals", NO_DEF, false, ATOMIC),
    ],
    // 131: io.k8s.api.core.v1.Lifecycle
    &[
        o("postStart", 132, false, D),
        o("preStop", 132, false, D),
    ],
    // 132: io.k8s.api.core.v1.LifecycleHandler
    &[
        o("exec", 125, false, D),
        o("httpGet", 127, false, D),
    ],
    // 133: io.k8s.api.core.v1.LimitRange
    &[
        o("metadata", 345, false, D),
        o("spec", 134, false, D),
    ],
    // 134: io.k8s.api.core.v1.LimitRangeSpec
    &[
        l("limits", NO_DEF, false, ATOMIC),
    ],
    // 135: io.k8s.api.core.v1.LinuxContainerUser
    &[
        l("supplementalGroups", NO_DEF, false, ATOMIC),
    ],
    // 136: io.k8s.api.core.v1.LoadBalancerIngress
    &[
        l("ports", NO_DEF, false, ATOMIC),
    ],
    // 137: io.k8s.api.core.v1.LoadBalancerStatus
    &[
        l("ingress", 136, false, ATOMIC),
    ],
    // 138: io.k8s.api.core.v1.Namespace
    &[
        o("metadata", 345, false, D),
        o("spec", 139, false, D),
        o("status", 140, false, D),
    ],
    // 139: io.k8s.api.core.v1.NamespaceSpec
    &[
        l("finalizers", NO_DEF, false, ATOMIC),
    ],
    // 140: io.k8s.api.core.v1.NamespaceStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 141: io.k8s.api.core.v1.Node
    &[
        o("metadata", 345, false, D),
        o("spec", 146, false, D),
        o("status", 147, false, D),
    ],
    // 142: io.k8s.api.core.v1.NodeAffinity
    &[
        l("preferredDuringSchedulingIgnoredDuringExecution", 165, false, ATOMIC),
        o("requiredDuringSchedulingIgnoredDuringExecution", 143, false, D),
    ],
    // 143: io.k8s.api.core.v1.NodeSelector
    &[
        l("nodeSelectorTerms", 145, false, ATOMIC),
    ],
    // 144: io.k8s.api.core.v1.NodeSelectorRequirement
    &[
        l("values", NO_DEF, false, ATOMIC),
    ],
    // 145: io.k8s.api.core.v1.NodeSelectorTerm
    &[
        l("matchExpressions", 144, false, ATOMIC),
        l("matchFields", 144, false, ATOMIC),
    ],
    // 146: io.k8s.api.core.v1.NodeSpec
    &[
        l("podCIDRs", NO_DEF, false, SET_MERGE),
        l("taints", NO_DEF, false, ATOMIC),
    ],
    // 147: io.k8s.api.core.v1.NodeStatus
    &[
        l("addresses", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
        l("images", 113, false, ATOMIC),
        l("runtimeHandlers", NO_DEF, false, ATOMIC),
        l("volumesAttached", NO_DEF, false, ATOMIC),
        l("volumesInUse", NO_DEF, false, ATOMIC),
    ],
    // 148: io.k8s.api.core.v1.PersistentVolume
    &[
        o("metadata", 345, false, D),
        o("spec", 153, false, D),
    ],
    // 149: io.k8s.api.core.v1.PersistentVolumeClaim
    &[
        o("metadata", 345, false, D),
        o("spec", 150, false, D),
        o("status", 151, false, D),
    ],
    // 150: io.k8s.api.core.v1.PersistentVolumeClaimSpec
    &[
        l("accessModes", NO_DEF, false, ATOMIC),
        o("selector", 343, false, D),
    ],
    // 151: io.k8s.api.core.v1.PersistentVolumeClaimStatus
    &[
        l("accessModes", NO_DEF, false, ATOMIC),
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 152: io.k8s.api.core.v1.PersistentVolumeClaimTemplate
    &[
        o("metadata", 345, false, D),
        o("spec", 150, false, D),
    ],
    // 153: io.k8s.api.core.v1.PersistentVolumeSpec
    &[
        l("accessModes", NO_DEF, false, ATOMIC),
        o("cephfs", 105, false, D),
        o("fc", 126, false, D),
        o("iscsi", 129, false, D),
        l("mountOptions", NO_DEF, false, ATOMIC),
        o("nodeAffinity", 191, false, D),
        o("rbd", 168, false, D),
    ],
    // 154: io.k8s.api.core.v1.Pod
    &[
        o("metadata", 345, false, D),
        o("spec", 161, false, D),
        o("status", 162, false, D),
    ],
    // 155: io.k8s.api.core.v1.PodAffinity
    &[
        l("preferredDuringSchedulingIgnoredDuringExecution", 193, false, ATOMIC),
        l("requiredDuringSchedulingIgnoredDuringExecution", 156, false, ATOMIC),
    ],
    // 156: io.k8s.api.core.v1.PodAffinityTerm
    &[
        o("labelSelector", 343, false, D),
        l("matchLabelKeys", NO_DEF, false, ATOMIC),
        l("mismatchLabelKeys", NO_DEF, false, ATOMIC),
        o("namespaceSelector", 343, false, D),
        l("namespaces", NO_DEF, false, ATOMIC),
    ],
    // 157: io.k8s.api.core.v1.PodAntiAffinity
    &[
        l("preferredDuringSchedulingIgnoredDuringExecution", 193, false, ATOMIC),
        l("requiredDuringSchedulingIgnoredDuringExecution", 156, false, ATOMIC),
    ],
    // 158: io.k8s.api.core.v1.PodDNSConfig
    &[
        l("nameservers", NO_DEF, false, ATOMIC),
        l("options", NO_DEF, false, ATOMIC),
        l("searches", NO_DEF, false, ATOMIC),
    ],
    // 159: io.k8s.api.core.v1.PodExtendedResourceClaimStatus
    &[
        l("requestMappings", NO_DEF, false, ATOMIC),
    ],
    // 160: io.k8s.api.core.v1.PodSecurityContext
    &[
        l("supplementalGroups", NO_DEF, false, ATOMIC),
        l("sysctls", NO_DEF, false, ATOMIC),
    ],
    // 161: io.k8s.api.core.v1.PodSpec
    &[
        o("affinity", 102, false, D),
        l("containers", 112, false, MAP_NAME_MERGE_BY_NAME),
        o("dnsConfig", 158, false, D),
        l("ephemeralContainers", 122, false, MAP_NAME_MERGE_BY_NAME),
        l("hostAliases", 128, false, MAP_IP_MERGE_BY_IP),
        l("imagePullSecrets", NO_DEF, false, MAP_NAME_MERGE_BY_NAME),
        l("initContainers", 112, false, MAP_NAME_MERGE_BY_NAME),
        l("readinessGates", NO_DEF, false, ATOMIC),
        l("resourceClaims", NO_DEF, false, MAP_NAME_MERGE_RETAIN_BY_NAME),
        o("resources", 175, false, D),
        l("schedulingGates", NO_DEF, false, MAP_NAME_MERGE_BY_NAME),
        o("securityContext", 160, false, D),
        l("tolerations", NO_DEF, false, ATOMIC),
        l("topologySpreadConstraints", 189, false, MAP_TOPOLOGY_KEY_WHEN_UNSATISFIABLE_MERGE_BY_TOPOLOGY_KEY),
        l("volumes", 190, false, MAP_NAME_MERGE_RETAIN_BY_NAME),
    ],
    // 162: io.k8s.api.core.v1.PodStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
        l("containerStatuses", 116, false, ATOMIC),
        l("ephemeralContainerStatuses", 116, false, ATOMIC),
        o("extendedResourceClaimStatus", 159, false, D),
        l("hostIPs", NO_DEF, false, ATOMIC_MERGE_BY_IP),
        l("initContainerStatuses", 116, false, ATOMIC),
        l("podIPs", NO_DEF, false, MAP_IP_MERGE_BY_IP),
        l("resourceClaimStatuses", NO_DEF, false, MAP_NAME_MERGE_RETAIN_BY_NAME),
    ],
    // 163: io.k8s.api.core.v1.PodTemplate
    &[
        o("metadata", 345, false, D),
        o("template", 164, false, D),
    ],
    // 164: io.k8s.api.core.v1.PodTemplateSpec
    &[
        o("metadata", 345, false, D),
        o("spec", 161, false, D),
    ],
    // 165: io.k8s.api.core.v1.PreferredSchedulingTerm
    &[
        o("preference", 145, false, D),
    ],
    // 166: io.k8s.api.core.v1.Probe
    &[
        o("exec", 125, false, D),
        o("httpGet", 127, false, D),
    ],
    // 167: io.k8s.api.core.v1.ProjectedVolumeSource
    &[
        l("sources", 192, false, ATOMIC),
    ],
    // 168: io.k8s.api.core.v1.RBDPersistentVolumeSource
    &[
        l("monitors", NO_DEF, false, ATOMIC),
    ],
    // 169: io.k8s.api.core.v1.RBDVolumeSource
    &[
        l("monitors", NO_DEF, false, ATOMIC),
    ],
    // 170: io.k8s.api.core.v1.ReplicationController
    &[
        o("metadata", 345, false, D),
        o("spec", 171, false, D),
        o("status", 172, false, D),
    ],
    // 171: io.k8s.api.core.v1.ReplicationControllerSpec
    &[
        o("template", 164, false, D),
    ],
    // 172: io.k8s.api.core.v1.ReplicationControllerStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 173: io.k8s.api.core.v1.ResourceQuota
    &[
        o("metadata", 345, false, D),
        o("spec", 174, false, D),
    ],
    // 174: io.k8s.api.core.v1.ResourceQuotaSpec
    &[
        o("scopeSelector", 177, false, D),
        l("scopes", NO_DEF, false, ATOMIC),
    ],
    // 175: io.k8s.api.core.v1.ResourceRequirements
    &[
        l("claims", NO_DEF, false, MAP_NAME),
    ],
    // 176: io.k8s.api.core.v1.ResourceStatus
    &[
        l("resources", NO_DEF, false, MAP_RESOURCE_ID),
    ],
    // 177: io.k8s.api.core.v1.ScopeSelector
    &[
        l("matchExpressions", 178, false, ATOMIC),
    ],
    // 178: io.k8s.api.core.v1.ScopedResourceSelectorRequirement
    &[
        l("values", NO_DEF, false, ATOMIC),
    ],
    // 179: io.k8s.api.core.v1.Secret
    &[
        o("metadata", 345, false, D),
    ],
    // 180: io.k8s.api.core.v1.SecretProjection
    &[
        l("items", NO_DEF, false, ATOMIC),
    ],
    // 181: io.k8s.api.core.v1.SecretVolumeSource
    &[
        l("items", NO_DEF, false, ATOMIC),
    ],
    // 182: io.k8s.api.core.v1.SecurityContext
    &[
        o("capabilities", 104, false, D),
    ],
    // 183: io.k8s.api.core.v1.Service
    &[
        o("metadata", 345, false, D),
        o("spec", 185, false, D),
        o("status", 186, false, D),
    ],
    // 184: io.k8s.api.core.v1.ServiceAccount
    &[
        l("imagePullSecrets", NO_DEF, false, ATOMIC),
        o("metadata", 345, false, D),
        l("secrets", NO_DEF, false, MAP_NAME_MERGE_BY_NAME),
    ],
    // 185: io.k8s.api.core.v1.ServiceSpec
    &[
        l("clusterIPs", NO_DEF, false, ATOMIC),
        l("externalIPs", NO_DEF, false, ATOMIC),
        l("ipFamilies", NO_DEF, false, ATOMIC),
        l("loadBalancerSourceRanges", NO_DEF, false, ATOMIC),
        l("ports", NO_DEF, false, MAP_PORT_PROTOCOL_MERGE_BY_PORT),
    ],
    // 186: io.k8s.api.core.v1.ServiceStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
        o("loadBalancer", 137, false, D),
    ],
    // 187: io.k8s.api.core.v1.TopologySelectorLabelRequirement
    &[
        l("values", NO_DEF, false, ATOMIC),
    ],
    // 188: io.k8s.api.core.v1.TopologySelectorTerm
    &[
        l("matchLabelExpressions", 187, false, ATOMIC),
    ],
    // 189: io.k8s.api.core.v1.TopologySpreadConstraint
    &[
        o("labelSelector", 343, false, D),
        l("matchLabelKeys", NO_DEF, false, ATOMIC),
    ],
    // 190: io.k8s.api.core.v1.Volume
    &[
        o("cephfs", 106, false, D),
        o("configMap", 111, false, D),
        o("downwardAPI", 119, false, D),
        o("ephemeral", 123, false, D),
        o("fc", 126, false, D),
        o("iscsi", 130, false, D),
        o("projected", 167, false, D),
        o("rbd", 169, false, D),
        o("secret", 181, false, D),
    ],
    // 191: io.k8s.api.core.v1.VolumeNodeAffinity
    &[
        o("required", 143, false, D),
    ],
    // 192: io.k8s.api.core.v1.VolumeProjection
    &[
        o("clusterTrustBundle", 107, false, D),
        o("configMap", 110, false, D),
        o("downwardAPI", 118, false, D),
        o("secret", 180, false, D),
    ],
    // 193: io.k8s.api.core.v1.WeightedPodAffinityTerm
    &[
        o("podAffinityTerm", 156, false, D),
    ],
    // 194: io.k8s.api.discovery.v1.Endpoint
    &[
        l("addresses", NO_DEF, false, SET),
        o("hints", 195, false, D),
    ],
    // 195: io.k8s.api.discovery.v1.EndpointHints
    &[
        l("forNodes", NO_DEF, false, ATOMIC),
        l("forZones", NO_DEF, false, ATOMIC),
    ],
    // 196: io.k8s.api.discovery.v1.EndpointSlice
    &[
        l("endpoints", 194, false, ATOMIC),
        o("metadata", 345, false, D),
        l("ports", NO_DEF, false, ATOMIC),
    ],
    // 197: io.k8s.api.events.v1.Event
    &[
        o("metadata", 345, false, D),
    ],
    // 198: io.k8s.api.flowcontrol.v1.FlowSchema
    &[
        o("metadata", 345, false, D),
        o("spec", 199, false, D),
        o("status", 200, false, D),
    ],
    // 199: io.k8s.api.flowcontrol.v1.FlowSchemaSpec
    &[
        l("rules", 202, false, ATOMIC),
    ],
    // 200: io.k8s.api.flowcontrol.v1.FlowSchemaStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 201: io.k8s.api.flowcontrol.v1.NonResourcePolicyRule
    &[
        l("nonResourceURLs", NO_DEF, false, SET),
        l("verbs", NO_DEF, false, SET),
    ],
    // 202: io.k8s.api.flowcontrol.v1.PolicyRulesWithSubjects
    &[
        l("nonResourceRules", 201, false, ATOMIC),
        l("resourceRules", 205, false, ATOMIC),
        l("subjects", NO_DEF, false, ATOMIC),
    ],
    // 203: io.k8s.api.flowcontrol.v1.PriorityLevelConfiguration
    &[
        o("metadata", 345, false, D),
        o("status", 204, false, D),
    ],
    // 204: io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 205: io.k8s.api.flowcontrol.v1.ResourcePolicyRule
    &[
        l("apiGroups", NO_DEF, false, SET),
        l("namespaces", NO_DEF, false, SET),
        l("resources", NO_DEF, false, SET),
        l("verbs", NO_DEF, false, SET),
    ],
    // 206: io.k8s.api.networking.v1.HTTPIngressRuleValue
    &[
        l("paths", NO_DEF, false, ATOMIC),
    ],
    // 207: io.k8s.api.networking.v1.IPAddress
    &[
        o("metadata", 345, false, D),
    ],
    // 208: io.k8s.api.networking.v1.IPBlock
    &[
        l("except", NO_DEF, false, ATOMIC),
    ],
    // 209: io.k8s.api.networking.v1.Ingress
    &[
        o("metadata", 345, false, D),
        o("spec", 214, false, D),
        o("status", 215, false, D),
    ],
    // 210: io.k8s.api.networking.v1.IngressClass
    &[
        o("metadata", 345, false, D),
    ],
    // 211: io.k8s.api.networking.v1.IngressLoadBalancerIngress
    &[
        l("ports", NO_DEF, false, ATOMIC),
    ],
    // 212: io.k8s.api.networking.v1.IngressLoadBalancerStatus
    &[
        l("ingress", 211, false, ATOMIC),
    ],
    // 213: io.k8s.api.networking.v1.IngressRule
    &[
        o("http", 206, false, D),
    ],
    // 214: io.k8s.api.networking.v1.IngressSpec
    &[
        l("rules", 213, false, ATOMIC),
        l("tls", 216, false, ATOMIC),
    ],
    // 215: io.k8s.api.networking.v1.IngressStatus
    &[
        o("loadBalancer", 212, false, D),
    ],
    // 216: io.k8s.api.networking.v1.IngressTLS
    &[
        l("hosts", NO_DEF, false, ATOMIC),
    ],
    // 217: io.k8s.api.networking.v1.NetworkPolicy
    &[
        o("metadata", 345, false, D),
        o("spec", 221, false, D),
    ],
    // 218: io.k8s.api.networking.v1.NetworkPolicyEgressRule
    &[
        l("ports", NO_DEF, false, ATOMIC),
        l("to", 220, false, ATOMIC),
    ],
    // 219: io.k8s.api.networking.v1.NetworkPolicyIngressRule
    &[
        l("from", 220, false, ATOMIC),
        l("ports", NO_DEF, false, ATOMIC),
    ],
    // 220: io.k8s.api.networking.v1.NetworkPolicyPeer
    &[
        o("ipBlock", 208, false, D),
        o("namespaceSelector", 343, false, D),
        o("podSelector", 343, false, D),
    ],
    // 221: io.k8s.api.networking.v1.NetworkPolicySpec
    &[
        l("egress", 218, false, ATOMIC),
        l("ingress", 219, false, ATOMIC),
        o("podSelector", 343, false, D),
        l("policyTypes", NO_DEF, false, ATOMIC),
    ],
    // 222: io.k8s.api.networking.v1.ServiceCIDR
    &[
        o("metadata", 345, false, D),
        o("spec", 223, false, D),
        o("status", 224, false, D),
    ],
    // 223: io.k8s.api.networking.v1.ServiceCIDRSpec
    &[
        l("cidrs", NO_DEF, false, ATOMIC),
    ],
    // 224: io.k8s.api.networking.v1.ServiceCIDRStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 225: io.k8s.api.networking.v1beta1.IPAddress
    &[
        o("metadata", 345, false, D),
    ],
    // 226: io.k8s.api.networking.v1beta1.ServiceCIDR
    &[
        o("metadata", 345, false, D),
        o("spec", 227, false, D),
        o("status", 228, false, D),
    ],
    // 227: io.k8s.api.networking.v1beta1.ServiceCIDRSpec
    &[
        l("cidrs", NO_DEF, false, ATOMIC),
    ],
    // 228: io.k8s.api.networking.v1beta1.ServiceCIDRStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 229: io.k8s.api.node.v1.RuntimeClass
    &[
        o("metadata", 345, false, D),
        o("scheduling", 230, false, D),
    ],
    // 230: io.k8s.api.node.v1.Scheduling
    &[
        l("tolerations", NO_DEF, false, ATOMIC),
    ],
    // 231: io.k8s.api.policy.v1.Eviction
    &[
        o("deleteOptions", 341, false, D),
        o("metadata", 345, false, D),
    ],
    // 232: io.k8s.api.policy.v1.PodDisruptionBudget
    &[
        o("metadata", 345, false, D),
        o("spec", 233, false, D),
        o("status", 234, false, D),
    ],
    // 233: io.k8s.api.policy.v1.PodDisruptionBudgetSpec
    &[
        o("selector", 343, false, PatchStrategy::Replace),
    ],
    // 234: io.k8s.api.policy.v1.PodDisruptionBudgetStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 235: io.k8s.api.rbac.v1.AggregationRule
    &[
        l("clusterRoleSelectors", 343, false, ATOMIC),
    ],
    // 236: io.k8s.api.rbac.v1.ClusterRole
    &[
        o("aggregationRule", 235, false, D),
        o("metadata", 345, false, D),
        l("rules", 238, false, ATOMIC),
    ],
    // 237: io.k8s.api.rbac.v1.ClusterRoleBinding
    &[
        o("metadata", 345, false, D),
        l("subjects", NO_DEF, false, ATOMIC),
    ],
    // 238: io.k8s.api.rbac.v1.PolicyRule
    &[
        l("apiGroups", NO_DEF, false, ATOMIC),
        l("nonResourceURLs", NO_DEF, false, ATOMIC),
        l("resourceNames", NO_DEF, false, ATOMIC),
        l("resources", NO_DEF, false, ATOMIC),
        l("verbs", NO_DEF, false, ATOMIC),
    ],
    // 239: io.k8s.api.rbac.v1.Role
    &[
        o("metadata", 345, false, D),
        l("rules", 238, false, ATOMIC),
    ],
    // 240: io.k8s.api.rbac.v1.RoleBinding
    &[
        o("metadata", 345, false, D),
        l("subjects", NO_DEF, false, ATOMIC),
    ],
    // 241: io.k8s.api.resource.v1.AllocatedDeviceStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE),
        o("networkData", 257, false, D),
    ],
    // 242: io.k8s.api.resource.v1.AllocationResult
    &[
        o("devices", 246, false, D),
        o("nodeSelector", 143, false, D),
    ],
    // 243: io.k8s.api.resource.v1.CapacityRequestPolicy
    &[
        l("validValues", NO_DEF, false, ATOMIC),
    ],
    // 244: io.k8s.api.resource.v1.Device
    &[
        l("bindingConditions", NO_DEF, false, ATOMIC),
        l("bindingFailureConditions", NO_DEF, false, ATOMIC),
        o("capacity", 247, true, D),
        l("consumesCounters", NO_DEF, false, ATOMIC),
        o("nodeSelector", 143, false, D),
        l("taints", NO_DEF, false, ATOMIC),
    ],
    // 245: io.k8s.api.resource.v1.DeviceAllocationConfiguration
    &[
        l("requests", NO_DEF, false, ATOMIC),
    ],
    // 246: io.k8s.api.resource.v1.DeviceAllocationResult
    &[
        l("config", 245, false, ATOMIC),
        l("results", 254, false, ATOMIC),
    ],
    // 247: io.k8s.api.resource.v1.DeviceCapacity
    &[
        o("requestPolicy", 243, false, D),
    ],
    // 248: io.k8s.api.resource.v1.DeviceClaim
    &[
        l("config", 249, false, ATOMIC),
        l("constraints", 252, false, ATOMIC),
        l("requests", 253, false, ATOMIC),
    ],
    // 249: io.k8s.api.resource.v1.DeviceClaimConfiguration
    &[
        l("requests", NO_DEF, false, ATOMIC),
    ],
    // 250: io.k8s.api.resource.v1.DeviceClass
    &[
        o("metadata", 345, false, D),
        o("spec", 251, false, D),
    ],
    // 251: io.k8s.api.resource.v1.DeviceClassSpec
    &[
        l("config", NO_DEF, false, ATOMIC),
        l("selectors", NO_DEF, false, ATOMIC),
    ],
    // 252: io.k8s.api.resource.v1.DeviceConstraint
    &[
        l("requests", NO_DEF, false, ATOMIC),
    ],
    // 253: io.k8s.api.resource.v1.DeviceRequest
    &[
        o("exactly", 256, false, D),
        l("firstAvailable", 255, false, ATOMIC),
    ],
    // 254: io.k8s.api.resource.v1.DeviceRequestAllocationResult
    &[
        l("bindingConditions", NO_DEF, false, ATOMIC),
        l("bindingFailureConditions", NO_DEF, false, ATOMIC),
        l("tolerations", NO_DEF, false, ATOMIC),
    ],
    // 255: io.k8s.api.resource.v1.DeviceSubRequest
    &[
        l("selectors", NO_DEF, false, ATOMIC),
        l("tolerations", NO_DEF, false, ATOMIC),
    ],
    // 256: io.k8s.api.resource.v1.ExactDeviceRequest
    &[
        l("selectors", NO_DEF, false, ATOMIC),
        l("tolerations", NO_DEF, false, ATOMIC),
    ],
    // 257: io.k8s.api.resource.v1.NetworkDeviceData
    &[
        l("ips", NO_DEF, false, ATOMIC),
    ],
    // 258: io.k8s.api.resource.v1.ResourceClaim
    &[
        o("metadata", 345, false, D),
        o("spec", 259, false, D),
        o("status", 260, false, D),
    ],
    // 259: io.k8s.api.resource.v1.ResourceClaimSpec
    &[
        o("devices", 248, false, D),
    ],
    // 260: io.k8s.api.resource.v1.ResourceClaimStatus
    &[
        o("allocation", 242, false, D),
        l("devices", 241, false, MAP_DRIVER_DEVICE_POOL_SHARE_ID),
        l("reservedFor", NO_DEF, false, MAP_UID_MERGE_BY_UID),
    ],
    // 261: io.k8s.api.resource.v1.ResourceClaimTemplate
    &[
        o("metadata", 345, false, D),
        o("spec", 262, false, D),
    ],
    // 262: io.k8s.api.resource.v1.ResourceClaimTemplateSpec
    &[
        o("metadata", 345, false, D),
        o("spec", 259, false, D),
    ],
    // 263: io.k8s.api.resource.v1.ResourceSlice
    &[
        o("metadata", 345, false, D),
        o("spec", 264, false, D),
    ],
    // 264: io.k8s.api.resource.v1.ResourceSliceSpec
    &[
        l("devices", 244, false, ATOMIC),
        o("nodeSelector", 143, false, D),
        l("sharedCounters", NO_DEF, false, ATOMIC),
    ],
    // 265: io.k8s.api.resource.v1alpha3.DeviceTaintRule
    &[
        o("metadata", 345, false, D),
        o("spec", 266, false, D),
    ],
    // 266: io.k8s.api.resource.v1alpha3.DeviceTaintRuleSpec
    &[
        o("deviceSelector", 267, false, D),
    ],
    // 267: io.k8s.api.resource.v1alpha3.DeviceTaintSelector
    &[
        l("selectors", NO_DEF, false, ATOMIC),
    ],
    // 268: io.k8s.api.resource.v1beta1.AllocatedDeviceStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE),
        o("networkData", 284, false, D),
    ],
    // 269: io.k8s.api.resource.v1beta1.AllocationResult
    &[
        o("devices", 274, false, D),
        o("nodeSelector", 143, false, D),
    ],
    // 270: io.k8s.api.resource.v1beta1.BasicDevice
    &[
        l("bindingConditions", NO_DEF, false, ATOMIC),
        l("bindingFailureConditions", NO_DEF, false, ATOMIC),
        o("capacity", 275, true, D),
        l("consumesCounters", NO_DEF, false, ATOMIC),
        o("nodeSelector", 143, false, D),
        l("taints", NO_DEF, false, ATOMIC),
    ],
    // 271: io.k8s.api.resource.v1beta1.CapacityRequestPolicy
    &[
        l("validValues", NO_DEF, false, ATOMIC),
    ],
    // 272: io.k8s.api.resource.v1beta1.Device
    &[
        o("basic", 270, false, D),
    ],
    // 273: io.k8s.api.resource.v1beta1.DeviceAllocationConfiguration
    &[
        l("requests", NO_DEF, false, ATOMIC),
    ],
    // 274: io.k8s.api.resource.v1beta1.DeviceAllocationResult
    &[
        l("config", 273, false, ATOMIC),
        l("results", 282, false, ATOMIC),
    ],
    // 275: io.k8s.api.resource.v1beta1.DeviceCapacity
    &[
        o("requestPolicy", 271, false, D),
    ],
    // 276: io.k8s.api.resource.v1beta1.DeviceClaim
    &[
        l("config", 277, false, ATOMIC),
        l("constraints", 280, false, ATOMIC),
        l("requests", 281, false, ATOMIC),
    ],
    // 277: io.k8s.api.resource.v1beta1.DeviceClaimConfiguration
    &[
        l("requests", NO_DEF, false, ATOMIC),
    ],
    // 278: io.k8s.api.resource.v1beta1.DeviceClass
    &[
        o("metadata", 345, false, D),
        o("spec", 279, false, D),
    ],
    // 279: io.k8s.api.resource.v1beta1.DeviceClassSpec
    &[
        l("config", NO_DEF, false, ATOMIC),
        l("selectors", NO_DEF, false, ATOMIC),
    ],
    // 280: io.k8s.api.resource.v1beta1.DeviceConstraint
    &[
        l("requests", NO_DEF, false, ATOMIC),
    ],
    // 281: io.k8s.api.resource.v1beta1.DeviceRequest
    &[
        l("firstAvailable", 283, false, ATOMIC),
        l("selectors", NO_DEF, false, ATOMIC),
        l("tolerations", NO_DEF, false, ATOMIC),
    ],
    // 282: io.k8s.api.resource.v1beta1.DeviceRequestAllocationResult
    &[
        l("bindingConditions", NO_DEF, false, ATOMIC),
        l("bindingFailureConditions", NO_DEF, false, ATOMIC),
        l("tolerations", NO_DEF, false, ATOMIC),
    ],
    // 283: io.k8s.api.resource.v1beta1.DeviceSubRequest
    &[
        l("selectors", NO_DEF, false, ATOMIC),
        l("tolerations", NO_DEF, false, ATOMIC),
    ],
    // 284: io.k8s.api.resource.v1beta1.NetworkDeviceData
    &[
        l("ips", NO_DEF, false, ATOMIC),
    ],
    // 285: io.k8s.api.resource.v1beta1.ResourceClaim
    &[
        o("metadata", 345, false, D),
        o("spec", 286, false, D),
        o("status", 287, false, D),
    ],
    // 286: io.k8s.api.resource.v1beta1.ResourceClaimSpec
    &[
        o("devices", 276, false, D),
    ],
    // 287: io.k8s.api.resource.v1beta1.ResourceClaimStatus
    &[
        o("allocation", 269, false, D),
        l("devices", 268, false, MAP_DRIVER_DEVICE_POOL_SHARE_ID),
        l("reservedFor", NO_DEF, false, MAP_UID_MERGE_BY_UID),
    ],
    // 288: io.k8s.api.resource.v1beta1.ResourceClaimTemplate
    &[
        o("metadata", 345, false, D),
        o("spec", 289, false, D),
    ],
    // 289: io.k8s.api.resource.v1beta1.ResourceClaimTemplateSpec
    &[
        o("metadata", 345, false, D),
        o("spec", 286, false, D),
    ],
    // 290: io.k8s.api.resource.v1beta1.ResourceSlice
    &[
        o("metadata", 345, false, D),
        o("spec", 291, false, D),
    ],
    // 291: io.k8s.api.resource.v1beta1.ResourceSliceSpec
    &[
        l("devices", 272, false, ATOMIC),
        o("nodeSelector", 143, false, D),
        l("sharedCounters", NO_DEF, false, ATOMIC),
    ],
    // 292: io.k8s.api.resource.v1beta2.AllocatedDeviceStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE),
        o("networkData", 308, false, D),
    ],
    // 293: io.k8s.api.resource.v1beta2.AllocationResult
    &[
        o("devices", 297, false, D),
        o("nodeSelector", 143, false, D),
    ],
    // 294: io.k8s.api.resource.v1beta2.CapacityRequestPolicy
    &[
        l("validValues", NO_DEF, false, ATOMIC),
    ],
    // 295: io.k8s.api.resource.v1beta2.Device
    &[
        l("bindingConditions", NO_DEF, false, ATOMIC),
        l("bindingFailureConditions", NO_DEF, false, ATOMIC),
        o("capacity", 298, true, D),
        l("consumesCounters", NO_DEF, false, ATOMIC),
        o("nodeSelector", 143, false, D),
        l("taints", NO_DEF, false, ATOMIC),
    ],
    // 296: io.k8s.api.resource.v1beta2.DeviceAllocationConfiguration
    &[
        l("requests", NO_DEF, false, ATOMIC),
    ],
    // 297: io.k8s.api.resource.v1beta2.DeviceAllocationResult
    &[
        l("config", 296, false, ATOMIC),
        l("results", 305, false, ATOMIC),
    ],
    // 298: io.k8s.api.resource.v1beta2.DeviceCapacity
    &[
        o("requestPolicy", 294, false, D),
    ],
    // 299: io.k8s.api.resource.v1beta2.DeviceClaim
    &[
        l("config", 300, false, ATOMIC),
        l("constraints", 303, false, ATOMIC),
        l("requests", 304, false, ATOMIC),
    ],
    // 300: io.k8s.api.resource.v1beta2.DeviceClaimConfiguration
    &[
        l("requests", NO_DEF, false, ATOMIC),
    ],
    // 301: io.k8s.api.resource.v1beta2.DeviceClass
    &[
        o("metadata", 345, false, D),
        o("spec", 302, false, D),
    ],
    // 302: io.k8s.api.resource.v1beta2.DeviceClassSpec
    &[
        l("config", NO_DEF, false, ATOMIC),
        l("selectors", NO_DEF, false, ATOMIC),
    ],
    // 303: io.k8s.api.resource.v1beta2.DeviceConstraint
    &[
        l("requests", NO_DEF, false, ATOMIC),
    ],
    // 304: io.k8s.api.resource.v1beta2.DeviceRequest
    &[
        o("exactly", 307, false, D),
        l("firstAvailable", 306, false, ATOMIC),
    ],
    // 305: io.k8s.api.resource.v1beta2.DeviceRequestAllocationResult
    &[
        l("bindingConditions", NO_DEF, false, ATOMIC),
        l("bindingFailureConditions", NO_DEF, false, ATOMIC),
        l("tolerations", NO_DEF, false, ATOMIC),
    ],
    // 306: io.k8s.api.resource.v1beta2.DeviceSubRequest
    &[
        l("selectors", NO_DEF, false, ATOMIC),
        l("tolerations", NO_DEF, false, ATOMIC),
    ],
    // 307: io.k8s.api.resource.v1beta2.ExactDeviceRequest
    &[
        l("selectors", NO_DEF, false, ATOMIC),
        l("tolerations", NO_DEF, false, ATOMIC),
    ],
    // 308: io.k8s.api.resource.v1beta2.NetworkDeviceData
    &[
        l("ips", NO_DEF, false, ATOMIC),
    ],
    // 309: io.k8s.api.resource.v1beta2.ResourceClaim
    &[
        o("metadata", 345, false, D),
        o("spec", 310, false, D),
        o("status", 311, false, D),
    ],
    // 310: io.k8s.api.resource.v1beta2.ResourceClaimSpec
    &[
        o("devices", 299, false, D),
    ],
    // 311: io.k8s.api.resource.v1beta2.ResourceClaimStatus
    &[
        o("allocation", 293, false, D),
        l("devices", 292, false, MAP_DRIVER_DEVICE_POOL_SHARE_ID),
        l("reservedFor", NO_DEF, false, MAP_UID_MERGE_BY_UID),
    ],
    // 312: io.k8s.api.resource.v1beta2.ResourceClaimTemplate
    &[
        o("metadata", 345, false, D),
        o("spec", 313, false, D),
    ],
    // 313: io.k8s.api.resource.v1beta2.ResourceClaimTemplateSpec
    &[
        o("metadata", 345, false, D),
        o("spec", 310, false, D),
    ],
    // 314: io.k8s.api.resource.v1beta2.ResourceSlice
    &[
        o("metadata", 345, false, D),
        o("spec", 315, false, D),
    ],
    // 315: io.k8s.api.resource.v1beta2.ResourceSliceSpec
    &[
        l("devices", 295, false, ATOMIC),
        o("nodeSelector", 143, false, D),
        l("sharedCounters", NO_DEF, false, ATOMIC),
    ],
    // 316: io.k8s.api.scheduling.v1.PriorityClass
    &[
        o("metadata", 345, false, D),
    ],
    // 317: io.k8s.api.storage.v1.CSIDriver
    &[
        o("metadata", 345, false, D),
        o("spec", 318, false, D),
    ],
    // 318: io.k8s.api.storage.v1.CSIDriverSpec
    &[
        l("tokenRequests", NO_DEF, false, ATOMIC),
        l("volumeLifecycleModes", NO_DEF, false, SET),
    ],
    // 319: io.k8s.api.storage.v1.CSINode
    &[
        o("metadata", 345, false, D),
        o("spec", 321, false, D),
    ],
    // 320: io.k8s.api.storage.v1.CSINodeDriver
    &[
        l("topologyKeys", NO_DEF, false, ATOMIC),
    ],
    // 321: io.k8s.api.storage.v1.CSINodeSpec
    &[
        l("drivers", 320, false, MAP_NAME_MERGE_BY_NAME),
    ],
    // 322: io.k8s.api.storage.v1.CSIStorageCapacity
    &[
        o("metadata", 345, false, D),
        o("nodeTopology", 343, false, D),
    ],
    // 323: io.k8s.api.storage.v1.StorageClass
    &[
        l("allowedTopologies", 188, false, ATOMIC),
        o("metadata", 345, false, D),
        l("mountOptions", NO_DEF, false, ATOMIC),
    ],
    // 324: io.k8s.api.storage.v1.VolumeAttachment
    &[
        o("metadata", 345, false, D),
        o("spec", 326, false, D),
    ],
    // 325: io.k8s.api.storage.v1.VolumeAttachmentSource
    &[
        o("inlineVolumeSpec", 153, false, D),
    ],
    // 326: io.k8s.api.storage.v1.VolumeAttachmentSpec
    &[
        o("source", 325, false, D),
    ],
    // 327: io.k8s.api.storage.v1.VolumeAttributesClass
    &[
        o("metadata", 345, false, D),
    ],
    // 328: io.k8s.api.storage.v1alpha1.VolumeAttributesClass
    &[
        o("metadata", 345, false, D),
    ],
    // 329: io.k8s.api.storage.v1beta1.VolumeAttributesClass
    &[
        o("metadata", 345, false, D),
    ],
    // 330: io.k8s.api.storagemigration.v1alpha1.StorageVersionMigration
    &[
        o("metadata", 345, false, D),
        o("status", 331, false, D),
    ],
    // 331: io.k8s.api.storagemigration.v1alpha1.StorageVersionMigrationStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
    // 332: io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceConversion
    &[
        o("webhook", 340, false, D),
    ],
    // 333: io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition
    &[
        o("metadata", 345, false, D),
        o("spec", 335, false, D),
        o("status", 336, false, D),
    ],
    // 334: io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionNames
    &[
        l("categories", NO_DEF, false, ATOMIC),
        l("shortNames", NO_DEF, false, ATOMIC),
    ],
    // 335: io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec
    &[
        o("conversion", 332, false, D),
        o("names", 334, false, D),
        l("versions", 337, false, ATOMIC),
    ],
    // 336: io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus
    &[
        o("acceptedNames", 334, false, D),
        l("conditions", NO_DEF, false, MAP_TYPE),
        l("storedVersions", NO_DEF, false, ATOMIC),
    ],
    // 337: io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionVersion
    &[
        l("additionalPrinterColumns", NO_DEF, false, ATOMIC),
        o("schema", 338, false, D),
        l("selectableFields", NO_DEF, false, ATOMIC),
    ],
    // 338: io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceValidation
    &[
        o("openAPIV3Schema", 339, false, D),
    ],
    // 339: io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps
    &[
        l("allOf", 339, false, ATOMIC),
        l("anyOf", 339, false, ATOMIC),
        o("definitions", 339, true, D),
        l("enum", NO_DEF, false, ATOMIC),
        o("not", 339, false, D),
        l("oneOf", 339, false, ATOMIC),
        o("patternProperties", 339, true, D),
        o("properties", 339, true, D),
        l("required", NO_DEF, false, ATOMIC),
        l("x-kubernetes-list-map-keys", NO_DEF, false, ATOMIC),
        l("x-kubernetes-validations", NO_DEF, false, MAP_RULE_MERGE_BY_RULE),
    ],
    // 340: io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.WebhookConversion
    &[
        l("conversionReviewVersions", NO_DEF, false, ATOMIC),
    ],
    // 341: io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions
    &[
        l("dryRun", NO_DEF, false, ATOMIC),
    ],
    // 342: io.k8s.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement
    &[
        l("values", NO_DEF, false, ATOMIC),
    ],
    // 343: io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector
    &[
        l("matchExpressions", 344, false, ATOMIC),
    ],
    // 344: io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement
    &[
        l("values", NO_DEF, false, ATOMIC),
    ],
    // 345: io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta
    &[
        l("finalizers", NO_DEF, false, SET_MERGE),
        l("managedFields", NO_DEF, false, ATOMIC),
        l("ownerReferences", NO_DEF, false, MAP_UID_MERGE_BY_UID),
    ],
    // 346: io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService
    &[
        o("metadata", 345, false, D),
        o("status", 347, false, D),
    ],
    // 347: io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus
    &[
        l("conditions", NO_DEF, false, MAP_TYPE_MERGE_BY_TYPE),
    ],
];
