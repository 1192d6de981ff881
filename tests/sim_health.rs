//! Workloads moved by the simulator's controllers, assessed by Weft's built-in health plugins: a rollout
//! reads Progressing then Healthy, and a Deployment whose image cannot be pulled reads Degraded.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};
use weft_health::{AssessOptions, HealthAssessor, ObjectSet};
use weft_plugin_host::registry::{Provenance, Registry};
use weft_plugin_host::{HostConfig, PluginHost};
use weft_sdk::Status;
use weft_sim::{SimConfig, Simulator};

fn deployment(name: &str, image: &str, deadline_seconds: u32) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 2,
            "progressDeadlineSeconds": deadline_seconds,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": image}]}
            }
        }
    })
}

async fn status_of(
    assessor: &Arc<HealthAssessor>,
    deployments: &Api<Deployment>,
    name: &str,
) -> (Status, String) {
    let object = serde_json::to_value(deployments.get(name).await.expect("get")).expect("json");
    let objects = vec![object];
    let results = assessor
        .assess(objects.clone(), Arc::new(ObjectSet::new(&objects)))
        .await
        .expect("assessed");
    let health = results[0].health.clone().expect("a verdict");
    (health.status, health.message)
}

async fn wait_for_status(
    assessor: &Arc<HealthAssessor>,
    deployments: &Api<Deployment>,
    name: &str,
    wanted: Status,
) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
    loop {
        let (status, message) = status_of(assessor, deployments, name).await;
        if status == wanted {
            return message;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{name} never became {wanted:?}; last {status:?}: {message}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn health_plugins_read_simulated_rollouts() {
    let mut registry = Registry::new();
    registry
        .add_dir(weft_tests::builtin_plugins(), Provenance::BuiltIn)
        .expect("built-in plugins");
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        ..HostConfig::default()
    })
    .expect("host");
    let assessor = Arc::new(HealthAssessor::new(
        host,
        registry,
        AssessOptions::default(),
    ));

    let sim = Simulator::new(SimConfig {
        pod_ready_delay: Duration::from_millis(1500),
        ..SimConfig::fast()
    });
    let deployments: Api<Deployment> = Api::default_namespaced(sim.client());
    for (name, image, deadline) in [
        ("good", "nginx:1.27", 600),
        ("bad", "registry.example/fail-pull:1", 1),
    ] {
        deployments
            .patch(
                name,
                &PatchParams::apply("weft"),
                &Patch::Apply(deployment(name, image, deadline)),
            )
            .await
            .expect("applied");
    }
    wait_for_status(&assessor, &deployments, "good", Status::Progressing).await;
    wait_for_status(&assessor, &deployments, "good", Status::Healthy).await;
    let message = wait_for_status(&assessor, &deployments, "bad", Status::Degraded).await;
    assert!(message.contains("progress deadline"), "{message}");
}
