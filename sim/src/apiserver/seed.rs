//! The objects a fresh cluster starts with: the system namespaces and the worker nodes.

use serde_json::json;

use super::{ApiServer, WriteOptions};
use crate::resource::ResourceKey;

/// The field manager of objects the cluster creates for itself.
pub const SYSTEM_MANAGER: &str = "kube-apiserver";

pub(super) fn seed_cluster(server: &ApiServer) {
    let options = WriteOptions::manager(SYSTEM_MANAGER);
    if let Some(namespaces) = server.resource(&ResourceKey::new("", "namespaces")) {
        for name in ["default", "kube-system", "kube-public", "kube-node-lease"] {
            let namespace = json!({
                "apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
            });
            if let Err(error) = server.create(&namespaces, "v1", "", namespace, &options) {
                tracing::warn!(%error, name, "could not seed a namespace");
            }
        }
    }
    if let Some(nodes) = server.resource(&ResourceKey::new("", "nodes")) {
        let (major, minor, patch) = server.config().kubernetes_version;
        for index in 1..=server.config().node_count.max(1) {
            let name = format!("sim-node-{index}");
            let node = json!({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {
                    "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                    "node-role.kubernetes.io/worker": "",
                }},
                "spec": {"podCIDR": format!("10.244.{index}.0/24")},
            });
            let created = server.create(&nodes, "v1", "", node, &options);
            let status = json!({
                "status": {
                    "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                        "message": "kubelet is posting ready status",
                        "lastHeartbeatTime": crate::time::now_rfc3339(),
                        "lastTransitionTime": crate::time::now_rfc3339()}],
                    "addresses": [{"type": "InternalIP", "address": format!("172.18.0.{}", index + 1)},
                                  {"type": "Hostname", "address": name}],
                    "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                    "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                    "nodeInfo": {"kubeletVersion": format!("v{major}.{minor}.{patch}"),
                        "containerRuntimeVersion": "sim://1.0", "operatingSystem": "linux", "architecture": "amd64"},
                }
            });
            let patched = created.and_then(|_| {
                server.patch(
                    &nodes,
                    "v1",
                    "",
                    &name,
                    "status",
                    super::PatchKind::Merge,
                    &status,
                    &WriteOptions::manager("kubelet"),
                )
            });
            if let Err(error) = patched {
                tracing::warn!(%error, name, "could not seed a node");
            }
        }
    }
}
