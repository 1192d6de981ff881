//! The queue on a store whose disk fills mid-sync (issue 36, finding 9): the first write failed with "database or
//! disk is full", and from then on every writing transaction failed with "attempted to call begin_with at non-zero
//! transaction depth" long after space was freed (SQLite had rolled the failed transaction back itself, and sqlx
//! 0.8 let the connection back into its pool still counted inside it), while `/readyz` answered 200.
//!
//! One scenario ([`a_disk_fills_mid_sync`]) runs on three disks: a sync runs (its workload's apply slowed by a
//! simulator fault), the disk fills under it, four queue writes at once (64 KiB no database compresses, so each
//! needs room of its own) are refused as unwritable, hence unavailable ([`StoreError::is_unwritable`]), readiness
//! answers 503 while liveness stays 200, and the sync goes on in the cluster; once there is room again the sync's
//! end is recorded (succeeded, one attempt, one deploy in the history), readiness comes back and a sync queued
//! through the API is claimed and succeeds, all in the same server, never restarted.
//!
//! - SQLite's own `max_page_count` on every connection of the store ([`Store::limit_pages`]), the rest of the
//!   file's pages taken by ballast rows: a write that needs a page more fails with SQLITE_FULL, "database or disk
//!   is full". Runs anywhere.
//! - A real full filesystem under SQLite: the server's data directory (the database, its checkouts and render
//!   cache) on a 32 MiB tmpfs ([`SmallFilesystem`]), filled with a ballast file until ENOSPC. The store is in WAL
//!   mode, and a write-ahead log keeps the size it grew to, so on a full filesystem SQLite still commits what fits
//!   in the log's old room; ballast rows written by a connection of the test's own then take that room, as the
//!   queue's own writes would, and from then on a write fails with SQLITE_FULL as above. Freed: the ballast file
//!   removed, then the rows.
//! - PostgreSQL's data directory on a 128 MiB tmpfs ([`PostgresServer::start_in`]), filled with a ballast file
//!   written as root. What PostgreSQL 15 does then, as measured: a write that needs a new page of a heap or TOAST
//!   file fails with "could not extend file \"base/…\": No space left on device" (SQLSTATE 53100, refused as
//!   unwritable), and the server goes on; a write that fits in the pages the files already have still commits,
//!   and the readiness probe (an 8 KiB row that compresses well, inserted and deleted) passed in the runs
//!   measured, `/readyz` answering 200 while larger writes were refused: that stage is not asserted unready. Once the
//!   write-ahead log needs a new segment, PostgreSQL PANICs ("could not write to file \"pg_wal/xlogtemp.N\": No
//!   space left on device", 53100 at severity PANIC), its crash recovery fails for the same want of room (FATAL)
//!   and the postmaster shuts down: the store is away, `/readyz` answers 503, "the store does not answer".
//!   PostgreSQL does not come back by itself when room returns; the test frees the disk and starts it again
//!   (`pg_ctl start` on the same data), as an operator would, and Weft, not restarted, records the sync's end and
//!   runs the queue again. To make the order certain, the log is moved on to a fresh 16 MiB segment before the
//!   filesystem is filled (so the heap runs out first), the next segment is then forced (`pg_switch_wal()` and a
//!   logged message) rather than waited for, and the server makes no timed checkpoints, which would recycle an old
//!   segment as the next one.
//!
//! The mounts take root or CAP_SYS_ADMIN. Tests and CI run as root; where the mount is refused the two tmpfs tests
//! say so and are skipped, and under CI (`CI=true`) they fail instead.
//!
//! Besides, a PostgreSQL store that refuses writes while it answers (the server made read-only, SQLSTATE 25006,
//! classified with disk full as unwritable) fails the write probe that readiness makes and passes it again once it
//! takes writes; PostgreSQL's driver ends its count of the transaction on every rollback, so no connection is left
//! counted inside one.

use std::path::Path;
use std::time::Duration;

use axum::http::StatusCode;
use serde_json::{Value, json};
use sqlx::Connection as _;
use tempfile::TempDir;
use weft_apply::operation::{Operation, OperationPhase, Trigger};
use weft_engine::server::Server;
use weft_sim::{FaultRule, Verb};
use weft_store::{Store, StoreError};
use weft_test_reference::{PostgresServer, SmallFilesystem};
use weft_tests::GitRepo;

use crate::reliability::{call, router_of, sync_of_running};
use crate::serve::{app_toml, cluster, config, deployment, eventually, hook, image, options};

/// SQLite's primary result code for "database or disk is full".
const SQLITE_FULL: &str = "13";

/// A store's disk that fills mid-sync and gets its room back, and what the store says meanwhile.
trait Disk {
    /// What a write refused for want of room says (SQLite's SQLITE_FULL, unless told).
    const REFUSED: &str = "full";
    /// What `/readyz` says while the disk is full.
    const UNREADY: &[&str] = &["store unwritable", "full"];
    /// Whether the store still answers (a ping) while the disk is full.
    const ANSWERS: bool = true;

    /// Takes the room the store's next writes need.
    async fn fill(&mut self, server: &Server);

    /// Once writes have been refused: whatever more the full disk does to the store.
    async fn refused(&mut self) {}

    /// Gives the room back.
    async fn free(&mut self, server: &Server);
}

/// The full disk as SQLite's `max_page_count` on every connection of the store ([`Store::limit_pages`]), capped at
/// the pages the file has, the room left in them taken by ballast rows.
#[derive(Default)]
struct PageCap(Option<sqlx::SqliteConnection>);

impl Disk for PageCap {
    async fn fill(&mut self, server: &Server) {
        let mut filler = ballast_table(&server.config().store_url()).await;
        let pages: i64 = sqlx::query_scalar("PRAGMA page_count")
            .fetch_one(&mut filler)
            .await
            .unwrap();
        server
            .state
            .store
            .limit_pages(Some(u64::try_from(pages).unwrap()));
        sqlx::query(&format!("PRAGMA max_page_count = {pages}"))
            .execute(&mut filler)
            .await
            .unwrap();
        fill_ballast_table(&mut filler).await;
        self.0 = Some(filler);
    }

    async fn free(&mut self, server: &Server) {
        server.state.store.limit_pages(None);
        let mut filler = self.0.take().unwrap();
        sqlx::query("PRAGMA max_page_count = 4294967294")
            .execute(&mut filler)
            .await
            .unwrap();
        drop_ballast_table(filler).await;
    }
}

/// The full disk as a real one: the data directory on a small tmpfs, filled with a ballast file; the room SQLite
/// already holds in its write-ahead log then taken by ballast rows, as the queue's own writes would take it.
struct Tmpfs {
    filesystem: SmallFilesystem,
    filler: Option<sqlx::SqliteConnection>,
}

impl Disk for Tmpfs {
    async fn fill(&mut self, server: &Server) {
        let mut filler = ballast_table(&server.config().store_url()).await;
        let ballast = self.filesystem.fill().unwrap();
        println!("the ballast file took {ballast} bytes");
        assert!(ballast > 0, "the filesystem was full before the sync");
        fill_ballast_table(&mut filler).await;
        self.filler = Some(filler);
    }

    async fn free(&mut self, _server: &Server) {
        self.filesystem.free().unwrap();
        drop_ballast_table(self.filler.take().unwrap()).await;
    }
}

/// PostgreSQL's data directory on a small tmpfs, filled with a ballast file (written as root). Its heap files then
/// cannot grow: a write that needs a new page fails with "could not extend file ...: No space left on device"
/// (SQLSTATE 53100), one that fits in the pages the files have still passes. Once the write-ahead log needs a new
/// segment, PostgreSQL PANICs ("could not write to file \"pg_wal/xlogtemp...\": No space left on device"), its
/// recovery finds no room either, and it shuts down: the store is away until PostgreSQL is started again on the
/// freed disk.
struct PostgresDataDirectory {
    postgres: PostgresServer,
    filesystem: SmallFilesystem,
}

impl PostgresDataDirectory {
    /// Moves the write-ahead log on to a segment of its own: `pg_switch_wal()`, then a transactional logical message,
    /// whose commit is flushed into the next segment at once (a transaction that logged nothing else, such as
    /// `txid_current()`, commits asynchronously, and the log writer would create the segment later). Fails once
    /// that segment cannot be created.
    async fn next_wal_segment(&self) -> Result<(), sqlx::Error> {
        let mut admin = sqlx::PgConnection::connect(self.postgres.url()).await?;
        sqlx::query("SELECT pg_switch_wal()")
            .execute(&mut admin)
            .await?;
        sqlx::query("SELECT pg_logical_emit_message(true, 'weft', 'a full disk')")
            .execute(&mut admin)
            .await?;
        admin.close().await
    }
}

impl Disk for PostgresDataDirectory {
    const REFUSED: &str = "No space left on device";
    const UNREADY: &[&str] = &["the store does not answer"];
    const ANSWERS: bool = false;

    async fn fill(&mut self, _server: &Server) {
        // A fresh segment first, so that the heap's files run out of room before the log does.
        self.next_wal_segment().await.unwrap();
        let ballast = self.filesystem.fill().unwrap();
        println!("the ballast file took {ballast} bytes");
        assert!(ballast > 0, "the filesystem was full before the sync");
    }

    async fn refused(&mut self) {
        // The log's next segment: PostgreSQL panics, and shuts down for want of room to recover.
        let error = self.next_wal_segment().await.unwrap_err();
        let postgres = &self.postgres;
        eventually("PostgreSQL to shut down", 300, async || {
            (!postgres.is_running()).then_some(())
        })
        .await;
        let log = postgres.log();
        assert!(
            log.contains("PANIC:  could not write to file \"pg_wal/xlogtemp")
                && log.contains("No space left on device"),
            "{error}\n{log}"
        );
    }

    async fn free(&mut self, _server: &Server) {
        self.filesystem.free().unwrap();
        self.postgres.start_again();
    }
}

/// A connection of the test's own to the SQLite store at `url`, with an empty table `ballast`.
async fn ballast_table(url: &str) -> sqlx::SqliteConnection {
    let mut filler = sqlx::SqliteConnection::connect(url).await.unwrap();
    sqlx::query("PRAGMA busy_timeout = 30000")
        .execute(&mut filler)
        .await
        .unwrap();
    sqlx::query("CREATE TABLE ballast (n INTEGER PRIMARY KEY, fill BLOB)")
        .execute(&mut filler)
        .await
        .unwrap();
    filler
}

/// Fills the table `ballast` until SQLite refuses a byte more with SQLITE_FULL.
async fn fill_ballast_table(filler: &mut sqlx::SqliteConnection) {
    for size in [4000, 400, 40, 1] {
        loop {
            let inserted = sqlx::query("INSERT INTO ballast (fill) VALUES (zeroblob($1))")
                .bind(size)
                .execute(&mut *filler)
                .await;
            match inserted {
                Ok(_) => {}
                Err(sqlx::Error::Database(error))
                    if error.code().as_deref() == Some(SQLITE_FULL) =>
                {
                    break;
                }
                Err(error) => panic!("filling the store: {error}"),
            }
        }
    }
}

async fn drop_ballast_table(mut filler: sqlx::SqliteConnection) {
    sqlx::query("DROP TABLE ballast")
        .execute(&mut filler)
        .await
        .unwrap();
    filler.close().await.unwrap();
}

async fn finished(server: &Server, id: &str) -> Operation {
    eventually(&format!("{id} to finish"), 300, async || {
        let op = server.state.store.operation::<Operation>(id).await.ok()??;
        op.phase.is_finished().then_some(op)
    })
    .await
}

/// 64 KiB that no database compresses: a write that needs room of its own.
fn incompressible(n: usize) -> String {
    use sha2::Digest as _;
    (0..1024)
        .map(|i| hex::encode(sha2::Sha256::digest(format!("ballast-{n}-{i}"))))
        .collect()
}

/// The shop synced by a server whose data directory is `data` (and its store the one `store` names, when set):
/// a sync runs, `disk` fills under it, and the queue's writes are refused as unavailable, readiness says so while
/// liveness stays, the sync goes on in the cluster; once `disk` has room again the sync's end is recorded, readiness
/// comes back and a sync queued through the API is claimed and finishes, without a restart.
async fn a_disk_fills_mid_sync<D: Disk>(data: &Path, store: Option<&str>, mut disk: D) {
    let cluster = cluster();
    let repo = GitRepo::new();
    repo.commit(&[
        ("migrate.json", hook("migrate")),
        ("web.json", deployment("web", "shop/web:1.0", json!({}))),
    ]);
    let apps = app_toml("shop", repo.path(), "");
    let store_key = store
        .map(|url| format!("store = \"{url}\""))
        .unwrap_or_default();
    let server = Server::start(
        config(&cluster, data, &apps, &store_key),
        weft_tests::builtin_registry(),
        options("weft-0"),
    )
    .await
    .unwrap();
    let store = server.state.store.clone();
    let router = router_of(&server);
    let readiness = async |wanted: StatusCode| {
        let (status, text) = call(&router, "GET", "/readyz", crate::api::ADMIN).await;
        (status == wanted).then_some(text)
    };
    eventually("readiness", 300, async || readiness(StatusCode::OK).await).await;

    // A sync runs (its workload's apply slowed), and the disk fills under it.
    let slow = cluster.faults.add(FaultRule::new(
        Some(Verb::Patch),
        Some("deployments"),
        weft_sim::FaultAction::Latency(Duration::from_secs(3)),
    ));
    let id = sync_of_running(&server, "shop").await;
    disk.fill(&server).await;

    // The queue's writing transactions fail for want of room, and say so, as unavailable (a caller retries): four
    // at once, so that every connection of the pool has had one fail under it.
    let writes = (0..4).map(|n| {
        let operation = Operation::queued(
            format!("ballast-{n}"),
            format!("ballast-{n}"),
            Trigger::Manual,
        );
        let store = store.clone();
        async move {
            let request = json!({"kind": "sync", "padding": incompressible(n)});
            store.enqueue_if_latest(&operation, &request, None).await
        }
    });
    for written in futures::future::join_all(writes).await {
        let error: StoreError = written.unwrap_err();
        assert!(error.is_unwritable() && error.is_unavailable(), "{error:?}");
        assert!(error.to_string().contains(D::REFUSED), "{error}");
    }
    disk.refused().await;
    // Readiness says why the replica cannot work; liveness stays.
    let unready = eventually(
        "readiness to say the store cannot take writes",
        300,
        async || readiness(StatusCode::SERVICE_UNAVAILABLE).await,
    )
    .await;
    for says in D::UNREADY {
        assert!(unready.contains(says), "{unready}");
    }
    let (status, _) = call(&router, "GET", "/healthz", crate::api::ADMIN).await;
    assert_eq!(status, StatusCode::OK);
    if D::ANSWERS {
        store.ping().await.unwrap();
    }

    // The sync goes on in the cluster meanwhile.
    eventually("the sync to apply the workload", 300, async || {
        (image(&cluster.client, "shop", "web").await.as_deref() == Some("shop/web:1.0"))
            .then_some(())
    })
    .await;
    cluster.faults.remove(slow);

    // Room again: the sync's end is recorded, readiness comes back, and a sync queued through the API is claimed
    // and finishes — no connection is left counted inside a transaction the disk ended.
    disk.free(&server).await;
    let done = finished(&server, &id).await;
    assert_eq!(done.phase, OperationPhase::Succeeded, "{:?}", done.message);
    assert_eq!(done.attempts.len(), 1, "{:#?}", done.attempts);
    // Its log says it finished, and nothing of a lost claim or of a return to the queue.
    let lines: Vec<String> = server
        .state
        .logs
        .lines(&id)
        .into_iter()
        .map(|line| line.text)
        .collect();
    assert!(
        lines.iter().any(|line| line.starts_with("succeeded")),
        "{lines:#?}"
    );
    assert!(
        !lines
            .iter()
            .any(|line| line.contains("lost its claim") || line.contains("queue")),
        "{lines:#?}"
    );
    let history = store
        .app_state::<weft_engine::deploy::AppState>("shop")
        .await
        .unwrap()
        .history;
    assert_eq!(history.entries().count(), 1);
    eventually("readiness again", 300, async || {
        readiness(StatusCode::OK).await
    })
    .await;
    let (status, text) = call(&router, "POST", "/v1/deploy/shop/sync", crate::api::ADMIN).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{text}");
    let queued: Value = serde_json::from_str(&text).unwrap();
    let next = queued["id"].as_str().unwrap().to_string();
    let done = finished(&server, &next).await;
    assert_eq!(done.phase, OperationPhase::Succeeded, "{:?}", done.message);
    assert_eq!(done.attempts.len(), 1, "{:#?}", done.attempts);
    // None of the refused writes left anything behind.
    for n in 0..4 {
        assert!(
            store
                .operation::<Operation>(&format!("ballast-{n}"))
                .await
                .unwrap()
                .is_none()
        );
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_store_whose_disk_fills_mid_sync_is_unready_while_full_and_runs_the_queue_again_once_there_is_room()
 {
    let data = TempDir::new().unwrap();
    a_disk_fills_mid_sync(data.path(), None, PageCap::default()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sqlite_store_on_a_small_filesystem_filled_mid_sync_is_unready_while_full_and_runs_the_queue_again_once_freed()
 {
    let Some(filesystem) = SmallFilesystem::mount_or_skip(32 * 1024 * 1024) else {
        return;
    };
    let data = filesystem.path().to_path_buf();
    let disk = Tmpfs {
        filesystem,
        filler: None,
    };
    a_disk_fills_mid_sync(&data, None, disk).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_postgresql_store_whose_data_directory_fills_mid_sync_refuses_writes_then_stops_and_the_queue_runs_again_once_it_is_started_on_the_freed_disk()
 {
    let Some(filesystem) = SmallFilesystem::mount_or_skip(128 * 1024 * 1024) else {
        return;
    };
    let data = TempDir::new().unwrap();
    let disk = PostgresDataDirectory {
        postgres: PostgresServer::start_in(filesystem.path()),
        filesystem,
    };
    let url = disk.postgres.url().to_string();
    a_disk_fills_mid_sync(data.path(), Some(&url), disk).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_postgresql_store_that_refuses_writes_fails_the_write_probe_while_it_answers_and_passes_it_once_it_writes_again()
 {
    let postgres = PostgresServer::start();
    let store = Store::open(postgres.url()).await.unwrap();
    store.probe_write().await.unwrap();
    store.interactive().probe_write().await.unwrap();
    let mut admin = sqlx::PgConnection::connect(postgres.url()).await.unwrap();
    let run = async |admin: &mut sqlx::PgConnection, sql: &str| {
        sqlx::query(sql).execute(admin).await.unwrap();
    };
    // The server made read-only for every session but this one.
    run(&mut admin, "SET default_transaction_read_only = off").await;
    run(
        &mut admin,
        "ALTER SYSTEM SET default_transaction_read_only = on",
    )
    .await;
    run(&mut admin, "SELECT pg_reload_conf()").await;
    for handle in [store.clone(), store.interactive()] {
        let error = eventually("the probe to be refused", 300, async || {
            handle.probe_write().await.err()
        })
        .await;
        assert!(error.is_unwritable() && error.is_unavailable(), "{error:?}");
        assert!(error.to_string().contains("read-only"), "{error}");
        handle.ping().await.unwrap();
    }
    let error = store.put_setting("concurrency", "2").await.unwrap_err();
    assert!(error.is_unwritable(), "{error:?}");

    run(
        &mut admin,
        "ALTER SYSTEM RESET default_transaction_read_only",
    )
    .await;
    run(&mut admin, "SELECT pg_reload_conf()").await;
    for handle in [store.clone(), store.interactive()] {
        eventually("the probe to pass again", 300, async || {
            handle.probe_write().await.ok()
        })
        .await;
    }
    store.put_setting("concurrency", "2").await.unwrap();
    admin.close().await.unwrap();
    store.close().await;
}
