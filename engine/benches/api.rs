//! The fleet list under load: `GET /v1/deploy/applications` over a fleet of 1,000 apps, served in-process on a
//! loopback port and driven by `wrk` (2 threads, 64 connections, 10 s), for a page of 100 and for the default page
//! of 1,000. Prints p50/p90/p99 and requests/s, and which tool measured them: where `wrk` is missing, a built-in
//! load generator (tokio + hyper, 64 keep-alive connections on a runtime of its own) measures the same way.
//!
//! Target on a 2-core machine (the load generator shares it): p99 < 20 ms for the full page at 64 connections.
//!
//! The server is assembled from its parts rather than started: the 1,000 apps are in the app directory and their
//! views are filled in as the reconciler publishes them (reconciling 1,000 apps would take minutes and is not what
//! this measures). As in `weft serve`, the store is SQLite on a file and the bearer token is a stored admin token,
//! looked up on every request; the rate limit is raised so that no request is refused.
//!
//! Run: `cargo bench -p weft-engine --bench api` (`WEFT_BENCH_LOADGEN=builtin` uses the built-in generator even
//! where wrk is installed). `cargo test -p weft-engine --bench api` only checks the harness: the wrk report parser,
//! the percentiles, and one request per page answering the right number of apps.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Empty};
use hyper::Request;
use hyper::header::{AUTHORIZATION, HOST};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{RwLock, watch};
use tokio::task::JoinSet;

use weft_app::AppSpec;
use weft_apply::observe::{AppStatus, ResourceStatus};
use weft_apply::operation::{Operation, OperationPhase, Trigger};
use weft_apply::views::AppView;
use weft_auth::{AuthConfig, Authenticator, Principal, RateLimitConfig};
use weft_core::logs::LogStore;
use weft_core::rate_limit::RateLimiter;
use weft_core::resource::ResourceRef;
use weft_engine::api::{self, ApiState};
use weft_engine::deploy::Deployer;
use weft_engine::queue::Queue;
use weft_engine::server::ServerState;
use weft_plugin_host::registry::Registry;
use weft_plugin_host::{HostConfig, PluginHost};
use weft_source::GitSources;
use weft_store::Store;
use weft_sync::status::{AppHealth, HealthCode, SyncCode};

/// Apps in the fleet.
const APPS: usize = 1000;
/// Concurrent connections.
const CONNECTIONS: usize = 64;
/// How long each measurement runs.
const DURATION: Duration = Duration::from_secs(10);
/// The p99 the full page should stay under.
const TARGET_P99: Duration = Duration::from_millis(20);
/// The pages measured: a label, the request path, and how many apps the page holds.
const PAGES: [(&str, &str, usize); 2] = [
    ("page of 100", "/v1/deploy/applications?limit=100", 100),
    ("default page of 1000", "/v1/deploy/applications", 1000),
];

// ---------------------------------------------------------------------------------------------------------------
// The fleet: an API over 1,000 apps with reconciled views.

/// One app of the fleet: a git app of one of ten orgs.
fn app_spec(index: usize) -> anyhow::Result<AppSpec> {
    let env = ["main", "test", "dev"][index % 3];
    let text = format!(
        r#"
name = "app-{index:04}"
org = "org-{org}"
env = "{env}"
role = "{role}"
type = "helm"
namespace = "app-{index:04}"
source = {{ repo = "https://git.example.invalid/org-{org}/app-{index:04}.git", path = "deploy/chart", ref = "main" }}
"#,
        org = index % 10,
        role = ["storefront", "worker", "api", "batch"][index % 4],
    );
    Ok(toml::from_str(&text)?)
}

/// What the reconciler would have published for that app: four objects, mostly healthy and in sync, versions,
/// an endpoint for every third app, and a finished operation.
fn app_view(app: &AppSpec, index: usize) -> AppView {
    let namespace = app.namespace.as_str();
    let degraded = index % 50 == 7;
    let drifted = index % 20 == 3;
    let resources = [
        ("apps", "Deployment", "web"),
        ("", "Service", "web"),
        ("", "ConfigMap", "web-settings"),
        ("networking.k8s.io", "Ingress", "web"),
    ]
    .into_iter()
    .map(|(group, kind, name)| {
        let is_workload = kind == "Deployment";
        ResourceStatus {
            reference: ResourceRef::new(group, kind, namespace, name),
            sync: if drifted && is_workload {
                SyncCode::OutOfSync
            } else {
                SyncCode::Synced
            },
            health: if degraded && is_workload {
                HealthCode::Degraded
            } else {
                HealthCode::Healthy
            },
            health_message: (degraded && is_workload)
                .then(|| "pod web-7d9c-x2 is in CrashLoopBackOff".to_string()),
            requires_pruning: false,
        }
    })
    .collect();
    let health = if degraded {
        AppHealth {
            status: HealthCode::Degraded,
            message: Some(format!(
                "apps/Deployment {namespace}/web: pod web-7d9c-x2 is in CrashLoopBackOff"
            )),
        }
    } else {
        AppHealth {
            status: HealthCode::Healthy,
            message: None,
        }
    };
    let mut operation =
        Operation::start(format!("{}-op-1", app.name), &app.name, Trigger::Automated);
    operation.revision = Some(format!("{index:040x}"));
    operation.finish(
        OperationPhase::Succeeded,
        "successfully synced (all tasks run)",
    );
    AppView {
        revision: Some(format!("{index:040x}")),
        status: Some(AppStatus {
            sync: if drifted {
                SyncCode::OutOfSync
            } else {
                SyncCode::Synced
            },
            health,
            resources,
            declared_version: Some(format!("1.4.{}", index % 10)),
            running_version: Some(format!("1.4.{}", (index + usize::from(drifted)) % 10)),
            image_moves: Vec::new(),
        }),
        reconciled_at: Some(jiff::Timestamp::now()),
        compared_at: None,
        replica: None,
        error: None,
        backoff: None,
        next_attempt_at: None,
        endpoints: if index.is_multiple_of(3) {
            vec![format!("https://{}.apps.example.invalid", app.name)]
        } else {
            Vec::new()
        },
        operation: Some(operation),
        resources: 4,
    }
}

/// The API over a fleet, listening on loopback.
struct Fleet {
    /// Where it listens.
    addr: SocketAddr,
    /// An admin bearer token.
    token: String,
    /// The store's directory.
    _dir: tempfile::TempDir,
    /// The cluster the deployer would talk to (the list never does).
    _simulator: weft_sim::Simulator,
}

impl Fleet {
    /// Assembles the server's parts with `apps` apps and serves the API on a free loopback port.
    async fn start(apps: usize) -> anyhow::Result<Fleet> {
        let dir = tempfile::tempdir()?;
        let store = Store::open(&format!(
            "sqlite://{}",
            dir.path().join("weft.db").display()
        ))
        .await?;
        let simulator = weft_sim::Simulator::new(weft_sim::SimConfig::fast());
        let logs = LogStore::default();
        let deployer = Deployer::for_cluster(
            simulator.client(),
            PluginHost::new(HostConfig::default())?,
            Arc::new(Registry::new()),
            GitSources::new(dir.path().join("git"), 1 << 30),
            None,
            None,
            logs.clone(),
        );
        let mut directory = BTreeMap::new();
        let mut views = BTreeMap::new();
        for index in 0..apps {
            let app = app_spec(index)?;
            views.insert(app.name.clone(), app_view(&app, index));
            directory.insert(app.name.clone(), app);
        }
        let (_, ready) = watch::channel(true);
        let server = ServerState {
            store: store.clone(),
            queue: Queue::new(store.clone()),
            clusters: weft_engine::deploy::Clusters::single(simulator.client(), deployer),
            apps: weft_engine::directory::AppDirectory::new(directory),
            views: Arc::new(RwLock::new(views)),
            recent: Default::default(),
            logs,
            ready,
            api_rules: Arc::new(weft_app::ApiAppRules::default()),
            reconcile_requests: Default::default(),
            applications: tokio::sync::watch::channel(
                weft_engine::applications::PlaneState::Disabled,
            )
            .1,
            sets: Default::default(),
            membership: tokio::sync::watch::channel(weft_engine::replicas::Membership::alone(
                "test",
            ))
            .1,
        };
        let (_, token) =
            weft_auth::create_token(&store, &Principal::admin(""), "api bench").await?;
        let unlimited = RateLimitConfig {
            requests_per_second: u32::MAX,
            burst: u32::MAX,
        };
        let router = api::router(ApiState {
            server,
            auth: Arc::new(Authenticator::new(&AuthConfig::default(), store)?),
            limiter: Arc::new(RateLimiter::new(&unlimited)),
            streams: Arc::new(api::StreamLimits::new(16, 256)),
        });
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let addr = listener.local_addr()?;
        tokio::spawn(async move {
            if let Err(error) = axum::serve(listener, router).await {
                eprintln!("api bench: the server stopped: {error}");
            }
        });
        Ok(Fleet {
            addr,
            token,
            _dir: dir,
            _simulator: simulator,
        })
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Measurements.

/// What one load run measured.
#[derive(Debug, Clone, PartialEq)]
struct LoadReport {
    /// The tool that measured.
    tool: &'static str,
    /// Requests completed.
    requests: u64,
    /// Answers that were not 2xx, and socket errors.
    errors: u64,
    /// Requests per second.
    requests_per_second: f64,
    /// Latency percentiles.
    p50: Duration,
    /// 90th percentile.
    p90: Duration,
    /// 99th percentile.
    p99: Duration,
}

/// A wrk duration (`629.00us`, `0.93ms`, `1.02s`, `1.50m`).
fn parse_wrk_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().ok()?;
    let seconds = match unit {
        "us" => value / 1e6,
        "ms" => value / 1e3,
        "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return None,
    };
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// The figures of a `wrk --latency` report.
fn parse_wrk(output: &str) -> anyhow::Result<LoadReport> {
    let mut percentiles = BTreeMap::new();
    let mut requests = None;
    let mut requests_per_second = None;
    let mut errors = 0u64;
    for line in output.lines().map(str::trim) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.as_slice() {
            [percent, latency] if percent.ends_with('%') => {
                let duration = parse_wrk_duration(latency)
                    .with_context(|| format!("wrk latency {latency:?}"))?;
                percentiles.insert(percent.trim_end_matches('%').to_string(), duration);
            }
            [count, "requests", "in", ..] => requests = Some(count.parse::<u64>()?),
            ["Requests/sec:", rate] => requests_per_second = Some(rate.parse::<f64>()?),
            ["Non-2xx", "or", "3xx", "responses:", count] => errors += count.parse::<u64>()?,
            ["Socket", "errors:", rest @ ..] => {
                // `connect 0, read 0, write 0, timeout 0`
                for pair in rest.chunks(2) {
                    if let [_, count] = pair {
                        errors += count.trim_end_matches(',').parse::<u64>()?;
                    }
                }
            }
            _ => {}
        }
    }
    let percentile = |p: &str| {
        percentiles.get(p).copied().with_context(|| {
            format!("no {p}% line in wrk's latency distribution (was --latency given?)")
        })
    };
    Ok(LoadReport {
        tool: "wrk",
        requests: requests.context("no request count in wrk's report")?,
        errors,
        requests_per_second: requests_per_second.context("no Requests/sec in wrk's report")?,
        p50: percentile("50")?,
        p90: percentile("90")?,
        p99: percentile("99")?,
    })
}

/// The `percent`th percentile (nearest rank) of sorted samples.
fn percentile(sorted: &[Duration], percent: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((percent / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Runs wrk against `url`; `None` when wrk is not installed.
fn run_wrk(url: &str, token: &str) -> anyhow::Result<Option<LoadReport>> {
    let output = Command::new("wrk")
        .args(["-t2", &format!("-c{CONNECTIONS}")])
        .arg(format!("-d{}s", DURATION.as_secs()))
        .arg("--latency")
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .arg(url)
        .output();
    let output = match output {
        Ok(output) => output,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error).context("running wrk"),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    ensure!(
        output.status.success(),
        "wrk failed ({}): {stdout}{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    parse_wrk(&stdout).map(Some)
}

/// One keep-alive HTTP/1.1 connection to the API.
struct Connection {
    sender: hyper::client::conn::http1::SendRequest<Empty<Bytes>>,
    host: String,
    authorization: String,
}

impl Connection {
    async fn open(addr: SocketAddr, token: &str) -> anyhow::Result<Connection> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(connection);
        Ok(Connection {
            sender,
            host: addr.to_string(),
            authorization: format!("Bearer {token}"),
        })
    }

    /// GETs `path`: the status and the whole body.
    async fn get(&mut self, path: &str) -> anyhow::Result<(hyper::StatusCode, Bytes)> {
        self.sender.ready().await?;
        let request = Request::get(path)
            .header(HOST, &self.host)
            .header(AUTHORIZATION, &self.authorization)
            .body(Empty::<Bytes>::new())?;
        let response = self.sender.send_request(request).await?;
        let status = response.status();
        let body = response.into_body().collect().await?.to_bytes();
        Ok((status, body))
    }
}

/// The built-in load generator: `connections` keep-alive connections, each sending requests back to back for
/// `duration`, every latency kept.
async fn builtin_load(
    addr: SocketAddr,
    token: &str,
    path: &str,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<LoadReport> {
    let started = Instant::now();
    let deadline = started + duration;
    let mut tasks = JoinSet::new();
    for _ in 0..connections {
        let (token, path) = (token.to_string(), path.to_string());
        tasks.spawn(async move {
            let mut connection = Connection::open(addr, &token).await?;
            let mut latencies = Vec::new();
            let mut errors = 0u64;
            while Instant::now() < deadline {
                let sent = Instant::now();
                let (status, _) = connection.get(&path).await?;
                latencies.push(sent.elapsed());
                errors += u64::from(!status.is_success());
            }
            anyhow::Ok((latencies, errors))
        });
    }
    let mut latencies = Vec::new();
    let mut errors = 0;
    while let Some(joined) = tasks.join_next().await {
        let (mine, failed) = joined??;
        latencies.extend(mine);
        errors += failed;
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    Ok(LoadReport {
        tool: "built-in (tokio + hyper)",
        requests: latencies.len() as u64,
        errors,
        requests_per_second: latencies.len() as f64 / elapsed,
        p50: percentile(&latencies, 50.0),
        p90: percentile(&latencies, 90.0),
        p99: percentile(&latencies, 99.0),
    })
}

/// Checks that `path` answers 200 with `expected` apps, and returns the body's size.
async fn check_page(fleet: &Fleet, path: &str, expected: usize) -> anyhow::Result<usize> {
    let mut connection = Connection::open(fleet.addr, &fleet.token).await?;
    let (status, body) = connection.get(path).await?;
    ensure!(
        status.is_success(),
        "{path} answered {status}: {}",
        String::from_utf8_lossy(&body)
    );
    let page: serde_json::Value = serde_json::from_slice(&body)?;
    let items = page["items"].as_array().map_or(0, Vec::len);
    ensure!(
        items == expected,
        "{path} answered {items} apps, not {expected}"
    );
    Ok(body.len())
}

// ---------------------------------------------------------------------------------------------------------------
// Harness checks (run in both modes).

const WRK_SAMPLE: &str = "\
Running 1s test @ http://127.0.0.1:44561/v1/whoami
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   564.68us    1.01ms   8.30ms   90.30%
    Req/Sec     7.44k     1.06k    8.45k    63.64%
  Latency Distribution
     50%  218.00us
     75%  331.00us
     90%    1.52ms
     99%    5.24ms
  8129 requests in 1.10s, 1.65MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 17
Requests/sec:   7393.64
Transfer/sec:      1.50MB
";

/// The parsers and percentiles give known answers.
fn check_harness() -> anyhow::Result<()> {
    let report = parse_wrk(WRK_SAMPLE)?;
    let expected = LoadReport {
        tool: "wrk",
        requests: 8129,
        errors: 22,
        requests_per_second: 7393.64,
        p50: Duration::from_micros(218),
        p90: Duration::from_micros(1520),
        p99: Duration::from_micros(5240),
    };
    ensure!(
        report == expected,
        "parsed {report:?}, expected {expected:?}"
    );
    ensure!(parse_wrk_duration("1.50m") == Some(Duration::from_secs(90)));
    ensure!(parse_wrk_duration("2.00s") == Some(Duration::from_secs(2)));
    ensure!(parse_wrk_duration("12parsecs").is_none());
    ensure!(
        parse_wrk("Running 1s test\n").is_err(),
        "a report without figures must not parse"
    );
    let samples: Vec<Duration> = (1..=200).map(Duration::from_millis).collect();
    ensure!(percentile(&samples, 50.0) == Duration::from_millis(100));
    ensure!(percentile(&samples, 99.0) == Duration::from_millis(198));
    ensure!(percentile(&samples, 100.0) == Duration::from_millis(200));
    ensure!(percentile(&[], 99.0) == Duration::ZERO);
    Ok(())
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1e3)
}

fn main() -> anyhow::Result<()> {
    // `cargo bench` passes `--bench`; `cargo test --bench api` does not, and only checks the harness.
    let measuring = std::env::args().any(|arg| arg == "--bench");
    check_harness()?;
    let server = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    // The built-in generator runs on threads of its own, as wrk would.
    let client = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let started = Instant::now();
    let fleet = server.block_on(Fleet::start(APPS))?;
    println!(
        "api bench: {APPS} apps served at http://{} (assembled in {:.1} s)",
        fleet.addr,
        started.elapsed().as_secs_f64()
    );
    let force_builtin = std::env::var("WEFT_BENCH_LOADGEN").is_ok_and(|v| v == "builtin");
    let mut missed = Vec::new();
    for (label, path, expected) in PAGES {
        let bytes = client.block_on(check_page(&fleet, path, expected))?;
        if !measuring {
            println!(
                "api bench: {label}: {expected} apps, {bytes} bytes (harness check only; run `cargo bench` to measure)"
            );
            continue;
        }
        let url = format!("http://{}{path}", fleet.addr);
        let report = if force_builtin {
            None
        } else {
            run_wrk(&url, &fleet.token)?
        };
        let report = match report {
            Some(report) => report,
            None => {
                if !force_builtin {
                    println!(
                        "api bench: wrk is not installed (apt-get install wrk); using the built-in load generator"
                    );
                }
                client.block_on(builtin_load(
                    fleet.addr,
                    &fleet.token,
                    path,
                    CONNECTIONS,
                    DURATION,
                ))?
            }
        };
        println!(
            "api bench: GET {path} ({label}, {bytes} bytes), {CONNECTIONS} connections, {} s, measured by {}:\n    \
             p50 {}  p90 {}  p99 {}  {:.0} requests/s  ({} requests, {} errors)",
            DURATION.as_secs(),
            report.tool,
            ms(report.p50),
            ms(report.p90),
            ms(report.p99),
            report.requests_per_second,
            report.requests,
            report.errors,
        );
        if report.errors > 0 {
            bail!("{} of the requests failed", report.errors);
        }
        if expected == APPS && report.p99 >= TARGET_P99 {
            missed.push(format!(
                "{label}: p99 {} >= {}",
                ms(report.p99),
                ms(TARGET_P99)
            ));
        }
    }
    if measuring {
        if missed.is_empty() {
            println!(
                "api bench: target met (p99 < {} for the full page)",
                ms(TARGET_P99)
            );
        } else {
            println!("api bench: target MISSED: {}", missed.join("; "));
        }
    }
    Ok(())
}
