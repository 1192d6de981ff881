//! API errors: a status and a JSON body with a stable code and a message.

use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::shapes::ErrorBody;

/// An error answer.
#[derive(Debug, Clone)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    retry_after: Option<Duration>,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    /// The message the caller reads.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// 401: no principal.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }

    /// 403: the principal may not do this.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 400.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// A JSON body the extractor refused: 413 when it is over the size limit, 415 without a JSON content type,
    /// 400 otherwise, each with the extractor's reason.
    pub fn from_json_rejection(rejection: &axum::extract::rejection::JsonRejection) -> Self {
        match rejection.status() {
            StatusCode::PAYLOAD_TOO_LARGE => Self::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                rejection.body_text(),
            ),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => Self::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                rejection.body_text(),
            ),
            _ => Self::bad_request(rejection.body_text()),
        }
    }

    /// An error of any status, with the code that names it (what a plain-text error of a layer or an extractor
    /// becomes, so every error has the JSON shape).
    pub fn from_status(status: StatusCode, message: impl Into<String>) -> Self {
        let code = match status {
            StatusCode::BAD_REQUEST => "bad_request",
            StatusCode::UNAUTHORIZED => "unauthorized",
            StatusCode::FORBIDDEN => "forbidden",
            StatusCode::NOT_FOUND => "not_found",
            StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
            StatusCode::REQUEST_TIMEOUT => "timeout",
            StatusCode::CONFLICT => "conflict",
            StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
            StatusCode::UNPROCESSABLE_ENTITY => "unprocessable",
            StatusCode::TOO_MANY_REQUESTS => "rate_limited",
            StatusCode::SERVICE_UNAVAILABLE => "unavailable",
            StatusCode::INTERNAL_SERVER_ERROR => "internal",
            _ if status.is_client_error() => "bad_request",
            _ => "error",
        };
        Self::new(status, code, message)
    }

    /// 409.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "conflict", message)
    }

    /// 429, with when to retry.
    pub fn rate_limited(retry_after: Duration) -> Self {
        let mut error = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!(
                "too many requests; retry in {} s",
                retry_after.as_secs().max(1)
            ),
        );
        error.retry_after = Some(retry_after);
        error
    }

    /// 429 for a bound other than the request rate (too many open streams), saying which, with when to retry.
    pub fn too_many(message: impl Into<String>, retry_after: Duration) -> Self {
        let mut error = Self::new(StatusCode::TOO_MANY_REQUESTS, "too_many_streams", message);
        error.retry_after = Some(retry_after);
        error
    }

    /// 503.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message)
    }

    /// A store failure while `context`: 503 with the reason when the database is away or locked (the caller may
    /// retry; nothing was done), else 500.
    pub fn store(context: &str, error: weft_store::StoreError) -> Self {
        if error.is_unavailable() {
            tracing::warn!("{context}: {error}");
            let mut answer = Self::unavailable(format!(
                "the store is unavailable ({context}): {error}; nothing was changed, retry in a moment"
            ));
            answer.retry_after = Some(Duration::from_secs(1));
            return answer;
        }
        Self::internal(context, error)
    }

    /// 500; the details go to the log, not to the caller.
    pub fn internal(context: &str, error: impl std::fmt::Display) -> Self {
        tracing::error!("{context}: {error}");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("{context} failed; see the server's log"),
        )
    }

    /// The status.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            Json(ErrorBody {
                error: self.code.to_string(),
                message: self.message,
            }),
        )
            .into_response();
        if let Some(after) = self.retry_after
            && let Ok(value) = HeaderValue::from_str(&after.as_secs().max(1).to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}
