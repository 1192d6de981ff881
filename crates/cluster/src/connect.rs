//! Connecting to the cluster the configuration names: a kubeconfig file (and context) or the in-cluster service
//! account. Never an implicit kubeconfig: a real cluster is always named.

use std::path::PathBuf;

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use serde::{Deserialize, Serialize};

use super::ClusterError;

/// A client for the configured cluster. The embedded simulator is not connected to here: it runs in the process
/// that serves it, which builds its client directly.
pub async fn connect(cluster: &ClusterConfig) -> Result<Client, ClusterError> {
    let config = match cluster {
        ClusterConfig::Kubeconfig { path, context } => {
            let kubeconfig = Kubeconfig::read_from(path).map_err(|e| ClusterError::Connect {
                cluster: path.display().to_string(),
                message: e.to_string(),
            })?;
            let options = KubeConfigOptions {
                context: context.clone(),
                ..KubeConfigOptions::default()
            };
            Config::from_custom_kubeconfig(kubeconfig, &options)
                .await
                .map_err(|e| ClusterError::Connect {
                    cluster: match context {
                        Some(context) => format!("{} (context {context})", path.display()),
                        None => path.display().to_string(),
                    },
                    message: e.to_string(),
                })?
        }
        ClusterConfig::InCluster => Config::incluster().map_err(|e| ClusterError::Connect {
            cluster: "in-cluster".into(),
            message: e.to_string(),
        })?,
        ClusterConfig::Simulator => {
            return Err(ClusterError::Connect {
                cluster: "simulator".into(),
                message: "the embedded simulator runs inside `weft serve`; it has no address to connect to"
                    .into(),
            });
        }
    };
    Client::try_from(without_hidden_retries(config)).map_err(|e| ClusterError::Connect {
        cluster: cluster_name(cluster),
        message: e.to_string(),
    })
}

/// kube's own retry of 429/503/504 (many attempts, backing off to minutes) is turned off: Weft retries where it
/// knows what the request is (`cluster::retry`, bounded), and a hidden retry under it froze a reconcile pass — and
/// with it every other app — for minutes after an overload had passed.
fn without_hidden_retries(mut config: Config) -> Config {
    config.default_retry = false;
    config
}

fn cluster_name(cluster: &ClusterConfig) -> String {
    match cluster {
        ClusterConfig::Kubeconfig { path, .. } => path.display().to_string(),
        ClusterConfig::InCluster => "in-cluster".into(),
        ClusterConfig::Simulator => "simulator".into(),
    }
}

/// Which cluster Weft manages. It never picks up a kubeconfig by itself: a real cluster must be named.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "mode", rename_all = "kebab-case")]
pub enum ClusterConfig {
    /// The embedded Kubernetes API simulator (the default: trying Weft can never touch a real cluster).
    #[default]
    Simulator,
    /// A cluster from a kubeconfig file.
    Kubeconfig {
        /// The kubeconfig file.
        path: PathBuf,
        /// The context to use (default: the file's current context).
        #[serde(default)]
        context: Option<String>,
    },
    /// The cluster Weft runs in, through its service account.
    InCluster,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubes_hidden_retries_are_turned_off() {
        let config = Config::new("https://cluster.example:6443".parse().unwrap());
        assert!(config.default_retry, "kube retries by default");
        assert!(!without_hidden_retries(config).default_retry);
    }
}
