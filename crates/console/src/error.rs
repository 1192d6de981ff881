//! What a console request can fail with, and the page each failure shows: an app the user may not see is "not
//! found" exactly as the API says, a refused write says which role it needs, an ended session goes back to sign-in.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};

use crate::client::ApiFailure;
use crate::pages::layout;

/// A console request that failed.
#[derive(Debug, thiserror::Error)]
pub enum ConsoleError {
    /// The API refused or failed the request.
    #[error(transparent)]
    Api(#[from] ApiFailure),
    /// No session, or it ended: sign in (and come back to this path).
    #[error("sign in to continue")]
    SignedOut {
        /// Where to come back to.
        next: String,
    },
    /// A write without this session's CSRF token, or from another site.
    #[error("this form is stale or came from another site; reload the page and try again")]
    Forgery,
    /// A form or query the console cannot read.
    #[error("{0}")]
    BadInput(String),
}

impl IntoResponse for ConsoleError {
    fn into_response(self) -> Response {
        match self {
            ConsoleError::SignedOut { next } => {
                Redirect::to(&format!("/sign-in?next={}", crate::client::segment(&next)))
                    .into_response()
            }
            ConsoleError::Api(failure) if failure.is_unauthorized() => {
                Redirect::to("/sign-in?ended=1").into_response()
            }
            ConsoleError::Api(failure) => {
                let (title, advice) = match failure.status {
                    StatusCode::NOT_FOUND => {
                        ("Not found", "It does not exist, or you may not see it.")
                    }
                    StatusCode::FORBIDDEN => ("Not allowed", "This needs the admin role."),
                    StatusCode::CONFLICT => ("Cannot do that now", ""),
                    StatusCode::TOO_MANY_REQUESTS => {
                        ("Too many requests", "Wait a moment and try again.")
                    }
                    s if s.is_server_error() => {
                        ("The server could not answer", "Try again in a moment.")
                    }
                    _ => ("Request refused", ""),
                };
                let status = failure.status;
                (status, layout::error_page(title, &failure.message, advice)).into_response()
            }
            ConsoleError::Forgery => (
                StatusCode::FORBIDDEN,
                layout::error_page("Request refused", &self.to_string(), ""),
            )
                .into_response(),
            ConsoleError::BadInput(message) => (
                StatusCode::BAD_REQUEST,
                layout::error_page("Bad request", &message, ""),
            )
                .into_response(),
        }
    }
}
