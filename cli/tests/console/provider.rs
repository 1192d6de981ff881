//! A small OpenID provider for the console's sign-in test: discovery, an authorization page with an "approve"
//! button, and a token endpoint that checks the PKCE verifier against the challenge (S256), the client and the
//! redirect URI before it signs an ID token (RS256, the engine's test key `r1`) carrying the nonce it was given.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

/// The client the console is registered as.
pub const CLIENT_ID: &str = "weft-console";

/// A code handed out, waiting to be exchanged.
struct Grant {
    challenge: String,
    nonce: String,
    redirect_uri: String,
}

#[derive(Clone)]
struct Provider {
    issuer: String,
    key: Arc<jsonwebtoken::EncodingKey>,
    grants: Arc<Mutex<HashMap<String, Grant>>>,
    exchanged: Arc<Mutex<u32>>,
}

/// A running provider: its issuer URL and how many codes it exchanged for tokens.
pub struct Running {
    /// `http://127.0.0.1:PORT`.
    pub issuer: String,
    exchanged: Arc<Mutex<u32>>,
}

impl Running {
    /// How many codes were exchanged (with a verifier that matched).
    pub fn exchanged(&self) -> u32 {
        *self.exchanged.lock().unwrap()
    }
}

/// Starts the provider on a free loopback port, signing with the RSA key in `private_pem`.
pub async fn start(
    private_pem: &[u8],
) -> Result<Running, Box<dyn std::error::Error + Send + Sync>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let issuer = format!("http://{}", listener.local_addr()?);
    let provider = Provider {
        issuer: issuer.clone(),
        key: Arc::new(jsonwebtoken::EncodingKey::from_rsa_pem(private_pem)?),
        grants: Arc::default(),
        exchanged: Arc::default(),
    };
    let exchanged = provider.exchanged.clone();
    let app = Router::new()
        .route("/.well-known/openid-configuration", get(discovery))
        .route("/authorize", get(authorize))
        .route("/approve", get(approve))
        .route("/token", post(token))
        .with_state(provider);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(Running { issuer, exchanged })
}

async fn discovery(State(p): State<Provider>) -> Json<Value> {
    Json(json!({
        "issuer": p.issuer,
        "authorization_endpoint": format!("{}/authorize", p.issuer),
        "token_endpoint": format!("{}/token", p.issuer),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
    }))
}

/// The sign-in page: refuses a request that is not a code request with S256 PKCE from the registered client.
async fn authorize(Query(q): Query<HashMap<String, String>>) -> Response {
    let get = |k: &str| q.get(k).map(String::as_str).unwrap_or("");
    if get("response_type") != "code"
        || get("client_id") != CLIENT_ID
        || get("code_challenge_method") != "S256"
        || get("code_challenge").is_empty()
        || get("nonce").is_empty()
        || get("state").is_empty()
        || !get("scope").split(' ').any(|s| s == "openid")
    {
        return (
            axum::http::StatusCode::BAD_REQUEST,
            "not a valid authorization request",
        )
            .into_response();
    }
    let query = serde_urlencoded::to_string(&q).unwrap();
    Html(format!(
        "<!doctype html><html lang=en><title>Test provider</title><main><h1>Test provider</h1>\
         <p>Sign in to Weft as ada?</p><a id=approve href=\"/approve?{}\">Approve</a></main></html>",
        query.replace('&', "&amp;")
    ))
    .into_response()
}

async fn approve(State(p): State<Provider>, Query(q): Query<HashMap<String, String>>) -> Response {
    let code = format!("code-{}", p.grants.lock().unwrap().len() + 1);
    p.grants.lock().unwrap().insert(
        code.clone(),
        Grant {
            challenge: q["code_challenge"].clone(),
            nonce: q["nonce"].clone(),
            redirect_uri: q["redirect_uri"].clone(),
        },
    );
    let back = format!(
        "{}?{}",
        q["redirect_uri"],
        serde_urlencoded::to_string([("code", code.as_str()), ("state", q["state"].as_str())])
            .unwrap()
    );
    Redirect::to(&back).into_response()
}

/// The token endpoint: one exchange per code, with the verifier whose S256 is the code's challenge.
async fn token(State(p): State<Provider>, Form(form): Form<HashMap<String, String>>) -> Response {
    let refuse = |why: &str| {
        (
            axum::http::StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant", "error_description": why})),
        )
            .into_response()
    };
    let get = |k: &str| form.get(k).map(String::as_str).unwrap_or("");
    let Some(grant) = p.grants.lock().unwrap().remove(get("code")) else {
        return refuse("unknown or used code");
    };
    if get("grant_type") != "authorization_code" || get("client_id") != CLIENT_ID {
        return refuse("wrong grant type or client");
    }
    if get("redirect_uri") != grant.redirect_uri {
        return refuse("redirect_uri differs from the authorization request's");
    }
    if URL_SAFE_NO_PAD.encode(Sha256::digest(get("code_verifier").as_bytes())) != grant.challenge {
        return refuse("the PKCE verifier does not match the challenge");
    }
    let now = jiff::Timestamp::now().as_second();
    let claims = json!({
        "iss": p.issuer, "aud": CLIENT_ID, "sub": "ada", "nonce": grant.nonce,
        "iat": now, "exp": now + 3600, "groups": ["weft-admins"], "name": "Ada",
    });
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    header.kid = Some("r1".into());
    let id_token = jsonwebtoken::encode(&header, &claims, &p.key).unwrap();
    *p.exchanged.lock().unwrap() += 1;
    Json(json!({"access_token": "opaque", "token_type": "Bearer", "expires_in": 3600, "id_token": id_token}))
        .into_response()
}
