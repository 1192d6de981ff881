//! The store: apps, their state, the operation queue, settings and API tokens, kept in SQLite (embedded, the
//! default: one file, one replica) or PostgreSQL (several replicas share one queue).
//!
//! One code path serves both: sqlx's `Any` driver with SQL that both databases accept (`$1` placeholders,
//! `ON CONFLICT` upserts, partial indexes). The few fragments that differ — how a writing transaction begins,
//! row locking (`FOR UPDATE SKIP LOCKED`) and the database clock — come from [`Backend`]. Records (apps, app
//! state, operations, requests) are stored as JSON text beside the columns queries need; queue times (creation,
//! leases) are unix milliseconds from the database's clock, so replicas with skewed clocks agree on leases.
//! The schema is embedded in the binary and migrated on open.
//!
//! Every write is committed when its call returns, so a caller can start the work it records.
//!
//! This crate (`weft-store`) is the workspace's one user of sqlx, and the schema's migrations are here with it. It
//! keeps records it knows only through the traits of [`record`] (the engine's apps, states and operations implement
//! them), so it must not depend on the engine or on anything above `weft-core`.

mod apps;
mod claimant;
mod error;
mod migrations;
mod plans;
mod queue;
pub mod record;
mod records;
mod render_secrets;
mod replicas;
mod settings;
pub use settings::RESOURCE_ACTIONS_PREFIX;
mod target;
mod tokens;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, Connection as _, Executor};

pub use apps::{AppOrigin, StoredApp};
pub use claimant::Claimant;
pub use error::StoreError;
pub use plans::QueryPlan;
pub use queue::{Claimed, Holder};
pub use record::{AppRecord, OperationRecord, StateRecord};
pub use render_secrets::{RENDER_SECRET_LEN, RenderSecret};
pub use replicas::PublishedView;
pub use target::Backend;
pub use tokens::StoredToken;

/// How long background work (the queue, the reconciler) waits for a connection or, on SQLite, another writer.
const PATIENT: Duration = Duration::from_secs(10);

/// How long a call through the [interactive](Store::interactive) handle waits before the store counts as
/// unavailable: an API route answers within a second, whatever the database is doing.
pub const INTERACTIVE_WAIT: Duration = Duration::from_millis(800);

/// The store: a handle on a connection pool; clones are cheap and share it.
///
/// There are three pools on one database: a patient one for background work, which rides out a busy moment; a
/// small interactive one ([`Store::interactive`]) whose calls give up within [`INTERACTIVE_WAIT`], so a request
/// fails fast with the reason (an API answers 503) instead of hanging while the database is away; and one
/// connection for renewing leases ([`Store::leases`]), which never waits behind the rest of the work for a
/// connection.
#[derive(Debug, Clone)]
pub struct Store {
    /// The pool this handle's calls use.
    pool: AnyPool,
    /// Every pool on the database, closed together.
    pools: Arc<Pools>,
    backend: Backend,
    /// A cap on the SQLite file's pages that every connection takes before use ([`Store::limit_pages`]): 0 for
    /// none ever set.
    page_limit: Arc<AtomicU64>,
}

/// The pools on one database. An in-memory database has only the patient one: the database lives as long as its
/// one connection.
#[derive(Debug)]
struct Pools {
    patient: AnyPool,
    interactive: Option<AnyPool>,
    leases: Option<AnyPool>,
}

impl Store {
    /// Opens the store at `url` and brings its schema up to date.
    ///
    /// `sqlite://PATH` (or `sqlite:PATH`) opens a file, creating it and its directories, in WAL mode;
    /// `sqlite::memory:` keeps the store in memory for as long as the handle lives; `postgres://...` connects
    /// to PostgreSQL (TLS through rustls when the URL asks for it, e.g. `?sslmode=require`).
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let target = target::parse(url)?;
        if let Some(directory) = target.file.as_ref().and_then(|file| file.parent())
            && !directory.as_os_str().is_empty()
        {
            std::fs::create_dir_all(directory).map_err(|source| StoreError::CreateDirectory {
                path: directory.to_path_buf(),
                source,
            })?;
        }
        let options = match (target.backend, target.memory) {
            // The database lives as long as a connection to it: keep exactly one, forever.
            (Backend::Sqlite, true) => AnyPoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None),
            (Backend::Sqlite, false) => AnyPoolOptions::new().max_connections(4),
            (Backend::Postgres, _) => AnyPoolOptions::new().max_connections(10),
        };
        let page_limit = Arc::new(AtomicU64::new(0));
        let options = waiting(
            options.acquire_timeout(PATIENT),
            target.backend,
            PATIENT,
            &page_limit,
        );
        let connect_error = |source| StoreError::Connect {
            target: weft_core::redact::url(url),
            source,
        };
        let pool = options.connect(&target.url).await.map_err(connect_error)?;
        // Connected when first used: the patient pool has just proven the database is there.
        let interactive = (!target.memory).then(|| {
            let options = AnyPoolOptions::new()
                .max_connections(4)
                .acquire_timeout(INTERACTIVE_WAIT);
            waiting(options, target.backend, INTERACTIVE_WAIT, &page_limit)
                .connect_lazy(&target.url)
        });
        let interactive = interactive.transpose().map_err(connect_error)?;
        // One connection of its own, connected when first used.
        let leases = (!target.memory).then(|| {
            let options = AnyPoolOptions::new()
                .max_connections(1)
                .acquire_timeout(PATIENT);
            waiting(options, target.backend, PATIENT, &page_limit).connect_lazy(&target.url)
        });
        let leases = leases.transpose().map_err(connect_error)?;
        if target.file.is_some() {
            // Persistent in the file: readers do not block the writer, nor it them.
            pool.execute("PRAGMA journal_mode = WAL")
                .await
                .map_err(connect_error)?;
        }
        migrations::run(&pool, target.backend).await?;
        Ok(Store {
            pool: pool.clone(),
            pools: Arc::new(Pools {
                patient: pool,
                interactive,
                leases,
            }),
            backend: target.backend,
            page_limit,
        })
    }

    /// A handle on the same database whose calls give up within [`INTERACTIVE_WAIT`] when the database is away
    /// or locked, with an error that [`StoreError::is_unavailable`] recognizes: for answering requests. Called
    /// on an interactive handle, or on an in-memory store, it returns the same kind of handle.
    pub fn interactive(&self) -> Store {
        self.through(self.pools.interactive.as_ref())
    }

    /// A handle on the same database whose calls go through a connection of their own, patient like background
    /// work but never waiting behind it for a connection: for renewing leases, which must come on time however
    /// busy the store is (on SQLite they still take their turn at its one writer). On an in-memory store, the same
    /// handle.
    pub fn leases(&self) -> Store {
        self.through(self.pools.leases.as_ref())
    }

    /// A handle whose calls go through `pool`, this one's when there is none.
    fn through(&self, pool: Option<&AnyPool>) -> Store {
        Store {
            pool: pool.unwrap_or(&self.pool).clone(),
            ..self.clone()
        }
    }

    /// Whether the database answers a trivial query now (through this handle's pool).
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").fetch_one(&self.pool).await?;
        Ok(())
    }

    /// Whether the database takes a write now (through this handle's pool): a transaction that writes a row
    /// big enough to need pages of its own (8 KiB, into the settings table) and deletes it again before it
    /// commits, so nothing stays and no reader ever sees it. A full disk, a failing one or a read-only database
    /// fails it as it fails the queue's writes ([`StoreError::is_unwritable`]), while a ping still answers.
    pub async fn probe_write(&self) -> Result<(), StoreError> {
        static PROBES: AtomicU64 = AtomicU64::new(0);
        let key = format!(
            "weft.store-probe.{}.{}",
            std::process::id(),
            PROBES.fetch_add(1, Ordering::Relaxed)
        );
        let payload = "weft store probe ".repeat(PROBE_BYTES / 17 + 1);
        let mut transaction = self.begin().await?;
        sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2)")
            .bind(&key)
            .bind(payload)
            .execute(&mut *transaction)
            .await?;
        sqlx::query("DELETE FROM settings WHERE key = $1")
            .bind(&key)
            .execute(&mut *transaction)
            .await?;
        transaction.commit().await?;
        Ok(())
    }

    /// Caps the SQLite database at `pages` pages (`PRAGMA max_page_count`, taken by every connection of every
    /// handle on this store before its next use), or lifts the cap (`None`): a full disk on demand, for tests and
    /// drills. A write that needs a page beyond the cap fails with SQLITE_FULL, "database or disk is full", and
    /// SQLite rolls its transaction back, as when the filesystem fills. A cap below the file's size holds it at
    /// its size. No effect on PostgreSQL.
    pub fn limit_pages(&self, pages: Option<u64>) {
        // SQLite's largest page count: what a lifted cap sets.
        const UNCAPPED: u64 = 4_294_967_294;
        let pages = pages.map_or(UNCAPPED, |pages| pages.clamp(1, UNCAPPED));
        self.page_limit.store(pages, Ordering::Relaxed);
    }

    /// The database behind the store.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Closes every connection of this store's pools (and of its clones and other handles); later calls fail.
    pub async fn close(&self) {
        let pools = &self.pools;
        for pool in [
            Some(&pools.patient),
            pools.interactive.as_ref(),
            pools.leases.as_ref(),
        ]
        .into_iter()
        .flatten()
        {
            pool.close().await;
        }
    }

    /// The database clock in unix milliseconds, as an SQL expression.
    fn now(&self) -> &'static str {
        self.backend.now_millis()
    }

    /// Starts a writing transaction.
    async fn begin(&self) -> Result<sqlx::Transaction<'static, sqlx::Any>, StoreError> {
        Ok(self.pool.begin_with(self.backend.begin()).await?)
    }
}

/// How big the row of a [write probe](Store::probe_write) is: more than a page (SQLite's are 4 KiB), so that it
/// needs pages of its own rather than room left in one.
const PROBE_BYTES: usize = 8 * 1024;

/// Pool options that wait at most `wait` for another writer on SQLite (its busy timeout), and that let no
/// connection back into the pool, or out of it, inside a transaction ([`settle`]).
///
/// A SQLite connection is a file handle in this process, not a socket that can go stale, so it is not pinged
/// before each use (`test_before_acquire`): at 10,000 apps that ping took 2.7% of Weft's CPU, two fifths of the
/// store's.
fn waiting(
    options: AnyPoolOptions,
    backend: Backend,
    wait: Duration,
    page_limit: &Arc<AtomicU64>,
) -> AnyPoolOptions {
    let options = options.after_release(move |connection, _| Box::pin(settle(connection, backend)));
    match backend {
        Backend::Sqlite => {
            let (on_connect, on_acquire) = (page_limit.clone(), page_limit.clone());
            options
                .test_before_acquire(false)
                .after_connect(move |connection, _| {
                    let pages = on_connect.load(Ordering::Relaxed);
                    Box::pin(async move {
                        let busy = format!("PRAGMA busy_timeout = {}", wait.as_millis());
                        connection.execute(busy.as_str()).await?;
                        cap_pages(connection, pages).await
                    })
                })
                .before_acquire(move |connection, _| {
                    let pages = on_acquire.load(Ordering::Relaxed);
                    Box::pin(async move {
                        if !settle(connection, backend).await? {
                            return Ok(false);
                        }
                        cap_pages(connection, pages).await?;
                        Ok(true)
                    })
                })
        }
        Backend::Postgres => options,
    }
}

/// Applies a [page cap](Store::limit_pages) to a SQLite connection, when one was ever set (0: never).
async fn cap_pages(connection: &mut sqlx::AnyConnection, pages: u64) -> Result<(), sqlx::Error> {
    if pages != 0 {
        let cap = format!("PRAGMA max_page_count = {pages}");
        connection.execute(cap.as_str()).await?;
    }
    Ok(())
}

/// Whether a connection going back to its pool (or coming out of it) may be used again: `true` once it is outside
/// any transaction; `false`, with a warning, for one that cannot be brought out, which the pool then closes.
///
/// A transaction dropped without a commit asks the driver for a rollback on its way back. When SQLite has already
/// rolled the transaction back itself — what it does when a write fails with SQLITE_FULL, IOERR or NOMEM — the
/// driver's ROLLBACK fails ("no transaction is active") and sqlx 0.8 keeps counting the connection as inside a
/// transaction, so every later `BEGIN` on it failed with "attempted to call begin_with at non-zero transaction
/// depth", long after the disk had room again. Such a connection is set straight (a transaction opened behind the
/// driver's back for its rollback to end); one that really is inside a transaction is discarded.
async fn settle(
    connection: &mut sqlx::AnyConnection,
    backend: Backend,
) -> Result<bool, sqlx::Error> {
    if !connection.is_in_transaction() {
        return Ok(true);
    }
    // A dropped transaction's rollback may still be on its way to the connection: a round trip lets it land.
    connection.ping().await?;
    if !connection.is_in_transaction() {
        return Ok(true);
    }
    if backend == Backend::Sqlite && connection.execute("BEGIN").await.is_ok() {
        // SQLite took the BEGIN, so no transaction was open: the driver's rollback of this one evens its count.
        let rolled_back = <<sqlx::Any as sqlx::Database>::TransactionManager as sqlx::TransactionManager>::rollback(
            connection,
        )
        .await;
        if rolled_back.is_ok() && !connection.is_in_transaction() {
            tracing::warn!(
                "a store connection came back counted inside a transaction the database had already ended (a \
                 write failed: a full disk?); it was set straight"
            );
            return Ok(true);
        }
    }
    tracing::warn!(
        "a store connection came back inside a transaction that could not be rolled back; it is closed, and the \
         pool opens another"
    );
    Ok(false)
}

/// A value in its stored form (JSON text).
fn encode<T: Serialize + ?Sized>(
    what: impl Fn() -> String,
    value: &T,
) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|source| StoreError::Serialize {
        what: what(),
        source,
    })
}

/// A stored record read back.
fn decode<T: DeserializeOwned>(what: impl Fn() -> String, text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|error| StoreError::Corrupt {
        what: what(),
        reason: error.to_string(),
    })
}

/// A duration in whole milliseconds, for SQL (saturating).
fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// A count or limit for SQL (saturating).
fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A count from SQL.
fn to_usize(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_memory_store_keeps_its_data_across_calls_and_apart_from_other_stores() {
        let store = Store::open("sqlite::memory:").await.unwrap();
        let other = Store::open("sqlite::memory:").await.unwrap();
        assert_eq!(store.backend(), Backend::Sqlite);
        store.put_setting("concurrency", "4").await.unwrap();
        for _ in 0..3 {
            assert_eq!(
                store.setting("concurrency").await.unwrap().as_deref(),
                Some("4")
            );
        }
        assert_eq!(other.setting("concurrency").await.unwrap(), None);
        store.put_setting("concurrency", "8").await.unwrap();
        assert_eq!(
            store
                .clone()
                .setting("concurrency")
                .await
                .unwrap()
                .as_deref(),
            Some("8")
        );
    }

    /// Caps `store` at the pages it has and fills what room is left in them, as a full filesystem would.
    async fn fill(store: &Store) {
        let pages: i64 = sqlx::query_scalar("PRAGMA page_count")
            .fetch_one(&store.pool)
            .await
            .unwrap();
        store.limit_pages(Some(u64::try_from(pages).unwrap()));
        let mut n = 0;
        for size in [3000, 300, 30, 1] {
            loop {
                n += 1;
                match store
                    .put_setting(&format!("ballast.{n}"), &"x".repeat(size))
                    .await
                {
                    Ok(()) => {}
                    Err(error) if error.is_unwritable() => break,
                    Err(error) => panic!("filling the store: {error}"),
                }
            }
        }
    }

    #[tokio::test]
    async fn a_write_probe_leaves_nothing_behind() {
        let store = Store::open("sqlite::memory:").await.unwrap();
        store.probe_write().await.unwrap();
        store.interactive().probe_write().await.unwrap();
        assert_eq!(store.settings_with_prefix("weft.").await.unwrap(), []);
    }

    #[tokio::test]
    async fn writes_that_fail_on_a_full_disk_leave_no_connection_stuck_and_go_through_once_there_is_room()
     {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("weft.db").display());
        let store = Store::open(&url).await.unwrap();
        fill(&store).await;
        // Failing writing transactions on every connection of both pools: SQLite rolls each back itself.
        for _ in 0..3 {
            let attempts = (0..6).map(|_| store.probe_write());
            for outcome in futures::future::join_all(attempts).await {
                let error = outcome.unwrap_err();
                assert!(error.is_unwritable() && error.is_unavailable(), "{error:?}");
                assert!(error.to_string().contains("full"), "{error}");
            }
            let error = store.interactive().probe_write().await.unwrap_err();
            assert!(error.is_unwritable(), "{error:?}");
        }
        store.ping().await.unwrap();

        // Room again: every connection takes a transaction (none still counts itself inside the failed one).
        store.limit_pages(None);
        for _ in 0..3 {
            let attempts = (0..6).map(|_| store.probe_write());
            for outcome in futures::future::join_all(attempts).await {
                outcome.unwrap();
            }
            store.interactive().probe_write().await.unwrap();
        }
        store.put_setting("concurrency", "3").await.unwrap();
        store.close().await;
    }

    #[tokio::test]
    async fn an_in_memory_store_keeps_its_data_when_a_write_fails_for_want_of_room() {
        let store = Store::open("sqlite::memory:").await.unwrap();
        store.put_setting("concurrency", "4").await.unwrap();
        fill(&store).await;
        for _ in 0..3 {
            assert!(store.probe_write().await.unwrap_err().is_unwritable());
        }
        store.limit_pages(None);
        store.probe_write().await.unwrap();
        assert_eq!(
            store.setting("concurrency").await.unwrap().as_deref(),
            Some("4")
        );
    }

    #[test]
    fn durations_and_counts_saturate() {
        assert_eq!(millis(Duration::from_millis(1500)), 1500);
        assert_eq!(millis(Duration::MAX), i64::MAX);
        assert_eq!(count(usize::MAX), i64::MAX);
        assert_eq!(to_usize(-1), 0);
    }
}
