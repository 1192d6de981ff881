//! The HTTP side of the client: authenticated JSON requests to the API and server-sent event streams, with the
//! API's `{error, message}` answers and transport failures turned into [`ClientError`]s.

use std::collections::VecDeque;
use std::time::Duration;

use reqwest::{RequestBuilder, Response, Url};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::ClientError;
use super::sse::{SseEvent, SseParser};

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a plain request may take (the server bounds its own at 30 s).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a stream may stay silent (the server sends a keep-alive every 15 s).
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// An authenticated client of one Weft server.
#[derive(Debug)]
pub(crate) struct Client {
    http: reqwest::Client,
    base: Url,
    token: String,
    /// Where a token can be kept, for the 401 message.
    token_hint: String,
}

impl Client {
    /// A client of the server at `base` with a bearer token.
    pub(crate) fn new(base: Url, token: String, token_hint: String) -> Result<Self, ClientError> {
        // The ring provider is the workspace's one crypto backend; installing it twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(READ_TIMEOUT)
            .user_agent(concat!("weft/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ClientError::Transport {
                server: base.to_string(),
                reason: root_cause(&e),
            })?;
        Ok(Client {
            http,
            base,
            token,
            token_hint,
        })
    }

    /// The server's base URL.
    pub(crate) fn server(&self) -> &Url {
        &self.base
    }

    /// The URL of an API path, each segment percent-encoded, with a query.
    pub(crate) fn url(&self, segments: &[&str], query: &[(&str, &str)]) -> Url {
        endpoint(&self.base, segments, query)
    }

    /// GETs a JSON answer.
    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        segments: &[&str],
        query: &[(&str, &str)],
    ) -> Result<T, ClientError> {
        let url = self.url(segments, query);
        let request = self.http.get(url.clone()).timeout(REQUEST_TIMEOUT);
        let response = self.send(request).await?;
        decode(response, format!("GET {}", url.path())).await
    }

    /// POSTs a JSON body and reads a JSON answer.
    pub(crate) async fn post<T: DeserializeOwned>(
        &self,
        segments: &[&str],
        body: &serde_json::Value,
    ) -> Result<T, ClientError> {
        self.send_json(reqwest::Method::POST, segments, body).await
    }

    /// PUTs a JSON body and reads a JSON answer.
    pub(crate) async fn put<T: DeserializeOwned>(
        &self,
        segments: &[&str],
        body: &serde_json::Value,
    ) -> Result<T, ClientError> {
        self.send_json(reqwest::Method::PUT, segments, body).await
    }

    /// Sends a JSON body with `method` and reads a JSON answer.
    async fn send_json<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        segments: &[&str],
        body: &serde_json::Value,
    ) -> Result<T, ClientError> {
        let url = self.url(segments, &[]);
        let what = format!("{method} {}", url.path());
        let request = self
            .http
            .request(method, url)
            .json(body)
            .timeout(REQUEST_TIMEOUT);
        let response = self.send(request).await?;
        decode(response, what).await
    }

    /// DELETEs a resource with a query; the answer's JSON, `null` when it has no body (204).
    pub(crate) async fn delete_with(
        &self,
        segments: &[&str],
        query: &[(&str, &str)],
    ) -> Result<serde_json::Value, ClientError> {
        let url = self.url(segments, query);
        let request = self.http.delete(url.clone()).timeout(REQUEST_TIMEOUT);
        let response = self.send(request).await?;
        if response.status() == reqwest::StatusCode::NO_CONTENT {
            return Ok(serde_json::Value::Null);
        }
        decode(response, format!("DELETE {}", url.path())).await
    }

    /// Opens a server-sent event stream.
    pub(crate) async fn events(
        &self,
        segments: &[&str],
        query: &[(&str, &str)],
    ) -> Result<EventStream, ClientError> {
        let request = self
            .http
            .get(self.url(segments, query))
            .header(reqwest::header::ACCEPT, "text/event-stream");
        let response = self.send(request).await?;
        Ok(EventStream {
            response,
            parser: SseParser::default(),
            pending: VecDeque::new(),
            server: self.base.to_string(),
        })
    }

    async fn send(&self, request: RequestBuilder) -> Result<Response, ClientError> {
        let response = request
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(|e| transport_error(self.base.as_str(), &e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let body = response.text().await.unwrap_or_default();
        Err(api_error(status.as_u16(), &body, &self.token_hint))
    }
}

/// A followed stream of server-sent events.
#[derive(Debug)]
pub(crate) struct EventStream {
    response: Response,
    parser: SseParser,
    pending: VecDeque<SseEvent>,
    server: String,
}

impl EventStream {
    /// The next event; `None` when the server ended the stream.
    pub(crate) async fn next(&mut self) -> Result<Option<SseEvent>, ClientError> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(Some(event));
            }
            match self.response.chunk().await {
                Ok(Some(bytes)) => self.pending.extend(self.parser.feed(&bytes)),
                Ok(None) => return Ok(None),
                Err(e) => return Err(transport_error(&self.server, &e)),
            }
        }
    }
}

/// `base` with `segments` appended (percent-encoded) and a query.
pub(crate) fn endpoint(base: &Url, segments: &[&str], query: &[(&str, &str)]) -> Url {
    let mut url = base.clone();
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty().extend(segments);
    }
    if !query.is_empty() {
        url.query_pairs_mut().extend_pairs(query);
    }
    url
}

async fn decode<T: DeserializeOwned>(response: Response, what: String) -> Result<T, ClientError> {
    let bytes = response.bytes().await.map_err(|e| ClientError::Decode {
        what: what.clone(),
        reason: root_cause(&e),
    })?;
    serde_json::from_slice(&bytes).map_err(|e| ClientError::Decode {
        what,
        reason: e.to_string(),
    })
}

/// The API's error body.
#[derive(Debug, Deserialize)]
struct ErrorBody {
    error: String,
    message: String,
}

/// The error for a non-success answer: the API's `{error, message}`, or the status and the start of the body.
pub(crate) fn api_error(status: u16, body: &str, token_hint: &str) -> ClientError {
    let (code, message) = match serde_json::from_str::<ErrorBody>(body) {
        Ok(body) => (body.error, body.message),
        Err(_) => {
            let reason = reqwest::StatusCode::from_u16(status)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("error");
            let text: String = body.trim().chars().take(200).collect();
            let message = if text.is_empty() {
                format!("the server answered {status} {reason}")
            } else {
                format!("the server answered {status} {reason}: {text}")
            };
            ("http".to_string(), message)
        }
    };
    if status == 401 {
        return ClientError::Unauthorized {
            message,
            token_file: token_hint.to_string(),
        };
    }
    ClientError::Api {
        status,
        code,
        message,
    }
}

fn transport_error(server: &str, error: &reqwest::Error) -> ClientError {
    let server = server.trim_end_matches('/').to_string();
    let reason = if error.is_timeout() {
        "timed out".to_string()
    } else {
        root_cause(error)
    };
    if error.is_connect() {
        ClientError::Connect { server, reason }
    } else {
        ClientError::Transport { server, reason }
    }
}

/// The innermost cause of an error, which is the one that says what happened (`connection refused`).
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    match cause.downcast_ref::<std::io::Error>().map(|e| e.kind()) {
        Some(std::io::ErrorKind::ConnectionRefused) => "connection refused".to_string(),
        _ => cause.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_encode_segments_and_keep_a_base_path() {
        let base = Url::parse("http://127.0.0.1:7780").unwrap();
        assert_eq!(
            endpoint(&base, &["v1", "deploy", "a b/c", "sync"], &[]).as_str(),
            "http://127.0.0.1:7780/v1/deploy/a%20b%2Fc/sync"
        );
        let prefixed = Url::parse("https://host/weft/").unwrap();
        assert_eq!(
            endpoint(
                &prefixed,
                &["v1", "deploy", "applications"],
                &[("after", "x&y")]
            )
            .as_str(),
            "https://host/weft/v1/deploy/applications?after=x%26y"
        );
    }

    #[test]
    fn api_errors_carry_the_message_and_401_says_how_to_get_a_token() {
        let body = r#"{"error":"not_found","message":"no app \"nope\""}"#;
        match api_error(404, body, "~/.config/weft/token") {
            ClientError::Api {
                status,
                code,
                message,
            } => {
                assert_eq!((status, code.as_str()), (404, "not_found"));
                assert_eq!(message, "no app \"nope\"");
            }
            other => panic!("{other:?}"),
        }
        let unauthorized = api_error(
            401,
            r#"{"error":"unauthorized","message":"a valid bearer token is required"}"#,
            "~/.config/weft/token",
        );
        let text = unauthorized.to_string();
        assert!(text.contains("weft token create"), "{text}");
        assert!(text.contains("a valid bearer token is required"), "{text}");
        assert_eq!(unauthorized.status(), Some(401));
    }

    #[test]
    fn a_body_that_is_not_the_api_s_still_makes_a_message() {
        let error = api_error(502, "<html>bad gateway</html>", "");
        assert_eq!(
            error.to_string(),
            "the server answered 502 Bad Gateway: <html>bad gateway</html>"
        );
        assert_eq!(
            api_error(503, "", "").to_string(),
            "the server answered 503 Service Unavailable"
        );
    }
}
