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

mod apps;
mod claimant;
mod error;
mod migrations;
mod plans;
mod queue;
pub mod record;
mod records;
mod replicas;
mod settings;
mod target;
mod tokens;

use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, Executor};

pub use apps::{AppOrigin, StoredApp};
pub use claimant::Claimant;
pub use error::StoreError;
pub use plans::QueryPlan;
pub use queue::Claimed;
pub use record::{AppRecord, OperationRecord, StateRecord};
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
/// There are two pools on one database: a patient one for background work, which rides out a busy moment, and a
/// small interactive one ([`Store::interactive`]) whose calls give up within [`INTERACTIVE_WAIT`], so a request
/// fails fast with the reason (an API answers 503) instead of hanging while the database is away.
#[derive(Debug, Clone)]
pub struct Store {
    /// The pool this handle's calls use.
    pool: AnyPool,
    /// The other pool, closed with this one (none for an in-memory database, which has one connection).
    sibling: Option<AnyPool>,
    /// Whether `pool` is the interactive one.
    interactive: bool,
    backend: Backend,
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
        let options = waiting(options.acquire_timeout(PATIENT), target.backend, PATIENT);
        let connect_error = |source| StoreError::Connect {
            target: target::redact(url),
            source,
        };
        let pool = options.connect(&target.url).await.map_err(connect_error)?;
        // Connected when first used: the patient pool has just proven the database is there.
        let interactive = (!target.memory).then(|| {
            let options = AnyPoolOptions::new()
                .max_connections(4)
                .acquire_timeout(INTERACTIVE_WAIT);
            waiting(options, target.backend, INTERACTIVE_WAIT).connect_lazy(&target.url)
        });
        let interactive = interactive.transpose().map_err(connect_error)?;
        if target.file.is_some() {
            // Persistent in the file: readers do not block the writer, nor it them.
            pool.execute("PRAGMA journal_mode = WAL")
                .await
                .map_err(connect_error)?;
        }
        migrations::run(&pool, target.backend).await?;
        Ok(Store {
            pool,
            sibling: interactive,
            interactive: false,
            backend: target.backend,
        })
    }

    /// A handle on the same database whose calls give up within [`INTERACTIVE_WAIT`] when the database is away
    /// or locked, with an error that [`StoreError::is_unavailable`] recognizes: for answering requests. Called
    /// on an interactive handle, or on an in-memory store, it returns the same kind of handle.
    pub fn interactive(&self) -> Store {
        match &self.sibling {
            Some(interactive) if !self.interactive => Store {
                pool: interactive.clone(),
                sibling: Some(self.pool.clone()),
                interactive: true,
                backend: self.backend,
            },
            _ => self.clone(),
        }
    }

    /// Whether the database answers a trivial query now (through this handle's pool).
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").fetch_one(&self.pool).await?;
        Ok(())
    }

    /// The database behind the store.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Closes every connection of this store's pools (and of its clones and interactive handles); later calls
    /// fail.
    pub async fn close(&self) {
        self.pool.close().await;
        if let Some(sibling) = &self.sibling {
            sibling.close().await;
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

/// Pool options that wait at most `wait` for another writer on SQLite (its busy timeout).
///
/// A SQLite connection is a file handle in this process, not a socket that can go stale, so it is not pinged
/// before each use (`test_before_acquire`): at 10,000 apps that ping took 2.7% of Weft's CPU, two fifths of the
/// store's.
fn waiting(options: AnyPoolOptions, backend: Backend, wait: Duration) -> AnyPoolOptions {
    match backend {
        Backend::Sqlite => {
            options
                .test_before_acquire(false)
                .after_connect(move |connection, _| {
                    Box::pin(async move {
                        let busy = format!("PRAGMA busy_timeout = {}", wait.as_millis());
                        connection.execute(busy.as_str()).await?;
                        Ok(())
                    })
                })
        }
        Backend::Postgres => options,
    }
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

    #[test]
    fn durations_and_counts_saturate() {
        assert_eq!(millis(Duration::from_millis(1500)), 1500);
        assert_eq!(millis(Duration::MAX), i64::MAX);
        assert_eq!(count(usize::MAX), i64::MAX);
        assert_eq!(to_usize(-1), 0);
    }
}
