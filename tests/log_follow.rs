//! Following an app's logs through the API while its pods come and go, on the simulator: a scale-up's new pods
//! join the stream with their lines, a rollout's new pods join and its old ones leave, a crashing container's
//! next run is read again, and `previous=true` gives a restarted container's previous run. What is compared is
//! the events the stream recorded (who joined, who left, which lines from which pod), never how long anything took.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::api::{ACME, OTHER, Role, api};

/// One server-sent event: its name and its data.
#[derive(Debug, Clone)]
struct Received {
    event: String,
    data: Value,
}

/// A followed stream being read, and what it said so far.
struct Follow {
    body: Body,
    buffer: String,
    received: Vec<Received>,
}

impl Follow {
    /// Reads events until `done` holds for what was received (a deadline only guards against a hang).
    async fn until(&mut self, what: &str, done: impl Fn(&[Received]) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        while !done(&self.received) {
            let frame = tokio::time::timeout_at(deadline, self.body.frame())
                .await
                .unwrap_or_else(|_| panic!("never saw {what}; received:\n{:#?}", self.received))
                .expect("the stream goes on")
                .expect("a frame");
            let Ok(data) = frame.into_data() else {
                continue;
            };
            self.buffer.push_str(&String::from_utf8_lossy(&data));
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = String::new();
                let mut text = String::new();
                for line in block.lines() {
                    if let Some(name) = line.strip_prefix("event:") {
                        event = name.trim().to_string();
                    } else if let Some(data) = line.strip_prefix("data:") {
                        text.push_str(data.trim_start());
                    }
                }
                if !event.is_empty() {
                    let data = serde_json::from_str(&text).expect("JSON data");
                    self.received.push(Received { event, data });
                }
            }
        }
    }

    fn pods(&self, event: &str) -> BTreeSet<String> {
        self.received
            .iter()
            .filter(|r| r.event == event)
            .map(|r| r.data["pod"].as_str().unwrap().to_string())
            .collect()
    }

    /// The lines received from each pod, in order.
    fn lines(&self) -> BTreeMap<String, Vec<String>> {
        let mut lines: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in self.received.iter().filter(|r| r.event == "line") {
            assert_eq!(r.data["container"], "web", "{:?}", r.data);
            lines
                .entry(r.data["pod"].as_str().unwrap().to_string())
                .or_default()
                .push(r.data["text"].as_str().unwrap().to_string());
        }
        lines
    }
}

/// Whether every pod joined has `line` among its lines.
fn each_joined_says(received: &[Received], line: &str, pods: &BTreeSet<String>) -> bool {
    pods.iter().all(|pod| {
        received.iter().any(|r| {
            r.event == "line"
                && r.data["pod"] == pod.as_str()
                && r.data["text"].as_str().unwrap().contains(line)
        })
    })
}

fn joined(received: &[Received]) -> BTreeSet<String> {
    received
        .iter()
        .filter(|r| r.event == "joined")
        .map(|r| r.data["pod"].as_str().unwrap().to_string())
        .collect()
}

fn left(received: &[Received]) -> BTreeSet<String> {
    received
        .iter()
        .filter(|r| r.event == "left")
        .map(|r| r.data["pod"].as_str().unwrap().to_string())
        .collect()
}

async fn get(router: &axum::Router, token: &str, path: &str) -> axum::response::Response {
    let request = Request::builder()
        .method(Method::GET)
        .uri(path)
        .header("authorization", format!("Bearer {token}"))
        .body(Body::empty())
        .unwrap();
    router.clone().oneshot(request).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_followed_app_picks_up_a_scale_ups_and_a_rollouts_pods_and_drops_the_deleted_ones() {
    let api = api().await;
    api.synced("shop").await;
    let deployments: Api<Deployment> =
        Api::namespaced(api.server.simulators[0].simulator.client(), "shop");

    // A member of another org is not told the app exists; a previous run's log is not followed.
    let response = get(&api.router, OTHER, "/v1/deploy/shop/logs?follow=true").await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let (status, body) = api
        .call(
            Role::Owner,
            Method::GET,
            "/v1/deploy/shop/logs?follow=true&previous=true",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("cannot be followed"), "{body}");

    let response = get(&api.router, ACME, "/v1/deploy/shop/logs?follow=true").await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut follow = Follow {
        body: response.into_body(),
        buffer: String::new(),
        received: Vec::new(),
    };
    // The one pod there at the start joins, with its lines.
    follow
        .until("the first pod and its lines", |r| {
            let pods = joined(r);
            pods.len() == 1 && each_joined_says(r, "ready to serve requests", &pods)
        })
        .await;
    let first = joined(&follow.received);

    // Scale-up: two more pods join, each with its whole log.
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .unwrap();
    follow
        .until("the scale-up's pods and their lines", |r| {
            let pods = joined(r);
            pods.len() == 3 && each_joined_says(r, "ready to serve requests", &pods)
        })
        .await;
    let scaled = joined(&follow.received);
    assert!(scaled.is_superset(&first));
    assert!(left(&follow.received).is_empty(), "{:#?}", follow.received);

    // Rollout: three new pods join with the new image's lines, the three old ones leave.
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"template": {"spec": {"containers": [
                {"name": "web", "image": "shop/web:2.0"}]}}}})),
        )
        .await
        .unwrap();
    follow
        .until("the rollout's pods in and the old ones out", |r| {
            let new: BTreeSet<String> = joined(r).difference(&scaled).cloned().collect();
            new.len() == 3 && each_joined_says(r, "image shop/web:2.0", &new) && left(r) == scaled
        })
        .await;
    let lines = follow.lines();
    for pod in follow.pods("joined") {
        let image = if scaled.contains(&pod) { "1.0" } else { "2.0" };
        let name = pod.rsplit('/').next().unwrap();
        assert_eq!(
            lines[&pod][0],
            format!("starting web (image shop/web:{image}, run 0)"),
            "{pod}: {:?}",
            lines[&pod]
        );
        assert!(
            lines[&pod]
                .iter()
                .skip(1)
                .all(|l| l.starts_with(&format!("{name}/web: ")))
        );
    }
    // Each pod's events come in order: it joins, its lines, then (for the old ones) it leaves.
    for pod in &scaled {
        let at = |event: &str| {
            follow
                .received
                .iter()
                .rposition(|r| r.event == event && r.data["pod"] == pod.as_str())
                .unwrap()
        };
        let first_seen = follow
            .received
            .iter()
            .position(|r| r.data["pod"] == pod.as_str())
            .unwrap();
        assert_eq!(follow.received[first_seen].event, "joined");
        assert!(at("line") < at("left"), "{pod}: {:#?}", follow.received);
    }
    drop(follow);
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_crashing_containers_next_run_is_followed_and_its_previous_run_can_be_read() {
    let api = api().await;
    api.synced("shop").await;
    let deployments: Api<Deployment> =
        Api::namespaced(api.server.simulators[0].simulator.client(), "shop");
    let response = get(
        &api.router,
        ACME,
        "/v1/deploy/shop/logs?follow=true&container=web",
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut follow = Follow {
        body: response.into_body(),
        buffer: String::new(),
        received: Vec::new(),
    };
    follow
        .until("the first pod", |r| joined(r).len() == 1)
        .await;
    let first = joined(&follow.received);
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"template": {"spec": {"containers": [
                {"name": "web", "image": "shop/web:crashloop"}]}}}})),
        )
        .await
        .unwrap();
    // The crashing pod joins; its first run's lines and then its second run's are read.
    follow
        .until("a crashing pod's second run", |r| {
            r.iter().any(|r| {
                r.event == "line"
                    && r.data["text"] == "starting web (image shop/web:crashloop, run 1)"
            })
        })
        .await;
    let crashing: BTreeSet<String> = joined(&follow.received)
        .difference(&first)
        .cloned()
        .collect();
    assert_eq!(crashing.len(), 1, "{:#?}", follow.received);
    let crashing = crashing.into_iter().next().unwrap();
    let runs: Vec<String> = follow.lines()[&crashing]
        .iter()
        .filter(|l| l.starts_with("starting "))
        .cloned()
        .collect();
    assert_eq!(
        runs[..2],
        [
            "starting web (image shop/web:crashloop, run 0)".to_string(),
            "starting web (image shop/web:crashloop, run 1)".to_string()
        ]
    );
    drop(follow);

    // previous=true: the previous run of each restarted container, and nothing of the others.
    let logs = api
        .json(Role::Owner, "/v1/deploy/shop/logs?previous=true")
        .await;
    let lines = logs["lines"].as_array().unwrap();
    assert!(!lines.is_empty(), "{logs}");
    assert!(
        lines.iter().all(|l| l["pod"] == crashing.as_str()),
        "{logs}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l["text"].as_str().unwrap().contains("simulated crash")),
        "{logs}"
    );
    api.server.shutdown().await;
}
