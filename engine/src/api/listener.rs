//! The API's listener: a connection cap, a deadline for each request's headers that is also the idle timeout of a
//! kept-alive connection, a deadline for each request's body, `/healthz` still answered at the cap, and a bounded
//! drain on shutdown. Callers that open connections and send nothing, or send headers or a body a byte at a time,
//! cannot hold the server's descriptors. The body deadline holds for every route served here, the console's too.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use hyper::body::{Body as _, Incoming};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::{ApiError, BODY_LIMIT};

/// Connections taken past the cap, each answering one request (`/healthz`, or a 503 for anything else) and closed.
pub const OVERFLOW_CONNECTIONS: usize = 64;
/// The header deadline of an overflow connection.
const OVERFLOW_HEADER_TIMEOUT: Duration = Duration::from_secs(2);
/// How long running requests may take to finish on shutdown (followed log streams never do).
const DRAIN: Duration = Duration::from_secs(5);
/// Descriptors kept free below the process's limit for the store, the cluster, git and plugins.
const RESERVED_DESCRIPTORS: u64 = 256;

/// How the listener protects itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListenerLimits {
    /// The most connections served at once.
    pub max_connections: usize,
    /// How long a client may take to send a request's headers, and a kept-alive connection may stay idle.
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body once its headers are in.
    pub body_timeout: Duration,
}

impl ListenerLimits {
    /// The limits with the connection cap lowered, if need be, to what the process's descriptor limit (raised
    /// to its hard limit first) can hold besides everything else the server keeps open.
    pub fn fitted_to_descriptors(self) -> ListenerLimits {
        let available = rlimit::increase_nofile_limit(u64::MAX)
            .unwrap_or(1024)
            .saturating_sub(RESERVED_DESCRIPTORS + OVERFLOW_CONNECTIONS as u64);
        let fitted = usize::try_from(available)
            .unwrap_or(usize::MAX)
            .clamp(1, self.max_connections.max(1));
        if fitted < self.max_connections {
            tracing::warn!(
                "serving at most {fitted} API connections (configured {}): the process's descriptor limit is low",
                self.max_connections
            );
        }
        ListenerLimits {
            max_connections: fitted,
            ..self
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then lets running requests finish (for a few
/// seconds) and returns. Each request carries its client's address (`ConnectInfo<SocketAddr>`).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ListenerLimits,
    shutdown: impl Future<Output = ()>,
) {
    let served = Arc::new(Semaphore::new(limits.max_connections));
    let overflow = Arc::new(Semaphore::new(OVERFLOW_CONNECTIONS));
    let busy = busy_router(limits.max_connections);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of descriptors, or a connection reset before it was taken: wait a moment, go on.
                    tracing::warn!("accepting an API connection failed: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let (router, permit, header_timeout, keep_alive) =
            if let Ok(permit) = served.clone().try_acquire_owned() {
                (app.clone(), permit, limits.header_timeout, true)
            } else if let Ok(permit) = overflow.clone().try_acquire_owned() {
                (busy.clone(), permit, OVERFLOW_HEADER_TIMEOUT, false)
            } else {
                drop(stream);
                continue;
            };
        let body_timeout = limits.body_timeout;
        let service = tower::service_fn(move |mut request: Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            let router = router.clone();
            async move { Ok::<_, Infallible>(read_body_within(router, body_timeout, request).await) }
        });
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(header_timeout)
            .keep_alive(keep_alive);
        let connection =
            builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!("API connection from {peer} ended: {error}");
            }
            drop(permit);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN) => {}
    }
}

/// Reads the request's body, at most [`BODY_LIMIT`] bytes of it, within `deadline` of its headers, then hands the
/// request to `router`. A body that is late is a 408, one too large a 413, one that breaks off a 400; each closes
/// the connection (the rest of the body is never read), so a client sending a byte now and then holds its
/// connection for `deadline` at most.
async fn read_body_within(
    router: Router,
    deadline: Duration,
    request: Request<Incoming>,
) -> Response {
    let (parts, body) = request.into_parts();
    let body = if body.is_end_stream() {
        Body::empty()
    } else if body.size_hint().lower() > BODY_LIMIT as u64 {
        return closing(StatusCode::PAYLOAD_TOO_LARGE, too_large());
    } else {
        match tokio::time::timeout(deadline, Limited::new(body, BODY_LIMIT).collect()).await {
            Ok(Ok(collected)) => Body::from(collected.to_bytes()),
            Ok(Err(error)) if error.is::<LengthLimitError>() => {
                return closing(StatusCode::PAYLOAD_TOO_LARGE, too_large());
            }
            Ok(Err(error)) => {
                return closing(
                    StatusCode::BAD_REQUEST,
                    format!("the request's body could not be read: {error}"),
                );
            }
            Err(_) => {
                return closing(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the request's body did not arrive within {} s of its headers",
                        deadline.as_secs_f64()
                    ),
                );
            }
        }
    };
    match tower::ServiceExt::oneshot(router, Request::from_parts(parts, body)).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

fn too_large() -> String {
    format!(
        "the request's body is larger than {} KiB",
        BODY_LIMIT / 1024
    )
}

/// An error answer in the JSON shape after which the connection closes.
fn closing(status: StatusCode, message: String) -> Response {
    let mut response = ApiError::from_status(status, message).into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// What a connection past the cap gets: `/healthz` answers, anything else is a 503 saying why; either way the
/// connection closes after the one answer.
fn busy_router(cap: usize) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .fallback(move || async move { busy(cap) })
}

fn busy(cap: usize) -> Response {
    let mut response = ApiError::from_status(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("the server is serving its most connections ({cap}); retry in a moment"),
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_never_exceeds_what_descriptors_allow_and_never_reaches_zero() {
        let limits = ListenerLimits {
            max_connections: usize::MAX,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
        }
        .fitted_to_descriptors();
        assert!(limits.max_connections >= 1);
        assert!(limits.max_connections < usize::MAX);
        let small = ListenerLimits {
            max_connections: 3,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
        }
        .fitted_to_descriptors();
        assert_eq!(small.max_connections, 3);
    }
}
