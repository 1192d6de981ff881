//! The store's schema: SQL migrations embedded in the binary, one set per backend (the DDL differs only where
//! the databases do), applied on open by sqlx's migrator (versioned, checksummed, under PostgreSQL's advisory
//! lock so replicas starting together migrate once).

use std::borrow::Cow;

use futures::future::BoxFuture;
use sqlx::AnyPool;
use sqlx::error::BoxDynError;
use sqlx::migrate::{MigrateError, Migration, MigrationSource, MigrationType, Migrator};

use super::Backend;

/// One migration: its version, description and SQL.
type Step = (i64, &'static str, &'static str);

const SQLITE: &[Step] = &[
    (
        1,
        "initial",
        include_str!("migrations/sqlite/0001_initial.sql"),
    ),
    (
        2,
        "lease index",
        include_str!("migrations/sqlite/0002_lease_index.sql"),
    ),
    (
        3,
        "claim incarnation",
        include_str!("migrations/sqlite/0003_claim_incarnation.sql"),
    ),
    (
        4,
        "replicas",
        include_str!("migrations/sqlite/0004_replicas.sql"),
    ),
    (
        5,
        "legacy tracking",
        include_str!("migrations/sqlite/0005_legacy_tracking.sql"),
    ),
    (
        6,
        "render secrets",
        include_str!("migrations/sqlite/0006_render_secrets.sql"),
    ),
    (
        7,
        "token names",
        include_str!("migrations/sqlite/0007_token_names.sql"),
    ),
];

const POSTGRES: &[Step] = &[
    (
        1,
        "initial",
        include_str!("migrations/postgres/0001_initial.sql"),
    ),
    (
        2,
        "lease index",
        include_str!("migrations/postgres/0002_lease_index.sql"),
    ),
    (
        3,
        "claim incarnation",
        include_str!("migrations/postgres/0003_claim_incarnation.sql"),
    ),
    (
        4,
        "replicas",
        include_str!("migrations/postgres/0004_replicas.sql"),
    ),
    (
        5,
        "legacy tracking",
        include_str!("migrations/postgres/0005_legacy_tracking.sql"),
    ),
    (
        6,
        "render secrets",
        include_str!("migrations/postgres/0006_render_secrets.sql"),
    ),
    (
        7,
        "token names",
        include_str!("migrations/postgres/0007_token_names.sql"),
    ),
];

/// The migrations for a backend, as sqlx's migrator reads them.
#[derive(Debug, Clone, Copy)]
struct Embedded(&'static [Step]);

impl MigrationSource<'static> for Embedded {
    fn resolve(self) -> BoxFuture<'static, Result<Vec<Migration>, BoxDynError>> {
        Box::pin(async move {
            Ok(self
                .0
                .iter()
                .map(|&(version, description, sql)| {
                    Migration::new(
                        version,
                        Cow::Borrowed(description),
                        MigrationType::Simple,
                        Cow::Borrowed(sql),
                        false,
                    )
                })
                .collect())
        })
    }
}

fn steps(backend: Backend) -> &'static [Step] {
    match backend {
        Backend::Sqlite => SQLITE,
        Backend::Postgres => POSTGRES,
    }
}

/// Applies the migrations the database has not had yet; a database migrated by a newer Weft is refused.
pub(super) async fn run(pool: &AnyPool, backend: Backend) -> Result<(), MigrateError> {
    let migrator = Migrator::new(Embedded(steps(backend))).await?;
    migrator.run(pool).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_backends_have_the_same_migrations() {
        let versions = |steps: &[Step]| -> Vec<(i64, &str)> {
            steps.iter().map(|&(v, d, _)| (v, d)).collect()
        };
        assert_eq!(versions(SQLITE), versions(POSTGRES));
        for steps in [SQLITE, POSTGRES] {
            assert!(steps.windows(2).all(|w| w[0].0 < w[1].0));
        }
    }

    #[test]
    fn the_schemas_name_the_same_tables_and_indexes() {
        let names = |sql: &str| -> Vec<String> {
            sql.lines()
                .filter(|line| line.starts_with("CREATE") || line.starts_with("ALTER"))
                .map(|line| line.split('(').next().unwrap_or(line).trim().to_string())
                .collect()
        };
        for (sqlite, postgres) in SQLITE.iter().zip(POSTGRES) {
            assert_eq!(names(sqlite.2), names(postgres.2));
            assert!(!names(sqlite.2).is_empty());
        }
    }
}
