//! The operation queue: enqueueing (one unfinished operation per app, enforced by the database), claiming
//! work under a lease, keeping leases alive, and putting work back when a replica stops or goes stale.

use std::time::Duration;

use serde_json::Value;
use sqlx::Row;

use super::claimant::Claimant;
use super::record::OperationRecord;
use super::{Store, StoreError, count, decode, encode, millis};

/// An operation a replica has claimed, with the request it was enqueued with.
#[derive(Debug, Clone, PartialEq)]
pub struct Claimed<O> {
    /// The operation, as enqueued (or as last updated).
    pub operation: O,
    /// The request that says what to do (stored as given to [`Store::enqueue`]).
    pub request: Value,
}

/// Who holds an operation, as the store has it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// No operation has this id.
    Nobody,
    /// It has finished: its record no longer changes.
    Finished,
    /// It is pending in the queue, claimed by no replica.
    Queue,
    /// A replica's start holds it.
    Claimant(Claimant),
}

/// The oldest pending, unclaimed operations (what a claim takes).
pub(super) const CLAIM_SELECT: &str = "SELECT id, body, request FROM operations \
     WHERE finished = 0 AND claimed_by IS NULL ORDER BY seq LIMIT $1";

/// A replica's unfinished claims held by another incarnation than `$2`, oldest first.
pub(super) const REPLICA_SELECT: &str = "SELECT id, body FROM operations WHERE finished = 0 AND claimed_by = $1 \
     AND (claim_incarnation IS NULL OR claim_incarnation <> $2) ORDER BY seq";

/// The app's newest operation but `$2`.
pub(super) const NEWEST_OTHER_SELECT: &str =
    "SELECT id FROM operations WHERE app = $1 AND id <> $2 ORDER BY seq DESC LIMIT 1";

/// The app's pending or running operation.
pub(super) const UNFINISHED_SELECT: &str =
    "SELECT id FROM operations WHERE app = $1 AND finished = 0";

/// Claims whose lease ran out, oldest first, through the lease index (SQLite's planner, without statistics, would
/// rather read the table in `seq` order than sort what the index finds).
pub(super) fn expired_select(backend: super::Backend) -> String {
    let index = match backend {
        super::Backend::Sqlite => " INDEXED BY operations_leases",
        super::Backend::Postgres => "",
    };
    format!(
        "SELECT id, body, claimed_by FROM operations{index} \
         WHERE finished = 0 AND claimed_by IS NOT NULL AND lease_until < {now} ORDER BY seq",
        now = backend.now_millis()
    )
}

/// How many operations are claimed and unfinished across the fleet, through the lease index.
pub(super) fn running_count(backend: super::Backend) -> String {
    let index = match backend {
        super::Backend::Sqlite => " INDEXED BY operations_leases",
        super::Backend::Postgres => "",
    };
    format!(
        "SELECT COUNT(*) AS n FROM operations{index} WHERE finished = 0 AND claimed_by IS NOT NULL \
         AND lease_until IS NOT NULL"
    )
}

/// How many times an enqueue is tried when the unfinished operation it collided with finished meanwhile.
const ENQUEUE_ATTEMPTS: usize = 3;

impl Store {
    /// Stores `operation` pending and unclaimed (its phase is stored as `pending`) with its `request`.
    ///
    /// Refused with [`StoreError::AppBusy`], naming the other operation, when the app already has one that is
    /// pending or running: a unique index on the app's unfinished operations decides, so two replicas
    /// enqueueing at once cannot both succeed.
    pub async fn enqueue<O: OperationRecord>(
        &self,
        operation: &O,
        request: &Value,
    ) -> Result<(), StoreError> {
        let pending = operation.clone().requeued(None);
        let what = || format!("operation {}", operation.id());
        let body = encode(what, &pending)?;
        let request = encode(what, request)?;
        let sql = format!(
            "INSERT INTO operations (id, app, phase, finished, body, request, created_at) \
             VALUES ($1, $2, $3, 0, $4, $5, {now})",
            now = self.now()
        );
        let mut attempt = 0;
        loop {
            attempt += 1;
            let inserted = sqlx::query(&sql)
                .bind(operation.id())
                .bind(operation.app())
                .bind(pending.phase())
                .bind(&body)
                .bind(&request)
                .execute(&self.pool)
                .await;
            let error = match inserted {
                Ok(_) => return Ok(()),
                Err(sqlx::Error::Database(error)) if error.is_unique_violation() => error,
                Err(error) => return Err(error.into()),
            };
            if let Some(collision) = self.collision(operation).await? {
                return Err(collision);
            }
            if attempt == ENQUEUE_ATTEMPTS {
                return Err(sqlx::Error::Database(error).into());
            }
        }
    }

    /// [`Store::enqueue`] for a decision made from a snapshot of the app (automation): stored only while the app's
    /// newest operation is still `latest`, the one the decision read (`None`: the app had none). An operation
    /// queued since (a rollback that suspends automation, a manual sync), whether it is still running or already
    /// over, makes the decision stale: refused with [`StoreError::Superseded`], nothing stored.
    ///
    /// The insert and the check are one transaction, in that order: an operation queued meanwhile that is still
    /// unfinished collides with this one on the one-unfinished-operation index ([`StoreError::AppBusy`]); one
    /// that finishes meanwhile makes the insert wait for its finish to commit (the index's check), after which the
    /// check sees it. Nothing else is locked, so this never waits in a circle with a finish (which writes the
    /// operation, then the app's state).
    pub async fn enqueue_if_latest<O: OperationRecord>(
        &self,
        operation: &O,
        request: &Value,
        latest: Option<&str>,
    ) -> Result<(), StoreError> {
        let pending = operation.clone().requeued(None);
        let what = || format!("operation {}", operation.id());
        let body = encode(what, &pending)?;
        let request = encode(what, request)?;
        let mut transaction = self.begin().await?;
        let inserted = sqlx::query(&format!(
            "INSERT INTO operations (id, app, phase, finished, body, request, created_at) \
             VALUES ($1, $2, $3, 0, $4, $5, {now})",
            now = self.now()
        ))
        .bind(operation.id())
        .bind(operation.app())
        .bind(pending.phase())
        .bind(&body)
        .bind(&request)
        .execute(&mut *transaction)
        .await;
        match inserted {
            Ok(_) => {}
            Err(sqlx::Error::Database(error)) if error.is_unique_violation() => {
                drop(transaction);
                if let Some(collision) = self.collision(operation).await? {
                    return Err(collision);
                }
                // The operation it collided with has finished since: a newer one than the snapshot's.
                let newest = self
                    .operations::<O>(operation.app(), 1)
                    .await?
                    .first()
                    .map(|op| op.id().to_owned())
                    .unwrap_or_default();
                return Err(StoreError::Superseded {
                    app: operation.app().to_owned(),
                    operation: newest,
                });
            }
            Err(error) => return Err(error.into()),
        }
        let newest: Option<String> = sqlx::query(NEWEST_OTHER_SELECT)
            .bind(operation.app())
            .bind(operation.id())
            .fetch_optional(&mut *transaction)
            .await?
            .map(|row| row.try_get("id"))
            .transpose()?;
        if newest.as_deref() != latest {
            transaction.rollback().await?;
            return Err(StoreError::Superseded {
                app: operation.app().to_owned(),
                operation: newest.unwrap_or_default(),
            });
        }
        transaction.commit().await?;
        Ok(())
    }

    /// What an insert of `operation` that broke a unique index collided with, as it stands now: the app's
    /// unfinished operation ([`StoreError::AppBusy`]), or an operation with the same id
    /// ([`StoreError::DuplicateOperation`]); `None` when neither is there any more (the other finished meanwhile).
    async fn collision<O: OperationRecord>(
        &self,
        operation: &O,
    ) -> Result<Option<StoreError>, StoreError> {
        if let Some(existing) = self.unfinished_operation_id(operation.app()).await? {
            return Ok(Some(StoreError::AppBusy {
                app: operation.app().to_owned(),
                operation: existing,
            }));
        }
        if self.operation::<O>(operation.id()).await?.is_some() {
            return Ok(Some(StoreError::DuplicateOperation(
                operation.id().to_owned(),
            )));
        }
        Ok(None)
    }

    /// The id of the app's pending or running operation.
    async fn unfinished_operation_id(&self, app: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(UNFINISHED_SELECT)
            .bind(app)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|row| row.try_get("id")).transpose()?)
    }

    /// Claims up to `max` pending, unclaimed operations, oldest first, for `claimant`, each leased until now +
    /// `lease`. Replicas claiming at once never get the same operation: PostgreSQL's `FOR UPDATE SKIP LOCKED`
    /// hands each its own rows, SQLite lets one writer at a time in.
    pub async fn claim<O: OperationRecord>(
        &self,
        claimant: &Claimant,
        max: usize,
        lease: Duration,
    ) -> Result<Vec<Claimed<O>>, StoreError> {
        self.claim_within::<O>(claimant, max, lease, None).await
    }

    /// How many operations are claimed and unfinished across every replica sharing the store.
    pub async fn running_count(&self) -> Result<usize, StoreError> {
        let row = sqlx::query(&running_count(self.backend))
            .fetch_one(&self.pool)
            .await?;
        Ok(super::to_usize(row.try_get("n")?))
    }

    /// [`Store::claim`] under a fleet-wide limit as well: never more than `fleet` operations claimed and
    /// unfinished across every replica sharing the store. Claimers take turns while they count and claim
    /// (PostgreSQL: an advisory lock for the transaction; SQLite: its one writer), so two replicas cannot both see
    /// room for the last slot.
    pub async fn claim_within<O: OperationRecord>(
        &self,
        claimant: &Claimant,
        max: usize,
        lease: Duration,
        fleet: Option<usize>,
    ) -> Result<Vec<Claimed<O>>, StoreError> {
        if max == 0 || fleet == Some(0) {
            return Ok(Vec::new());
        }
        let mut max = max;
        let mut transaction = self.begin().await?;
        if let Some(fleet) = fleet {
            if let Some(turns) = self.backend.claims_take_turns() {
                sqlx::query(turns).execute(&mut *transaction).await?;
            }
            let row = sqlx::query(&running_count(self.backend))
                .fetch_one(&mut *transaction)
                .await?;
            let running = super::to_usize(row.try_get("n")?);
            max = max.min(fleet.saturating_sub(running));
            if max == 0 {
                return Ok(Vec::new());
            }
        }
        let select = format!("{CLAIM_SELECT}{lock}", lock = self.backend.skip_locked());
        let update = format!(
            "UPDATE operations SET claimed_by = $1, lease_until = {now} + $2, claim_incarnation = $4 \
             WHERE id = $3 AND finished = 0 AND claimed_by IS NULL",
            now = self.now()
        );
        let rows = sqlx::query(&select)
            .bind(count(max))
            .fetch_all(&mut *transaction)
            .await?;
        let mut claimed = Vec::with_capacity(rows.len());
        for row in rows {
            let id: String = row.try_get("id")?;
            let what = || format!("operation {id}");
            let operation = decode(what, &row.try_get::<String, _>("body")?)?;
            let request = decode(what, &row.try_get::<String, _>("request")?)?;
            let updated = sqlx::query(&update)
                .bind(claimant.replica())
                .bind(millis(lease))
                .bind(&id)
                .bind(claimant.incarnation())
                .execute(&mut *transaction)
                .await?
                .rows_affected();
            if updated == 1 {
                claimed.push(Claimed { operation, request });
            }
        }
        transaction.commit().await?;
        Ok(claimed)
    }

    /// Extends to now + `lease` the leases of the operations in `ids` that `claimant` still holds unfinished, and
    /// returns those ids. An id missing from the answer is no longer this replica's (its lease ran out and it was
    /// requeued or taken over, or it finished): whoever runs it here must stop.
    ///
    /// Only the operations a process actually runs are renewed, and only under its own incarnation, never
    /// everything claimed under its replica name: a replica restarted under the same name must not keep its
    /// predecessor's claims alive.
    pub async fn renew(
        &self,
        claimant: &Claimant,
        ids: &[String],
        lease: Duration,
    ) -> Result<Vec<String>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "UPDATE operations SET lease_until = {now} + $2 \
             WHERE id = $3 AND claimed_by = $1 AND claim_incarnation = $4 AND finished = 0",
            now = self.now()
        );
        let mut transaction = self.begin().await?;
        let mut renewed = Vec::with_capacity(ids.len());
        for id in ids {
            let updated = sqlx::query(&sql)
                .bind(claimant.replica())
                .bind(millis(lease))
                .bind(id)
                .bind(claimant.incarnation())
                .execute(&mut *transaction)
                .await?
                .rows_affected();
            if updated == 1 {
                renewed.push(id.clone());
            }
        }
        transaction.commit().await?;
        Ok(renewed)
    }

    /// Who holds the operation now: what a replica that finds its claim gone asks, to say truthfully what became
    /// of the operation.
    pub async fn holder(&self, id: &str) -> Result<Holder, StoreError> {
        // Counts and MAX read the same on SQLite and PostgreSQL (BIGINT, TEXT), unlike the `finished` column.
        let row = sqlx::query(
            "SELECT COUNT(*) AS known, COUNT(CASE WHEN finished = 0 THEN 1 END) AS open, \
             MAX(claimed_by) AS replica, MAX(claim_incarnation) AS incarnation FROM operations WHERE id = $1",
        )
        .bind(id)
        .fetch_one(&self.pool)
        .await?;
        let (known, open): (i64, i64) = (row.try_get("known")?, row.try_get("open")?);
        let replica: Option<String> = row.try_get("replica")?;
        let incarnation: Option<String> = row.try_get("incarnation")?;
        Ok(match (known, open, replica) {
            (0, _, _) => Holder::Nobody,
            (_, 0, _) => Holder::Finished,
            (_, _, None) => Holder::Queue,
            (_, _, Some(replica)) => Holder::Claimant(Claimant::with_incarnation(
                replica,
                incarnation.unwrap_or_default(),
            )),
        })
    }

    /// Puts back in the queue every unfinished operation claimed under `claimant`'s replica name by another
    /// incarnation: what a process starting under that name does first, since whatever a predecessor of the same
    /// name was running died with it (or, were two processes wrongly given one name, is fenced off from it: the
    /// other's renewals and finish no longer match). Returns their ids, oldest first.
    pub async fn release_replica<O: OperationRecord>(
        &self,
        claimant: &Claimant,
    ) -> Result<Vec<String>, StoreError> {
        let select = format!("{REPLICA_SELECT}{lock}", lock = self.backend.lock_rows());
        let mut transaction = self.begin().await?;
        let rows = sqlx::query(&select)
            .bind(claimant.replica())
            .bind(claimant.incarnation())
            .fetch_all(&mut *transaction)
            .await?;
        let mut released = Vec::with_capacity(rows.len());
        for row in rows {
            let id: String = row.try_get("id")?;
            let body: String = row.try_get("body")?;
            let reason = format!(
                "requeued: replica {} restarted while it ran this operation",
                claimant.replica()
            );
            put_back::<O>(&mut transaction, &id, &body, reason).await?;
            released.push(id);
        }
        transaction.commit().await?;
        Ok(released)
    }

    /// Puts claimed operations whose lease ran out (their replica stopped or stalled) back in the queue:
    /// pending, unclaimed, their message saying why. Returns their ids, oldest first.
    pub async fn requeue_expired<O: OperationRecord>(&self) -> Result<Vec<String>, StoreError> {
        self.requeue_expired_except::<O>(&[]).await
    }

    /// [`Store::requeue_expired`], leaving alone the operations in `running`: those the calling process runs
    /// itself, whose lapsed lease its next renewal extends (a process starved of CPU for a moment must not hand
    /// its own work to the queue while it still runs it).
    pub async fn requeue_expired_except<O: OperationRecord>(
        &self,
        running: &[String],
    ) -> Result<Vec<String>, StoreError> {
        let select = format!(
            "{}{lock}",
            expired_select(self.backend),
            lock = self.backend.skip_locked()
        );
        let mut transaction = self.begin().await?;
        let rows = sqlx::query(&select).fetch_all(&mut *transaction).await?;
        let mut requeued = Vec::with_capacity(rows.len());
        for row in rows {
            let id: String = row.try_get("id")?;
            if running.contains(&id) {
                continue;
            }
            let replica: String = row.try_get("claimed_by")?;
            let body: String = row.try_get("body")?;
            let reason = format!("requeued: the lease of replica {replica} ran out");
            put_back::<O>(&mut transaction, &id, &body, reason).await?;
            requeued.push(id);
        }
        transaction.commit().await?;
        Ok(requeued)
    }

    /// Puts an operation `claimant` holds back in the queue, pending and unclaimed (on shutdown).
    pub async fn release<O: OperationRecord>(
        &self,
        id: &str,
        claimant: &Claimant,
    ) -> Result<(), StoreError> {
        let select = format!(
            "SELECT body FROM operations \
             WHERE id = $1 AND claimed_by = $2 AND claim_incarnation = $3 AND finished = 0{lock}",
            lock = self.backend.lock_rows()
        );
        let mut transaction = self.begin().await?;
        let row = sqlx::query(&select)
            .bind(id)
            .bind(claimant.replica())
            .bind(claimant.incarnation())
            .fetch_optional(&mut *transaction)
            .await?;
        let Some(row) = row else {
            return Err(StoreError::NotClaimed {
                id: id.to_string(),
                replica: claimant.to_string(),
            });
        };
        let body: String = row.try_get("body")?;
        let reason = format!("released by replica {}", claimant.replica());
        put_back::<O>(&mut transaction, id, &body, reason).await?;
        transaction.commit().await?;
        Ok(())
    }
}

/// Makes a claimed operation pending and unclaimed again, its message saying why.
async fn put_back<O: OperationRecord>(
    transaction: &mut sqlx::Transaction<'static, sqlx::Any>,
    id: &str,
    body: &str,
    reason: String,
) -> Result<(), StoreError> {
    let what = || format!("operation {id}");
    let operation: O = decode(what, body)?;
    let requeued = operation.requeued(Some(reason));
    let body = encode(what, &requeued)?;
    sqlx::query(
        "UPDATE operations SET body = $1, phase = $2, claimed_by = NULL, lease_until = NULL, \
         claim_incarnation = NULL WHERE id = $3",
    )
    .bind(body)
    .bind(requeued.phase())
    .bind(id)
    .execute(&mut **transaction)
    .await?;
    Ok(())
}
