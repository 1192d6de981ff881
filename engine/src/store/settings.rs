//! Settings in the store: key/value text that running parts re-read (e.g. the queue's concurrency each time it
//! looks for work), so a change through the API takes effect without a restart.

use sqlx::Row;

use super::{Store, StoreError};

impl Store {
    /// The setting's value.
    pub async fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT value FROM settings WHERE key = $1")
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|row| row.try_get("value")).transpose()?)
    }

    /// Sets the setting's value.
    pub async fn put_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO settings (key, value) VALUES ($1, $2) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(key)
        .bind(value)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Removes the setting; whether there was one.
    pub async fn delete_setting(&self, key: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM settings WHERE key = $1")
            .bind(key)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Every setting whose key starts with `prefix` (an ASCII prefix not ending in `\x7f`), by key.
    pub async fn settings_with_prefix(
        &self,
        prefix: &str,
    ) -> Result<Vec<(String, String)>, StoreError> {
        // A key range rather than LIKE, which would read `_` and `%` in the prefix as wildcards.
        let mut end = prefix.as_bytes().to_vec();
        if let Some(last) = end.last_mut() {
            *last = last.saturating_add(1);
        }
        let end = String::from_utf8_lossy(&end).into_owned();
        let rows = sqlx::query(
            "SELECT key, value FROM settings WHERE key >= $1 AND key < $2 ORDER BY key",
        )
        .bind(prefix)
        .bind(end)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|row| Ok((row.try_get("key")?, row.try_get("value")?)))
            .collect()
    }
}
