//! Claims on operations across restarts and stalls (issue 36, finding 10): a `weft serve` killed and started again
//! under its default name takes back at once what it ran, and a replica that lost its claim while waiting on a
//! hook stops there and then, saying truthfully who runs the operation now.
//!
//! A killed replica is a dropped `Server` (its claims stay in the store as a `kill -9` leaves them). A replica
//! frozen past its lease and taken over is simulated in the store: its claim is handed to another replica's start
//! as a takeover leaves it, while the frozen one still waits on its hook; what it does when its next renewal finds
//! the claim gone is what a resumed process does.

use std::time::Duration;

use serde_json::json;
use sqlx::Connection as _;
use tempfile::TempDir;
use weft_apply::operation::{Operation, OperationPhase};
use weft_engine::server::{Server, ServerOptions, default_replica};
use weft_tests::GitRepo;

use crate::reliability::sync_of_running;
use crate::serve::{Cluster, cluster, config, deployment, eventually, hook, image};

/// Longer than any test: nothing that waits this long gets there within the test.
const FOREVER: Duration = Duration::from_secs(3600);

/// A simulated cluster, a data directory (with the SQLite store) and a shop app whose sync starts with a PreSync
/// hook; `hook_image` chooses how the hook's Job runs, and its wave timeout is an hour.
struct Site {
    cluster: Cluster,
    data: TempDir,
    apps: String,
    _repo: GitRepo,
}

impl Site {
    fn new(hook_image: &str) -> Site {
        let repo = GitRepo::new();
        let mut migrate: serde_json::Value = serde_json::from_str(&hook("migrate")).unwrap();
        migrate["spec"]["template"]["spec"]["containers"][0]["image"] = json!(hook_image);
        repo.commit(&[
            ("migrate.json", migrate.to_string()),
            ("web.json", deployment("web", "shop/web:1.0", json!({}))),
        ]);
        let apps = format!(
            "[[app]]\nname = \"shop\"\norg = \"acme\"\ntype = \"yaml\"\nnamespace = \"shop\"\n\
             source = {{ repo = \"{}\", path = \"app\", ref = \"main\" }}\n[app.sync]\ncreate_namespace = true\n\
             wave_timeout_seconds = {}\n",
            repo.path().display(),
            FOREVER.as_secs()
        );
        Site {
            cluster: cluster(),
            data: TempDir::new().unwrap(),
            apps,
            _repo: repo,
        }
    }

    async fn replica(&self, replica: &str, lease: Duration) -> Server {
        Server::start(
            config(&self.cluster, self.data.path(), &self.apps, ""),
            weft_tests::builtin_registry(),
            ServerOptions {
                poll: Duration::from_millis(100),
                lease,
                ..ServerOptions::new(replica)
            },
        )
        .await
        .unwrap()
    }

    fn store_url(&self) -> String {
        format!("sqlite://{}", self.data.path().join("weft.db").display())
    }

    /// Who holds operation `id` now, as the store has it: its replica and start.
    async fn claim_of(&self, id: &str) -> (Option<String>, Option<String>) {
        let mut connection = sqlx::SqliteConnection::connect(&self.store_url())
            .await
            .unwrap();
        let held =
            sqlx::query_as("SELECT claimed_by, claim_incarnation FROM operations WHERE id = $1")
                .bind(id)
                .fetch_one(&mut connection)
                .await
                .unwrap();
        connection.close().await.unwrap();
        held
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_serve_killed_and_started_again_under_its_default_name_takes_its_work_back_at_once() {
    let site = Site::new("tools/migrate:1");
    let name = default_replica(site.data.path());
    let first = site.replica(&name, FOREVER).await;
    let id = sync_of_running(&first, "shop").await;
    drop(first);
    let left = site.claim_of(&id).await;
    assert_eq!(
        left.0.as_deref(),
        Some(name.as_str()),
        "killed with its claim held"
    );

    // The next start over the same data directory takes the same name, finds the dead start's claim (an hour of
    // lease still to run, so nothing else could put it back) and hands it back as it starts: it runs again at
    // once, and the record says a restart, not a lapsed lease, put it back.
    let again = site
        .replica(&default_replica(site.data.path()), FOREVER)
        .await;
    let done = eventually("the operation to finish", 300, async || {
        let op = again.state.store.operation::<Operation>(&id).await.ok()??;
        op.phase.is_finished().then_some(op)
    })
    .await;
    assert_eq!(done.phase, OperationPhase::Succeeded, "{:?}", done.message);
    let replicas: Vec<&str> = done.attempts.iter().map(|a| a.replica.as_str()).collect();
    assert_eq!(replicas, [name.as_str(), name.as_str()]);
    let ended = done.attempts[0].ended.as_deref().unwrap_or_default();
    assert!(ended.contains("restarted"), "{ended}");
    assert!(!ended.contains("lease"), "{ended}");
    assert_eq!(
        image(&site.cluster.client, "shop", "web").await.as_deref(),
        Some("shop/web:1.0")
    );
    again.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_that_lost_its_claim_while_waiting_on_a_hook_stops_there_and_says_who_runs_the_operation_now()
 {
    // The hook's image cannot be pulled: its Job never finishes, and the sync waits on it for the wave's hour.
    let site = Site::new("tools/fail-pull:1");
    let server = site.replica("weft-0", Duration::from_secs(3)).await;
    let id = sync_of_running(&server, "shop").await;
    let logs = server.state.logs.clone();
    eventually("the sync to wait on its hook", 300, async || {
        logs.lines(&id)
            .iter()
            .any(|line| line.text.contains("running hook"))
            .then_some(())
    })
    .await;

    // Meanwhile (weft-0 frozen past its lease), another replica's start took the operation over.
    let mut connection = sqlx::SqliteConnection::connect(&site.store_url())
        .await
        .unwrap();
    sqlx::query("PRAGMA busy_timeout = 30000")
        .execute(&mut connection)
        .await
        .unwrap();
    let taken = sqlx::query(
        "UPDATE operations SET claimed_by = 'weft-1', claim_incarnation = '0000feedface0000', \
         lease_until = CAST(unixepoch('subsec') * 1000 AS INTEGER) + 3600000 WHERE id = $1 AND finished = 0",
    )
    .bind(&id)
    .execute(&mut connection)
    .await
    .unwrap();
    assert_eq!(taken.rows_affected(), 1);
    connection.close().await.unwrap();

    // weft-0's next renewal finds the claim gone: the operation stops at once, in the middle of its hook wait
    // (which would otherwise last the hour), and its log says who has it — not that it went back to the queue.
    let said = eventually("weft-0 to say it lost the claim", 300, async || {
        logs.lines(&id)
            .into_iter()
            .map(|line| line.text)
            .find(|text| text.contains("lost its claim"))
    })
    .await;
    assert!(
        said.contains("lost its claim to replica weft-1 (start 0000feed)"),
        "{said}"
    );
    assert!(said.contains("another replica now runs it"), "{said}");
    let lines: Vec<String> = logs.lines(&id).into_iter().map(|line| line.text).collect();
    assert!(
        !lines
            .iter()
            .any(|line| line.contains("queue") || line.contains("handed back")),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|line| line.starts_with("hook ")),
        "the hook wait ended without a verdict: {lines:#?}"
    );

    // It wrote nothing for the operation: still weft-1's, running. And weft-0 is not still waiting on the hook: it
    // stops without handing back anything (shutdown waits for what it runs).
    let stored = server
        .state
        .store
        .operation::<Operation>(&id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.phase, OperationPhase::Running, "{stored:#?}");
    tokio::time::timeout(Duration::from_secs(300), server.shutdown())
        .await
        .expect("weft-0 stops: nothing of it waits on the hook any more");
    assert_eq!(
        site.claim_of(&id).await,
        (Some("weft-1".into()), Some("0000feedface0000".into()))
    );
    let stored = site_operation(&site, &id).await;
    assert_eq!(stored.phase, OperationPhase::Running, "{stored:#?}");
    assert_eq!(stored.attempts.len(), 1, "{:#?}", stored.attempts);
    assert_eq!(stored.attempts[0].ended, None, "{:#?}", stored.attempts);
}

/// The operation as stored, read through a store handle of the test's own.
async fn site_operation(site: &Site, id: &str) -> Operation {
    let store = weft_store::Store::open(&site.store_url()).await.unwrap();
    let operation = store.operation::<Operation>(id).await.unwrap().unwrap();
    store.close().await;
    operation
}
