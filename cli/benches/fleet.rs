//! The fleet benchmark: N apps of 10 objects each (`weft_sim::fleet`: Deployment, Service, three ConfigMaps,
//! ServiceAccount, Role, RoleBinding, Secret, PodDisruptionBudget), automated sync with self-heal, `weft serve`
//! against `weft sim` in a process of its own, so Weft is measured alone. Prints, per N: time until every app is
//! synced and healthy, one no-drift reconcile pass (wall time, full comparisons and the dry runs they cost, CPU
//! seconds), Weft's RSS at start, peak and steady (and per managed object), the fleet page and one app's tree
//! p50/p99 while the pass runs, and shutdown time.
//!
//! `cargo bench -p weft --bench fleet -- 1000 3000 10000` (default: 1000).

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde_json::Value;
use weft_plugin_build as build;

const TOKEN: &str = "weft_bench_admin_token_000000000000000000000000";
/// The reconcile interval of the benchmark's fleet.
const INTERVAL_SECONDS: u64 = 60;

fn main() -> anyhow::Result<()> {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() { vec![1000] } else { sizes };
    let ws = build::find_workspace(Path::new(env!("CARGO_MANIFEST_DIR")))
        .context("no workspace above the package")?;
    let plugins = ws.join(build::DEFAULT_OUT_DIR);
    build::ensure_built(&ws, &[ws.join("plugins"), ws.join("examples")], &plugins)?;
    for n in sizes {
        let figures = run(n, &plugins).with_context(|| format!("the fleet of {n}"))?;
        println!("{figures}");
    }
    Ok(())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(18080)
}

/// A child killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `GET path` on a loopback port with the bench's token: status and body.
fn get(port: u16, path: &str) -> anyhow::Result<(u16, String)> {
    request(port, "GET", path)
}

/// `method path` (no body) on a loopback port with the bench's token: status and body.
fn request(port: u16, method: &str, path: &str) -> anyhow::Result<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(120)))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").context("no header end")?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .context("no status")?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    Ok((status, body))
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// The value of a counter or a histogram's `_count`/`_sum` in Prometheus text.
fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find(|line| line.split_whitespace().next() == Some(name))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

/// A `/proc/PID/status` field in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// CPU seconds (user + system) the process has used, at 100 ticks a second (Linux's USER_HZ).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // After the command name: state is field 0, utime field 11, stime field 12.
    (ticks(11) + ticks(12)) / 100.0
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index.min(samples.len() - 1)]
}

/// One git repository holding every app's directory.
fn repository(dir: &Path, n: usize) -> anyhow::Result<PathBuf> {
    let repo = dir.join("fleet.git");
    for i in 0..n {
        let name = format!("app-{i}");
        let app_dir = repo.join(&name);
        std::fs::create_dir_all(&app_dir)?;
        for object in weft_sim::fleet::app_objects(&name) {
            let file = format!(
                "{}-{}.json",
                object["kind"].as_str().unwrap_or_default().to_lowercase(),
                object["metadata"]["name"].as_str().unwrap_or_default()
            );
            std::fs::write(app_dir.join(file), object.to_string())?;
        }
    }
    let git = |args: &[&str]| -> anyhow::Result<()> {
        let status = Command::new("git")
            .args([
                "-c",
                "user.name=bench",
                "-c",
                "user.email=bench@example.invalid",
            ])
            .args(args)
            .current_dir(&repo)
            .stdout(Stdio::null())
            .status()?;
        if !status.success() {
            bail!("git {args:?} failed");
        }
        Ok(())
    };
    git(&["init", "-q", "-b", "main"])?;
    git(&["add", "-A"])?;
    git(&["commit", "-q", "-m", "the fleet"])?;
    Ok(repo)
}

fn run(n: usize, plugins: &Path) -> anyhow::Result<String> {
    let dir = tempfile::tempdir()?;
    let repo = repository(dir.path(), n)?;
    let weft = env!("CARGO_BIN_EXE_weft");

    // The simulator, in its own process.
    let kubeconfig = dir.path().join("kubeconfig");
    let sim_port = free_port();
    let sim = Killed(
        Command::new(weft)
            .args([
                "sim",
                "--fast",
                "--listen",
                &format!("127.0.0.1:{sim_port}"),
            ])
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    while !kubeconfig.is_file() {
        if Instant::now() > deadline {
            bail!("the simulator never wrote its kubeconfig");
        }
        std::thread::sleep(Duration::from_millis(100));
    }

    let hash = {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(TOKEN.as_bytes()))
    };
    let mut config = format!(
        "data_dir = \"{}\"\n[cluster]\nmode = \"kubeconfig\"\npath = \"{}\"\n[defaults]\nreconcile_interval_seconds = {INTERVAL_SECONDS}\n\
         [auth]\ntokens = [{{ sha256 = \"{hash}\", principal = \"admin\", name = \"bench\" }}]\nrate_limit = {{ requests_per_second = 100000, burst = 100000 }}\n",
        dir.path().join("data").display(),
        kubeconfig.display()
    );
    for i in 0..n {
        config.push_str(&format!(
            "[[app]]\nname = \"app-{i}\"\norg = \"bench\"\ntype = \"yaml\"\nnamespace = \"app-{i}\"\n\
             source = {{ repo = \"{}\", path = \"app-{i}\", ref = \"main\" }}\n\
             [app.sync]\nautomated = true\nself_heal = true\nprune = true\ncreate_namespace = true\n",
            repo.display()
        ));
    }
    let config_file = dir.path().join("weft.toml");
    std::fs::write(&config_file, config)?;

    let port = free_port();
    let started = Instant::now();
    let mut serve = Killed(
        Command::new(weft)
            .arg("serve")
            .arg("--config")
            .arg(&config_file)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .env("WEFT_BUILTIN_PLUGINS", plugins)
            .env_remove("WEFT_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );
    let pid = serve.0.id();

    // Weft's memory before it holds any cluster state: once it answers (plugins loaded, apps read, nothing watched
    // or compared yet).
    let start_kib = loop {
        if let Some(status) = serve.0.try_wait()? {
            bail!("weft serve exited ({status})");
        }
        if get(port, "/healthz").is_ok_and(|(code, _)| code == 200) {
            break status_kib(pid, "VmRSS:");
        }
        std::thread::sleep(Duration::from_millis(50));
    };

    // Every app synced and healthy.
    let synced_after = loop {
        if let Some(status) = serve.0.try_wait()? {
            bail!("weft serve exited ({status})");
        }
        let mut done = 0;
        let mut after: Option<String> = None;
        loop {
            let path = match &after {
                None => "/v1/deploy/applications?limit=1000".to_string(),
                Some(name) => format!("/v1/deploy/applications?limit=1000&after={name}"),
            };
            let Ok((200, body)) = get(port, &path) else {
                break;
            };
            let page: Value = serde_json::from_str(&body)?;
            let items = page["items"].as_array().cloned().unwrap_or_default();
            done += items
                .iter()
                .filter(|r| r["sync"] == "synced" && r["health"] == "healthy")
                .count();
            match page["next"].as_str().or(page["continue"].as_str()) {
                Some(next) if !items.is_empty() => after = Some(next.to_string()),
                _ => break,
            }
        }
        if done == n {
            break started.elapsed();
        }
        if started.elapsed() > Duration::from_secs(3600) {
            bail!("only {done} of {n} apps synced and healthy after an hour");
        }
        std::thread::sleep(Duration::from_secs(1));
    };
    let peak_kib = status_kib(pid, "VmHWM:");

    // One no-drift pass: every app asked to be reconciled now (its source fetched again, compared if anything
    // changed), timed until that many more visits are done, with the API measured meanwhile.
    let metrics = get(port, "/metrics")?.1;
    let visits_before = metrics_count(&metrics);
    let compared_before = metric(&metrics, "weft_comparisons_total");
    let dry_runs_before = metric(&metrics, "weft_dry_runs_total");
    let cpu_before = cpu_seconds(pid);
    let pass_started = Instant::now();
    let (code, body) = request(port, "POST", "/v1/deploy/reconcile")?;
    if code != 202 {
        bail!("asking for a pass: {code} {body}");
    }
    let (mut fleet, mut tree) = (Vec::new(), Vec::new());
    let pass = loop {
        let t = Instant::now();
        get(port, "/v1/deploy/applications?limit=100")?;
        fleet.push(t.elapsed());
        let t = Instant::now();
        get(port, "/v1/deploy/app-0/tree")?;
        tree.push(t.elapsed());
        let metrics = get(port, "/metrics")?.1;
        if metrics_count(&metrics) - visits_before >= n as f64 {
            break (
                pass_started.elapsed(),
                metric(&metrics, "weft_comparisons_total") - compared_before,
                metric(&metrics, "weft_dry_runs_total") - dry_runs_before,
            );
        }
        if pass_started.elapsed() > Duration::from_secs(INTERVAL_SECONDS * 10) {
            bail!("a pass never ended");
        }
    };
    let cpu_pass = cpu_seconds(pid) - cpu_before;
    let after = get(port, "/metrics")?.1;
    let missed = metric(&after, "weft_watch_events_missed_total");
    let (compared_all, dry_runs_all) = (
        metric(&after, "weft_comparisons_total"),
        metric(&after, "weft_dry_runs_total"),
    );
    let steady_kib = status_kib(pid, "VmRSS:");
    let cpu_total = cpu_seconds(pid);
    let cpu_sim = cpu_seconds(sim.0.id());

    // Shutdown: SIGTERM, then the time until it exits.
    let stop = Instant::now();
    Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()?;
    let shutdown = loop {
        if serve.0.try_wait()?.is_some() {
            break stop.elapsed();
        }
        if stop.elapsed() > Duration::from_secs(120) {
            bail!("weft serve did not stop within two minutes of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let objects = (n * 10) as u64;
    Ok(format!(
        "fleet of {n} apps ({objects} objects), reconcile interval {INTERVAL_SECONDS} s:\n\
         \x20 all synced and healthy after {synced:.1} s\n\
         \x20 one no-drift pass (every app asked to reconcile now): {n} visits in {pass_wall:.1} s, {compared} full comparisons \
         ({dry_runs} dry runs), {cpu_pass:.1} CPU s\n\
         \x20 Weft RSS: at start {start} MiB, peak {peak} MiB, steady {steady} MiB ({per_object:.1} KiB per managed \
         object above the start, {overall:.1} KiB with it)\n\
         \x20 during the pass: fleet page of 100 p50 {fleet50:.1} ms, p99 {fleet99:.1} ms; one app's tree p50 {tree50:.1} ms, p99 {tree99:.1} ms ({samples} samples each)\n\
         \x20 in all: {compared_all} full comparisons, {dry_runs_all} dry runs, {cpu_total:.1} CPU s (the simulator: {cpu_sim:.1}); times the reconciler fell behind the watch feed: {missed}; shutdown {shutdown:.2} s",
        synced = synced_after.as_secs_f64(),
        pass_wall = pass.0.as_secs_f64(),
        compared = pass.1,
        dry_runs = pass.2,
        peak = peak_kib / 1024,
        steady = steady_kib / 1024,
        start = start_kib / 1024,
        per_object = steady_kib.saturating_sub(start_kib) as f64 / objects as f64,
        overall = steady_kib as f64 / objects as f64,
        fleet50 = percentile(&mut fleet, 0.5).as_secs_f64() * 1000.0,
        fleet99 = percentile(&mut fleet, 0.99).as_secs_f64() * 1000.0,
        tree50 = percentile(&mut tree, 0.5).as_secs_f64() * 1000.0,
        tree99 = percentile(&mut tree, 0.99).as_secs_f64() * 1000.0,
        samples = fleet.len(),
        shutdown = shutdown.as_secs_f64(),
    ))
}

/// Reconciles so far: the reconcile duration histogram's count.
fn metrics_count(text: &str) -> f64 {
    metric(text, "weft_reconcile_duration_seconds_count")
}
