//! An app's status in Argo CD's vocabulary: the health and sync codes on the wire, how the objects' verdicts
//! add up to the app's, and which image version an app declares and runs.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use weft_sdk::{Health, Status};

use weft_core::resource::{ResourceRef, group_of};
use weft_core::short::short_digest;

/// Whether an object (or an app) matches what git declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SyncCode {
    /// The live object matches the desired one.
    Synced,
    /// The live object differs from the desired one, is missing, or should be pruned.
    OutOfSync,
    /// Sync could not be determined (e.g. the render or the comparison failed).
    Unknown,
}

impl SyncCode {
    /// The wire name: `synced`, `out-of-sync` or `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            SyncCode::Synced => "synced",
            SyncCode::OutOfSync => "out-of-sync",
            SyncCode::Unknown => "unknown",
        }
    }
}

impl fmt::Display for SyncCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A health verdict on the wire (`healthy progressing degraded suspended missing unknown`): the serializable twin
/// of [`weft_sdk::Status`], which stays free of serde because plugins link it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum HealthCode {
    /// The object does what it was asked to do.
    Healthy,
    /// The object is moving towards the asked state.
    Progressing,
    /// The object failed, or cannot reach the asked state without a change.
    Degraded,
    /// The object was paused on purpose.
    Suspended,
    /// The object that should exist does not.
    Missing,
    /// Nobody could tell.
    Unknown,
}

impl HealthCode {
    /// The wire name, the same as [`Status::as_str`].
    pub fn as_str(self) -> &'static str {
        Status::from(self).as_str()
    }
}

impl fmt::Display for HealthCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<Status> for HealthCode {
    fn from(status: Status) -> Self {
        match status {
            Status::Healthy => HealthCode::Healthy,
            Status::Progressing => HealthCode::Progressing,
            Status::Degraded => HealthCode::Degraded,
            Status::Suspended => HealthCode::Suspended,
            Status::Missing => HealthCode::Missing,
            Status::Unknown => HealthCode::Unknown,
        }
    }
}

impl From<HealthCode> for Status {
    fn from(code: HealthCode) -> Self {
        match code {
            HealthCode::Healthy => Status::Healthy,
            HealthCode::Progressing => Status::Progressing,
            HealthCode::Degraded => Status::Degraded,
            HealthCode::Suspended => Status::Suspended,
            HealthCode::Missing => Status::Missing,
            HealthCode::Unknown => Status::Unknown,
        }
    }
}

/// The statuses from the most healthy to the least: degraded > missing > progressing > suspended > unknown >
/// healthy. (gitops-engine's `healthOrder` puts `unknown` last, above `degraded`; Weft does not let an object no
/// check has an opinion on hide one that is known to be broken, so a known failure is what an app shows.)
pub const HEALTH_ORDER: [Status; 6] = [
    Status::Healthy,
    Status::Unknown,
    Status::Suspended,
    Status::Progressing,
    Status::Missing,
    Status::Degraded,
];

/// How bad a status is: its position in [`HEALTH_ORDER`] (0 is healthy).
pub fn severity(status: Status) -> usize {
    HEALTH_ORDER
        .iter()
        .position(|s| *s == status)
        .unwrap_or(HEALTH_ORDER.len())
}

/// The worst of some statuses in [`HEALTH_ORDER`]; `healthy` when there are none (an empty app is healthy).
pub fn worst_health(statuses: impl IntoIterator<Item = Status>) -> Status {
    statuses
        .into_iter()
        .max_by_key(|s| severity(*s))
        .unwrap_or(Status::Healthy)
}

/// An app's health: the worst of its objects', and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AppHealth {
    /// The worst status of the app's objects.
    pub status: HealthCode,
    /// What the worst object says, naming it (`apps/Deployment shop/web: <message>`); `None` when the app is
    /// healthy. A Secret is named by its kind only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The health of an app from its objects' verdicts. The worst status wins ([`HEALTH_ORDER`]); among objects that
/// share it, the smallest reference (group, kind, namespace, name) gives the message, so the answer does not depend
/// on the order the verdicts come in.
pub fn app_health<'a>(
    objects: impl IntoIterator<Item = (&'a ResourceRef, &'a Health)>,
) -> AppHealth {
    let worst = objects.into_iter().min_by(|(ref_a, a), (ref_b, b)| {
        severity(b.status)
            .cmp(&severity(a.status))
            .then_with(|| ref_a.cmp(ref_b))
    });
    match worst {
        None => AppHealth {
            status: HealthCode::Healthy,
            message: None,
        },
        Some((_, health)) if health.status == Status::Healthy => AppHealth {
            status: HealthCode::Healthy,
            message: None,
        },
        Some((object, health)) => AppHealth {
            status: health.status.into(),
            message: Some(describe(object, health)),
        },
    }
}

fn describe(object: &ResourceRef, health: &Health) -> String {
    if object.is_secret() {
        // A Secret's name and a plugin's words about it stay out of anything shown.
        return format!("a Secret is {}", health.status);
    }
    let who = if object.namespace.is_empty() {
        format!("{} {}", object.group_kind(), object.name)
    } else {
        format!(
            "{} {}/{}",
            object.group_kind(),
            object.namespace,
            object.name
        )
    };
    if health.message.is_empty() {
        format!("{who} is {}", health.status)
    } else {
        format!("{who}: {}", health.message)
    }
}

/// An app's sync from its objects': out-of-sync if any object is, else unknown if any is, else synced (an empty
/// app is synced).
pub fn app_sync(codes: impl IntoIterator<Item = SyncCode>) -> SyncCode {
    let mut app = SyncCode::Synced;
    for code in codes {
        match code {
            SyncCode::OutOfSync => return SyncCode::OutOfSync,
            SyncCode::Unknown => app = SyncCode::Unknown,
            SyncCode::Synced => {}
        }
    }
    app
}

/// The workload kinds whose image is an app's version, by priority: `(group, kind)`.
const WORKLOAD_KINDS: [(&str, &str); 6] = [
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("batch", "CronJob"),
    ("batch", "Job"),
    ("", "Pod"),
];

/// The version an app declares: the image tag of its main workload among the rendered objects (see
/// [`main_workload_image`]).
pub fn declared_version(desired: &[Value]) -> Option<String> {
    main_workload_image(desired).map(image_tag)
}

/// The version an app runs: the image tag in the pod template of its main live workload, which is what its
/// controller runs (see [`main_workload_image`]).
pub fn running_version(live: &[Value]) -> Option<String> {
    main_workload_image(live).map(image_tag)
}

/// The first container image of an app's main workload: the first Deployment, else StatefulSet, else DaemonSet,
/// else CronJob, Job, Pod; among objects of one kind, by name then namespace. Workloads without a container image
/// are passed over.
pub fn main_workload_image(objects: &[Value]) -> Option<&str> {
    objects
        .iter()
        .filter_map(|object| {
            let priority = workload_priority(object)?;
            let image = workload_image(object)?;
            let metadata = object.get("metadata");
            let field = |name: &str| {
                metadata
                    .and_then(|m| m.get(name))
                    .and_then(Value::as_str)
                    .unwrap_or("")
            };
            Some(((priority, field("name"), field("namespace")), image))
        })
        .min_by(|(a, _), (b, _)| a.cmp(b))
        .map(|(_, image)| image)
}

fn workload_priority(object: &Value) -> Option<usize> {
    let group = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .map(group_of)?;
    let kind = object.get("kind").and_then(Value::as_str)?;
    WORKLOAD_KINDS
        .iter()
        .position(|(g, k)| *g == group && *k == kind)
}

/// The first container's image of an object that runs pods (where its pod spec is: [`weft_sdk::pods`]).
pub fn workload_image(object: &Value) -> Option<&str> {
    weft_sdk::pods::pod_spec(object)?
        .get("containers")?
        .as_array()?
        .first()?
        .get("image")?
        .as_str()
        .filter(|image| !image.is_empty())
}

/// The version an image reference names: its tag (`repo:5000/app:1.2` -> `1.2`, the tag being what follows the
/// last `:` after the last `/`), also when a digest pins it (`app:1.2@sha256:…` -> `1.2`, as Weft pins); a digest
/// alone as a short digest (`app@sha256:abcdef1234567890...` -> `sha256:abcdef123456`); `latest` when there is
/// neither.
pub fn image_tag(image: &str) -> String {
    if let Some((name, digest)) = image.split_once('@') {
        // Pinned with its tag kept (`web:1.4.2@sha256:…`, as Weft pins): the tag is the version.
        let last_segment = name.rsplit('/').next().unwrap_or(name);
        if let Some((_, tag)) = last_segment.rsplit_once(':')
            && !tag.is_empty()
        {
            return tag.to_string();
        }
        return short_digest(digest);
    }
    let last_segment = image.rsplit('/').next().unwrap_or(image);
    match last_segment.rsplit_once(':') {
        Some((_, tag)) if !tag.is_empty() => tag.to_string(),
        _ => "latest".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn codes_have_argo_names_on_the_wire() {
        assert_eq!(
            serde_json::to_value(SyncCode::OutOfSync).unwrap(),
            "out-of-sync"
        );
        assert_eq!(serde_json::to_value(SyncCode::Synced).unwrap(), "synced");
        assert_eq!(
            serde_json::from_value::<SyncCode>(json!("unknown")).unwrap(),
            SyncCode::Unknown
        );
        for status in Status::ALL {
            let code = HealthCode::from(status);
            assert_eq!(serde_json::to_value(code).unwrap(), status.as_str());
            assert_eq!(code.as_str(), status.as_str());
            assert_eq!(Status::from(code), status);
            assert_eq!(
                serde_json::from_value::<HealthCode>(json!(status.as_str())).unwrap(),
                code
            );
        }
        assert!(serde_json::from_value::<HealthCode>(json!("Healthy")).is_err());
    }

    #[test]
    fn the_worst_status_wins() {
        use Status::*;
        assert_eq!(worst_health([]), Healthy);
        assert_eq!(worst_health([Healthy, Healthy]), Healthy);
        assert_eq!(worst_health([Healthy, Suspended]), Suspended);
        assert_eq!(worst_health([Suspended, Progressing]), Progressing);
        assert_eq!(worst_health([Progressing, Missing]), Missing);
        assert_eq!(worst_health([Missing, Degraded, Progressing]), Degraded);
        assert_eq!(worst_health([Degraded, Unknown, Healthy]), Degraded);
        assert_eq!(worst_health([Unknown, Suspended]), Suspended);
        assert_eq!(worst_health([Healthy, Unknown]), Unknown);
        // Every pair agrees with the order, whichever comes first.
        for (i, a) in HEALTH_ORDER.iter().enumerate() {
            for b in &HEALTH_ORDER[..=i] {
                assert_eq!(worst_health([*a, *b]), *a);
                assert_eq!(worst_health([*b, *a]), *a);
            }
        }
    }

    #[test]
    fn app_health_names_the_worst_object() {
        let web = ResourceRef::new("apps", "Deployment", "shop", "web");
        let db = ResourceRef::new("apps", "StatefulSet", "shop", "db");
        let ns = ResourceRef::new("", "Namespace", "", "shop");
        let ok = Health::healthy("fine");
        let failing = Health::degraded("Deployment \"web\" exceeded its progress deadline");
        let rolling = Health::progressing("1 of 3 updated");

        let health = app_health([(&ns, &ok), (&web, &failing), (&db, &rolling)]);
        assert_eq!(health.status, HealthCode::Degraded);
        assert_eq!(
            health.message.as_deref(),
            Some("apps/Deployment shop/web: Deployment \"web\" exceeded its progress deadline")
        );

        // Cluster-scoped objects have no namespace part; an empty message still names the object.
        let missing = Health::missing("");
        let health = app_health([(&web, &ok), (&ns, &missing)]);
        assert_eq!(health.status, HealthCode::Missing);
        assert_eq!(health.message.as_deref(), Some("Namespace shop is missing"));

        // Healthy and empty apps carry no message.
        assert_eq!(
            app_health([(&web, &ok)]),
            AppHealth {
                status: HealthCode::Healthy,
                message: None
            }
        );
        assert_eq!(
            app_health([]),
            AppHealth {
                status: HealthCode::Healthy,
                message: None
            }
        );
    }

    #[test]
    fn ties_are_broken_by_reference_not_by_arrival() {
        let a = ResourceRef::new("apps", "Deployment", "shop", "api");
        let b = ResourceRef::new("apps", "Deployment", "shop", "web");
        let ha = Health::degraded("api broke");
        let hb = Health::degraded("web broke");
        let forward = app_health([(&a, &ha), (&b, &hb)]);
        let backward = app_health([(&b, &hb), (&a, &ha)]);
        assert_eq!(forward, backward);
        assert_eq!(
            forward.message.as_deref(),
            Some("apps/Deployment shop/api: api broke")
        );
    }

    #[test]
    fn a_secret_is_never_named_in_the_app_message() {
        let secret = ResourceRef::new("", "Secret", "shop", "db-password");
        let health = Health::degraded("value hunter2 rejected");
        let app = app_health([(&secret, &health)]);
        assert_eq!(app.status, HealthCode::Degraded);
        let message = app.message.unwrap();
        assert_eq!(message, "a Secret is degraded");
        assert!(!message.contains("db-password") && !message.contains("hunter2"));
    }

    #[test]
    fn app_sync_is_out_of_sync_then_unknown_then_synced() {
        use SyncCode::*;
        assert_eq!(app_sync([]), Synced);
        assert_eq!(app_sync([Synced, Synced]), Synced);
        assert_eq!(app_sync([Synced, Unknown]), Unknown);
        assert_eq!(app_sync([Unknown, OutOfSync, Synced]), OutOfSync);
        assert_eq!(app_sync([OutOfSync, Unknown]), OutOfSync);
    }

    #[test]
    fn image_tags() {
        assert_eq!(image_tag("nginx:1.27"), "1.27");
        assert_eq!(image_tag("nginx"), "latest");
        assert_eq!(image_tag("repo:5000/app:1.2"), "1.2");
        assert_eq!(image_tag("repo:5000/app"), "latest");
        assert_eq!(image_tag("ghcr.io/org/team/app:v2.0.1-rc.1"), "v2.0.1-rc.1");
        assert_eq!(image_tag("app:"), "latest");
        let hex = "abcdef1234567890abcdef1234567890abcdef1234567890abcdef1234567890";
        assert_eq!(
            image_tag(&format!("repo:5000/app@sha256:{hex}")),
            "sha256:abcdef123456"
        );
        // Pinned with its tag kept (as Weft pins images): the tag is the version a person reads; the digest is in
        // the operation's and the history's images.
        assert_eq!(image_tag(&format!("app:1.2@sha256:{hex}")), "1.2");
    }

    fn workload(api_version: &str, kind: &str, name: &str, image: &str) -> Value {
        let pod_spec = json!({"containers": [{"name": "main", "image": image}, {"name": "sidecar", "image": "proxy:9"}]});
        let spec = match kind {
            "Pod" => pod_spec,
            "CronJob" => json!({"jobTemplate": {"spec": {"template": {"spec": pod_spec}}}}),
            _ => json!({"template": {"spec": pod_spec}}),
        };
        json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": "shop"}, "spec": spec})
    }

    #[test]
    fn the_main_workload_is_chosen_by_kind_then_name() {
        let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"image": "x:0"}});
        let pod = workload("v1", "Pod", "a-pod", "pod:0.1");
        let job = workload("batch/v1", "Job", "a-job", "job:0.2");
        let cron = workload("batch/v1", "CronJob", "z-cron", "cron:0.3");
        let daemon = workload("apps/v1", "DaemonSet", "agent", "agent:0.4");
        let stateful = workload("apps/v1", "StatefulSet", "db", "db:0.5");
        let web = workload("apps/v1", "Deployment", "web", "repo:5000/web:2.0");
        let api = workload("apps/v1", "Deployment", "api", "api:1.0");

        assert_eq!(declared_version(&[]), None);
        assert_eq!(declared_version(std::slice::from_ref(&config)), None);
        let mut objects = vec![config, pod.clone()];
        assert_eq!(declared_version(&objects).as_deref(), Some("0.1"));
        objects.push(job);
        assert_eq!(declared_version(&objects).as_deref(), Some("0.2"));
        objects.push(cron);
        assert_eq!(declared_version(&objects).as_deref(), Some("0.3"));
        objects.push(daemon);
        assert_eq!(declared_version(&objects).as_deref(), Some("0.4"));
        objects.push(stateful);
        assert_eq!(declared_version(&objects).as_deref(), Some("0.5"));
        objects.push(web.clone());
        assert_eq!(declared_version(&objects).as_deref(), Some("2.0"));
        // Two Deployments: by name, whatever the order.
        objects.push(api.clone());
        assert_eq!(declared_version(&objects).as_deref(), Some("1.0"));
        objects.reverse();
        assert_eq!(declared_version(&objects).as_deref(), Some("1.0"));
        assert_eq!(running_version(&[web, api]).as_deref(), Some("1.0"));
    }

    #[test]
    fn look_alikes_and_imageless_workloads_are_passed_over() {
        // A custom kind named Deployment in another group is not a workload.
        let custom = workload("example.dev/v1", "Deployment", "a", "custom:9");
        // A Deployment with no containers gives no version; the next workload does.
        let empty = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "b"}, "spec": {"template": {"spec": {"containers": []}}}});
        let job = workload("batch/v1", "Job", "migrate", "migrate:3");
        assert_eq!(
            declared_version(&[custom, empty, job]).as_deref(),
            Some("3")
        );
    }

    #[test]
    fn running_version_reads_the_live_pod_template() {
        let mut live = workload("apps/v1", "Deployment", "web", "web:1.0");
        // A rollout in progress: the template (what the controller now runs) is ahead of the old pods' image.
        live["spec"]["template"]["spec"]["containers"][0]["image"] = json!("web:1.1");
        let old_pod = workload("v1", "Pod", "web-abc", "web:1.0");
        assert_eq!(running_version(&[old_pod, live]).as_deref(), Some("1.1"));
    }
}
