//! The console's stylesheet and script, compiled into the binary and served with a long cache lifetime: pages name
//! them with a digest of their content, so a new build is never served a stale copy.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::StatusCode;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use sha2::{Digest as _, Sha256};
use weft_core::short::short_id;

/// The stylesheet.
const CSS: &str = include_str!("../assets/console.css");
/// The script.
const JS: &str = include_str!("../assets/console.js");
/// The icon.
const ICON: &str = include_str!("../assets/icon.svg");

/// The first 12 hex digits of the SHA-256 of `text` (shortened as every id: [`short_id`]).
fn short_digest(text: &str) -> String {
    let hex: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    short_id(&hex).to_string()
}

/// The stylesheet's path, with its digest.
pub static CSS_PATH: LazyLock<String> =
    LazyLock::new(|| format!("/ui/console-{}.css", short_digest(CSS)));
/// The script's path, with its digest.
pub static JS_PATH: LazyLock<String> =
    LazyLock::new(|| format!("/ui/console-{}.js", short_digest(JS)));
/// The icon's path.
pub const ICON_PATH: &str = "/ui/icon.svg";

/// `GET /ui/{asset}`.
pub async fn serve(Path(asset): Path<String>) -> Response {
    let path = format!("/ui/{asset}");
    let (body, kind) = if path == *CSS_PATH {
        (CSS, "text/css; charset=utf-8")
    } else if path == *JS_PATH {
        (JS, "text/javascript; charset=utf-8")
    } else if path == ICON_PATH {
        (ICON, "image/svg+xml")
    } else {
        return (StatusCode::NOT_FOUND, "no such asset").into_response();
    };
    (
        [
            (CONTENT_TYPE, kind),
            (CACHE_CONTROL, "public, max-age=31536000, immutable"),
        ],
        body,
    )
        .into_response()
}
