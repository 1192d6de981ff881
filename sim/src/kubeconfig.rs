//! Kubeconfig files pointing kubectl and kube-rs at a served simulator.

use std::net::SocketAddr;
use std::path::Path;

use crate::error::SimError;

/// The cluster, context and user name in generated kubeconfigs.
pub const CONTEXT_NAME: &str = "weft-sim";

/// A kubeconfig for a simulator served at an address (plain HTTP, no credentials, namespace `default`).
pub fn kubeconfig_yaml(addr: SocketAddr) -> String {
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: {CONTEXT_NAME}
  cluster:
    server: http://{addr}
contexts:
- name: {CONTEXT_NAME}
  context:
    cluster: {CONTEXT_NAME}
    namespace: default
    user: {CONTEXT_NAME}
current-context: {CONTEXT_NAME}
preferences: {{}}
users:
- name: {CONTEXT_NAME}
  user: {{}}
"
    )
}

/// Writes a kubeconfig for a simulator served at an address, creating parent directories.
pub fn write_kubeconfig(path: impl AsRef<Path>, addr: SocketAddr) -> Result<(), SimError> {
    let path = path.as_ref();
    let failed = |source| SimError::WriteKubeconfig {
        path: path.display().to_string(),
        source,
    };
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    std::fs::write(path, kubeconfig_yaml(addr)).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubeconfig_names_the_server() {
        let addr: SocketAddr = "127.0.0.1:4321".parse().expect("addr");
        let yaml = kubeconfig_yaml(addr);
        let parsed: serde_norway::Value = serde_norway::from_str(&yaml).expect("yaml");
        assert_eq!(
            parsed["clusters"][0]["cluster"]["server"].as_str(),
            Some("http://127.0.0.1:4321")
        );
        assert_eq!(parsed["current-context"].as_str(), Some(CONTEXT_NAME));
        let directory = tempfile::tempdir().expect("tempdir");
        let path = directory.path().join("nested/config");
        write_kubeconfig(&path, addr).expect("written");
        assert_eq!(std::fs::read_to_string(path).expect("read"), yaml);
    }
}
