//! Container logs: the whole log of a container (optionally its last lines, its previous run's, or only what is
//! newer than some seconds), or a followed stream of lines.

use futures::{AsyncBufReadExt, Stream, StreamExt, TryStreamExt, stream};
use k8s_openapi::api::core::v1::Pod;
use kube::Client;
use kube::api::{Api, LogParams};

use super::ClusterError;

/// Which part of a container's log to read (Kubernetes' `pods/log` parameters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogOptions {
    /// The container; the pod's only or default container when `None`.
    pub container: Option<String>,
    /// Only its last lines.
    pub tail_lines: Option<i64>,
    /// Only lines written in the last seconds.
    pub since_seconds: Option<i64>,
    /// The previous run's log (of a container that restarted), not the current one's.
    pub previous: bool,
}

impl LogOptions {
    /// Options for `container` (if given) and its last `tail_lines` (if given).
    pub fn tail(container: Option<&str>, tail_lines: Option<i64>) -> Self {
        LogOptions {
            container: container.map(str::to_string),
            tail_lines,
            ..LogOptions::default()
        }
    }

    fn params(&self, follow: bool) -> LogParams {
        LogParams {
            container: self.container.clone(),
            tail_lines: self.tail_lines,
            since_seconds: self.since_seconds,
            previous: self.previous,
            follow,
            ..LogParams::default()
        }
    }
}

/// The log of one container of a pod (the pod's only or default container when `container` is `None`),
/// limited to its last `tail_lines` lines when given.
pub async fn pod_log(
    client: &Client,
    namespace: &str,
    pod: &str,
    container: Option<&str>,
    tail_lines: Option<i64>,
) -> Result<String, ClusterError> {
    read_log(
        client,
        namespace,
        pod,
        &LogOptions::tail(container, tail_lines),
    )
    .await
}

/// The log of one container of a pod, as `options` asks.
pub async fn read_log(
    client: &Client,
    namespace: &str,
    pod: &str,
    options: &LogOptions,
) -> Result<String, ClusterError> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let params = options.params(false);
    crate::RetryPolicy::default()
        .run(|| pods.logs(pod, &params))
        .await
        .map_err(|(source, _)| ClusterError::Request {
            context: format!("log of pod {namespace}/{pod}"),
            source,
        })
}

/// Follows the log of one container line by line (without the line ends): what is there (its last
/// `tail_lines` lines when given), then new lines as they are written, until the pod goes or the stream is
/// dropped. Failing to open the log is the stream's first and only item.
pub fn log_stream(
    client: &Client,
    namespace: &str,
    pod: &str,
    container: Option<&str>,
    tail_lines: Option<i64>,
) -> impl Stream<Item = Result<String, ClusterError>> + Send + Unpin + 'static {
    follow_log(
        client,
        namespace,
        pod,
        &LogOptions::tail(container, tail_lines),
    )
}

/// [`log_stream`] as `options` asks (`previous` is not followed: it is read whole, then the stream ends).
pub fn follow_log(
    client: &Client,
    namespace: &str,
    pod: &str,
    options: &LogOptions,
) -> impl Stream<Item = Result<String, ClusterError>> + Send + Unpin + 'static + use<> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let params = options.params(!options.previous);
    let pod = pod.to_string();
    let name = format!("{namespace}/{pod}");
    stream::once(async move {
        let opened = pods.log_stream(&pod, &params).await;
        match opened {
            Ok(reader) => {
                let pod = name.clone();
                reader
                    .lines()
                    .map_err(move |source| ClusterError::LogRead {
                        pod: pod.clone(),
                        source,
                    })
                    .boxed()
            }
            Err(source) => stream::iter([Err(ClusterError::Request {
                context: format!("log of pod {name}"),
                source,
            })])
            .boxed(),
        }
    })
    .flatten()
    .boxed()
}
