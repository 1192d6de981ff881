//! The console's only way to the server: requests to the API router, made in-process with the signed-in user's
//! credential as a bearer token, so that every page and action passes the API's own identity, scope and role checks.

use std::net::SocketAddr;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, StatusCode, header};
use bytes::Bytes;
use http_body_util::BodyExt as _;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tower::ServiceExt as _;

/// The most bytes of one API answer the console reads (the largest is a fleet page of 1,000 rows).
const ANSWER_LIMIT: usize = 16 * 1024 * 1024;

/// What went wrong asking the API.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ApiFailure {
    /// The API's status (a 502 when its answer could not be read).
    pub status: StatusCode,
    /// The API's error code (`not_found`, `forbidden`...).
    pub code: String,
    /// What it said.
    pub message: String,
}

impl ApiFailure {
    /// A failure of the console itself reading or understanding an answer.
    fn unreadable(what: impl std::fmt::Display) -> Self {
        ApiFailure {
            status: StatusCode::BAD_GATEWAY,
            code: "internal".into(),
            message: format!("the server's answer could not be read: {what}"),
        }
    }

    /// The API's error answer (`{"error", "message"}`), with its status.
    fn answered(status: StatusCode, body: &[u8]) -> Self {
        let error: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
        ApiFailure {
            status,
            code: error["error"].as_str().unwrap_or("error").to_string(),
            message: error["message"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_string()),
        }
    }

    /// Whether the API said the credential is no good (expired, revoked).
    pub fn is_unauthorized(&self) -> bool {
        self.status == StatusCode::UNAUTHORIZED
    }
}

/// The API router, and the address of the browser whose request this is (the API limits failed sign-ins per
/// client address).
#[derive(Clone)]
pub struct ApiClient {
    api: Router,
}

impl std::fmt::Debug for ApiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiClient").finish_non_exhaustive()
    }
}

/// Who a request is made as: the credential and the browser's address.
#[derive(Debug, Clone, Copy)]
pub struct Asker<'a> {
    /// The bearer token (a Weft token or an OIDC ID token).
    pub credential: &'a str,
    /// The browser's address, when known.
    pub client: Option<SocketAddr>,
}

impl ApiClient {
    /// A client of `api`.
    pub fn new(api: Router) -> Self {
        ApiClient { api }
    }

    /// `method path` with an optional JSON body: the answer's body when the status is a success.
    pub async fn call(
        &self,
        asker: Asker<'_>,
        method: Method,
        path: &str,
        body: Option<&impl Serialize>,
    ) -> Result<Bytes, ApiFailure> {
        let response = self.send(asker, method, path, body).await?;
        let status = response.status();
        let bytes = read_body(response).await?;
        if status.is_success() {
            Ok(bytes)
        } else {
            Err(ApiFailure::answered(status, &bytes))
        }
    }

    /// `GET path`, read as `T`.
    pub async fn get<T: DeserializeOwned>(
        &self,
        asker: Asker<'_>,
        path: &str,
    ) -> Result<T, ApiFailure> {
        let body = self.call(asker, Method::GET, path, None::<&()>).await?;
        serde_json::from_slice(&body).map_err(ApiFailure::unreadable)
    }

    /// `POST path` with a JSON body, the answer read as `T`.
    pub async fn post<T: DeserializeOwned>(
        &self,
        asker: Asker<'_>,
        path: &str,
        body: &impl Serialize,
    ) -> Result<T, ApiFailure> {
        let body = self.call(asker, Method::POST, path, Some(body)).await?;
        serde_json::from_slice(&body).map_err(ApiFailure::unreadable)
    }

    /// `GET path` for a stream (server-sent events): the answer's body as it comes, when the status is a success.
    pub async fn stream(&self, asker: Asker<'_>, path: &str) -> Result<Body, ApiFailure> {
        let response = self.send(asker, Method::GET, path, None::<&()>).await?;
        let status = response.status();
        if status.is_success() {
            return Ok(response.into_body());
        }
        Err(ApiFailure::answered(status, &read_body(response).await?))
    }

    async fn send(
        &self,
        asker: Asker<'_>,
        method: Method,
        path: &str,
        body: Option<&impl Serialize>,
    ) -> Result<axum::response::Response, ApiFailure> {
        let mut request = Request::builder().method(method).uri(path).header(
            header::AUTHORIZATION,
            format!("Bearer {}", asker.credential),
        );
        let body = match body {
            Some(body) => {
                request = request.header(header::CONTENT_TYPE, "application/json");
                Body::from(serde_json::to_vec(body).map_err(ApiFailure::unreadable)?)
            }
            None => Body::empty(),
        };
        let mut request = request.body(body).map_err(ApiFailure::unreadable)?;
        if let Some(client) = asker.client {
            request.extensions_mut().insert(ConnectInfo(client));
        }
        self.api
            .clone()
            .oneshot(request)
            .await
            .map_err(|never| match never {})
    }
}

/// An answer's body, at most [`ANSWER_LIMIT`] bytes of it.
async fn read_body(response: axum::response::Response) -> Result<Bytes, ApiFailure> {
    Ok(
        http_body_util::Limited::new(response.into_body(), ANSWER_LIMIT)
            .collect()
            .await
            .map_err(ApiFailure::unreadable)?
            .to_bytes(),
    )
}

/// A path segment, percent-encoded (app names and object refs go into API paths through this).
pub fn segment(text: &str) -> String {
    // A segment of dots alone would read as a step up the path.
    if !text.is_empty() && text.bytes().all(|b| b == b'.') {
        return "%2E".repeat(text.len());
    }
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_keeps_unreserved_characters_and_encodes_the_rest() {
        assert_eq!(segment("shop-api_1.v~2"), "shop-api_1.v~2");
        assert_eq!(
            segment("apps:Deployment:ns:web"),
            "apps%3ADeployment%3Ans%3Aweb"
        );
        assert_eq!(segment("../x y/?#"), "..%2Fx%20y%2F%3F%23");
        assert_eq!(segment(".."), "%2E%2E");
    }
}
