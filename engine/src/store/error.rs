//! What can go wrong in the store.

use std::path::PathBuf;

/// A store failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The URL names no backend the store speaks (shown with its password hidden).
    #[error("store URL {0:?}: expected sqlite://PATH, sqlite::memory: or postgres://...")]
    UnsupportedUrl(String),
    /// The directory for the SQLite file could not be created.
    #[error("creating the store's directory {}: {source}", path.display())]
    CreateDirectory {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The database could not be opened or reached.
    #[error("opening the store {target}: {source}")]
    Connect {
        /// The URL, its password hidden.
        target: String,
        /// Why.
        #[source]
        source: sqlx::Error,
    },
    /// The schema could not be brought up to date.
    #[error("migrating the store's schema: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A query failed.
    #[error("store query failed: {0}")]
    Database(#[from] sqlx::Error),
    /// A stored record cannot be read back.
    #[error("stored {what} is unreadable: {reason}")]
    Corrupt {
        /// Which record (`operation op-1`, `app shop`, ...).
        what: String,
        /// Why.
        reason: String,
    },
    /// A value could not be turned into its stored form.
    #[error("{what} cannot be stored: {source}")]
    Serialize {
        /// Which value.
        what: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// The app already has an operation that is pending or running; one at a time per app.
    #[error("app {app:?} already has an unfinished operation {operation}")]
    AppBusy {
        /// The app.
        app: String,
        /// The unfinished operation's id.
        operation: String,
    },
    /// A decision made from a snapshot of the app is stale: another operation was queued since.
    #[error(
        "app {app} has had operation {operation} queued since the decision was made; it is made again"
    )]
    Superseded {
        /// The app.
        app: String,
        /// Its newest operation now.
        operation: String,
    },
    /// An operation with this id is already stored.
    #[error("operation {0} already exists")]
    DuplicateOperation(String),
    /// No operation has this id.
    #[error("no operation {0}")]
    UnknownOperation(String),
    /// The operation is already finished; its record no longer changes.
    #[error("operation {0} is already finished")]
    OperationFinished(String),
    /// The operation's phase does not fit the call: progress must be unfinished, a finish must be finished.
    #[error("operation {id}: phase {phase} does not fit: {expected}")]
    WrongPhase {
        /// The operation.
        id: String,
        /// Its phase, as stored.
        phase: String,
        /// What the call needs.
        expected: &'static str,
    },
    /// The operation is not claimed by this replica's incarnation (its lease ran out, a later start of the
    /// replica took its claims back, or it was never claimed).
    #[error("operation {id} is not claimed by replica {replica}")]
    NotClaimed {
        /// The operation.
        id: String,
        /// The replica (and its start) that thought it held it.
        replica: String,
    },
}

impl StoreError {
    /// Whether the database is away, locked or overloaded (a connection that cannot be had or was lost, a
    /// SQLite file another process holds, a PostgreSQL server shutting down), rather than the call being wrong:
    /// what a caller reports as "unavailable, try again" rather than as a fault of its own.
    pub fn is_unavailable(&self) -> bool {
        let error = match self {
            StoreError::Connect { source, .. } => source,
            StoreError::Database(error) => error,
            _ => return false,
        };
        match error {
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::WorkerCrashed
            | sqlx::Error::Protocol(_) => true,
            sqlx::Error::Database(database) => {
                let code = database.code().unwrap_or_default();
                // SQLite: BUSY (5) and LOCKED (6), with their extended codes; PostgreSQL: connection exceptions
                // (class 08) and the server shutting down or starting (57P01-57P03).
                let sqlite = code.parse::<u32>().is_ok_and(|n| matches!(n & 0xff, 5 | 6));
                sqlite || code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P03")
            }
            _ => false,
        }
    }
}
