//! Finds the pod spec in a manifest and walks its containers and volumes with their JSON paths, so that every
//! message can say exactly which field it is about.
//!
//! Where the pod spec is comes from the SDK ([`weft_sdk::pods::pod_spec_keys`], shared with the host's image
//! pinning); the pod's metadata is beside it.

use serde_json::Value;

/// The field at `path` under `value` (object keys only), if every step is there.
pub fn get<'v>(value: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(value, |value, key| value.get(key))
}

/// The field at `path`, unless it is absent or `null`.
pub fn present<'v>(value: &'v Value, path: &[&str]) -> Option<&'v Value> {
    get(value, path).filter(|value| !value.is_null())
}

/// Whether the field at `path` is the boolean `true`.
pub fn is_true(value: &Value, path: &[&str]) -> bool {
    get(value, path).and_then(Value::as_bool) == Some(true)
}

/// The field at `path` as a boolean, when it is one.
pub fn bool_at(value: &Value, path: &[&str]) -> Option<bool> {
    get(value, path).and_then(Value::as_bool)
}

/// The field at `path` as a string, when it is one.
pub fn str_at<'v>(value: &'v Value, path: &[&str]) -> Option<&'v str> {
    get(value, path).and_then(Value::as_str)
}

/// The items of the list at `path` (none when it is absent or not a list).
pub fn list_at<'v>(value: &'v Value, path: &[&str]) -> &'v [Value] {
    get(value, path)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// A JSON value for a message: strings quoted, anything else as JSON.
pub fn show(value: &Value) -> String {
    match value {
        Value::String(text) => format!("{text:?}"),
        other => other.to_string(),
    }
}

/// The three lists of containers a pod spec has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContainerSet {
    /// `initContainers` (native sidecars included).
    Init,
    /// `containers`.
    Regular,
    /// `ephemeralContainers` (debug containers added to a running Pod).
    Ephemeral,
}

impl ContainerSet {
    /// All three, in the order the pod-security admission library visits them.
    pub const ALL: [ContainerSet; 3] = [
        ContainerSet::Init,
        ContainerSet::Regular,
        ContainerSet::Ephemeral,
    ];

    /// The pod spec field holding the list.
    pub fn field(self) -> &'static str {
        match self {
            ContainerSet::Init => "initContainers",
            ContainerSet::Regular => "containers",
            ContainerSet::Ephemeral => "ephemeralContainers",
        }
    }
}

/// The pod spec of one manifest.
#[derive(Debug, Clone)]
pub struct PodSpec<'a> {
    spec: &'a Value,
    metadata: Option<&'a Value>,
    path: String,
    metadata_path: String,
}

impl<'a> PodSpec<'a> {
    /// The manifest's pod spec, when it has one (see the module documentation for where).
    pub fn find(manifest: &'a Value) -> Option<PodSpec<'a>> {
        let path = weft_sdk::pods::pod_spec_keys(manifest)?;
        let spec = get(manifest, path).filter(|spec| spec.is_object())?;
        let (last, parent) = path.split_last()?;
        debug_assert_eq!(*last, "spec");
        let metadata = get(manifest, parent).and_then(|parent| parent.get("metadata"));
        let metadata_path = parent
            .iter()
            .copied()
            .chain(["metadata"])
            .collect::<Vec<_>>()
            .join(".");
        Some(PodSpec {
            spec,
            metadata,
            path: path.join("."),
            metadata_path,
        })
    }

    /// The pod spec itself.
    pub fn spec(&self) -> &'a Value {
        self.spec
    }

    /// Its path in the manifest (`spec.template.spec`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The path of a field under the pod spec (`spec.template.spec.hostNetwork`).
    pub fn field(&self, field: &str) -> String {
        format!("{}.{field}", self.path)
    }

    /// `pod spec (<path>)`, how messages name it.
    pub fn describe(&self) -> String {
        format!("pod spec ({})", self.path)
    }

    /// `pod metadata (<path>)`, how messages name the pod's metadata.
    pub fn describe_metadata(&self) -> String {
        format!("pod metadata ({})", self.metadata_path)
    }

    /// The field at `path` under the pod spec.
    pub fn get(&self, path: &[&str]) -> Option<&'a Value> {
        get(self.spec, path)
    }

    /// Whether the field at `path` under the pod spec is `true`.
    pub fn is_true(&self, path: &[&str]) -> bool {
        is_true(self.spec, path)
    }

    /// Whether the pod declares itself a Windows pod (`spec.os.name: windows`).
    pub fn is_windows(&self) -> bool {
        str_at(self.spec, &["os", "name"]) == Some("windows")
    }

    /// Whether the pod runs in its own user namespace (`hostUsers: false`, explicitly).
    pub fn in_user_namespace(&self) -> bool {
        bool_at(self.spec, &["hostUsers"]) == Some(false)
    }

    /// The pod template's annotations, by key.
    pub fn annotations(&self) -> Vec<(&'a str, &'a Value)> {
        let mut annotations: Vec<(&str, &Value)> = self
            .metadata
            .and_then(|metadata| metadata.get("annotations"))
            .and_then(Value::as_object)
            .map(|map| {
                map.iter()
                    .map(|(key, value)| (key.as_str(), value))
                    .collect()
            })
            .unwrap_or_default();
        annotations.sort_by_key(|(key, _)| *key);
        annotations
    }

    /// The containers of the given lists, each list in order.
    pub fn containers_of(&self, sets: &[ContainerSet]) -> Vec<Container<'a>> {
        sets.iter()
            .flat_map(|&set| {
                list_at(self.spec, &[set.field()])
                    .iter()
                    .enumerate()
                    .filter(|(_, value)| value.is_object())
                    .map(move |(index, value)| Container {
                        value,
                        set,
                        path: format!("{}.{}[{index}]", self.path, set.field()),
                    })
            })
            .collect()
    }

    /// Every container: init, regular and ephemeral.
    pub fn containers(&self) -> Vec<Container<'a>> {
        self.containers_of(&ContainerSet::ALL)
    }

    /// The volumes.
    pub fn volumes(&self) -> Vec<Volume<'a>> {
        list_at(self.spec, &["volumes"])
            .iter()
            .enumerate()
            .filter(|(_, value)| value.is_object())
            .map(|(index, value)| Volume {
                value,
                path: format!("{}.volumes[{index}]", self.path),
            })
            .collect()
    }
}

/// One container of a pod spec.
#[derive(Debug, Clone)]
pub struct Container<'a> {
    /// The container object.
    pub value: &'a Value,
    /// Which list it is in.
    pub set: ContainerSet,
    path: String,
}

impl<'a> Container<'a> {
    /// Its name, when it has one.
    pub fn name(&self) -> Option<&'a str> {
        str_at(self.value, &["name"])
    }

    /// Its image, when it names one.
    pub fn image(&self) -> Option<&'a str> {
        str_at(self.value, &["image"])
    }

    /// Its path in the manifest (`spec.template.spec.containers[0]`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// `container "web" (<path>)`, how messages name it.
    pub fn describe(&self) -> String {
        match self.name() {
            Some(name) => format!("container {name:?} ({})", self.path),
            None => format!("container ({})", self.path),
        }
    }

    /// The field at `path` under the container.
    pub fn get(&self, path: &[&str]) -> Option<&'a Value> {
        get(self.value, path)
    }

    /// Whether the field at `path` under the container is `true`.
    pub fn is_true(&self, path: &[&str]) -> bool {
        is_true(self.value, path)
    }
}

/// One volume of a pod spec.
#[derive(Debug, Clone)]
pub struct Volume<'a> {
    /// The volume object.
    pub value: &'a Value,
    path: String,
}

impl<'a> Volume<'a> {
    /// `volume "data" (<path>)`, how messages name it.
    pub fn describe(&self) -> String {
        match str_at(self.value, &["name"]) {
            Some(name) => format!("volume {name:?} ({})", self.path),
            None => format!("volume ({})", self.path),
        }
    }

    /// The volume sources it sets (every field but `name` that is not `null`), by name.
    pub fn sources(&self) -> Vec<&'a str> {
        self.value
            .as_object()
            .map(|map| {
                let mut sources: Vec<&str> = map
                    .iter()
                    .filter(|(key, value)| key.as_str() != "name" && !value.is_null())
                    .map(|(key, _)| key.as_str())
                    .collect();
                sources.sort_unstable();
                sources
            })
            .unwrap_or_default()
    }

    /// The source `source`, when the volume sets it.
    pub fn source(&self, source: &str) -> Option<&'a Value> {
        present(self.value, &[source])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn containers() -> Value {
        json!({"containers": [{"name": "web", "image": "nginx"}]})
    }

    fn path_of(manifest: &Value) -> Option<String> {
        PodSpec::find(manifest).map(|pod| pod.path().to_string())
    }

    #[test]
    fn a_pod_has_its_spec_at_spec() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"annotations": {"a": "1"}}, "spec": containers()});
        let found = PodSpec::find(&pod).unwrap();
        assert_eq!(found.path(), "spec");
        assert_eq!(found.describe_metadata(), "pod metadata (metadata)");
        assert_eq!(found.annotations().len(), 1);
    }

    #[test]
    fn every_built_in_workload_has_its_pod_template_found() {
        for (api_version, kind) in [
            ("apps/v1", "Deployment"),
            ("apps/v1", "StatefulSet"),
            ("apps/v1", "DaemonSet"),
            ("apps/v1", "ReplicaSet"),
            ("extensions/v1beta1", "Deployment"),
            ("v1", "ReplicationController"),
            ("batch/v1", "Job"),
        ] {
            let manifest = json!({"apiVersion": api_version, "kind": kind, "spec": {"template": {"spec": containers()}}});
            assert_eq!(
                path_of(&manifest).as_deref(),
                Some("spec.template.spec"),
                "{kind}"
            );
        }
        let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob",
            "spec": {"jobTemplate": {"spec": {"template": {"metadata": {}, "spec": containers()}}}}});
        let found = PodSpec::find(&cron).unwrap();
        assert_eq!(found.path(), "spec.jobTemplate.spec.template.spec");
        assert_eq!(
            found.describe_metadata(),
            "pod metadata (spec.jobTemplate.spec.template.metadata)"
        );
        let template =
            json!({"apiVersion": "v1", "kind": "PodTemplate", "template": {"spec": containers()}});
        assert_eq!(path_of(&template).as_deref(), Some("template.spec"));
    }

    #[test]
    fn a_custom_workload_with_a_pod_template_is_found() {
        let rollout = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
            "spec": {"template": {"spec": containers()}}});
        assert_eq!(path_of(&rollout).as_deref(), Some("spec.template.spec"));
    }

    #[test]
    fn objects_without_a_pod_spec_are_not_found() {
        for manifest in [
            json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {}}),
            json!({"apiVersion": "v1", "kind": "Service", "spec": {"ports": []}}),
            json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "spec": {"workloadRef": {}}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": "x"}}}),
            json!({"kind": 7}),
            json!([]),
        ] {
            assert_eq!(path_of(&manifest), None, "{manifest}");
        }
    }

    #[test]
    fn a_custom_resource_named_like_a_built_in_kind_is_judged_by_its_shape() {
        let custom_pod =
            json!({"apiVersion": "example.com/v1", "kind": "Pod", "spec": {"containers": []}});
        assert_eq!(path_of(&custom_pod), None);
        let no_api_version = json!({"kind": "Pod", "spec": containers()});
        assert_eq!(path_of(&no_api_version).as_deref(), Some("spec"));
    }

    #[test]
    fn containers_come_with_their_lists_and_paths() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "spec": {
            "containers": [{"name": "web"}, {"image": "x"}],
            "initContainers": [{"name": "setup"}],
            "ephemeralContainers": [{"name": "debug"}],
        }});
        let found = PodSpec::find(&pod).unwrap();
        let described: Vec<String> = found.containers().iter().map(Container::describe).collect();
        assert_eq!(
            described,
            [
                "container \"setup\" (spec.initContainers[0])",
                "container \"web\" (spec.containers[0])",
                "container (spec.containers[1])",
                "container \"debug\" (spec.ephemeralContainers[0])",
            ]
        );
        assert_eq!(found.containers_of(&[ContainerSet::Regular]).len(), 2);
    }

    #[test]
    fn windows_pods_and_user_namespaces_are_recognised_only_when_explicit() {
        let pod = |spec: Value| json!({"apiVersion": "v1", "kind": "Pod", "spec": spec});
        let windows = pod(json!({"os": {"name": "windows"}, "hostUsers": false}));
        let found = PodSpec::find(&windows).unwrap();
        assert!(found.is_windows() && found.in_user_namespace());
        let linux = pod(json!({"os": {"name": "linux"}}));
        let found = PodSpec::find(&linux).unwrap();
        assert!(!found.is_windows() && !found.in_user_namespace());
    }
}
