//! Kubeconfig files pointing kubectl and kube-rs at a served simulator.

use std::net::SocketAddr;
use std::path::Path;

use crate::error::SimError;

/// The cluster, context and user name in generated kubeconfigs.
pub const CONTEXT_NAME: &str = "weft-sim";

/// A kubeconfig for a simulator served at an address over plain HTTP (no credentials, namespace `default`).
pub fn kubeconfig_yaml(addr: SocketAddr) -> String {
    kubeconfig_with(addr, None)
}

/// A kubeconfig for a simulator served at an address: over TLS trusting `ca_pem` when given (as
/// `certificate-authority-data`), else over plain HTTP.
pub fn kubeconfig_with(addr: SocketAddr, ca_pem: Option<&str>) -> String {
    use base64::Engine as _;
    // Over TLS a user without credentials makes kubectl prompt for a password; the simulator takes any token.
    let (cluster, user) = match ca_pem {
        Some(pem) => (
            format!(
                "    server: https://{addr}\n    certificate-authority-data: {}\n",
                base64::engine::general_purpose::STANDARD.encode(pem)
            ),
            format!("\n    token: {CONTEXT_NAME}"),
        ),
        None => (format!("    server: http://{addr}\n"), " {}".to_owned()),
    };
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: {CONTEXT_NAME}
  cluster:
{cluster}contexts:
- name: {CONTEXT_NAME}
  context:
    cluster: {CONTEXT_NAME}
    namespace: default
    user: {CONTEXT_NAME}
current-context: {CONTEXT_NAME}
preferences: {{}}
users:
- name: {CONTEXT_NAME}
  user:{user}
"
    )
}

/// One kubeconfig for several served simulators: a cluster, user and context per `(name, address, CA)`, each named
/// `name`, the first current; over TLS trusting the CA when given, else over plain HTTP.
pub fn kubeconfig_for_clusters(clusters: &[(&str, SocketAddr, Option<&str>)]) -> String {
    use base64::Engine as _;
    let mut cluster_entries = String::new();
    let mut contexts = String::new();
    let mut users = String::new();
    for (name, addr, ca_pem) in clusters {
        match ca_pem {
            Some(pem) => {
                cluster_entries.push_str(&format!(
                    "- name: {name}\n  cluster:\n    server: https://{addr}\n    certificate-authority-data: {}\n",
                    base64::engine::general_purpose::STANDARD.encode(pem)
                ));
                users.push_str(&format!(
                    "- name: {name}\n  user:\n    token: {CONTEXT_NAME}\n"
                ));
            }
            None => {
                cluster_entries.push_str(&format!(
                    "- name: {name}\n  cluster:\n    server: http://{addr}\n"
                ));
                users.push_str(&format!("- name: {name}\n  user: {{}}\n"));
            }
        }
        contexts.push_str(&format!(
            "- name: {name}\n  context:\n    cluster: {name}\n    namespace: default\n    user: {name}\n"
        ));
    }
    let current = clusters.first().map_or(CONTEXT_NAME, |(name, _, _)| name);
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n{cluster_entries}contexts:\n{contexts}current-context: {current}\n\
         preferences: {{}}\nusers:\n{users}"
    )
}

/// Writes a plain-HTTP kubeconfig for a simulator served at an address, creating parent directories.
pub fn write_kubeconfig(path: impl AsRef<Path>, addr: SocketAddr) -> Result<(), SimError> {
    write_kubeconfig_with(path, addr, None)
}

/// Writes a kubeconfig ([`kubeconfig_with`]), creating parent directories.
pub fn write_kubeconfig_with(
    path: impl AsRef<Path>,
    addr: SocketAddr,
    ca_pem: Option<&str>,
) -> Result<(), SimError> {
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
    std::fs::write(path, kubeconfig_with(addr, ca_pem)).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_kubeconfig_names_every_cluster_as_a_context_the_first_current() {
        let staging: SocketAddr = "127.0.0.1:4321".parse().expect("addr");
        let production: SocketAddr = "127.0.0.1:4322".parse().expect("addr");
        let yaml = kubeconfig_for_clusters(&[
            ("staging", staging, Some("PEM")),
            ("production", production, None),
        ]);
        let parsed: serde_norway::Value = serde_norway::from_str(&yaml).expect("yaml");
        assert_eq!(parsed["current-context"].as_str(), Some("staging"));
        assert_eq!(
            parsed["clusters"][0]["cluster"]["server"].as_str(),
            Some("https://127.0.0.1:4321")
        );
        assert_eq!(
            parsed["clusters"][1]["cluster"]["server"].as_str(),
            Some("http://127.0.0.1:4322")
        );
        assert_eq!(
            parsed["contexts"][1]["context"]["cluster"].as_str(),
            Some("production")
        );
        assert_eq!(
            parsed["users"][0]["user"]["token"].as_str(),
            Some(CONTEXT_NAME)
        );
    }

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
        let tls = kubeconfig_with(addr, Some("-----BEGIN CERTIFICATE-----\n"));
        let parsed: serde_norway::Value = serde_norway::from_str(&tls).expect("yaml");
        assert_eq!(
            parsed["clusters"][0]["cluster"]["server"].as_str(),
            Some("https://127.0.0.1:4321")
        );
        assert_eq!(
            parsed["clusters"][0]["cluster"]["certificate-authority-data"].as_str(),
            Some("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==")
        );
    }
}
