//! Each app's render secret: 32 random bytes made at the app's first render, kept only here, from which the seed
//! of its renders is derived (docs/render-randomness.md). Read by the render path, replaced by a rotation, removed
//! with the app; never returned through the API.

use sqlx::Row;

use super::{Store, StoreError};

/// The length of a render secret in bytes.
pub const RENDER_SECRET_LEN: usize = 32;

/// An app's render secret. Its `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct RenderSecret([u8; RENDER_SECRET_LEN]);

impl RenderSecret {
    /// The bytes.
    pub fn bytes(&self) -> &[u8; RENDER_SECRET_LEN] {
        &self.0
    }

    fn random() -> Result<Self, StoreError> {
        let mut bytes = [0u8; RENDER_SECRET_LEN];
        getrandom::fill(&mut bytes).map_err(StoreError::Random)?;
        Ok(RenderSecret(bytes))
    }

    fn parse(app: &str, text: &str) -> Result<Self, StoreError> {
        hex::decode(text)
            .ok()
            .and_then(|bytes| <[u8; RENDER_SECRET_LEN]>::try_from(bytes).ok())
            .map(RenderSecret)
            .ok_or_else(|| StoreError::Corrupt {
                what: format!("render secret of app {app}"),
                reason: "not 32 bytes in hex".into(),
            })
    }
}

impl std::fmt::Debug for RenderSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RenderSecret(<secret>)")
    }
}

impl Store {
    /// The app's render secret, made (once, whichever replica asks first) when it has none.
    pub async fn render_secret(&self, app: &str) -> Result<RenderSecret, StoreError> {
        if let Some(secret) = self.stored_render_secret(app).await? {
            return Ok(secret);
        }
        let fresh = RenderSecret::random()?;
        // Two replicas rendering the app's first revision at once both try; the first write wins and both read it.
        sqlx::query(&format!(
            "INSERT INTO render_secrets (app, secret, created_at) VALUES ($1, $2, {}) \
             ON CONFLICT (app) DO NOTHING",
            self.now()
        ))
        .bind(app)
        .bind(hex::encode(fresh.bytes()))
        .execute(&self.pool)
        .await?;
        self.stored_render_secret(app)
            .await?
            .ok_or_else(|| StoreError::Corrupt {
                what: format!("render secret of app {app}"),
                reason: "written and not found".into(),
            })
    }

    /// Replaces the app's render secret with a new one: every value its renders draw changes at its next render.
    pub async fn rotate_render_secret(&self, app: &str) -> Result<(), StoreError> {
        let fresh = RenderSecret::random()?;
        sqlx::query(&format!(
            "INSERT INTO render_secrets (app, secret, created_at) VALUES ($1, $2, {now}) \
             ON CONFLICT (app) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at",
            now = self.now()
        ))
        .bind(app)
        .bind(hex::encode(fresh.bytes()))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn stored_render_secret(&self, app: &str) -> Result<Option<RenderSecret>, StoreError> {
        let row = sqlx::query("SELECT secret FROM render_secrets WHERE app = $1")
            .bind(app)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            let text: String = row.try_get("secret")?;
            RenderSecret::parse(app, &text)
        })
        .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_app_keeps_its_secret_until_rotated_and_loses_it_with_the_app() {
        let store = Store::open("sqlite::memory:").await.unwrap();
        let first = store.render_secret("shop").await.unwrap();
        assert_eq!(store.render_secret("shop").await.unwrap(), first);
        assert_ne!(store.render_secret("blog").await.unwrap(), first);
        assert_eq!(format!("{first:?}"), "RenderSecret(<secret>)");
        store.rotate_render_secret("shop").await.unwrap();
        let rotated = store.render_secret("shop").await.unwrap();
        assert_ne!(rotated, first);
        store.delete_app("shop").await.unwrap();
        assert_ne!(store.render_secret("shop").await.unwrap(), rotated);
    }
}
