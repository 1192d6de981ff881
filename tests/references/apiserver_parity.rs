//! What kube-apiserver refuses and answers, checked with the real kubectl against the served simulator: updates
//! of immutable fields, new finalizers on an object being deleted, `auth can-i` and `auth whoami`, the upgrade
//! from client-side to server-side apply, the columns `kubectl get` prints, the kinds `apply --prune` maps, and a
//! limited list's `remainingItemCount`.

use super::Cluster;

/// A kubectl command that must fail with `expected` in what it prints.
async fn refused(cluster: &Cluster, args: &[&str], expected: &str) {
    let output = cluster.run(args).await;
    assert!(
        !output.success,
        "kubectl {args:?} was accepted:\n{}",
        output.stdout
    );
    assert!(
        output.stderr.contains(expected),
        "kubectl {args:?} said:\n{}\nnot {expected:?}",
        output.stderr
    );
}

/// Applies a custom resource once its definition is served (the simulated controller establishes it on its own
/// clock, later on a loaded machine).
async fn apply_when_served(cluster: &Cluster, manifest: &std::path::Path) {
    let manifest = manifest.to_str().expect("path");
    let mut applied = cluster.run(&["apply", "-f", manifest]).await;
    for _ in 0..100 {
        if applied.success {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        applied = cluster.run(&["apply", "-f", manifest]).await;
    }
    assert!(applied.success, "{}{}", applied.stdout, applied.stderr);
}

pub async fn updates_kube_apiserver_refuses_are_refused_with_its_messages() {
    let cluster = Cluster::start().await;
    let manifest = cluster.write(
        "objects.yaml",
        &format!(
            "{}---
apiVersion: v1
kind: ConfigMap
metadata:
  name: frozen
immutable: true
data:
  level: info
---
apiVersion: batch/v1
kind: Job
metadata:
  name: once
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
",
            super::deployment_yaml("web", 1, "nginx:1.27")
        ),
    );
    cluster
        .run_ok(&["apply", "-f", manifest.to_str().expect("path")])
        .await;

    refused(
        &cluster,
        &[
            "patch",
            "deployment",
            "web",
            "--type=merge",
            "-p",
            r#"{"spec":{"selector":{"matchLabels":{"app":"other"}},"template":{"metadata":{"labels":{"app":"other"}}}}}"#,
        ],
        "spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"other\"}}: field is immutable",
    )
    .await;
    refused(
        &cluster,
        &["patch", "configmap", "frozen", "-p", r#"{"data":{"level":"debug"}}"#],
        "The ConfigMap \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set",
    )
    .await;
    refused(
        &cluster,
        &[
            "patch",
            "configmap",
            "frozen",
            "-p",
            r#"{"immutable":false}"#,
        ],
        "immutable: Forbidden: field is immutable when `immutable` is set",
    )
    .await;
    refused(
        &cluster,
        &[
            "patch",
            "job",
            "once",
            "--type=json",
            "-p",
            r#"[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"alpine"}]"#,
        ],
        "spec.template: Invalid value: ",
    )
    .await;
    refused(
        &cluster,
        &[
            "patch",
            "service",
            "web",
            "--type=merge",
            "-p",
            r#"{"spec":{"clusterIP":"10.96.250.250","clusterIPs":["10.96.250.250"]}}"#,
        ],
        "spec.clusterIPs[0]: Invalid value: [\"10.96.250.250\"]: may not change once set",
    )
    .await;
    // A replace that leaves the cluster IP out keeps it.
    let before = cluster
        .run_ok(&["get", "service", "web", "-o", "jsonpath={.spec.clusterIP}"])
        .await;
    let service = cluster.write(
        "service.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 81\n",
    );
    cluster
        .run_ok(&["replace", "-f", service.to_str().expect("path")])
        .await;
    let after = cluster
        .run_ok(&["get", "service", "web", "-o", "jsonpath={.spec.clusterIP}"])
        .await;
    assert_eq!(before, after, "a replace without the cluster IP keeps it");

    cluster
        .run_ok(&[
            "patch",
            "configmap",
            "frozen",
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":["example.com/hold"]}}"#,
        ])
        .await;
    cluster
        .run_ok(&["delete", "configmap", "frozen", "--wait=false"])
        .await;
    refused(
        &cluster,
        &[
            "patch",
            "configmap",
            "frozen",
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":["example.com/hold","example.com/more"]}}"#,
        ],
        "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers [\"example.com/more\"]",
    )
    .await;
    cluster
        .run_ok(&[
            "patch",
            "configmap",
            "frozen",
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":null}}"#,
        ])
        .await;
    let gone = cluster.run(&["get", "configmap", "frozen"]).await;
    assert!(
        !gone.success && gone.stderr.contains("NotFound"),
        "the last finalizer removed, the object goes: {}{}",
        gone.stdout,
        gone.stderr
    );
}

pub async fn unknown_fields_are_refused_under_strict_and_dropped_under_warn() {
    let cluster = Cluster::start().await;
    let manifest = cluster.write(
        "typo.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\ndata:\n  a: b\nbogus: 1\n",
    );
    let manifest = manifest.to_str().expect("path");
    refused(
        &cluster,
        &["create", "-f", manifest],
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"bogus\"",
    )
    .await;
    let nested = cluster.write(
        "nested.yaml",
        &super::deployment_yaml("web", 1, "nginx:1.27").replacen(
            "        image: nginx:1.27\n",
            "        image: nginx:1.27\n        imagePullPolicyy: Always\n",
            1,
        ),
    );
    refused(
        &cluster,
        &["apply", "-f", nested.to_str().expect("path")],
        "unknown field \"spec.template.spec.containers[0].imagePullPolicyy\"",
    )
    .await;
    let warned = cluster
        .run(&["apply", "--validate=warn", "-f", manifest])
        .await;
    assert!(warned.success, "{}{}", warned.stdout, warned.stderr);
    assert!(
        warned.stderr.contains("Warning: unknown field \"bogus\""),
        "{}",
        warned.stderr
    );
    let stored = cluster
        .run_ok(&["get", "configmap", "typo", "-o", "json"])
        .await;
    let stored: serde_json::Value = serde_json::from_str(&stored).expect("json");
    assert!(
        stored.get("bogus").is_none(),
        "dropped, not stored: {stored}"
    );
    assert_eq!(stored["data"]["a"], "b");
}

pub async fn auth_can_i_and_whoami_are_answered() {
    let cluster = Cluster::start().await;
    let can = cluster
        .run_ok(&["auth", "can-i", "create", "deployments", "-n", "default"])
        .await;
    assert_eq!(can.trim(), "yes");
    let listed = cluster.run_ok(&["auth", "can-i", "--list"]).await;
    assert!(listed.contains("*.*"), "{listed}");
    let whoami = cluster.run_ok(&["auth", "whoami"]).await;
    assert!(whoami.contains(weft_sim::reviews::USER), "{whoami}");
}

/// `kubectl create` of built-in kinds goes through client-go's typed clients, which send protobuf.
pub async fn kubectl_create_sends_protobuf_the_simulator_reads() {
    let cluster = Cluster::start().await;
    cluster.run_ok(&["create", "namespace", "team-a"]).await;
    cluster
        .run_ok(&[
            "create",
            "configmap",
            "settings",
            "-n",
            "team-a",
            "--from-literal=level=info",
            "--from-literal=empty=",
        ])
        .await;
    cluster
        .run_ok(&[
            "create",
            "secret",
            "generic",
            "token",
            "-n",
            "team-a",
            "--from-literal=token=s3cr3t",
        ])
        .await;
    cluster
        .run_ok(&[
            "create",
            "deployment",
            "web",
            "-n",
            "team-a",
            "--image=nginx:1.27",
            "--replicas=2",
            "--port=8080",
        ])
        .await;
    cluster
        .run_ok(&[
            "create",
            "service",
            "clusterip",
            "web",
            "-n",
            "team-a",
            "--tcp=80:8080",
        ])
        .await;
    cluster
        .run_ok(&[
            "create",
            "cronjob",
            "nightly",
            "-n",
            "team-a",
            "--image=busybox",
            "--schedule=0 3 * * *",
        ])
        .await;
    cluster
        .run_ok(&[
            "create",
            "job",
            "now",
            "-n",
            "team-a",
            "--from=cronjob/nightly",
        ])
        .await;

    let get = |args: &'static [&'static str]| cluster.run_ok(args);
    let data = get(&["get", "configmap", "settings", "-n", "team-a", "-o", "json"]).await;
    let data: serde_json::Value = serde_json::from_str(&data).expect("json");
    assert_eq!(
        data["data"],
        serde_json::json!({"level": "info", "empty": ""})
    );
    let token = get(&[
        "get",
        "secret",
        "token",
        "-n",
        "team-a",
        "-o",
        "jsonpath={.data.token}",
    ])
    .await;
    assert_eq!(token, "czNjcjN0");
    let deployment = get(&["get", "deployment", "web", "-n", "team-a", "-o", "json"]).await;
    let deployment: serde_json::Value = serde_json::from_str(&deployment).expect("json");
    assert_eq!(deployment["spec"]["replicas"], 2);
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"],
        8080
    );
    assert_eq!(deployment["spec"]["selector"]["matchLabels"]["app"], "web");
    let rollout = cluster
        .run_ok(&[
            "rollout",
            "status",
            "deployment/web",
            "-n",
            "team-a",
            "--timeout=300s",
        ])
        .await;
    assert!(rollout.contains("successfully rolled out"), "{rollout}");
    let service = get(&["get", "service", "web", "-n", "team-a", "-o", "json"]).await;
    let service: serde_json::Value = serde_json::from_str(&service).expect("json");
    assert_eq!(service["spec"]["ports"][0]["targetPort"], 8080);
    let job = get(&["get", "job", "now", "-n", "team-a", "-o", "json"]).await;
    let job: serde_json::Value = serde_json::from_str(&job).expect("json");
    assert_eq!(
        job["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"],
        "manual"
    );
    assert_eq!(job["metadata"]["ownerReferences"][0]["kind"], "CronJob");
    // Deleting with a typed client sends protobuf DeleteOptions.
    cluster
        .run_ok(&["delete", "namespace", "team-a", "--wait=false"])
        .await;
}

pub async fn server_side_apply_takes_over_from_client_side_apply() {
    let cluster = Cluster::start().await;
    let config = |level: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: {level}\n"
        )
    };
    let first = cluster.write("first.yaml", &config("info"));
    cluster
        .run_ok(&["apply", "-f", first.to_str().expect("path")])
        .await;
    let second = cluster.write("second.yaml", &config("debug"));
    let applied = cluster
        .run_ok(&[
            "apply",
            "--server-side",
            "-f",
            second.to_str().expect("path"),
        ])
        .await;
    assert!(applied.contains("serverside-applied"), "{applied}");
    let level = cluster
        .run_ok(&[
            "get",
            "configmap",
            "settings",
            "-o",
            "jsonpath={.data.level}",
        ])
        .await;
    assert_eq!(level, "debug");
    // Another manager still conflicts over the fields kubectl now owns.
    let third = cluster.write("third.yaml", &config("warn"));
    refused(
        &cluster,
        &[
            "apply",
            "--server-side",
            "--field-manager=other",
            "-f",
            third.to_str().expect("path"),
        ],
        "conflict with \"kubectl\"",
    )
    .await;
}

pub async fn get_prints_each_kinds_columns_and_apply_prune_maps_every_kind() {
    let cluster = Cluster::start().await;
    let manifest = cluster.write(
        "objects.yaml",
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels: {app: demo}
data: {a: '1', b: '2'}
---
apiVersion: v1
kind: Secret
metadata:
  name: token
  labels: {app: demo}
stringData: {token: abc}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type==\"Ready\")].status'}
",
    );
    cluster
        .run_ok(&["apply", "-f", manifest.to_str().expect("path")])
        .await;
    let maps = cluster.run_ok(&["get", "configmaps", "settings"]).await;
    let header: Vec<&str> = maps
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(header, ["NAME", "DATA", "AGE"], "{maps}");
    assert!(maps.contains("settings   2"), "{maps}");
    let secrets = cluster.run_ok(&["get", "secrets", "token"]).await;
    assert!(
        secrets.contains("Opaque") && secrets.contains("TYPE"),
        "{secrets}"
    );
    let token = cluster
        .run_ok(&[
            "get",
            "secret",
            "token",
            "-o",
            "jsonpath={.data.token}|{.stringData}",
        ])
        .await;
    assert_eq!(
        token, "YWJj|",
        "stringData is folded into data and never kept"
    );

    let widget = cluster.write(
        "widget.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: small\nspec:\n  size: 3\n",
    );
    apply_when_served(&cluster, &widget).await;
    let widgets = cluster.run_ok(&["get", "widgets"]).await;
    let header: Vec<&str> = widgets
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(header, ["NAME", "SIZE", "READY"], "{widgets}");
    assert!(
        widgets.contains("small") && widgets.contains('3'),
        "{widgets}"
    );

    let kinds = cluster.run_ok(&["api-resources", "-o", "name"]).await;
    for kind in [
        "replicationcontrollers",
        "limitranges",
        "resourcequotas",
        "podtemplates",
        "endpointslices.discovery.k8s.io",
    ] {
        assert!(
            kinds.lines().any(|line| line == kind),
            "{kind} not served:\n{kinds}"
        );
    }
    let pruned = cluster.write(
        "pruned.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels: {app: demo}\ndata: {a: '1'}\n",
    );
    let applied = cluster
        .run_ok(&[
            "apply",
            "--prune",
            "-l",
            "app=demo",
            "-f",
            pruned.to_str().expect("path"),
        ])
        .await;
    assert!(applied.contains("secret/token pruned"), "{applied}");
}

pub async fn a_limited_list_says_how_many_items_remain() {
    let cluster = Cluster::start().await;
    for name in ["a", "b", "c", "d"] {
        let path = cluster.write(
            &format!("{name}.yaml"),
            &format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"),
        );
        cluster
            .run_ok(&["apply", "-f", path.to_str().expect("path")])
            .await;
    }
    let page = cluster
        .run_ok(&[
            "get",
            "--raw",
            "/api/v1/namespaces/default/configmaps?limit=1",
        ])
        .await;
    let page: serde_json::Value = serde_json::from_str(&page).expect("a list");
    // kube-root-ca.crt may or may not be published; count what is there.
    let all = cluster
        .run_ok(&["get", "--raw", "/api/v1/namespaces/default/configmaps"])
        .await;
    let all: serde_json::Value = serde_json::from_str(&all).expect("a list");
    let total = all["items"].as_array().map_or(0, Vec::len) as u64;
    assert_eq!(page["metadata"]["remainingItemCount"], total - 1, "{page}");
    let token = page["metadata"]["continue"]
        .as_str()
        .expect("a continue token");
    let second = cluster
        .run_ok(&[
            "get",
            "--raw",
            &format!("/api/v1/namespaces/default/configmaps?limit=1&continue={token}"),
        ])
        .await;
    let second: serde_json::Value = serde_json::from_str(&second).expect("a list");
    assert_eq!(
        second["metadata"]["remainingItemCount"],
        total - 2,
        "{second}"
    );
    let selected = cluster
        .run_ok(&[
            "get",
            "--raw",
            "/api/v1/namespaces/default/configmaps?limit=1&labelSelector=app%21%3Dnone",
        ])
        .await;
    let selected: serde_json::Value = serde_json::from_str(&selected).expect("a list");
    assert!(
        selected["metadata"].get("remainingItemCount").is_none(),
        "with a selector kube-apiserver cannot count: {selected}"
    );
}

/// Helm's own library with its default release storage (Secrets, written by client-go as protobuf): install,
/// upgrade, rollback, history and uninstall against the simulator.
pub async fn helm_keeps_its_releases_in_secrets_on_the_simulator() {
    let cluster = Cluster::start().await;
    let workdir = cluster.directory.path().join("helm");
    std::fs::create_dir_all(&workdir).expect("workdir");
    let output = tokio::process::Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/references/helm_release_secrets.py"
        ))
        .arg(super::KUBECTL.get().expect("kubectl was found"))
        .arg(cluster.directory.path().join("kubeconfig"))
        .arg(&workdir)
        .env("HOME", cluster.directory.path())
        .env_remove("KUBECONFIG")
        .kill_on_drop(true)
        .output()
        .await
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "Helm failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the script prints JSON");
    assert_eq!(
        report["steps"],
        serde_json::json!({"installed": 1, "upgraded": 3, "rolled_back": 1})
    );
    assert_eq!(
        report["history"],
        serde_json::json!([[1, "superseded"], [2, "superseded"], [3, "deployed"]])
    );
    assert_eq!(
        report["secrets"],
        serde_json::json!([
            "secret/sh.helm.release.v1.demo.v1",
            "secret/sh.helm.release.v1.demo.v2",
            "secret/sh.helm.release.v1.demo.v3"
        ])
    );
    assert_eq!(report["after_uninstall"], serde_json::json!([]));
}

/// Polls a kubectl command until its output satisfies `done` (the simulated controllers run on their own clock).
async fn eventually(cluster: &Cluster, args: &[&str], done: impl Fn(&str) -> bool) -> String {
    let mut last = String::new();
    for _ in 0..600 {
        let output = cluster.run(args).await;
        last = format!("{}{}", output.stdout, output.stderr);
        if output.success && done(&output.stdout) {
            return output.stdout;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("kubectl {args:?} never showed what was expected; last:\n{last}");
}

pub async fn controllers_record_events_and_publish_endpoints() {
    let cluster = Cluster::start().await;
    let manifest = cluster.write(
        "web.yaml",
        &format!(
            "{}---
apiVersion: batch/v1
kind: Job
metadata:
  name: once
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
---
apiVersion: v1
kind: Pod
metadata:
  name: broken
spec:
  containers:
  - name: app
    image: registry.example/fail-pull:1
",
            super::deployment_yaml("web", 2, "nginx:1.27")
        ),
    );
    cluster
        .run_ok(&["apply", "-f", manifest.to_str().expect("path")])
        .await;
    cluster
        .run_ok(&["rollout", "status", "deployment/web", "--timeout=300s"])
        .await;
    let events = eventually(&cluster, &["events"], |events| {
        [
            "ScalingReplicaSet",
            "SuccessfulCreate",
            "Scheduled",
            "Pulled",
            "Created",
            "Started",
            "Completed",
            "Failed",
            "BackOff",
        ]
        .iter()
        .all(|reason| events.contains(reason))
    })
    .await;
    assert!(
        events.contains("Scaled up replica set web-") && events.contains("from 0 to 2"),
        "{events}"
    );
    assert!(
        events.contains("Successfully assigned default/web-"),
        "{events}"
    );
    assert!(events.contains("Job completed"), "{events}");
    assert!(
        events.contains("Failed to pull image \"registry.example/fail-pull:1\""),
        "{events}"
    );
    let warnings = cluster.run_ok(&["events", "--types=Warning"]).await;
    assert!(
        warnings.contains("Failed") && !warnings.contains("Started"),
        "{warnings}"
    );

    let endpoints = eventually(&cluster, &["get", "endpoints", "web"], |table| {
        table.matches(":8080").count() == 2
    })
    .await;
    assert!(endpoints.contains("ENDPOINTS"), "{endpoints}");
    let slices = cluster
        .run_ok(&[
            "get",
            "endpointslices",
            "-l",
            "kubernetes.io/service-name=web",
            "-o",
            "json",
        ])
        .await;
    let slices: serde_json::Value = serde_json::from_str(&slices).expect("json");
    let slice = &slices["items"][0];
    assert_eq!(slice["addressType"], "IPv4");
    assert_eq!(slice["ports"][0]["port"], 8080);
    assert_eq!(slice["endpoints"].as_array().map(Vec::len), Some(2));
    assert_eq!(slice["endpoints"][0]["conditions"]["ready"], true);
    assert_eq!(slice["metadata"]["ownerReferences"][0]["kind"], "Service");

    cluster
        .run_ok(&["scale", "deployment/web", "--replicas=1"])
        .await;
    eventually(&cluster, &["get", "endpoints", "web"], |table| {
        table.matches(":8080").count() == 1
    })
    .await;
    cluster.run_ok(&["delete", "service", "web"]).await;
    eventually(
        &cluster,
        &["get", "endpoints,endpointslices", "-o", "name"],
        |names| !names.contains("web"),
    )
    .await;
}

pub async fn custom_resources_are_held_to_their_definitions_schema() {
    let cluster = Cluster::start().await;
    let definition = cluster.write(
        "crd.yaml",
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            x-kubernetes-validations:
            - rule: 'self.size % 2 == 0'
              message: size must be even
            properties:
              size: {type: integer, maximum: 100}
              mode: {type: string, enum: [fast, safe], default: safe}
              port: {x-kubernetes-int-or-string: true}
",
    );
    cluster
        .run_ok(&["apply", "-f", definition.to_str().expect("path")])
        .await;
    let gadget = |name: &str, spec: &str| {
        cluster.write(
            &format!("{name}.yaml"),
            &format!(
                "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: {name}\nspec:\n{spec}"
            ),
        )
    };
    let good = gadget("good", "  size: 4\n  port: http\n");
    apply_when_served(&cluster, &good).await;
    let mode = cluster
        .run_ok(&["get", "gadget", "good", "-o", "jsonpath={.spec.mode}"])
        .await;
    assert_eq!(mode, "safe", "the schema's default is filled in");

    let wrong = gadget("wrong", "  size: \"big\"\n");
    refused(
        &cluster,
        &["apply", "-f", wrong.to_str().expect("path")],
        "spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\"",
    )
    .await;
    let many = gadget("many", "  size: 1000\n  mode: reckless\n");
    let output = cluster
        .run(&["apply", "-f", many.to_str().expect("path")])
        .await;
    assert!(!output.success);
    for expected in [
        "spec.size: Invalid value: 1000: spec.size in body should be less than or equal to 100",
        "spec.mode: Unsupported value: \"reckless\": supported values: \"fast\", \"safe\"",
    ] {
        assert!(
            output.stderr.contains(expected),
            "{expected} not in {}",
            output.stderr
        );
    }
    let missing = gadget("missing", "  mode: fast\n");
    refused(
        &cluster,
        &["apply", "-f", missing.to_str().expect("path")],
        "spec.size: Required value",
    )
    .await;
    let odd = gadget("odd", "  size: 3\n");
    refused(
        &cluster,
        &["apply", "-f", odd.to_str().expect("path")],
        "spec: Invalid value: \"object\": size must be even",
    )
    .await;
    let unknown = gadget("unknown", "  size: 2\n  colour: red\n");
    refused(
        &cluster,
        &["apply", "-f", unknown.to_str().expect("path")],
        "unknown field \"spec.colour\"",
    )
    .await;
    cluster
        .run_ok(&[
            "apply",
            "--validate=false",
            "-f",
            unknown.to_str().expect("path"),
        ])
        .await;
    let stored = cluster
        .run_ok(&["get", "gadget", "unknown", "-o", "json"])
        .await;
    let stored: serde_json::Value = serde_json::from_str(&stored).expect("json");
    assert!(stored["spec"].get("colour").is_none(), "pruned: {stored}");
    assert_eq!(stored["spec"]["size"], 2);
}

pub async fn a_terminating_namespace_says_which_finalizers_remain() {
    let cluster = Cluster::start().await;
    cluster.run_ok(&["create", "namespace", "doomed"]).await;
    let held = cluster.write(
        "held.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: doomed\n  finalizers: [example.com/hold]\n",
    );
    cluster
        .run_ok(&["apply", "-f", held.to_str().expect("path")])
        .await;
    cluster
        .run_ok(&["delete", "namespace", "doomed", "--wait=false"])
        .await;
    let conditions = eventually(
        &cluster,
        &[
            "get",
            "namespace",
            "doomed",
            "-o",
            "jsonpath={.status.conditions}",
        ],
        |text| text.contains("NamespaceFinalizersRemaining"),
    )
    .await;
    let conditions: serde_json::Value = serde_json::from_str(&conditions).expect("json");
    let finalizers = conditions
        .as_array()
        .and_then(|all| {
            all.iter()
                .find(|c| c["type"] == "NamespaceFinalizersRemaining")
        })
        .expect("the condition")
        .clone();
    assert_eq!(finalizers["status"], "True");
    assert_eq!(finalizers["reason"], "SomeFinalizersRemain");
    assert_eq!(
        finalizers["message"],
        "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
    );
    let phase = cluster
        .run_ok(&[
            "get",
            "namespace",
            "doomed",
            "-o",
            "jsonpath={.status.phase}",
        ])
        .await;
    assert_eq!(phase, "Terminating");
    cluster
        .run_ok(&[
            "patch",
            "configmap",
            "held",
            "-n",
            "doomed",
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":null}}"#,
        ])
        .await;
    eventually(&cluster, &["get", "namespaces", "-o", "name"], |names| {
        !names.contains("namespace/doomed")
    })
    .await;
}
