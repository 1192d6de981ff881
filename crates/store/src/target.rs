//! Reading a store URL: which backend it names, the URL sqlx is given, the SQLite file whose directory must
//! exist, and the URL with its password hidden for messages.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::StoreError;

/// The database behind a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// SQLite, embedded: one file (or memory), one replica.
    Sqlite,
    /// PostgreSQL: several replicas share one queue.
    Postgres,
}

impl Backend {
    /// The backend's name: `sqlite` or `postgres`.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }

    /// How a writing transaction starts: SQLite takes the write lock up front (waiting on `busy_timeout`)
    /// so a transaction that reads first never fails to upgrade; PostgreSQL locks rows as it goes.
    pub(super) fn begin(self) -> &'static str {
        match self {
            Backend::Sqlite => "BEGIN IMMEDIATE",
            Backend::Postgres => "BEGIN",
        }
    }

    /// The database clock in unix milliseconds, as an SQL expression: every replica judges leases by the
    /// one clock.
    pub(super) fn now_millis(self) -> &'static str {
        match self {
            Backend::Sqlite => "CAST(unixepoch('subsec') * 1000 AS INTEGER)",
            Backend::Postgres => "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
        }
    }

    /// The suffix of a `SELECT` that takes rows for this transaction and passes over rows another
    /// transaction holds. SQLite needs none: `BEGIN IMMEDIATE` already made this the only writer.
    pub(super) fn skip_locked(self) -> &'static str {
        match self {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        }
    }

    /// A statement that makes claiming transactions take turns, for a fleet-wide count to stay true until the
    /// claim commits: PostgreSQL's transaction-scoped advisory lock; none on SQLite, whose one writer at a time
    /// already does.
    pub(super) fn claims_take_turns(self) -> Option<&'static str> {
        match self {
            Backend::Sqlite => None,
            // "weft" as a number: one lock for every replica's claims.
            Backend::Postgres => Some("SELECT pg_advisory_xact_lock(2003134836)"),
        }
    }

    /// The suffix of a `SELECT` that takes rows for this transaction, waiting for them if need be.
    pub(super) fn lock_rows(self) -> &'static str {
        match self {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE",
        }
    }
}

/// A store URL, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Target {
    /// The backend.
    pub backend: Backend,
    /// The URL for sqlx.
    pub url: String,
    /// The SQLite file, whose directory is created before opening.
    pub file: Option<PathBuf>,
    /// An SQLite database in memory (one connection keeps it alive).
    pub memory: bool,
}

static MEMORY_DATABASES: AtomicUsize = AtomicUsize::new(0);

/// Reads `sqlite://PATH`, `sqlite:PATH`, `sqlite::memory:` or `postgres://...` (`postgresql://...`).
///
/// A SQLite file is created when missing (`mode=rwc` unless the URL says otherwise). Each `sqlite::memory:`
/// store gets a database of its own, shared by the connections of its pool.
pub(super) fn parse(url: &str) -> Result<Target, StoreError> {
    let unsupported = || StoreError::UnsupportedUrl(weft_core::redact::url(url));
    if url == "sqlite::memory:" {
        let n = MEMORY_DATABASES.fetch_add(1, Ordering::Relaxed);
        return Ok(Target {
            backend: Backend::Sqlite,
            url: format!(
                "sqlite:file:weft-memory-{}-{n}?mode=memory&cache=shared",
                std::process::id()
            ),
            file: None,
            memory: true,
        });
    }
    if let Some(rest) = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
    {
        let (path, params) = rest.split_once('?').unwrap_or((rest, ""));
        if path.is_empty() || path.starts_with(':') {
            return Err(unsupported());
        }
        // `%XX` escapes decoded, as sqlx does for a SQLite path.
        let file = weft_core::percent::decode_strict(path).ok_or_else(unsupported)?;
        let has_mode = params.split('&').any(|pair| pair.starts_with("mode="));
        let params = match (params.is_empty(), has_mode) {
            (_, true) => params.to_string(),
            (true, false) => "mode=rwc".to_string(),
            (false, false) => format!("{params}&mode=rwc"),
        };
        return Ok(Target {
            backend: Backend::Sqlite,
            url: format!("sqlite://{path}?{params}"),
            file: Some(PathBuf::from(file)),
            memory: false,
        });
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(Target {
            backend: Backend::Postgres,
            url: url.to_string(),
            file: None,
            memory: false,
        });
    }
    Err(unsupported())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_files_are_created_unless_the_url_says_otherwise() {
        let target = parse("sqlite:///var/lib/weft/store.db").unwrap();
        assert_eq!(target.backend, Backend::Sqlite);
        assert_eq!(target.url, "sqlite:///var/lib/weft/store.db?mode=rwc");
        assert_eq!(target.file, Some(PathBuf::from("/var/lib/weft/store.db")));
        assert!(!target.memory);

        let target = parse("sqlite:data/my%20store.db?cache=private").unwrap();
        assert_eq!(
            target.url,
            "sqlite://data/my%20store.db?cache=private&mode=rwc"
        );
        assert_eq!(target.file, Some(PathBuf::from("data/my store.db")));

        let target = parse("sqlite://ro.db?mode=ro").unwrap();
        assert_eq!(target.url, "sqlite://ro.db?mode=ro");
    }

    #[test]
    fn each_memory_store_gets_its_own_database() {
        let a = parse("sqlite::memory:").unwrap();
        let b = parse("sqlite::memory:").unwrap();
        assert!(a.memory && b.memory);
        assert_ne!(a.url, b.url);
        assert!(a.url.contains("mode=memory") && a.url.contains("cache=shared"));
    }

    #[test]
    fn postgres_urls_pass_through_and_others_are_refused_without_their_password() {
        let target = parse("postgresql://weft@db:5432/weft").unwrap();
        assert_eq!(target.backend, Backend::Postgres);
        assert_eq!(target.url, "postgresql://weft@db:5432/weft");
        assert!(parse("postgres://a@b/c").is_ok());

        let error = parse("mysql://root:hunter2@db/weft").unwrap_err();
        let text = error.to_string();
        assert!(text.contains("mysql://root:***@db/weft"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
        assert!(matches!(
            parse("sqlite://"),
            Err(StoreError::UnsupportedUrl(_))
        ));
        assert!(matches!(
            parse("sqlite:bad%zz"),
            Err(StoreError::UnsupportedUrl(_))
        ));
    }
}
