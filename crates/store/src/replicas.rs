//! Replicas sharing a store: each one's membership (a heartbeat that lasts a lease, timed by the store's clock so
//! that replicas' clocks need not agree) and the views each publishes of the apps it reconciles, which the others
//! read so that every replica's API answers for the whole fleet.

use std::time::Duration;

use sqlx::Row;

use super::{Store, StoreError};

/// A view one replica published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedView {
    /// The app.
    pub app: String,
    /// The replica that reconciled it.
    pub replica: String,
    /// The view, as JSON.
    pub view: String,
    /// When it was published (the store's clock, unix ms).
    pub updated_at: i64,
}

impl Store {
    /// Renews `replica`'s membership for `lease` (this start of it: `incarnation`); the names of the replicas whose
    /// membership has not run out, sorted.
    pub async fn heartbeat(
        &self,
        replica: &str,
        incarnation: &str,
        lease: Duration,
    ) -> Result<Vec<String>, StoreError> {
        let sql = format!(
            "INSERT INTO replicas (name, incarnation, expires_at) VALUES ($1, $2, {now} + $3) \
             ON CONFLICT (name) DO UPDATE SET incarnation = excluded.incarnation, expires_at = excluded.expires_at",
            now = self.now()
        );
        sqlx::query(&sql)
            .bind(replica)
            .bind(incarnation)
            .bind(lease.as_millis() as i64)
            .execute(&self.pool)
            .await?;
        let sql = format!(
            "SELECT name FROM replicas WHERE expires_at > {now} ORDER BY name",
            now = self.now()
        );
        let rows = sqlx::query(&sql).fetch_all(&self.pool).await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get("name"))
            .collect::<Result<_, _>>()?)
    }

    /// Ends `replica`'s membership, if this start of it holds it (a clean shutdown: the others take its apps at
    /// once instead of after the lease).
    pub async fn leave(&self, replica: &str, incarnation: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM replicas WHERE name = $1 AND incarnation = $2")
            .bind(replica)
            .bind(incarnation)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Publishes views of apps `replica` reconciles: `(app, view JSON)`.
    pub async fn put_views(
        &self,
        replica: &str,
        views: &[(String, String)],
    ) -> Result<(), StoreError> {
        if views.is_empty() {
            return Ok(());
        }
        let sql = format!(
            "INSERT INTO app_views (app, replica, view, updated_at) VALUES ($1, $2, $3, {now}) \
             ON CONFLICT (app) DO UPDATE SET replica = excluded.replica, view = excluded.view, \
             updated_at = excluded.updated_at",
            now = self.now()
        );
        let mut transaction = self.begin().await?;
        for (app, view) in views {
            sqlx::query(&sql)
                .bind(app)
                .bind(replica)
                .bind(view)
                .execute(&mut *transaction)
                .await?;
        }
        transaction.commit().await?;
        Ok(())
    }

    /// The views published at or after `since` (unix ms, the store's clock), oldest first.
    pub async fn views_since(&self, since: i64) -> Result<Vec<PublishedView>, StoreError> {
        let rows = sqlx::query(
            "SELECT app, replica, view, updated_at FROM app_views WHERE updated_at >= $1 ORDER BY updated_at",
        )
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(PublishedView {
                    app: row.try_get("app")?,
                    replica: row.try_get("replica")?,
                    view: row.try_get("view")?,
                    updated_at: row.try_get("updated_at")?,
                })
            })
            .collect()
    }
}
