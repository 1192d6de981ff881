//! Resource actions over the API on the simulator: which actions an object offers and to whom, that restart,
//! scale and deleting a pod change the live objects as kubectl would, that syncing one object applies only it,
//! that a Secret, an object outside the app's tree and another org's app are refused, that under self-heal a scale
//! is taken back while a restart stays, and that every run is recorded with its actor and result.

use std::time::Duration;

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use weft_sync::status::SyncCode;

use crate::api::{Api, Role, api};

const WEB: &str = "/v1/deploy/shop/resource/apps:Deployment:shop:web";

/// Reads `path` as `role` (refreshing the comparison) until `done` holds of it.
async fn eventually(api: &Api, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let separator = if path.contains('?') { '&' } else { '?' };
        let view = api
            .json(Role::Deployer, &format!("{path}{separator}refresh=true"))
            .await;
        if done(&view) {
            return view;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{path} never got there: {view}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn run(api: &Api, role: Role, path: &str, body: Option<Value>) -> (StatusCode, Value) {
    let (status, text) = api.call(role, Method::POST, path, body).await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deployer_restarts_scales_and_deletes_a_pod_and_every_run_is_recorded() {
    let api = api().await;
    api.synced("shop").await;

    // What the resource view offers depends on the caller's role.
    assert_eq!(
        api.json(Role::Deployer, WEB).await["actions"],
        json!(["restart", "scale", "sync"])
    );
    assert_eq!(api.json(Role::Owner, WEB).await["actions"], json!([]));
    assert_eq!(
        api.json(
            Role::Deployer,
            "/v1/deploy/shop/resource/:ConfigMap:shop:settings"
        )
        .await["actions"],
        json!(["sync"])
    );

    // Refusals: a viewer, another org, a Secret, an action the kind does not offer, an object not in the tree.
    let refusals = [
        (
            Role::Owner,
            format!("{WEB}/actions/restart"),
            StatusCode::FORBIDDEN,
        ),
        (
            Role::Stranger,
            format!("{WEB}/actions/restart"),
            StatusCode::NOT_FOUND,
        ),
        (
            Role::Deployer,
            "/v1/deploy/shop/resource/:Secret:shop:creds/actions/delete".to_string(),
            StatusCode::BAD_REQUEST,
        ),
        (
            Role::Deployer,
            "/v1/deploy/shop/resource/:ConfigMap:shop:settings/actions/restart".to_string(),
            StatusCode::BAD_REQUEST,
        ),
        (
            Role::Deployer,
            format!("{WEB}/actions/exec"),
            StatusCode::BAD_REQUEST,
        ),
        (
            Role::Deployer,
            format!("{WEB}/actions/scale"),
            StatusCode::BAD_REQUEST,
        ),
        (
            Role::Deployer,
            "/v1/deploy/shop/resource/apps:Deployment:shop:nope/actions/restart".to_string(),
            StatusCode::NOT_FOUND,
        ),
    ];
    for (role, path, expected) in &refusals {
        let (status, body) = run(&api, *role, path, None).await;
        assert_eq!(status, *expected, "{role:?} {path}: {body}");
    }

    // Restart: the pod template's restartedAt annotation, and the app stays in sync (Weft does not own it).
    let (status, restart) = run(
        &api,
        Role::Deployer,
        &format!("{WEB}/actions/restart"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{restart}");
    let at = restart["at"].as_str().unwrap().to_string();
    let view = eventually(&api, WEB, |view| {
        view.pointer("/live/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt")
            == Some(&json!(at))
    })
    .await;
    assert_eq!(
        view["sync"],
        SyncCode::Synced.as_str(),
        "a restart is not drift: {view}"
    );

    // Scale: the replicas through the scale subresource, which is drift from git until the next sync.
    let (status, scale) = run(
        &api,
        Role::Deployer,
        &format!("{WEB}/actions/scale"),
        Some(json!({"replicas": 3})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{scale}");
    let view = eventually(&api, WEB, |view| {
        view.pointer("/live/spec/replicas") == Some(&json!(3))
    })
    .await;
    assert_eq!(view["sync"], SyncCode::OutOfSync.as_str(), "{view}");

    // Sync the Deployment alone: a queued operation that applies only it and is no deploy (no history entry).
    let history_before = api.json(Role::Owner, "/v1/deploy/gitops/shop").await["history"].clone();
    let (status, synced) = run(&api, Role::Deployer, &format!("{WEB}/actions/sync"), None).await;
    assert_eq!(status, StatusCode::OK, "{synced}");
    assert_eq!(synced["result"], "queued");
    let operation_path = format!(
        "/v1/deploy/shop/operations/{}",
        synced["operation"].as_str().unwrap()
    );
    let operation = eventually(&api, &operation_path, |op| {
        op["phase"] != "pending" && op["phase"] != "running"
    })
    .await;
    assert_eq!(operation["phase"], "succeeded", "{operation}");
    assert_eq!(operation["requestedBy"], "acme-deployer");
    let applied: Vec<&str> = operation["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["action"].as_str().unwrap())
        .collect();
    assert_eq!(applied, ["update"], "only the Deployment: {operation}");
    eventually(&api, WEB, |view| {
        view.pointer("/live/spec/replicas") == Some(&json!(1))
    })
    .await;
    assert_eq!(
        api.json(Role::Owner, "/v1/deploy/gitops/shop").await["history"],
        history_before
    );

    // Delete one of the app's pods (a descendant in the tree), once the scale-down has settled: a pod of the
    // three still terminating may be gone by the time its action runs.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let pod = loop {
        let tree = api.json(Role::Deployer, "/v1/deploy/shop/tree").await;
        let pods: Vec<String> = tree
            .as_array()
            .unwrap()
            .iter()
            .map(|node| node["ref"].as_str().unwrap().to_string())
            .filter(|reference| reference.starts_with(":Pod:shop:"))
            .collect();
        if let [pod] = pods.as_slice() {
            break pod.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the deployment's one pod is never alone in the tree: {pods:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let pod_path = format!("/v1/deploy/shop/resource/{pod}");
    assert_eq!(
        api.json(Role::Deployer, &pod_path).await["actions"],
        json!(["delete"])
    );
    let (status, deleted) = run(
        &api,
        Role::OrgAdmin,
        &format!("{pod_path}/actions/delete"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{deleted}");

    // The record: who ran what on which object, and how it ended; refusals are not runs.
    let records = api
        .json(Role::Owner, "/v1/deploy/shop/resource-actions")
        .await;
    let seen: Vec<(String, String, String, String)> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["requestedBy"].as_str().unwrap().to_string(),
                r["action"].as_str().unwrap().to_string(),
                r["resource"].as_str().unwrap().to_string(),
                r["result"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let web = "apps:Deployment:shop:web".to_string();
    let row = |actor: &str, action: &str, resource: &str| {
        (
            actor.to_string(),
            action.to_string(),
            resource.to_string(),
            "succeeded".to_string(),
        )
    };
    let mut queued = row("acme-deployer", "sync", &web);
    queued.3 = "queued".to_string();
    assert_eq!(
        seen,
        [
            row("acme-deployer", "restart", &web),
            row("acme-deployer", "scale", &web),
            queued,
            row("acme-admin", "delete", &pod),
        ]
    );
    assert_eq!(records[1]["replicas"], 3);
    // Another org's reader sees no such app.
    let (status, _) = api
        .call(
            Role::Stranger,
            Method::GET,
            "/v1/deploy/shop/resource-actions",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cronjob_is_suspended_and_resumed_and_offers_the_opposite_of_its_state() {
    let jobs = weft_tests::GitRepo::new();
    let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "report"},
        "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "report", "image": "shop/report:1.0"}]}}}}}});
    jobs.commit(&[("report.json", cron.to_string())]);
    let extra = format!(
        "[[app]]\nname = \"jobs\"\norg = \"acme\"\ntype = \"yaml\"\nnamespace = \"jobs\"\n\
         source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n[app.sync]\ncreate_namespace = true\n",
        jobs.path().display()
    );
    let api =
        crate::api::api_configured(1, weft_tests::builtin_registry(), 10_000, true, &extra).await;
    api.synced("jobs").await;
    let report = "/v1/deploy/jobs/resource/batch:CronJob:jobs:report";
    assert_eq!(
        api.json(Role::Deployer, report).await["actions"],
        json!(["suspend", "sync"])
    );
    let (status, body) = run(
        &api,
        Role::Deployer,
        &format!("{report}/actions/resume"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "not suspended: {body}");

    let (status, body) = run(
        &api,
        Role::Deployer,
        &format!("{report}/actions/suspend"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let view = eventually(&api, report, |view| {
        view.pointer("/live/spec/suspend") == Some(&json!(true))
    })
    .await;
    assert_eq!(view["actions"], json!(["resume", "sync"]));
    assert_eq!(
        view["sync"],
        SyncCode::Synced.as_str(),
        "git does not declare spec.suspend: {view}"
    );

    let (status, body) = run(
        &api,
        Role::Deployer,
        &format!("{report}/actions/resume"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    eventually(&api, report, |view| {
        view.pointer("/live/spec/suspend") == Some(&json!(false))
    })
    .await;
    let records = api
        .json(Role::Owner, "/v1/deploy/jobs/resource-actions")
        .await;
    let actions: Vec<&str> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["suspend", "resume"]);
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn under_self_heal_a_scale_is_taken_back_and_a_restart_stays() {
    let heal = weft_tests::GitRepo::new();
    let web = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "heal"}},
            "template": {"metadata": {"labels": {"app": "heal"}},
                "spec": {"containers": [{"name": "web", "image": "shop/web:1.0"}]}}}});
    heal.commit(&[("web.json", web.to_string())]);
    let extra = format!(
        "[[app]]\nname = \"heal\"\norg = \"acme\"\ntype = \"yaml\"\nnamespace = \"heal\"\n\
         source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n\
         [app.sync]\ncreate_namespace = true\nautomated = true\nself_heal = true\n",
        heal.path().display()
    );
    let api =
        crate::api::api_configured(1, weft_tests::builtin_registry(), 10_000, true, &extra).await;
    let path = "/v1/deploy/heal/resource/apps:Deployment:heal:web";
    // Automation deploys it.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let rows = api.json(Role::Owner, "/v1/deploy/applications").await;
        let deployed = rows["items"].as_array().into_iter().flatten().any(|row| {
            row["name"] == "heal"
                && row["sync"] == SyncCode::Synced.as_str()
                && row["phase"] == "succeeded"
        });
        if deployed {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "heal never deployed: {rows}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eventually(&api, path, |view| {
        view["sync"] == SyncCode::Synced.as_str()
            && view.pointer("/live/spec/replicas") == Some(&json!(1))
    })
    .await;

    let automated_syncs = |listed: &Value| {
        listed
            .as_array()
            .into_iter()
            .flatten()
            .filter(|op| op["automated"] == true && op["phase"] == "succeeded")
            .count()
    };
    let before = automated_syncs(&api.json(Role::Owner, "/v1/deploy/heal/operations").await);
    let (status, restart) = run(
        &api,
        Role::Deployer,
        &format!("{path}/actions/restart"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{restart}");
    let at = json!(restart["at"].as_str().unwrap());
    let restarted = "/live/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt";
    let (status, scale) = run(
        &api,
        Role::Deployer,
        &format!("{path}/actions/scale"),
        Some(json!({"replicas": 4})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{scale}");

    // Self-heal takes the replicas back to git's value and leaves the restart's annotation.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let listed = api.json(Role::Owner, "/v1/deploy/heal/operations").await;
        let healed = automated_syncs(&listed) > before;
        if healed {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "self-heal never ran: {listed}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let view = eventually(&api, path, |view| {
        view.pointer("/live/spec/replicas") == Some(&json!(1))
    })
    .await;
    assert_eq!(
        view.pointer(restarted),
        Some(&at),
        "the restart stays: {view}"
    );
    assert_eq!(view["sync"], SyncCode::Synced.as_str(), "{view}");
    api.server.shutdown().await;
}

/// Lua actions for the shop's Deployment (a `lua_dirs` directory: a parameterised one, one disabled now, one that
/// raises an error and one that never ends) and for CronJobs (an `argocd-cm` ConfigMap: Argo CD's create-job shape,
/// a Job made in the CronJob's namespace).
fn registry_with_lua_actions(dir: &std::path::Path) -> weft_plugin_host::registry::Registry {
    let files = [
        (
            "lua/apps/Deployment/actions/discovery.lua",
            r#"local actions = {}
actions["bump"] = {["params"] = {{["name"] = "by"}}, ["displayName"] = "Bump replicas"}
actions["pause"] = {["disabled"] = true}
actions["fail"] = {}
actions["loop"] = {}
return actions"#,
        ),
        (
            "lua/apps/Deployment/actions/bump/action.lua",
            r#"local by = tonumber(actionParams["by"])
if not by then error("invalid number: " .. tostring(actionParams["by"]), 0) end
obj.spec.replicas = obj.spec.replicas + by
return obj"#,
        ),
        (
            "lua/apps/Deployment/actions/pause/action.lua",
            "obj.spec.paused = true\nreturn obj",
        ),
        (
            "lua/apps/Deployment/actions/fail/action.lua",
            "obj.spec.replicas = 0\nerror(\"this action refuses\", 0)",
        ),
        (
            "lua/apps/Deployment/actions/loop/action.lua",
            "obj.spec.replicas = 0\nwhile true do end\nreturn obj",
        ),
        (
            "argocd-cm.yaml",
            r#"apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm, namespace: argocd}
data:
  resource.customizations.actions.batch_CronJob: |
    discovery.lua: |
      return {["create-job"] = {["iconClass"] = "fa fa-fw fa-play"}}
    definitions:
    - name: create-job
      action.lua: |
        local job = {apiVersion = "batch/v1", kind = "Job"}
        job.metadata = {name = obj.metadata.name .. "-manual", namespace = obj.metadata.namespace}
        job.metadata.ownerReferences = {{apiVersion = obj.apiVersion, kind = obj.kind,
          name = obj.metadata.name, uid = obj.metadata.uid, controller = true}}
        job.spec = obj.spec.jobTemplate.spec
        return {{operation = "create", resource = job}}
"#,
        ),
    ];
    for (path, text) in files {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let mut registry = weft_tests::builtin_registry();
    let health = weft_health::settings::HealthChecks {
        lua_dirs: vec![dir.join("lua")],
        argocd_cm: vec![dir.join("argocd-cm.yaml")],
        ..Default::default()
    };
    let kinds =
        weft_health::action_scripts::add_configured_actions(&mut registry, &health).unwrap();
    assert_eq!(kinds, 2);
    registry
}

#[tokio::test(flavor = "multi_thread")]
async fn argo_cd_lua_actions_from_a_directory_and_a_configmap_are_listed_run_refused_and_recorded()
{
    let scripts = tempfile::tempdir().unwrap();
    let jobs = weft_tests::GitRepo::new();
    let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "report"},
        "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "report", "image": "shop/report:1.0"}]}}}}}});
    jobs.commit(&[("report.json", cron.to_string())]);
    let extra = format!(
        "[[app]]\nname = \"jobs\"\norg = \"acme\"\ntype = \"yaml\"\nnamespace = \"jobs\"\n\
         source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n[app.sync]\ncreate_namespace = true\n",
        jobs.path().display()
    );
    let registry = registry_with_lua_actions(scripts.path());
    let api = crate::api::api_configured(1, registry, 10_000, true, &extra).await;
    api.synced("shop").await;
    api.synced("jobs").await;

    // Listed for a deployer, the Lua ones after the built-in ones, the disabled one shown disabled.
    let view = api.json(Role::Deployer, WEB).await;
    assert_eq!(
        view["actions"],
        json!(["restart", "scale", "sync", "bump", "fail", "loop"]),
        "{view}"
    );
    let pause = view["luaActions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|offer| offer["name"] == "pause")
        .unwrap();
    assert_eq!(pause["disabled"], true);
    assert_eq!(view["luaActions"][0]["params"], json!(["by"]));
    assert_eq!(view["luaActions"][0]["displayName"], "Bump replicas");
    // A viewer sees none and may run none.
    let viewer = api.json(Role::Owner, WEB).await;
    assert_eq!(viewer["actions"], json!([]));
    assert!(viewer.get("luaActions").is_none(), "{viewer}");
    let (status, _) = run(
        &api,
        Role::Owner,
        &format!("{WEB}/actions/bump"),
        Some(json!({"resourceActionParameters": [{"name": "by", "value": "2"}]})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = run(&api, Role::Deployer, &format!("{WEB}/actions/pause"), None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "disabled now: {body}");

    // Run with Argo CD's parameters: the merge patch from live is applied, under the caller's name.
    let replicas = view["live"]["spec"]["replicas"].as_u64().unwrap();
    let (status, record) = run(
        &api,
        Role::Deployer,
        &format!("{WEB}/actions/bump"),
        Some(json!({"resourceActionParameters": [{"name": "by", "value": "2"}]})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{record}");
    assert_eq!(record["lua"], true);
    assert_eq!(record["parameters"], json!({"by": "2"}));
    eventually(&api, WEB, |view| {
        view.pointer("/live/spec/replicas") == Some(&json!(replicas + 2))
    })
    .await;

    // A script that errors, or never ends, is a clear error and nothing is applied.
    let (status, body) = run(&api, Role::Deployer, &format!("{WEB}/actions/fail"), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("this action refuses"),
        "{body}"
    );
    let (status, body) = run(&api, Role::Deployer, &format!("{WEB}/actions/loop"), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("timed out"),
        "{body}"
    );
    let (status, body) = run(
        &api,
        Role::Deployer,
        &format!("{WEB}/actions/bump"),
        Some(json!({"resourceActionParameters": [{"name": "by", "value": "many"}]})),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("invalid number: many")
    );
    let view = api
        .json(Role::Deployer, &format!("{WEB}?refresh=true"))
        .await;
    assert_eq!(
        view["live"]["spec"]["replicas"],
        json!(replicas + 2),
        "nothing applied"
    );

    // The ConfigMap's action creates a Job in the CronJob's namespace.
    let report = "/v1/deploy/jobs/resource/batch:CronJob:jobs:report";
    assert_eq!(
        api.json(Role::Deployer, report).await["actions"],
        json!(["suspend", "sync", "create-job"])
    );
    let (status, record) = run(
        &api,
        Role::Deployer,
        &format!("{report}/actions/create-job"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{record}");
    assert_eq!(record["created"], json!(["batch:Job:jobs:report-manual"]));

    // Every run is recorded with its actor and result.
    let records = api
        .json(Role::Deployer, "/v1/deploy/shop/resource-actions")
        .await;
    let rows: Vec<(String, String, String)> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["action"].as_str().unwrap().to_string(),
                r["result"].as_str().unwrap().to_string(),
                r["requestedBy"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let row = |action: &str, result: &str| {
        (
            action.to_string(),
            result.to_string(),
            "acme-deployer".to_string(),
        )
    };
    assert_eq!(
        rows,
        [
            row("bump", "succeeded"),
            row("fail", "failed"),
            row("loop", "failed"),
            row("bump", "failed")
        ]
    );
    api.server.shutdown().await;
}
