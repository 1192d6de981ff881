//! `weft sim --listen ADDR --kubeconfig PATH`: serve the Kubernetes API simulator on a local address for kubectl,
//! kube-rs and Weft itself, until Ctrl-C; over TLS with a certificate authority written into the kubeconfig, or
//! over plain HTTP with `--plain-http`.

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
