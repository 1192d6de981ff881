//! API tokens in the store, kept as the SHA-256 of the secret only: the secret itself is never stored.

use jiff::Timestamp;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Store, StoreError, to_usize};

/// A stored API token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredToken {
    /// The token's id (shown in listings; not secret).
    pub id: String,
    /// Its name (`deploy-bot`): unique among named tokens, recorded as the actor of what it does. Empty for tokens
    /// made before names existed, which are recorded as `token:ID`.
    pub name: String,
    /// The lowercase hex SHA-256 of the secret: what a presented token is looked up by.
    pub sha256_hex: String,
    /// Who the token acts as (`admin`, `org:acme`, ...).
    pub principal: String,
    /// When it was made.
    pub created_at: Timestamp,
    /// What it is for.
    pub description: String,
}

impl Store {
    /// Stores a token, replacing the one with its id.
    pub async fn put_token(&self, token: &StoredToken) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO tokens (id, sha256_hex, principal, created_at, description, name) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO UPDATE SET \
             sha256_hex = excluded.sha256_hex, principal = excluded.principal, \
             created_at = excluded.created_at, description = excluded.description, name = excluded.name",
        )
        .bind(&token.id)
        .bind(&token.sha256_hex)
        .bind(&token.principal)
        .bind(token.created_at.to_string())
        .bind(&token.description)
        .bind(&token.name)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The token whose secret has this SHA-256 (lowercase hex).
    pub async fn token_by_hash(&self, sha256_hex: &str) -> Result<Option<StoredToken>, StoreError> {
        let row = sqlx::query(
            "SELECT id, sha256_hex, principal, created_at, description, name FROM tokens \
             WHERE sha256_hex = $1",
        )
        .bind(sha256_hex)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(token_from_row).transpose()
    }

    /// Every stored token, oldest first.
    pub async fn tokens(&self) -> Result<Vec<StoredToken>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, sha256_hex, principal, created_at, description, name FROM tokens \
             ORDER BY created_at, id",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(token_from_row).collect()
    }

    /// The token with this id, or else the named token with this name.
    pub async fn token_by_id_or_name(
        &self,
        id_or_name: &str,
    ) -> Result<Option<StoredToken>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, sha256_hex, principal, created_at, description, name FROM tokens \
             WHERE id = $1 OR (name = $1 AND name <> '')",
        )
        .bind(id_or_name)
        .fetch_all(&self.pool)
        .await?;
        let tokens = rows
            .iter()
            .map(token_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(tokens
            .iter()
            .find(|token| token.id == id_or_name)
            .or_else(|| tokens.first())
            .cloned())
    }

    /// Removes a token; whether it was there.
    pub async fn delete_token(&self, id: &str) -> Result<bool, StoreError> {
        let deleted = sqlx::query("DELETE FROM tokens WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(deleted > 0)
    }

    /// How many tokens are stored.
    pub async fn token_count(&self) -> Result<usize, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM tokens")
            .fetch_one(&self.pool)
            .await?;
        Ok(to_usize(row.try_get("n")?))
    }
}

fn token_from_row(row: &AnyRow) -> Result<StoredToken, StoreError> {
    let id: String = row.try_get("id")?;
    let created_at: String = row.try_get("created_at")?;
    let created_at = created_at
        .parse::<Timestamp>()
        .map_err(|error| StoreError::Corrupt {
            what: format!("token {id}"),
            reason: format!("created_at {created_at:?}: {error}"),
        })?;
    Ok(StoredToken {
        sha256_hex: row.try_get("sha256_hex")?,
        principal: row.try_get("principal")?,
        description: row.try_get("description")?,
        name: row.try_get("name")?,
        created_at,
        id,
    })
}
