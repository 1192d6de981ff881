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
    /// The system's randomness could not make a secret.
    #[error("the system's randomness is unavailable: {0}")]
    Random(getrandom::Error),
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
    /// Whether the database is away, locked, overloaded or cannot write for now (a connection that cannot be had
    /// or was lost, a SQLite file another process holds, a PostgreSQL server shutting down, a full disk or a
    /// failing one), rather than the call being wrong: what a caller reports as "unavailable, try again" rather
    /// than as a fault of its own.
    pub fn is_unavailable(&self) -> bool {
        if self.is_unwritable() {
            return true;
        }
        let Some(error) = self.sqlx() else {
            return false;
        };
        match error {
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::WorkerCrashed
            | sqlx::Error::Protocol(_) => true,
            // SQLite: BUSY (5) and LOCKED (6), with their extended codes; PostgreSQL: connection exceptions (class
            // 08) and the server shutting down or starting (57P01-57P03).
            sqlx::Error::Database(database) => match code_of(database.as_ref()) {
                Code::Sqlite(primary) => matches!(primary, 5 | 6),
                Code::Postgres(state) => {
                    state.starts_with("08") || matches!(&*state, "57P01" | "57P02" | "57P03")
                }
                Code::Other => false,
            },
            _ => false,
        }
    }

    /// Whether the database refuses writes for want of room or of a working disk: SQLite FULL (13, "database or
    /// disk is full"), IOERR (10) and READONLY (8), with their extended codes; PostgreSQL's insufficient
    /// resources (class 53: disk full, out of memory, too many connections), I/O error (58030) and a read-only
    /// transaction (25006). It passes when room comes back, so it counts as [unavailable](Self::is_unavailable):
    /// callers retry rather than fail what they were doing for good.
    pub fn is_unwritable(&self) -> bool {
        let Some(sqlx::Error::Database(database)) = self.sqlx() else {
            return false;
        };
        match code_of(database.as_ref()) {
            Code::Sqlite(primary) => matches!(primary, 8 | 10 | 13),
            Code::Postgres(state) => {
                state.starts_with("53") || matches!(&*state, "58030" | "25006")
            }
            Code::Other => false,
        }
    }

    /// The database driver's error behind this one, if any.
    fn sqlx(&self) -> Option<&sqlx::Error> {
        match self {
            StoreError::Connect { source, .. } => Some(source),
            StoreError::Database(error) => Some(error),
            _ => None,
        }
    }
}

/// A database error's code, by backend.
#[derive(Debug, PartialEq, Eq)]
enum Code {
    /// SQLite's primary result code (the low byte of its extended code).
    Sqlite(u32),
    /// PostgreSQL's SQLSTATE.
    Postgres(String),
    /// Neither, or no code.
    Other,
}

fn code_of(error: &dyn sqlx::error::DatabaseError) -> Code {
    if error
        .try_downcast_ref::<sqlx::sqlite::SqliteError>()
        .is_some()
    {
        return error
            .code()
            .and_then(|code| code.parse::<u32>().ok())
            .map_or(Code::Other, |n| Code::Sqlite(n & 0xff));
    }
    match error.code() {
        Some(state)
            if error
                .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
                .is_some() =>
        {
            Code::Postgres(state.into_owned())
        }
        _ => Code::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A SQLite error as the driver reports it, from a statement that fails the way `sql` makes it.
    async fn sqlite_error(setup: &[&str], sql: &str) -> StoreError {
        use sqlx::{Connection as _, Executor as _};
        let mut connection = sqlx::sqlite::SqliteConnection::connect("sqlite::memory:")
            .await
            .unwrap();
        for statement in setup {
            connection.execute(*statement).await.unwrap();
        }
        StoreError::Database(connection.execute(sql).await.unwrap_err())
    }

    #[tokio::test]
    async fn a_full_sqlite_database_is_unwritable_and_so_unavailable_and_a_wrong_statement_is_neither()
     {
        let full = sqlite_error(
            &["CREATE TABLE t (x)", "PRAGMA max_page_count = 2"],
            "INSERT INTO t VALUES (zeroblob(100000))",
        )
        .await;
        assert!(full.to_string().contains("full"), "{full}");
        assert!(full.is_unwritable() && full.is_unavailable(), "{full:?}");
        let read_only = sqlite_error(&["PRAGMA query_only = 1"], "CREATE TABLE t (x)").await;
        assert!(read_only.is_unwritable(), "{read_only:?}");
        let wrong = sqlite_error(&[], "SELECT * FROM nowhere").await;
        assert!(
            !wrong.is_unwritable() && !wrong.is_unavailable(),
            "{wrong:?}"
        );
        assert!(!StoreError::UnknownOperation("op".into()).is_unavailable());
        assert!(StoreError::Database(sqlx::Error::PoolTimedOut).is_unavailable());
        assert!(!StoreError::Database(sqlx::Error::PoolTimedOut).is_unwritable());
    }
}
