//! Environment fingerprints: a workload's pod template carries a sha256 over the names and versions
//! (`resourceVersion`s) of the Secrets it reads, never their values, so a rotated Secret changes the desired
//! template and rolls the workload, and the fingerprint can be stored, logged and shown without leaking anything.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use sha2::{Digest, Sha256};
use weft_sdk::pods::{pod_spec, pod_template, pod_template_mut};

/// The pod-template annotation holding the fingerprint.
pub const FINGERPRINT_ANNOTATION: &str = "weft.dev/env-fingerprint";

/// The names of the Secrets a pod spec reads: env `secretKeyRef`s, `envFrom` `secretRef`s and secret volumes
/// (plain and projected), in every container and init container.
pub fn referenced_secrets(pod_spec: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut add = |value: Option<&Value>| {
        if let Some(name) = value.and_then(Value::as_str).filter(|n| !n.is_empty()) {
            names.insert(name.to_string());
        }
    };
    for list in ["containers", "initContainers", "ephemeralContainers"] {
        for container in pod_spec
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for env in container
                .get("env")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                add(env.pointer("/valueFrom/secretKeyRef/name"));
            }
            for from in container
                .get("envFrom")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                add(from.pointer("/secretRef/name"));
            }
        }
    }
    for volume in pod_spec
        .get("volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        add(volume.pointer("/secret/secretName"));
        for source in volume
            .pointer("/projected/sources")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            add(source.pointer("/secret/name"));
        }
    }
    names
}

/// The fingerprint of some Secrets' versions: sha256 over `name=version` lines in name order (`-` for a Secret
/// that does not exist).
pub fn fingerprint(versions: &BTreeMap<String, Option<String>>) -> String {
    let mut hasher = Sha256::new();
    for (name, version) in versions {
        hasher.update(name.as_bytes());
        hasher.update(b"=");
        hasher.update(version.as_deref().unwrap_or("-").as_bytes());
        hasher.update(b"\n");
    }
    hex::encode(hasher.finalize())
}

/// The Secrets among `objects` themselves, as `(namespace, name)` pairs. They change with the app's own commits
/// (and with every apply Weft makes of them), so they are not part of any fingerprint: a fingerprint follows
/// Secrets rotated outside git, by a secret manager or by hand.
pub fn own_secrets(objects: &[Value]) -> BTreeSet<(String, String)> {
    objects
        .iter()
        .filter(|o| weft_core::secrets::is_secret(o))
        .filter_map(|o| {
            let metadata = o.get("metadata")?;
            let name = metadata.get("name")?.as_str()?;
            let namespace = metadata
                .get("namespace")
                .and_then(Value::as_str)
                .unwrap_or("");
            Some((namespace.to_string(), name.to_string()))
        })
        .collect()
}

/// The Secrets outside `objects` that workloads among them read, as `(namespace, name)` pairs.
pub fn secrets_to_look_up(objects: &[Value]) -> BTreeSet<(String, String)> {
    let own = own_secrets(objects);
    let mut wanted = BTreeSet::new();
    for object in objects {
        let Some((namespace, pod_spec)) = workload_pod_spec(object) else {
            continue;
        };
        for name in referenced_secrets(pod_spec) {
            let key = (namespace.to_string(), name);
            if !own.contains(&key) {
                wanted.insert(key);
            }
        }
    }
    wanted
}

fn workload_pod_spec(object: &Value) -> Option<(&str, &Value)> {
    let pod_spec = pod_spec(object)?;
    let namespace = object
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("");
    Some((namespace, pod_spec))
}

/// Writes each workload's fingerprint into its pod template's annotations, from the versions of the Secrets it
/// reads (`versions` is keyed by `(namespace, name)`). Secrets among `objects` do not count ([`own_secrets`]);
/// workloads that read no other Secret are left alone.
pub fn stamp_fingerprints(
    objects: &mut [Value],
    versions: &BTreeMap<(String, String), Option<String>>,
) {
    let own = own_secrets(objects);
    for object in objects.iter_mut() {
        let Some((namespace, pod_spec)) = workload_pod_spec(object) else {
            continue;
        };
        let namespace_owned = namespace.to_string();
        let names: BTreeSet<String> = referenced_secrets(pod_spec)
            .into_iter()
            .filter(|name| !own.contains(&(namespace_owned.clone(), name.clone())))
            .collect();
        if names.is_empty() {
            continue;
        }
        let namespace = namespace.to_string();
        let mine: BTreeMap<String, Option<String>> = names
            .into_iter()
            .map(|name| {
                let version = versions
                    .get(&(namespace.clone(), name.clone()))
                    .cloned()
                    .flatten();
                (name, version)
            })
            .collect();
        let print = fingerprint(&mine);
        let Some(template) = pod_template_mut(object).and_then(Value::as_object_mut) else {
            continue;
        };
        let metadata = template
            .entry("metadata")
            .or_insert_with(|| Value::Object(Default::default()));
        if !metadata.is_object() {
            *metadata = Value::Object(Default::default());
        }
        let Some(metadata) = metadata.as_object_mut() else {
            continue;
        };
        let annotations = metadata
            .entry("annotations")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Some(annotations) = annotations.as_object_mut() {
            annotations.insert(FINGERPRINT_ANNOTATION.into(), Value::String(print));
        }
    }
}

/// A digest of every fingerprint among desired objects (by object), so that a rotated Secret is noticed for the
/// app as a whole; `None` when no workload reads an outside Secret.
pub fn environment_digest(objects: &[Value]) -> Option<String> {
    let mut prints = BTreeMap::new();
    for object in objects {
        let Some(kind) = object.get("kind").and_then(Value::as_str) else {
            continue;
        };
        let Some(print) = pod_template(object)
            .and_then(|t| t.pointer("/metadata/annotations"))
            .and_then(|a| a.get(FINGERPRINT_ANNOTATION))
            .and_then(Value::as_str)
        else {
            continue;
        };
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let namespace = object
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("");
        prints.insert(
            format!("{kind}/{namespace}/{name}"),
            Some(print.to_string()),
        );
    }
    (!prints.is_empty()).then(|| fingerprint(&prints))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn deployment() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
               "spec": {"template": {"spec": {
                   "containers": [{"name": "web", "image": "web:1",
                       "env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
                               {"name": "B", "value": "plain"}],
                       "envFrom": [{"secretRef": {"name": "api"}}, {"configMapRef": {"name": "settings"}}]}],
                   "initContainers": [{"name": "init", "image": "i", "env": [{"name": "C", "valueFrom": {"secretKeyRef": {"name": "init-key", "key": "k"}}}]}],
                   "volumes": [{"name": "tls", "secret": {"secretName": "tls"}},
                               {"name": "p", "projected": {"sources": [{"secret": {"name": "projected"}}]}}]}}}})
    }

    #[test]
    fn every_way_of_reading_a_secret_is_found() {
        let pod_spec = &deployment()["spec"]["template"]["spec"];
        let names: Vec<String> = referenced_secrets(pod_spec).into_iter().collect();
        assert_eq!(names, vec!["api", "db", "init-key", "projected", "tls"]);
    }

    #[test]
    fn a_rotated_secret_changes_the_fingerprint_and_values_never_enter_it() {
        let mut versions: BTreeMap<(String, String), Option<String>> =
            ["api", "db", "init-key", "projected", "tls"]
                .iter()
                .map(|n| (("shop".to_string(), n.to_string()), Some("100".to_string())))
                .collect();
        let mut first = vec![deployment()];
        stamp_fingerprints(&mut first, &versions);
        let before = first[0]["spec"]["template"]["metadata"]["annotations"]
            [FINGERPRINT_ANNOTATION]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(before.len(), 64);

        let mut same = vec![deployment()];
        stamp_fingerprints(&mut same, &versions);
        assert_eq!(same, first);

        versions.insert(("shop".into(), "db".into()), Some("101".into()));
        let mut rotated = vec![deployment()];
        stamp_fingerprints(&mut rotated, &versions);
        let after =
            &rotated[0]["spec"]["template"]["metadata"]["annotations"][FINGERPRINT_ANNOTATION];
        assert_ne!(after.as_str().unwrap(), before);

        // Another namespace's Secret of the same name does not count.
        versions.insert(("other".into(), "db".into()), Some("999".into()));
        let mut elsewhere = vec![deployment()];
        stamp_fingerprints(&mut elsewhere, &versions);
        assert_eq!(elsewhere, rotated);

        assert_eq!(
            secrets_to_look_up(&rotated).len(),
            5,
            "one lookup per referenced Secret"
        );
        assert_ne!(environment_digest(&rotated), environment_digest(&first));
        assert_eq!(environment_digest(&same), environment_digest(&first));
        assert!(environment_digest(&first).is_some());
        assert_eq!(environment_digest(&[deployment()]), None);
    }

    #[test]
    fn a_pod_and_a_custom_workload_are_fingerprinted_where_their_pod_template_is() {
        let pod_spec = deployment()["spec"]["template"]["spec"].clone();
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "one", "namespace": "shop"},
                         "spec": pod_spec});
        let rollout = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
                             "metadata": {"name": "canary", "namespace": "shop"},
                             "spec": {"template": {"spec": pod_spec}}});
        let versions: BTreeMap<(String, String), Option<String>> =
            secrets_to_look_up(std::slice::from_ref(&pod))
                .into_iter()
                .map(|key| (key, Some("7".to_string())))
                .collect();
        assert_eq!(versions.len(), 5);
        let mut objects = vec![pod, rollout];
        stamp_fingerprints(&mut objects, &versions);
        let pod_print = &objects[0]["metadata"]["annotations"][FINGERPRINT_ANNOTATION];
        let rollout_print =
            &objects[1]["spec"]["template"]["metadata"]["annotations"][FINGERPRINT_ANNOTATION];
        assert_eq!(pod_print.as_str().map(str::len), Some(64));
        assert_eq!(pod_print, rollout_print);
        assert!(environment_digest(&objects).is_some());
    }

    #[test]
    fn the_apps_own_secrets_are_not_fingerprinted() {
        let own = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db", "namespace": "shop"}});
        let objects = vec![deployment(), own.clone()];
        let wanted = secrets_to_look_up(&objects);
        assert!(!wanted.contains(&("shop".to_string(), "db".to_string())));
        assert_eq!(wanted.len(), 4);
        // Its version does not move the fingerprint.
        let mut versions: BTreeMap<(String, String), Option<String>> = wanted
            .iter()
            .map(|k| (k.clone(), Some("1".to_string())))
            .collect();
        let mut first = objects.clone();
        stamp_fingerprints(&mut first, &versions);
        versions.insert(("shop".into(), "db".into()), Some("2".into()));
        let mut second = objects.clone();
        stamp_fingerprints(&mut second, &versions);
        assert_eq!(first, second);
        // A workload reading only the app's own Secret gets no fingerprint.
        let only_own = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w", "namespace": "shop"},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i", "envFrom": [{"secretRef": {"name": "db"}}]}]}}}});
        let mut objects = vec![only_own.clone(), own];
        stamp_fingerprints(&mut objects, &versions);
        assert_eq!(objects[0], only_own);
    }

    #[test]
    fn workloads_without_secrets_and_other_kinds_are_left_alone() {
        let plain = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w"},
                           "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}});
        let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
        let mut objects = vec![plain.clone(), config.clone()];
        stamp_fingerprints(&mut objects, &BTreeMap::new());
        assert_eq!(objects, vec![plain, config]);
        let missing = fingerprint(&[("db".to_string(), None)].into_iter().collect());
        let present = fingerprint(&[("db".to_string(), Some("1".into()))].into_iter().collect());
        assert_ne!(missing, present);
    }
}
