//! The console's speed: against a stand-in API holding N apps (1,000 and 10,000 by default) and an app of 200
//! objects, how long the fleet page and the app page take to render on the server and how many bytes a first visit
//! transfers (page, stylesheet, script, icon); then, when chromium and chromedriver are installed, the same pages in
//! a real browser: first contentful paint, the load event, and the bytes transferred, as the browser reports them.
//!
//! `cargo bench -p weft-console --bench pages [-- N...]`. Targets (issue 22): the fleet's first paint under 1 s and
//! under 300 KB for 1,000 apps; the tree of a 200-object app laid out under 200 ms in the browser.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query};
use axum::http::{Request, StatusCode, header};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;
use weft_console::ConsoleConfig;

const TOKEN: &str = "bench-admin-token";

fn apps(n: usize) -> Arc<Vec<Value>> {
    let healths = ["healthy", "healthy", "healthy", "progressing", "degraded"];
    Arc::new(
        (0..n)
            .map(|i| {
                let env = ["main", "test", "dev"][i % 3];
                let health = healths[i % healths.len()];
                json!({
                    "name": format!("app-{i:05}"), "namespace": format!("ns-{i}"), "org": format!("org-{}", i % 20),
                    "env": env, "role": "web", "repository": "https://git.example/fleet.git",
                    "version": "1.4.2", "runningVersion": if i % 7 == 0 { "1.4.1" } else { "1.4.2" },
                    "health": health, "healthMessage": "Deployment ns/web: 2 of 2 updated replicas are available",
                    "sync": if i % 11 == 0 { "out-of-sync" } else { "synced" }, "phase": "succeeded",
                    "endpoints": [format!("http://app-{i}.example")],
                })
            })
            .collect(),
    )
}

/// 20 Deployments, each with 2 ReplicaSets of 3 Pods, and 20 Services: 200 nodes.
fn tree() -> Value {
    let mut nodes = Vec::new();
    let node = |kind: &str, group: &str, name: String, parents: Vec<String>| {
        let reference = format!("{group}:{kind}:shop:{name}");
        json!({"group": group, "version": "v1", "kind": kind, "namespace": "shop", "name": name, "ref": reference,
               "health": "healthy", "sync": if parents.is_empty() { json!("synced") } else { Value::Null },
               "imageVersion": if kind == "Service" { Value::Null } else { json!("1.4.2") }, "parentRefs": parents})
    };
    for d in 0..20 {
        let deploy = format!("web-{d}");
        nodes.push(node("Deployment", "apps", deploy.clone(), vec![]));
        nodes.push(node("Service", "", format!("web-{d}"), vec![]));
        for r in 0..2 {
            let rs = format!("web-{d}-rs{r}");
            nodes.push(node(
                "ReplicaSet",
                "apps",
                rs.clone(),
                vec![format!("apps:Deployment:shop:{deploy}")],
            ));
            for p in 0..3 {
                nodes.push(node(
                    "Pod",
                    "",
                    format!("{rs}-pod{p}"),
                    vec![format!("apps:ReplicaSet:shop:{rs}")],
                ));
            }
        }
    }
    Value::Array(nodes)
}

fn authorized(request: &Request<Body>) -> bool {
    request
        .headers()
        .get(header::AUTHORIZATION)
        .is_some_and(|v| v == format!("Bearer {TOKEN}").as_str())
}

/// The stand-in API: the fleet paged by name as the real one pages it, one app's plane entry and a 200-node tree.
fn api(apps: Arc<Vec<Value>>) -> Router {
    let list = {
        let apps = apps.clone();
        move |Query(q): Query<std::collections::HashMap<String, String>>, request: Request<Body>| {
            let apps = apps.clone();
            async move {
                if !authorized(&request) {
                    return StatusCode::UNAUTHORIZED.into_response();
                }
                let limit: usize = q.get("limit").and_then(|l| l.parse().ok()).unwrap_or(1000);
                let start = match q.get("after") {
                    Some(after) => {
                        apps.partition_point(|a| a["name"].as_str().unwrap_or("") <= after.as_str())
                    }
                    None => 0,
                };
                let end = (start + limit).min(apps.len());
                let items = &apps[start..end];
                let next = (end < apps.len()).then(|| items.last().map(|a| a["name"].clone()));
                Json(json!({"items": items, "next": next.flatten()})).into_response()
            }
        }
    };
    let summary = {
        let apps = apps.clone();
        move || {
            let n = apps.len();
            async move {
                Json(
                    json!({"apps": n, "health": {"healthy": n * 3 / 5, "progressing": n / 5, "degraded": n / 5},
                            "sync": {"synced": n - n / 11, "out-of-sync": n / 11},
                            "orgs": (0..20).map(|o| format!("org-{o}")).collect::<Vec<_>>(), "envs": ["main", "test", "dev"]}),
                )
            }
        }
    };
    let tree = tree();
    Router::new()
        .route(
            "/v1/whoami",
            get(|request: Request<Body>| async move {
                if authorized(&request) {
                    Json(json!({"subject": "bench", "admin": true})).into_response()
                } else {
                    StatusCode::UNAUTHORIZED.into_response()
                }
            }),
        )
        .route("/v1/deploy/applications", get(list))
        .route("/v1/deploy/summary", get(summary))
        .route(
            "/v1/deploy/gitops/{name}",
            get(|Path(name): Path<String>| async move {
                Json(json!({"name": name, "namespace": "shop", "project": "org-1", "repoURL": "https://git.example/fleet.git",
                            "path": "apps/shop", "targetRevision": "main", "revision": "0123456789abcdef0123456789abcdef01234567",
                            "sync": "synced", "health": "healthy", "automated": true, "selfHeal": true, "resources": 40,
                            "history": (1..=10).map(|i| json!({"id": i, "revision": format!("{i:040}"), "version": "1.4.2"})).collect::<Vec<_>>()}))
            }),
        )
        .route("/v1/deploy/{name}/tree", get(move || { let tree = tree.clone(); async move { Json(tree) } }))
        .route("/v1/deploy/{name}/operations", get(|| async { Json(json!([])) }))
}

async fn send(router: &Router, request: Request<Body>) -> (Response, Vec<u8>) {
    let response = router.clone().oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes().to_vec();
    (Response::from_parts(parts, Body::empty()), bytes)
}

/// Signs in: the session cookie.
async fn sign_in(console: &Router) -> String {
    let request = Request::post("/sign-in")
        .header("host", "bench")
        .header("sec-fetch-site", "same-origin")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(format!("token={TOKEN}&next=/apps")))
        .unwrap();
    let (response, _) = send(console, request).await;
    response.headers()[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string()
}

/// Renders `path` `runs` times: the median and 99th percentile times, and the page's bytes.
async fn time_page(
    console: &Router,
    cookie: &str,
    path: &str,
    runs: usize,
) -> (Duration, Duration, usize) {
    let mut times = Vec::with_capacity(runs);
    let mut size = 0;
    for _ in 0..runs {
        let request = Request::get(path)
            .header(header::COOKIE, cookie)
            .body(Body::empty())
            .unwrap();
        let started = Instant::now();
        let (response, body) = send(console, request).await;
        times.push(started.elapsed());
        assert_eq!(
            response.status(),
            StatusCode::OK,
            "{path}: {}",
            String::from_utf8_lossy(&body)
        );
        size = body.len();
    }
    times.sort();
    (
        times[runs / 2],
        times[(runs * 99 / 100).min(runs - 1)],
        size,
    )
}

/// The bytes of the page's stylesheet, script and icon (what a first visit fetches besides the page).
async fn asset_bytes(console: &Router, cookie: &str, page: &str) -> usize {
    let mut total = 0;
    for link in page.split(['"']).filter(|s| s.starts_with("/ui/")) {
        let request = Request::get(link)
            .header(header::COOKIE, cookie)
            .body(Body::empty())
            .unwrap();
        let (_, body) = send(console, request).await;
        total += body.len();
    }
    total
}

#[tokio::main]
async fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1000, 10_000]
    } else {
        sizes
    };
    for n in sizes {
        let console = weft_console::router(api(apps(n)), ConsoleConfig::default());
        let cookie = sign_in(&console).await;
        println!("console with {n} apps (a stand-in API; the server's own time):");
        let (p50, p99, bytes) = time_page(&console, &cookie, "/apps", 200).await;
        let page = {
            let request = Request::get("/apps")
                .header(header::COOKIE, &cookie)
                .body(Body::empty())
                .unwrap();
            String::from_utf8(send(&console, request).await.1).unwrap()
        };
        let assets = asset_bytes(&console, &cookie, &page).await;
        println!(
            "  fleet page (50 rows): p50 {p50:?}, p99 {p99:?}; {} KB, {} KB with stylesheet, script and icon",
            bytes / 1024,
            (bytes + assets) / 1024
        );
        let (p50, p99, _) = time_page(&console, &cookie, "/apps?size=200", 100).await;
        println!("  fleet page (200 rows): p50 {p50:?}, p99 {p99:?}");
        let (p50, p99, _) = time_page(&console, &cookie, "/apps?sort=health", 20).await;
        println!("  fleet page sorted by health (reads all {n} rows): p50 {p50:?}, p99 {p99:?}");
        let (p50, p99, bytes) = time_page(&console, &cookie, "/apps/app-00001", 100).await;
        println!(
            "  an app of 200 objects (tree laid out on the server): p50 {p50:?}, p99 {p99:?}; {} KB",
            bytes / 1024
        );
        if n == 1000 {
            browser(console.clone()).await;
        }
    }
}

/// The fleet and the 200-object app in chromium, when it is installed: the browser's own figures.
async fn browser(console: Router) {
    let (Ok(_), Ok(_)) = (
        std::fs::metadata("/usr/bin/chromium"),
        std::fs::metadata("/usr/bin/chromedriver"),
    ) else {
        println!("  in a browser: skipped (chromium and chromedriver are not installed)");
        return;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, console).await });
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut driver = std::process::Command::new("/usr/bin/chromedriver")
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let profile = tempfile::tempdir().unwrap();
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({"binary": "/usr/bin/chromium", "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
               "--disable-gpu", "--window-size=1400,1000", format!("--user-data-dir={}", profile.path().display())]}),
    );
    let client =
        fantoccini::ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .unwrap();
    client.goto(&format!("{base}/sign-in")).await.unwrap();
    client
        .find(fantoccini::Locator::Css("#token"))
        .await
        .unwrap()
        .send_keys(TOKEN)
        .await
        .unwrap();
    client
        .find(fantoccini::Locator::Css("form[action='/sign-in'] button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // Waits (up to 5 s) for the paint entry, which may be recorded after the script first looks.
    const FIGURES: &str = "var done = arguments[arguments.length - 1]; var started = Date.now();\
        (function look() {\
          var n = performance.getEntriesByType('navigation')[0];\
          var fcp = performance.getEntriesByName('first-contentful-paint')[0];\
          if ((!fcp || !n || n.loadEventEnd === 0) && Date.now() - started < 5000) { return setTimeout(look, 20); }\
          var bytes = n.transferSize + performance.getEntriesByType('resource').reduce(function (s, r) { return s + r.transferSize; }, 0);\
          done([fcp ? fcp.startTime : -1, n.loadEventEnd, bytes]);\
        })();";
    for (what, path) in [
        ("fleet page (1,000 apps, 50 rows)", "/apps"),
        ("app of 200 objects", "/apps/app-00001"),
    ] {
        let mut samples = Vec::new();
        for run in 0..6 {
            // A fresh cache each time: the first visit's transfer.
            if run == 0 {
                client.goto("about:blank").await.unwrap();
            }
            client.goto(&format!("{base}{path}")).await.unwrap();
            let figures = client.execute_async(FIGURES, vec![]).await.unwrap();
            samples.push(figures);
        }
        let first = &samples[0];
        let mut paints: Vec<f64> = samples.iter().filter_map(|s| s[0].as_f64()).collect();
        paints.sort_by(f64::total_cmp);
        let mut loads: Vec<f64> = samples.iter().filter_map(|s| s[1].as_f64()).collect();
        loads.sort_by(f64::total_cmp);
        println!(
            "  in chromium, {what}: first contentful paint median {:.0} ms (first of six visits {:.0} ms), load event median {:.0} ms; the page transferred {} KB (stylesheet and script cached from sign-in)",
            paints[paints.len() / 2],
            first[0].as_f64().unwrap_or(-1.0),
            loads[loads.len() / 2],
            first[2].as_f64().unwrap_or(0.0) as u64 / 1024
        );
    }
    let _ = client.close().await;
    let _ = driver.kill();
    let _ = driver.wait();
}
