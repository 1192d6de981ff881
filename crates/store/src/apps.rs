//! Apps in the store: their specs (declared in the configuration or added through the API, whose edits
//! persist) and the state Weft keeps for each between operations.

use serde::{Deserialize, Serialize};
use sqlx::Row;

use super::record::{AppRecord, StateRecord};
use super::{Store, StoreError, decode, encode};

/// Where an app was declared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AppOrigin {
    /// In the configuration file.
    #[default]
    Config,
    /// Through the API.
    Api,
    /// As an Application resource (`applications.weft.dev`) in the cluster.
    Resource,
}

impl AppOrigin {
    /// The lowercase stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            AppOrigin::Config => "config",
            AppOrigin::Api => "api",
            AppOrigin::Resource => "resource",
        }
    }

    /// Where an app of this origin was declared, in words (`declared in the configuration file`).
    pub fn described(self) -> &'static str {
        match self {
            AppOrigin::Config => "declared in the configuration file",
            AppOrigin::Api => "defined through the API",
            AppOrigin::Resource => "declared as an Application resource",
        }
    }

    /// The origin with this stored name.
    pub fn parse(text: &str) -> Option<AppOrigin> {
        match text {
            "config" => Some(AppOrigin::Config),
            "api" => Some(AppOrigin::Api),
            "resource" => Some(AppOrigin::Resource),
            _ => None,
        }
    }
}

/// An app as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredApp<A> {
    /// Its spec.
    pub spec: A,
    /// Where it was declared.
    pub origin: AppOrigin,
}

impl Store {
    /// Stores an app, replacing the one with its name.
    pub async fn put_app<A: AppRecord>(
        &self,
        app: &A,
        origin: AppOrigin,
    ) -> Result<(), StoreError> {
        let spec = encode(|| format!("app {}", app.name()), app)?;
        let sql = format!(
            "INSERT INTO apps (name, origin, spec, updated_at) VALUES ($1, $2, $3, {now}) \
             ON CONFLICT (name) DO UPDATE SET origin = excluded.origin, spec = excluded.spec, \
             updated_at = excluded.updated_at",
            now = self.now()
        );
        sqlx::query(&sql)
            .bind(app.name())
            .bind(origin.as_str())
            .bind(spec)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Removes an app and its state, and the records of resource actions run on its objects (its operations
    /// stay, as the record of what was done); whether it was there.
    pub async fn delete_app(&self, name: &str) -> Result<bool, StoreError> {
        let mut transaction = self.begin().await?;
        let deleted = sqlx::query("DELETE FROM apps WHERE name = $1")
            .bind(name)
            .execute(&mut *transaction)
            .await?
            .rows_affected();
        sqlx::query("DELETE FROM app_states WHERE app = $1")
            .bind(name)
            .execute(&mut *transaction)
            .await?;
        sqlx::query("DELETE FROM app_views WHERE app = $1")
            .bind(name)
            .execute(&mut *transaction)
            .await?;
        // What the app applied before identities is orphaned with it: a later app of the name does not own it.
        sqlx::query("DELETE FROM legacy_tracking WHERE name = $1")
            .bind(name)
            .execute(&mut *transaction)
            .await?;
        // A later app of the name draws other random values.
        sqlx::query("DELETE FROM render_secrets WHERE app = $1")
            .bind(name)
            .execute(&mut *transaction)
            .await?;
        // The resource actions run on its objects: who ran what is history of that app, not of a later one of the
        // name (the app's operations, which the API keeps showing, record its syncs).
        let actions = format!("{}{name}/", super::settings::RESOURCE_ACTIONS_PREFIX);
        sqlx::query("DELETE FROM settings WHERE key >= $1 AND key < $2")
            .bind(&actions)
            .bind(super::settings::prefix_end(&actions))
            .execute(&mut *transaction)
            .await?;
        transaction.commit().await?;
        Ok(deleted > 0)
    }

    /// The apps (name, org) that own objects tracked by their name alone: those stored when tracking was upgraded
    /// to identities, and not deleted since.
    pub async fn legacy_tracking_claims(
        &self,
    ) -> Result<Vec<(String, Option<String>)>, StoreError> {
        let rows = sqlx::query("SELECT name, org FROM legacy_tracking ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| Ok((row.try_get("name")?, row.try_get("org")?)))
            .collect()
    }

    /// Every stored app, by name.
    pub async fn apps<A: AppRecord>(&self) -> Result<Vec<StoredApp<A>>, StoreError> {
        let rows = sqlx::query("SELECT name, origin, spec FROM apps ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| {
                let name: String = row.try_get("name")?;
                let origin: String = row.try_get("origin")?;
                let spec: String = row.try_get("spec")?;
                let origin = AppOrigin::parse(&origin).ok_or_else(|| StoreError::Corrupt {
                    what: format!("app {name}"),
                    reason: format!("unknown origin {origin:?}"),
                })?;
                Ok(StoredApp {
                    spec: decode(|| format!("app {name}"), &spec)?,
                    origin,
                })
            })
            .collect()
    }

    /// The app's state; the default (nothing deployed) when none is stored.
    pub async fn app_state<S: StateRecord>(&self, name: &str) -> Result<S, StoreError> {
        let row = sqlx::query("SELECT state FROM app_states WHERE app = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        match row {
            Some(row) => decode(
                || format!("state of app {name}"),
                &row.try_get::<String, _>("state")?,
            ),
            None => Ok(S::default()),
        }
    }

    /// Stores the app's state, replacing what was there.
    pub async fn put_app_state<S: StateRecord>(
        &self,
        name: &str,
        state: &S,
    ) -> Result<(), StoreError> {
        let sql = upsert_state_sql(self.now());
        let state = encode(|| format!("state of app {name}"), state)?;
        sqlx::query(&sql)
            .bind(name)
            .bind(state)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// The upsert of an app's state: `$1` the app, `$2` the state's JSON.
pub(super) fn upsert_state_sql(now: &str) -> String {
    format!(
        "INSERT INTO app_states (app, state, updated_at) VALUES ($1, $2, {now}) \
         ON CONFLICT (app) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_round_trip_through_their_stored_names() {
        for origin in [AppOrigin::Config, AppOrigin::Api] {
            assert_eq!(AppOrigin::parse(origin.as_str()), Some(origin));
            assert_eq!(
                serde_json::to_value(origin).unwrap(),
                serde_json::Value::String(origin.as_str().into())
            );
        }
        assert_eq!(AppOrigin::parse("Config"), None);
    }
}
