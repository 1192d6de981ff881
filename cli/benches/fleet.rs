//! The fleet benchmark: N apps of 10 objects each (`weft_sim::fleet`: Deployment, Service, three ConfigMaps,
//! ServiceAccount, Role, RoleBinding, Secret, PodDisruptionBudget), automated sync with self-heal, `weft serve`
//! against `weft sim` in a process of its own, so Weft is measured alone. Prints, per N: time until every app is
//! synced and healthy, one no-drift reconcile pass (wall time, full comparisons and the dry runs they cost, CPU
//! seconds), Weft's RSS at start, peak and steady (and per managed object), the fleet page and one app's tree
//! p50/p99 while the pass runs, shutdown time, and the operations run (one first sync per app is expected: any
//! more is automation acting where nothing drifted).
//!
//! `cargo bench -p weft --bench fleet -- 1000 3000 10000` (default: 1000); `--runs K` runs each size K times and
//! prints, after each run's figures, every figure's minimum, median and maximum (runs on a busy machine vary by a
//! third: quote medians).

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Sizes are the bare numbers, not a flag nor the value after `--runs`.
    let sizes: Vec<usize> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with('-') && (*i == 0 || args[i - 1] != "--runs"))
        .filter_map(|(_, a)| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() { vec![1000] } else { sizes };
    let runs: usize = args
        .iter()
        .skip_while(|a| *a != "--runs")
        .nth(1)
        .map(|k| k.parse().context("--runs takes a number"))
        .transpose()?
        .unwrap_or(1)
        .max(1);
    let ws = build::find_workspace(Path::new(env!("CARGO_MANIFEST_DIR")))
        .context("no workspace above the package")?;
    let plugins = ws.join(build::DEFAULT_OUT_DIR);
    build::ensure_built(&ws, &[ws.join("plugins"), ws.join("examples")], &plugins)?;
    for n in sizes {
        let mut all = Vec::new();
        for k in 1..=runs {
            let figures = run(n, &plugins).with_context(|| format!("the fleet of {n}, run {k}"))?;
            println!("{}", figures.report());
            all.push(figures);
        }
        if runs > 1 {
            println!("{}", spread(n, &all));
        }
    }
    Ok(())
}

/// One run's figures.
struct Figures {
    n: usize,
    /// Seconds until every app was synced and healthy.
    synced: f64,
    /// The no-drift pass: wall seconds, full comparisons, dry runs, CPU seconds.
    pass_wall: f64,
    pass_compared: f64,
    pass_dry_runs: f64,
    pass_cpu: f64,
    /// Weft's RSS in KiB: once it answers, the peak, after the pass.
    start_kib: u64,
    peak_kib: u64,
    steady_kib: u64,
    /// Milliseconds, during the pass.
    fleet50: f64,
    fleet99: f64,
    tree50: f64,
    tree99: f64,
    samples: usize,
    /// In all, up to the end of the pass.
    compared_all: f64,
    dry_runs_all: f64,
    /// Objects read from the server because the watch cache was behind a dry run.
    reads_through: f64,
    cpu_total: f64,
    cpu_sim: f64,
    missed: f64,
    /// Operations finished: succeeded, and failed or error.
    succeeded: f64,
    unsucceeded: f64,
    /// Seconds from SIGTERM to exit.
    shutdown: f64,
    /// What automation queued beyond each app's first sync (log lines).
    extra_automation: Vec<String>,
}

impl Figures {
    fn objects(&self) -> u64 {
        (self.n * 10) as u64
    }

    /// KiB per managed object above the start, and with it.
    fn per_object(&self) -> (f64, f64) {
        let objects = self.objects() as f64;
        (
            self.steady_kib.saturating_sub(self.start_kib) as f64 / objects,
            self.steady_kib as f64 / objects,
        )
    }

    fn report(&self) -> String {
        let (per_object, overall) = self.per_object();
        format!(
            "fleet of {n} apps ({objects} objects), reconcile interval {INTERVAL_SECONDS} s:\n\
             \x20 all synced and healthy after {synced:.1} s\n\
             \x20 one no-drift pass (every app asked to reconcile now): {n} visits in {pass_wall:.1} s, {compared} full comparisons \
             ({dry_runs} dry runs), {cpu_pass:.1} CPU s\n\
             \x20 Weft RSS: at start {start} MiB, peak {peak} MiB, steady {steady} MiB ({per_object:.1} KiB per managed \
             object above the start, {overall:.1} KiB with it)\n\
             \x20 during the pass: fleet page of 100 p50 {fleet50:.1} ms, p99 {fleet99:.1} ms; one app's tree p50 {tree50:.1} ms, p99 {tree99:.1} ms ({samples} samples each)\n\
             \x20 in all: {compared_all} full comparisons, {dry_runs_all} dry runs ({reads_through} reads past a lagging cache), {cpu_total:.1} CPU s (the simulator: {cpu_sim:.1}); \
             operations finished: {succeeded} succeeded, {unsucceeded} failed ({n} first syncs expected); \
             times the reconciler fell behind the watch feed: {missed}; shutdown {shutdown:.2} s",
            n = self.n,
            objects = self.objects(),
            synced = self.synced,
            pass_wall = self.pass_wall,
            compared = self.pass_compared,
            dry_runs = self.pass_dry_runs,
            cpu_pass = self.pass_cpu,
            start = self.start_kib / 1024,
            peak = self.peak_kib / 1024,
            steady = self.steady_kib / 1024,
            fleet50 = self.fleet50,
            fleet99 = self.fleet99,
            tree50 = self.tree50,
            tree99 = self.tree99,
            samples = self.samples,
            compared_all = self.compared_all,
            dry_runs_all = self.dry_runs_all,
            reads_through = self.reads_through,
            cpu_total = self.cpu_total,
            cpu_sim = self.cpu_sim,
            succeeded = self.succeeded,
            unsucceeded = self.unsucceeded,
            missed = self.missed,
            shutdown = self.shutdown,
        ) + &self
            .extra_automation
            .iter()
            .take(10)
            .map(|line| format!("\n  automation beyond a first sync: {line}"))
            .collect::<String>()
    }
}

/// Each figure's minimum, median and maximum over several runs of one size.
fn spread(n: usize, runs: &[Figures]) -> String {
    let row = |label: &str, unit: &str, value: &dyn Fn(&Figures) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(value).collect();
        values.sort_by(f64::total_cmp);
        let median = if values.len() % 2 == 1 {
            values[values.len() / 2]
        } else {
            (values[values.len() / 2 - 1] + values[values.len() / 2]) / 2.0
        };
        format!(
            "\n  {label}: median {median:.1}{unit} (min {:.1}, max {:.1})",
            values[0],
            values[values.len() - 1]
        )
    };
    let per_app = |total: f64| total / n as f64;
    let mut out = format!("fleet of {n} apps, {} runs:", runs.len());
    out += &row("all synced and healthy", " s", &|f| f.synced);
    out += &row("… per app", " ms", &|f| f.synced * 1000.0 / n as f64);
    out += &row("full comparisons per app on the way", "", &|f| {
        per_app(f.compared_all - f.pass_compared)
    });
    out += &row("Weft's CPU in all", " s", &|f| f.cpu_total);
    out += &row("the simulator's CPU", " s", &|f| f.cpu_sim);
    out += &row("operations beyond one per app", "", &|f| {
        f.succeeded + f.unsucceeded - n as f64
    });
    out += &row("no-drift pass", " s", &|f| f.pass_wall);
    out += &row("… dry runs", "", &|f| f.pass_dry_runs);
    out += &row("… CPU", " s", &|f| f.pass_cpu);
    out += &row("RSS steady", " MiB", &|f| f.steady_kib as f64 / 1024.0);
    out += &row("… per managed object above the start", " KiB", &|f| {
        f.per_object().0
    });
    out += &row("… with it", " KiB", &|f| f.per_object().1);
    out += &row("fleet page p99", " ms", &|f| f.fleet99);
    out += &row("tree p99", " ms", &|f| f.tree99);
    out += &row("shutdown", " s", &|f| f.shutdown);
    out
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

fn run(n: usize, plugins: &Path) -> anyhow::Result<Figures> {
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
    // Its log: what automation queued, and why, is read from it at the end.
    let serve_log = dir.path().join("serve.log");
    let started = Instant::now();
    let mut serve = Killed(
        Command::new(weft)
            .arg("serve")
            .arg("--config")
            .arg(&config_file)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .env("WEFT_BUILTIN_PLUGINS", plugins)
            // Warnings, and the reconciler's account of what automation queued and why.
            .env("WEFT_LOG", "warn,weft_engine::reconcile=info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&serve_log)?)
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
    let succeeded = metric(&after, "weft_operations_total{phase=\"succeeded\"}");
    let unsucceeded = metric(&after, "weft_operations_total{phase=\"failed\"}")
        + metric(&after, "weft_operations_total{phase=\"error\"}");
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
    let extra_automation = automation_beyond_first_syncs(&std::fs::read_to_string(&serve_log)?);
    Ok(Figures {
        n,
        synced: synced_after.as_secs_f64(),
        pass_wall: pass.0.as_secs_f64(),
        pass_compared: pass.1,
        pass_dry_runs: pass.2,
        pass_cpu: cpu_pass,
        start_kib,
        peak_kib,
        steady_kib,
        fleet50: percentile(&mut fleet, 0.5).as_secs_f64() * 1000.0,
        fleet99: percentile(&mut fleet, 0.99).as_secs_f64() * 1000.0,
        tree50: percentile(&mut tree, 0.5).as_secs_f64() * 1000.0,
        tree99: percentile(&mut tree, 0.99).as_secs_f64() * 1000.0,
        samples: fleet.len(),
        compared_all,
        dry_runs_all,
        reads_through: metric(&after, "weft_reads_through_total"),
        cpu_total,
        cpu_sim,
        missed,
        succeeded,
        unsucceeded,
        shutdown: shutdown.as_secs_f64(),
        extra_automation,
    })
}

/// The log lines of operations automation queued for an app after its first: each names its trigger and the
/// objects it found out of sync.
fn automation_beyond_first_syncs(log: &str) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    log.lines()
        .filter_map(|line| {
            let at = line.find(": queued ")?;
            let app = line[..at].rsplit(' ').next()?;
            (!seen.insert(app.to_string())).then(|| line[at - app.len()..].to_string())
        })
        .collect()
}

/// Reconciles so far: the reconcile duration histogram's count.
fn metrics_count(text: &str) -> f64 {
    metric(text, "weft_reconcile_duration_seconds_count")
}
