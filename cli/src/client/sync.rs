//! `weft sync APP` and `weft rollback APP`: queue the operation, print its id, and with `--watch` follow it to its
//! end (exit 0 when it succeeded, 1 when it failed); with `--wait-healthy` then wait for the app's health (exit 1
//! when it ends degraded or the wait times out).

use anyhow::bail;
use serde_json::{Map, Value, json};
use weft_apply::operation::OperationPhase;

use super::style::Painter;
use super::watch::{Progress, follow_operation};
use super::wire::QueuedOperation;
use super::{Client, ClientError, RemoteArgs, block_on};

#[derive(Debug, clap::Args)]
pub(crate) struct SyncArgs {
    /// The app.
    app: String,
    /// A revision (commit, branch or tag) instead of the app's ref.
    #[arg(long)]
    revision: Option<String>,
    /// Prune objects no longer rendered, whatever the app's setting.
    #[arg(long)]
    prune: bool,
    /// Plan only: print what would change, changing nothing.
    #[arg(long)]
    dry_run: bool,
    /// Accept the deletions past the prune fuse.
    #[arg(long)]
    confirm: bool,
    /// Override the deploy gates' denies for this sync, giving why (admin; recorded with your name). A gate
    /// marked non-overridable still denies. Needs --revision: the commit whose denied plan you reviewed.
    #[arg(long, value_name = "REASON", requires = "revision")]
    override_gates: Option<String>,
    /// Resolve every image to its digest again, even for the revision that runs (to deploy a tag that moved).
    #[arg(long)]
    refresh_images: bool,
    /// Follow the operation's steps until it ends; exit 0 when it succeeded, 1 when it failed.
    #[arg(long)]
    watch: bool,
    #[command(flatten)]
    health: WaitHealthArgs,
    #[command(flatten)]
    remote: RemoteArgs,
}

/// Waiting for the app's health after the operation (`--watch --wait-healthy`).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct WaitHealthArgs {
    /// After the operation succeeded, wait until the app is healthy (exit 0) or degraded (exit 1), as the server
    /// sees it in a look taken after the operation ended.
    #[arg(long, requires = "watch")]
    wait_healthy: bool,
    /// How long `--wait-healthy` waits, in seconds, before giving up (exit 1).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 300,
        requires = "wait_healthy"
    )]
    health_timeout: u64,
}

#[derive(Debug, clap::Args)]
pub(crate) struct RollbackArgs {
    /// The app.
    app: String,
    /// The history entry to roll back to (`GET /v1/deploy/gitops` lists each app's history).
    #[arg(required_unless_present = "version", conflicts_with = "version")]
    id: Option<u64>,
    /// Instead of an entry: pin the main workload to a version (image tag) the history deployed.
    #[arg(long)]
    version: Option<String>,
    /// Suspend automated sync so that it does not undo the rollback (needed while automation is on).
    #[arg(long)]
    disable_automated: bool,
    /// Follow the operation's steps until it ends; exit 0 when it succeeded, 1 when it failed.
    #[arg(long)]
    watch: bool,
    #[command(flatten)]
    health: WaitHealthArgs,
    #[command(flatten)]
    remote: RemoteArgs,
}

/// The body of `POST /v1/deploy/{app}/sync`.
fn sync_body(args: &SyncArgs) -> Value {
    let mut body = Map::new();
    if let Some(revision) = &args.revision {
        body.insert("revision".into(), json!(revision));
    }
    if args.prune {
        body.insert("prune".into(), json!(true));
    }
    body.insert("dryRun".into(), json!(args.dry_run));
    body.insert("confirmed".into(), json!(args.confirm));
    if let Some(reason) = &args.override_gates {
        body.insert("overrideGates".into(), json!(reason));
    }
    if args.refresh_images {
        body.insert("refreshImages".into(), json!(true));
    }
    Value::Object(body)
}

/// The body of `POST /v1/deploy/{app}/rollback`.
fn rollback_body(args: &RollbackArgs) -> Value {
    let mut body = Map::new();
    match (&args.id, &args.version) {
        (Some(id), _) => body.insert("historyId".into(), json!(id)),
        (None, version) => body.insert("version".into(), json!(version)),
    };
    body.insert("disableAutomated".into(), json!(args.disable_automated));
    Value::Object(body)
}

pub(crate) fn run_sync(args: SyncArgs) -> anyhow::Result<u8> {
    let what = if args.dry_run { "dry run" } else { "sync" };
    let body = sync_body(&args);
    block_on(queue_and_watch(
        args.remote,
        args.app,
        "sync",
        what,
        body,
        args.watch.then_some(args.health),
    ))
}

pub(crate) fn run_rollback(args: RollbackArgs) -> anyhow::Result<u8> {
    let body = rollback_body(&args);
    let outcome = block_on(queue_and_watch(
        args.remote,
        args.app,
        "rollback",
        "rollback",
        body,
        args.watch.then_some(args.health.clone()),
    ));
    outcome.map_err(|error| match error.downcast_ref::<ClientError>() {
        Some(ClientError::Api {
            status: 409,
            message,
            ..
        }) if !args.disable_automated && message.contains("automated sync") => {
            anyhow::anyhow!("{message} (--disable-automated suspends it)")
        }
        _ => error,
    })
}

async fn queue_and_watch(
    remote: RemoteArgs,
    app: String,
    route: &str,
    what: &str,
    body: Value,
    watch: Option<WaitHealthArgs>,
) -> anyhow::Result<u8> {
    let client = remote.connect()?;
    let queued: QueuedOperation = client.post(&["v1", "deploy", &app, route], &body).await?;
    eprintln!(
        "weft: {what} of {app} queued as operation {} ({})",
        queued.id,
        queued.phase.as_str()
    );
    let Some(health) = watch else {
        crate::print_stdout(&format!("{}\n", queued.id))?;
        return Ok(0);
    };
    let (code, ended) = watch_to_end(&client, &app, &queued.id).await?;
    if code != 0 || !health.wait_healthy {
        return Ok(code);
    }
    let ended = ended.unwrap_or_else(jiff::Timestamp::now);
    wait_healthy(
        &client,
        &app,
        ended,
        std::time::Duration::from_secs(health.health_timeout),
    )
    .await
}

/// Waits for the app's health in a look the server took after `ended`: healthy or suspended is 0, degraded 1,
/// and so is still anything else after `timeout`.
async fn wait_healthy(
    client: &Client,
    app: &str,
    ended: jiff::Timestamp,
    timeout: std::time::Duration,
) -> anyhow::Result<u8> {
    use weft_sync::status::HealthCode;
    let started = std::time::Instant::now();
    let mut last = None;
    loop {
        let view: super::wire::AppHealthView =
            client.get(&["v1", "deploy", "gitops", app], &[]).await?;
        let fresh = view.reconciled_at.is_some_and(|at| at > ended);
        if fresh {
            let said = format!(
                "{app} is {} and {}",
                view.health.as_str(),
                view.sync.as_str()
            );
            if last.as_deref() != Some(said.as_str()) {
                eprintln!("weft: {said}");
                last = Some(said);
            }
            match view.health {
                HealthCode::Healthy | HealthCode::Suspended => return Ok(0),
                HealthCode::Degraded => {
                    eprintln!(
                        "weft: {app} ended degraded{}",
                        view.error.map(|e| format!(": {e}")).unwrap_or_default()
                    );
                    return Ok(crate::exit::FAILED);
                }
                _ => {}
            }
        }
        if started.elapsed() > timeout {
            eprintln!(
                "weft: {app} was not healthy within {} s ({}); `weft tree {app}` shows what is not",
                timeout.as_secs(),
                last.as_deref()
                    .unwrap_or("no look at it since the operation ended")
            );
            return Ok(crate::exit::FAILED);
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}

/// Follows an operation and turns its end into an exit code, with when it ended.
pub(crate) async fn watch_to_end(
    client: &Client,
    app: &str,
    id: &str,
) -> anyhow::Result<(u8, Option<jiff::Timestamp>)> {
    let operation =
        follow_operation(client, app, id, &Progress::detect(), Painter::for_stdout()).await?;
    let ended = operation.finished_at;
    let code = match operation.phase {
        OperationPhase::Succeeded => 0,
        OperationPhase::Failed | OperationPhase::Error => crate::exit::FAILED,
        phase @ (OperationPhase::Pending | OperationPhase::Running) => bail!(
            "the log of operation {id} ended while it was still {} (the server may be restarting); it \
             resumes when a server claims it again",
            phase.as_str()
        ),
    };
    Ok((code, ended))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    enum Test {
        Sync(SyncArgs),
        Rollback(RollbackArgs),
    }

    fn parse(args: &[&str]) -> Result<Test, clap::Error> {
        Test::try_parse_from(std::iter::once("weft").chain(args.iter().copied()))
    }

    #[test]
    fn sync_flags_make_the_api_body() {
        let Test::Sync(args) =
            parse(&["sync", "shop", "--revision", "v2", "--prune", "--confirm"]).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            sync_body(&args),
            json!({"revision": "v2", "prune": true, "dryRun": false, "confirmed": true})
        );
        let Test::Sync(args) = parse(&[
            "sync",
            "shop",
            "--revision",
            "abc123",
            "--override-gates",
            "hotfix for INC-42",
        ])
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            sync_body(&args),
            json!({"revision": "abc123", "dryRun": false, "confirmed": false, "overrideGates": "hotfix for INC-42"})
        );
        assert!(parse(&["sync", "shop", "--override-gates", "no revision"]).is_err());
        // Waiting for health follows the operation first; its timeout goes with it.
        assert!(parse(&["sync", "shop", "--wait-healthy"]).is_err());
        assert!(parse(&["sync", "shop", "--watch", "--health-timeout", "5"]).is_err());
        let Test::Sync(args) = parse(&[
            "sync",
            "shop",
            "--watch",
            "--wait-healthy",
            "--health-timeout",
            "60",
        ])
        .unwrap() else {
            panic!()
        };
        assert!(args.health.wait_healthy);
        assert_eq!(args.health.health_timeout, 60);
        let Test::Sync(args) = parse(&["sync", "shop", "--dry-run"]).unwrap() else {
            panic!()
        };
        assert_eq!(
            sync_body(&args),
            json!({"dryRun": true, "confirmed": false})
        );
    }

    #[test]
    fn a_rollback_takes_exactly_one_target() {
        let Test::Rollback(args) = parse(&["rollback", "shop", "3"]).unwrap() else {
            panic!()
        };
        assert_eq!(
            rollback_body(&args),
            json!({"historyId": 3, "disableAutomated": false})
        );
        let Test::Rollback(args) = parse(&[
            "rollback",
            "shop",
            "--version",
            "1.4.1",
            "--disable-automated",
        ])
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            rollback_body(&args),
            json!({"version": "1.4.1", "disableAutomated": true})
        );
        assert!(parse(&["rollback", "shop"]).is_err());
        assert!(parse(&["rollback", "shop", "3", "--version", "1.4.1"]).is_err());
    }
}
