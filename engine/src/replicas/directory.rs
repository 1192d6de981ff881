//! Apps defined through another replica's API: each replica's directory takes the store's API apps (added,
//! replaced, deleted elsewhere), so the app's owner reconciles what any replica's API was asked for, and no replica
//! keeps running an app another one deleted.

use std::collections::BTreeMap;

use weft_store::{AppOrigin, Store, StoreError};

use crate::directory::AppDirectory;
use weft_app::{ApiAppRules, AppSpec};

/// Makes the directory's API apps those of the store (held to `rules`, as at start); other origins are untouched.
/// Whether the directory changed.
pub async fn take_api_apps(
    store: &Store,
    apps: &AppDirectory,
    rules: &ApiAppRules,
) -> Result<bool, StoreError> {
    let stored: BTreeMap<String, AppSpec> = store
        .apps::<AppSpec>()
        .await?
        .into_iter()
        .filter(|app| app.origin == AppOrigin::Api && app.spec.check_api_rules(rules).is_ok())
        .map(|app| {
            let mut spec = app.spec;
            spec.origin = AppOrigin::Api;
            (spec.name.clone(), spec)
        })
        .collect();
    {
        let current = apps.read().await;
        let current_api: BTreeMap<&String, &AppSpec> = current
            .iter()
            .filter(|(_, app)| app.origin == AppOrigin::Api)
            .collect();
        let same = current_api.len() == stored.len()
            && stored
                .iter()
                .all(|(name, spec)| current_api.get(name) == Some(&spec));
        // A name another origin holds here stays with it.
        let clashes = stored.keys().any(|name| {
            current
                .get(name)
                .is_some_and(|app| app.origin != AppOrigin::Api)
        });
        if same && !clashes {
            return Ok(false);
        }
    }
    let mut directory = apps.write().await;
    directory.retain(|name, app| app.origin != AppOrigin::Api || stored.contains_key(name));
    for (name, spec) in stored {
        match directory.get(&name) {
            Some(app) if app.origin != AppOrigin::Api => {}
            Some(app) if *app == spec => {}
            _ => {
                directory.insert(name, spec);
            }
        }
    }
    Ok(true)
}
