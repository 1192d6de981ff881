//! Container logs: the whole log of a container (optionally its last lines), or a followed stream of lines.

use futures::{AsyncBufReadExt, Stream, StreamExt, TryStreamExt, stream};
use k8s_openapi::api::core::v1::Pod;
use kube::Client;
use kube::api::{Api, LogParams};

use super::ClusterError;

fn params(container: Option<&str>, tail_lines: Option<i64>, follow: bool) -> LogParams {
    LogParams {
        container: container.map(str::to_string),
        tail_lines,
        follow,
        ..LogParams::default()
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
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let params = params(container, tail_lines, false);
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
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let params = params(container, tail_lines, true);
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
