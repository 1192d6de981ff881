//! Weft's Kubernetes API simulator: an in-memory kube-apiserver with simulated controllers, faithful
//! enough that kube-rs (including `kube::runtime::watcher`) and `kubectl` work against it unchanged.
//! Of Weft's crates it depends only on `weft-k8s` and `weft-cel` (the Kubernetes semantics it shares with the host);
//! it must not depend on the engine or any host layer: it stands in for a cluster.
//!
//! # What it serves
//! - Discovery: `/version`, `/api`, `/api/v1`, `/apis`, `/apis/GROUP[/VERSION]`, aggregated discovery
//!   (`apidiscovery.k8s.io/v2` and `v2beta1`) and a minimal `/openapi/v3` so kubectl validates server-side.
//! - Built-in kinds (namespaces, nodes, ConfigMaps, Secrets, ServiceAccounts, Services, Pods with `log` and
//!   `status`, PVCs and PVs, Deployments/ReplicaSets/StatefulSets with `scale`, DaemonSets, Jobs, CronJobs,
//!   Ingresses, HPAs, PDBs, Leases, RBAC, CRDs, ...); creating a CustomResourceDefinition serves its kind.
//! - Semantics: one global resourceVersion; get/list with label and field selectors and `limit`/`continue`;
//!   watches from a resourceVersion (ADDED/MODIFIED/DELETED/BOOKMARK, `sendInitialEvents`, ERROR 410 when the
//!   version left the history); 409 on create of an existing object and on stale replaces; merge, JSON and
//!   strategic merge patches; server-side apply with `managedFields`, conflicts naming the other manager,
//!   `force`, and removal of fields a manager stops applying; `dryRun=All`; status subresources; generation
//!   bumps on spec changes; finalizers and `deletionTimestamp`; Background/Foreground/Orphan propagation with
//!   ownerReference garbage collection; 422 `Status` bodies for invalid objects; Tables for kubectl (the
//!   built-in kinds' columns, a definition's `additionalPrinterColumns`); `remainingItemCount` on limited lists.
//! - What kube-apiserver refuses or rewrites: protobuf bodies of built-in kinds read and, when a client prefers
//!   them, answered ([`weft_k8s::protobuf`]); unknown fields refused under `fieldValidation=Strict`, warned about
//!   under `Warn`, never stored; custom resources pruned, defaulted and validated against their definition's
//!   structural schema and CEL rules ([`weft_k8s::structural`]); immutable fields ([`update_rules`]); Secret
//!   `stringData` folded into `data`; the upgrade from client-side to server-side apply; review resources
//!   ([`reviews`]). Served over TLS with a generated certificate authority ([`tls`]) or plain HTTP.
//! - Controllers move objects through their real status fields: pods are scheduled on `sim-node-N` nodes,
//!   run after [`SimConfig::pod_start_delay`] and are Ready [`SimConfig::pod_ready_delay`] later;
//!   Deployments roll ReplicaSets with maxSurge/maxUnavailable and report Progressing/Available (and
//!   `ProgressDeadlineExceeded`); StatefulSets, DaemonSets, Jobs, CronJobs, LoadBalancer Services, Ingresses
//!   and PVCs behave as on a cluster; the controllers record Events, Services get Endpoints and
//!   EndpointSlices carrying their labels, and a selectorless Service's Endpoints are mirrored into EndpointSlices
//!   carrying the Endpoints' labels and annotations.
//! - Image names choose failures: `fail-pull` (or `bad-image`, `does-not-exist`) gives ErrImagePull then
//!   ImagePullBackOff; `crashloop` gives CrashLoopBackOff with a rising restartCount; `never-ready` runs but
//!   is never Ready; `fail-job` makes run-to-completion pods fail. Pod logs are deterministic lines
//!   ([`pod_logs::container_log`]).
//! - Faults per verb and resource ([`FaultInjector`]): error statuses (500, 503, 409...), 429 with
//!   `Retry-After`, latency, and watch streams cut after a delay.
//!
//! # Example
//! ```
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::api::{Api, PostParams};
//! use weft_sim::{FaultRule, SimConfig, Simulator, Verb};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! // Create the cluster inside a Tokio runtime so its controllers run.
//! let sim = Simulator::new(SimConfig::fast());
//!
//! // In-process: kube-rs talks to the router through tower, no socket.
//! let maps: Api<ConfigMap> = Api::default_namespaced(sim.client());
//! let map: ConfigMap = serde_json::from_value(serde_json::json!({"metadata": {"name": "settings"}}))?;
//! maps.create(&PostParams::default(), &map).await?;
//!
//! // Over TCP for kubectl and other processes, with a kubeconfig pointing at it.
//! let served = sim.serve("127.0.0.1:0".parse()?).await?;
//! let kubeconfig = std::env::temp_dir().join(format!("weft-sim-doc-{}.yaml", served.addr().port()));
//! served.write_kubeconfig(&kubeconfig)?;
//! # std::fs::remove_file(&kubeconfig)?;
//!
//! // Faults: the next create of a ConfigMap fails with 500.
//! sim.faults().add(FaultRule::error(Some(Verb::Create), Some("configmaps"), 500).times(1));
//! let other: ConfigMap = serde_json::from_value(serde_json::json!({"metadata": {"name": "other"}}))?;
//! let failed = maps.create(&PostParams::default(), &other).await;
//! assert!(matches!(failed, Err(kube::Error::Api(status)) if status.code == 500));
//! maps.create(&PostParams::default(), &other).await?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })
//! # }
//! ```
//!
//! The `weft sim --listen ADDR --kubeconfig PATH` command is [`Simulator::serve`] followed by
//! [`ServedSim::write_kubeconfig`].

pub mod access;
pub mod api_error;
pub mod apiserver;
pub mod catalog;
pub mod config;
pub mod controllers;
pub mod defaults;
pub mod error;
pub mod faults;
/// Field sets as `managedFields` record them: the one implementation in `weft-k8s`, shared with the diff.
pub use weft_k8s::fieldset;
/// Field paths in `fieldsV1` spelling: the one implementation in `weft-k8s`, shared with the diff.
pub use weft_k8s::fieldset::path as field_path;
pub mod fleet;
pub mod http;
pub mod ids;
pub mod json_path;
pub mod kubeconfig;
pub mod managed_fields;
pub mod patch;
pub mod pod_logs;
pub mod resource;
pub mod reviews;
pub mod serve;
pub mod simulator;
pub mod ssa;
pub mod store;
pub mod time;
pub mod tls;
pub mod update_rules;
pub mod validate;

pub use access::AccessGrants;
pub use config::SimConfig;
pub use error::SimError;
pub use faults::{
    FaultAction, FaultFileError, FaultId, FaultInjector, FaultRule, Verb, parse_fault_file,
};
pub use kubeconfig::{
    kubeconfig_for_clusters, kubeconfig_with, kubeconfig_yaml, write_kubeconfig,
    write_kubeconfig_with,
};
pub use serve::ServedSim;
pub use simulator::Simulator;
