//! Where a workload keeps its pod template, and the containers in it with their JSON paths: the one walker the
//! host (image pinning) and the gate plugins share.

use serde_json::Value;

/// The pod spec of a Pod.
const POD: &[&str] = &["spec"];
/// The pod spec of a PodTemplate.
const POD_TEMPLATE: &[&str] = &["template", "spec"];
/// The pod spec of a workload with a pod template.
const TEMPLATE: &[&str] = &["spec", "template", "spec"];
/// The pod spec of a CronJob.
const CRON_JOB: &[&str] = &["spec", "jobTemplate", "spec", "template", "spec"];

/// The API groups and kinds whose pod spec is at a known place.
const KNOWN: &[(&str, &[&str], &[&str])] = &[
    ("", &["Pod"], POD),
    ("", &["PodTemplate"], POD_TEMPLATE),
    ("", &["ReplicationController"], TEMPLATE),
    (
        "apps",
        &["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"],
        TEMPLATE,
    ),
    (
        "extensions",
        &["Deployment", "DaemonSet", "ReplicaSet"],
        TEMPLATE,
    ),
    ("batch", &["Job"], TEMPLATE),
    ("batch", &["CronJob"], CRON_JOB),
];

/// Where an object keeps its pod spec, as the keys leading to it:
///
/// | kind | pod spec |
/// | --- | --- |
/// | `v1` Pod | `spec` |
/// | `v1` PodTemplate | `template.spec` |
/// | `v1` ReplicationController, `apps` (or legacy `extensions`) Deployment, StatefulSet, DaemonSet, ReplicaSet, `batch` Job | `spec.template.spec` |
/// | `batch` CronJob | `spec.jobTemplate.spec.template.spec` |
/// | any other kind with a `spec.template.spec.containers` list (Argo Rollouts, other custom workloads) | `spec.template.spec` |
///
/// A built-in kind is recognised by its API group too (a manifest without `apiVersion` matches by kind alone), so
/// a custom resource that happens to be called `Pod` or `Job` is treated like any other custom resource.
pub fn pod_spec_keys(object: &Value) -> Option<&'static [&'static str]> {
    let kind = object.get("kind").and_then(Value::as_str)?;
    let group = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .map(|api_version| api_version.split_once('/').map_or("", |(group, _)| group));
    let known = KNOWN.iter().find(|(known_group, kinds, _)| {
        kinds.contains(&kind) && group.is_none_or(|group| group == *known_group)
    });
    match known {
        Some((_, _, path)) => Some(path),
        None if TEMPLATE
            .iter()
            .try_fold(object, |value, key| value.get(key))
            .and_then(|spec| spec.get("containers"))
            .is_some_and(Value::is_array) =>
        {
            Some(TEMPLATE)
        }
        None => None,
    }
}

fn pointer_of(keys: &[&str]) -> String {
    keys.iter().map(|key| format!("/{key}")).collect()
}

/// The pod spec of an object, when it has one.
pub fn pod_spec(object: &Value) -> Option<&Value> {
    object.pointer(&pointer_of(pod_spec_keys(object)?))
}

/// The pod spec of an object, mutable.
pub fn pod_spec_mut(object: &mut Value) -> Option<&mut Value> {
    let path = pointer_of(pod_spec_keys(object)?);
    object.pointer_mut(&path)
}

/// The pod template of an object (the object holding its pod spec as `spec`, with the pod's `metadata`), when it
/// has a pod spec: a Pod is its own template.
pub fn pod_template(object: &Value) -> Option<&Value> {
    object.pointer(&pointer_of(template_keys(pod_spec_keys(object)?)))
}

/// The pod template of an object, mutable.
pub fn pod_template_mut(object: &mut Value) -> Option<&mut Value> {
    let path = pointer_of(template_keys(pod_spec_keys(object)?));
    object.pointer_mut(&path)
}

/// The keys to the pod template: every pod spec's keys end with its template's `spec`.
fn template_keys(pod_spec_keys: &'static [&'static str]) -> &'static [&'static str] {
    pod_spec_keys
        .split_last()
        .map_or(&[], |(_, template)| template)
}

/// The container lists of a pod spec, in order.
pub const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

/// One container of a pod spec.
#[derive(Debug, Clone, Copy)]
pub struct ContainerRef<'a> {
    /// Its list (`containers`, `initContainers`, `ephemeralContainers`).
    pub list: &'static str,
    /// Its index in the list.
    pub index: usize,
    /// The container.
    pub container: &'a Value,
}

impl ContainerRef<'_> {
    /// Its name (empty when it has none).
    pub fn name(&self) -> &str {
        self.container
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// Its image (`None` when it names none).
    pub fn image(&self) -> Option<&str> {
        self.container.get("image").and_then(Value::as_str)
    }

    /// Its path under the pod spec's (`containers[0]`).
    pub fn path(&self) -> String {
        format!("{}[{}]", self.list, self.index)
    }
}

/// Every container of a pod spec, init containers first.
pub fn containers(pod_spec: &Value) -> Vec<ContainerRef<'_>> {
    CONTAINER_LISTS
        .iter()
        .flat_map(|list| {
            pod_spec
                .get(*list)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
                .map(move |(index, container)| ContainerRef {
                    list,
                    index,
                    container,
                })
        })
        .collect()
}

/// Rewrites every container image of an object's pod spec with `rewrite` (which returns the new image, or `None`
/// to leave it); how many it changed.
pub fn rewrite_images(
    object: &mut Value,
    mut rewrite: impl FnMut(&str) -> Option<String>,
) -> usize {
    let Some(spec) = pod_spec_mut(object) else {
        return 0;
    };
    let mut changed = 0;
    for list in CONTAINER_LISTS {
        let Some(items) = spec.get_mut(list).and_then(Value::as_array_mut) else {
            continue;
        };
        for container in items {
            let Some(image) = container.get("image").and_then(Value::as_str) else {
                continue;
            };
            if let Some(new) = rewrite(image)
                && new != image
            {
                container["image"] = Value::String(new);
                changed += 1;
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pod_specs_are_found_in_pods_workloads_cron_jobs_and_custom_workloads() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "a", "image": "x"}]}});
        assert_eq!(pod_spec_keys(&pod), Some(&["spec"][..]));
        let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}}});
        assert_eq!(
            pod_spec_keys(&cron),
            Some(&["spec", "jobTemplate", "spec", "template", "spec"][..])
        );
        let rollout = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "spec": {"template": {"spec": {"containers": [{"image": "y"}]}}}});
        assert_eq!(
            pod_spec_keys(&rollout),
            Some(&["spec", "template", "spec"][..])
        );
        assert!(pod_spec(&rollout).is_some());
        assert_eq!(
            pod_spec_keys(&json!({"kind": "ConfigMap", "data": {}})),
            None
        );
        // A custom resource called Pod is not a Pod.
        let custom =
            json!({"apiVersion": "example.com/v1", "kind": "Pod", "spec": {"containers": []}});
        assert_eq!(pod_spec_keys(&custom), None);
    }

    #[test]
    fn a_pod_template_holds_the_pod_spec_and_a_pod_is_its_own_template() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}});
        assert_eq!(pod_template(&pod), Some(&pod));
        let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {
            "metadata": {"labels": {"a": "b"}}, "spec": {"containers": []}}}}}});
        assert_eq!(
            pod_template(&cron),
            Some(&json!({"metadata": {"labels": {"a": "b"}}, "spec": {"containers": []}}))
        );
        let mut rollout = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "spec": {"template": {"spec": {"containers": [{"image": "y"}]}}}});
        pod_template_mut(&mut rollout).unwrap()["metadata"] = json!({"annotations": {}});
        assert_eq!(
            rollout["spec"]["template"]["metadata"],
            json!({"annotations": {}})
        );
        assert_eq!(
            pod_template(&json!({"kind": "ConfigMap", "data": {}})),
            None
        );
    }

    #[test]
    fn containers_come_with_their_list_and_index_and_images_are_rewritten_in_place() {
        let mut deployment = json!({"kind": "Deployment", "spec": {"template": {"spec": {
            "initContainers": [{"name": "init", "image": "busybox:1"}],
            "containers": [{"name": "web", "image": "web:1"}, {"name": "side", "image": "proxy:2"}]}}}});
        let found: Vec<(String, String)> = containers(pod_spec(&deployment).unwrap())
            .iter()
            .map(|c| (c.path(), c.image().unwrap().to_string()))
            .collect();
        assert_eq!(
            found,
            [
                ("initContainers[0]".to_string(), "busybox:1".to_string()),
                ("containers[0]".into(), "web:1".into()),
                ("containers[1]".into(), "proxy:2".into())
            ]
        );
        let changed = rewrite_images(&mut deployment, |image| {
            (image == "web:1").then(|| "web:1@sha256:ab".to_string())
        });
        assert_eq!(changed, 1);
        assert_eq!(
            deployment
                .pointer("/spec/template/spec/containers/0/image")
                .unwrap(),
            "web:1@sha256:ab"
        );
    }
}
