//! Operation records: progress while an operation runs, the finish (record and app state in one transaction),
//! and reading them back.

use sqlx::Row;

use super::apps::upsert_state_sql;
use super::claimant::Claimant;
use super::record::{OperationRecord, StateRecord};
use super::{Store, StoreError, count, decode, encode, to_usize};

/// An app's operations, newest first, at most `$2`.
pub(super) const APP_OPERATIONS: &str =
    "SELECT id, body FROM operations WHERE app = $1 ORDER BY seq DESC LIMIT $2";

/// The queue depth: pending, unclaimed operations.
pub(super) const PENDING_COUNT: &str =
    "SELECT COUNT(*) AS n FROM operations WHERE finished = 0 AND claimed_by IS NULL";

/// Deletes app `$1`'s finished operations that finished more than `$2` ms ago, but its newest `$3` finished ones.
pub(super) fn prune_delete(now: &str) -> String {
    format!(
        "DELETE FROM operations WHERE app = $1 AND finished = 1 AND finished_at < {now} - $2 \
         AND seq NOT IN (SELECT seq FROM operations WHERE app = $1 AND finished = 1 \
         ORDER BY seq DESC LIMIT $3)"
    )
}

impl Store {
    /// Stores the progress (phase, message, results so far) of an unfinished operation `claimant` holds.
    ///
    /// A finished phase is refused ([`StoreError::WrongPhase`]): [`Store::finish`] ends an operation. A replica
    /// that no longer holds the operation (its lease ran out and another replica took it) is refused with
    /// [`StoreError::NotClaimed`], so it cannot overwrite the new holder's record.
    pub async fn update_operation<O: OperationRecord>(
        &self,
        operation: &O,
        claimant: &Claimant,
    ) -> Result<(), StoreError> {
        if operation.is_finished() {
            return Err(StoreError::WrongPhase {
                id: operation.id().to_owned(),
                phase: operation.phase().to_owned(),
                expected: "an unfinished phase (finish ends an operation)",
            });
        }
        let body = encode(|| format!("operation {}", operation.id()), operation)?;
        let updated = sqlx::query(
            "UPDATE operations SET body = $1, phase = $2 \
             WHERE id = $3 AND finished = 0 AND claimed_by = $4 AND claim_incarnation = $5",
        )
        .bind(body)
        .bind(operation.phase())
        .bind(operation.id())
        .bind(claimant.replica())
        .bind(claimant.incarnation())
        .execute(&self.pool)
        .await?
        .rows_affected();
        if updated == 1 {
            return Ok(());
        }
        Err(self
            .why_not_held(operation.id(), claimant, &self.pool)
            .await?)
    }

    /// Why an update of an unfinished operation held by `claimant` touched no row: it is finished, held by no one
    /// or someone else, or does not exist.
    async fn why_not_held<'e, E>(
        &self,
        id: &str,
        claimant: &Claimant,
        executor: E,
    ) -> Result<StoreError, StoreError>
    where
        E: sqlx::Executor<'e, Database = sqlx::Any>,
    {
        // Counts read the same on SQLite and PostgreSQL (BIGINT), unlike the `finished` column itself.
        let row = sqlx::query(
            "SELECT COUNT(*) AS known, COUNT(CASE WHEN finished = 0 THEN 1 END) AS open \
             FROM operations WHERE id = $1",
        )
        .bind(id)
        .fetch_one(executor)
        .await?;
        let (known, open): (i64, i64) = (row.try_get("known")?, row.try_get("open")?);
        Ok(if known == 0 {
            StoreError::UnknownOperation(id.to_string())
        } else if open == 0 {
            StoreError::OperationFinished(id.to_string())
        } else {
            StoreError::NotClaimed {
                id: id.to_string(),
                replica: claimant.to_string(),
            }
        })
    }

    /// Ends an operation `claimant` holds in one transaction: its finished record, `app`'s new `state` (its
    /// history), and the end of its claim, so the app can take its next operation. A replica that lost its
    /// claim is refused with [`StoreError::NotClaimed`] and changes nothing: the record and the app's state are
    /// the new holder's to write.
    pub async fn finish<O: OperationRecord, S: StateRecord>(
        &self,
        operation: &O,
        app: &str,
        state: &S,
        claimant: &Claimant,
    ) -> Result<(), StoreError> {
        if !operation.is_finished() {
            return Err(StoreError::WrongPhase {
                id: operation.id().to_owned(),
                phase: operation.phase().to_owned(),
                expected: "succeeded, failed or error",
            });
        }
        let body = encode(|| format!("operation {}", operation.id()), operation)?;
        let state = encode(|| format!("state of app {app}"), state)?;
        let finish = format!(
            "UPDATE operations SET body = $1, phase = $2, finished = 1, finished_at = {now}, \
             claimed_by = NULL, lease_until = NULL, claim_incarnation = NULL \
             WHERE id = $3 AND finished = 0 AND claimed_by = $4 AND claim_incarnation = $5",
            now = self.now()
        );
        let mut transaction = self.begin().await?;
        let updated = sqlx::query(&finish)
            .bind(body)
            .bind(operation.phase())
            .bind(operation.id())
            .bind(claimant.replica())
            .bind(claimant.incarnation())
            .execute(&mut *transaction)
            .await?
            .rows_affected();
        if updated != 1 {
            return Err(self
                .why_not_held(operation.id(), claimant, &mut *transaction)
                .await?);
        }
        sqlx::query(&upsert_state_sql(self.now()))
            .bind(app)
            .bind(state)
            .execute(&mut *transaction)
            .await?;
        transaction.commit().await?;
        Ok(())
    }

    /// The operation with this id.
    pub async fn operation<O: OperationRecord>(&self, id: &str) -> Result<Option<O>, StoreError> {
        let row = sqlx::query("SELECT body FROM operations WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            decode(
                || format!("operation {id}"),
                &row.try_get::<String, _>("body")?,
            )
        })
        .transpose()
    }

    /// The app's operations, newest first, at most `limit`.
    pub async fn operations<O: OperationRecord>(
        &self,
        app: &str,
        limit: usize,
    ) -> Result<Vec<O>, StoreError> {
        let rows = sqlx::query(APP_OPERATIONS)
            .bind(app)
            .bind(count(limit))
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| {
                let id: String = row.try_get("id")?;
                decode(
                    || format!("operation {id}"),
                    &row.try_get::<String, _>("body")?,
                )
            })
            .collect()
    }

    /// The app's newest operation.
    pub async fn last_operation<O: OperationRecord>(
        &self,
        app: &str,
    ) -> Result<Option<O>, StoreError> {
        Ok(self.operations::<O>(app, 1).await?.into_iter().next())
    }

    /// Deletes the app's finished operations beyond its newest `keep` finished ones that finished more than
    /// `grace` ago (a client may still be reading one that just ended), so the table stays the size of the fleet's
    /// histories; unfinished operations are never touched. Returns how many were deleted.
    pub async fn prune_operations(
        &self,
        app: &str,
        keep: usize,
        grace: std::time::Duration,
    ) -> Result<u64, StoreError> {
        Ok(sqlx::query(&prune_delete(self.now()))
            .bind(app)
            .bind(super::millis(grace))
            .bind(count(keep))
            .execute(&self.pool)
            .await?
            .rows_affected())
    }

    /// How many operations wait in the queue (pending and unclaimed): the queue depth.
    pub async fn pending_count(&self) -> Result<usize, StoreError> {
        let row = sqlx::query(PENDING_COUNT).fetch_one(&self.pool).await?;
        Ok(to_usize(row.try_get("n")?))
    }
}
