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
    /// The operation is not claimed by this replica (its lease ran out, or it was never claimed).
    #[error("operation {id} is not claimed by replica {replica:?}")]
    NotClaimed {
        /// The operation.
        id: String,
        /// The replica that thought it held it.
        replica: String,
    },
}
