//! The seed an app's renderer draws from: derived from the app's render secret, which stays in the store. A
//! plugin sees only the derived seed, never the secret (docs/render-randomness.md).

use hmac::{Hmac, KeyInit as _, Mac as _};
use rustcrypto_sha2::Sha256;
use weft_sdk::RenderSeed;
use weft_store::{RenderSecret, Store, StoreError};

/// What separates render seeds from anything else that might one day be derived from the same secret.
const DOMAIN: &[u8] = b"weft render seed v1\0";

/// The seed of the app's renders with its app type's renderer: HMAC-SHA256(secret, "weft render seed v1\0" ||
/// app type).
pub fn render_seed(secret: &RenderSecret, app_type: &str) -> RenderSeed {
    let mut mac =
        <Hmac<Sha256>>::new_from_slice(secret.bytes()).expect("HMAC takes a key of any length");
    mac.update(DOMAIN);
    mac.update(app_type.as_bytes());
    RenderSeed::new(mac.finalize().into_bytes().into())
}

/// What names a seed without revealing it: the hex SHA-256 of its bytes (as the render cache key takes it). A sync
/// records it, so the reconciler knows whether the app's last sync drew from the seed it would draw from now.
pub fn fingerprint(seed: &RenderSeed) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(seed.bytes()))
}

/// Gives the app a new render secret, and marks its last sync as no longer applying what it asks for, so the
/// reconciler compares it afresh (instead of trusting a comparison made with the old seed) and automated sync
/// applies the new values.
pub async fn rotate(store: &Store, app: &str) -> Result<(), StoreError> {
    store.rotate_render_secret(app).await?;
    let mut state: super::AppState = store.app_state(app).await?;
    if state.synced_digest.take().is_some() {
        store.put_app_state(app, &state).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_store::Store;

    #[tokio::test]
    async fn a_seed_is_fixed_per_app_and_type_differs_between_apps_and_is_not_the_secret() {
        let store = Store::open("sqlite::memory:").await.unwrap();
        let shop = store.render_secret("shop").await.unwrap();
        let blog = store.render_secret("blog").await.unwrap();
        assert_eq!(render_seed(&shop, "helm"), render_seed(&shop, "helm"));
        assert_ne!(render_seed(&shop, "helm"), render_seed(&blog, "helm"));
        assert_ne!(render_seed(&shop, "helm"), render_seed(&shop, "jsonnet"));
        assert_ne!(render_seed(&shop, "helm").bytes(), shop.bytes());
    }
}
