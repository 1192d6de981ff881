//! Settings in the store: key/value text that running parts re-read (e.g. the queue's concurrency each time it
//! looks for work), so a change through the API takes effect without a restart.

use sqlx::Row;

use super::{Store, StoreError};

/// The prefix of the settings that record an app's resource actions (`resource-actions/{app}/{time}`): deleted with
/// the app (`Store::delete_app`), so a later app of the same name starts without another's history.
pub const RESOURCE_ACTIONS_PREFIX: &str = "resource-actions/";

/// The first key after every key that starts with `prefix` (an ASCII prefix not ending in `\x7f`): settings are
/// selected by a key range rather than LIKE, which would read `_` and `%` in the prefix as wildcards.
pub(crate) fn prefix_end(prefix: &str) -> String {
    let mut end = prefix.as_bytes().to_vec();
    if let Some(last) = end.last_mut() {
        *last = last.saturating_add(1);
    }
    String::from_utf8_lossy(&end).into_owned()
}

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
        let end = prefix_end(prefix);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_apps_resource_action_records_go_with_the_app_and_no_others() {
        let store = Store::open("sqlite::memory:").await.unwrap();
        for key in [
            "resource-actions/shop/001",
            "resource-actions/shop/002",
            "resource-actions/shop-2/001",
            "resource-actions/blog/001",
            "fleet-limit",
        ] {
            store.put_setting(key, "{}").await.unwrap();
        }
        store.delete_app("shop").await.unwrap();
        let mut left = Vec::new();
        for (key, _) in store
            .settings_with_prefix("resource-actions/")
            .await
            .unwrap()
        {
            left.push(key);
        }
        assert_eq!(
            left,
            ["resource-actions/blog/001", "resource-actions/shop-2/001"]
        );
        assert!(store.setting("fleet-limit").await.unwrap().is_some());
    }
}
