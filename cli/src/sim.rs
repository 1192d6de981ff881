//! `weft sim --listen ADDR --kubeconfig PATH`: serve the Kubernetes API simulator on a local address for kubectl,
//! kube-rs and Weft itself, until Ctrl-C; over TLS with a certificate authority written into the kubeconfig, or
//! over plain HTTP with `--plain-http`; with the fault rules of a file (`--faults`), read again whenever it
//! changes, so latency, error storms and dropped watches can be turned on and off from outside.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;
use weft_sim::{SimConfig, Simulator};

#[derive(Debug, clap::Args)]
pub(crate) struct SimArgs {
    /// The address to serve on; only loopback addresses make sense (the simulator has no authentication).
    #[arg(long, default_value = "127.0.0.1:8001")]
    listen: SocketAddr,
    /// Where to write a kubeconfig that points at the simulator.
    #[arg(long)]
    kubeconfig: PathBuf,
    /// Short controller delays (pods Ready in ~200 ms), as the tests use.
    #[arg(long)]
    fast: bool,
    /// Serve plain HTTP instead of TLS (some clients, such as `@kubernetes/client-node`, refuse it).
    #[arg(long)]
    plain_http: bool,
    /// Inject the faults this YAML file lists, read again whenever it changes (a missing or empty file is no
    /// faults). Each rule: optional `verb` and `resource` (plural) to match; one of `error: CODE` (with
    /// `message`), `tooManyRequests: RETRY_AFTER_SECONDS`, `latencyMs: N`, `dropWatchAfterMs: N`,
    /// `delayWatchEventsMs: N`; optional `times: N`.
    #[arg(long, value_name = "FILE")]
    faults: Option<PathBuf>,
}

/// How often the fault file is looked at.
const FAULTS_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// The fault file's text: empty when it is missing.
fn read_faults(path: &std::path::Path) -> anyhow::Result<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(error) => Err(error).with_context(|| format!("reading {}", path.display())),
    }
}

/// Keeps the simulator's faults those of `path`, read every [`FAULTS_POLL`]; a file that cannot be read or
/// parsed leaves the rules in force as they were, and says why.
async fn follow_faults(faults: weft_sim::FaultInjector, path: PathBuf, mut last: String) {
    loop {
        tokio::time::sleep(FAULTS_POLL).await;
        let text = match read_faults(&path) {
            Ok(text) => text,
            Err(error) => {
                eprintln!("weft: {error:#}; the faults in force stay");
                continue;
            }
        };
        if text == last {
            continue;
        }
        match weft_sim::parse_fault_file(&text) {
            Ok(rules) => {
                eprintln!(
                    "weft: {}: {} fault rule(s) in force",
                    path.display(),
                    rules.len()
                );
                faults.replace(rules);
            }
            Err(error) => eprintln!(
                "weft: {}: {error}; the faults in force stay",
                path.display()
            ),
        }
        last = text;
    }
}

pub(crate) fn run(args: SimArgs) -> anyhow::Result<u8> {
    if !args.listen.ip().is_loopback() {
        anyhow::bail!(
            "--listen {}: the simulator has no authentication; serve it on a loopback address such as 127.0.0.1",
            args.listen
        );
    }
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        let config = if args.fast { SimConfig::fast() } else { SimConfig::default() };
        let sim = Simulator::new(config);
        if let Some(path) = &args.faults {
            let text = read_faults(path)?;
            let rules = weft_sim::parse_fault_file(&text)
                .with_context(|| format!("reading the fault file {}", path.display()))?;
            eprintln!("weft: {}: {} fault rule(s) in force", path.display(), rules.len());
            sim.faults().replace(rules);
            tokio::spawn(follow_faults(sim.faults().clone(), path.clone(), text));
        }
        let served = if args.plain_http {
            sim.serve(args.listen).await?
        } else {
            sim.serve_tls(args.listen).await?
        };
        served
            .write_kubeconfig(&args.kubeconfig)
            .with_context(|| format!("writing {}", args.kubeconfig.display()))?;
        eprintln!(
            "weft: Kubernetes API simulator at {}; kubeconfig written to {} (try: kubectl --kubeconfig {} get nodes)",
            served.url(),
            args.kubeconfig.display(),
            args.kubeconfig.display()
        );
        tokio::signal::ctrl_c().await.context("waiting for Ctrl-C")?;
        eprintln!("weft: simulator stopped");
        anyhow::Ok(0)
    })
}
