//! The headers every console answer carries: a Content-Security-Policy that allows only the console's own script and
//! style (no inline code), no framing, no sniffing, no referrer to other sites (a console URL never holds a secret, but names apps), and no caching of pages that show a user's data.

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::middleware::Next;
use axum::response::Response;

/// The console's Content-Security-Policy.
pub const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Adds the security headers (and `Cache-Control: no-store` to anything but the static assets, which set their own).
pub async fn headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    headers.insert(
        "permissions-policy",
        HeaderValue::from_static("camera=(), microphone=(), geolocation=()"),
    );
    headers.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    if !headers.contains_key(CACHE_CONTROL) {
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// Whether a request came from a page of this site: `Sec-Fetch-Site` is `same-origin` when the browser sends it;
/// otherwise `Origin` (when sent) names the host the request was made to. A browser sends at least one of
/// them with every POST; a request with neither is not from a browser page, and the CSRF token still guards it.
pub fn same_origin(headers: &axum::http::HeaderMap) -> bool {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    // The browser's own word, which no page can forge, decides when it is given.
    if let Some(site) = text("sec-fetch-site") {
        return site == "same-origin";
    }
    match (text("origin"), text("host")) {
        (Some(origin), Some(host)) => origin
            .split_once("://")
            .is_some_and(|(_, authority)| authority == host),
        (Some(_), None) => false,
        (None, _) => true,
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderMap;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_static(v));
        }
        map
    }

    #[test]
    fn a_post_from_another_site_is_refused_and_one_from_this_site_passes() {
        assert!(same_origin(&headers(&[
            ("host", "weft.example:8080"),
            ("origin", "https://weft.example:8080"),
            ("sec-fetch-site", "same-origin"),
        ])));
        assert!(!same_origin(&headers(&[
            ("host", "weft.example:8080"),
            ("origin", "https://evil.example"),
        ])));
        assert!(!same_origin(&headers(&[
            ("host", "weft.example"),
            ("sec-fetch-site", "cross-site"),
        ])));
        assert!(!same_origin(&headers(&[
            ("host", "weft.example"),
            ("origin", "null")
        ])));
        assert!(same_origin(&headers(&[("host", "weft.example")])));
    }
}
