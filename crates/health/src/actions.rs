//! Running a kind's Lua resource actions: the `lua-actions:` registry entry's compiled scripts
//! ([`crate::action_scripts`]), each run by the `health-lua` component's `resource-actions` export in a fresh
//! sandbox under its health limits. What the scripts return is parsed here; applying it is the caller's (the
//! server decides what an action may change).

use serde_json::Value;
use weft_plugin_host::{ActionCallError, ActionOffer, ActionPlugin, Impact};

use super::action_scripts::{ActionBundle, entry_name};
use super::assessor::HealthAssessor;

/// Why a Lua action could not be discovered or run. Nothing was applied in any case.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    /// The entry's plugin could not be loaded, or it exports no resource actions (a component built before them).
    #[error("the Lua actions of {key} cannot run: {message}")]
    Unavailable {
        /// The kind.
        key: String,
        /// Why.
        message: String,
    },
    /// The kind has no Lua action of that name.
    #[error("{key} has no Lua action {name:?}")]
    Unknown {
        /// The kind.
        key: String,
        /// The action asked for.
        name: String,
    },
    /// The call failed: the host stopped it (a timeout, the memory cap, a trap), the script raised an error or
    /// returned what Argo CD refuses, or the object is a Secret.
    #[error("{origin}: {source}")]
    Call {
        /// The script that ran (its file or ConfigMap key).
        origin: String,
        /// What went wrong.
        source: ActionCallError,
    },
    /// The plugin returned an object that is not JSON.
    #[error("{origin}: the action returned an object that is not JSON: {message}")]
    Output {
        /// The script.
        origin: String,
        /// The parser's message.
        message: String,
    },
}

/// One kind's Lua actions, ready to run.
#[derive(Debug, Clone)]
pub struct LuaActions {
    key: String,
    plugin: ActionPlugin,
    bundle: ActionBundle,
}

impl HealthAssessor {
    /// The Lua actions configured for `group`/`kind`, or `None` when there are none.
    pub fn lua_actions(&self, group: &str, kind: &str) -> Result<Option<LuaActions>, ActionError> {
        let name = entry_name(group, kind);
        let key = name
            .trim_start_matches(super::action_scripts::ACTIONS_PREFIX)
            .to_string();
        let Some(registered) = self.registry().get(&name) else {
            return Ok(None);
        };
        let unavailable = |message: String| ActionError::Unavailable {
            key: key.clone(),
            message,
        };
        let bundle: ActionBundle = serde_json::from_str(registered.settings().unwrap_or_default())
            .map_err(|e| {
                unavailable(format!(
                    "its entry's settings are not an action bundle: {e}"
                ))
            })?;
        let plugin = self
            .plugin(&name)
            .map_err(|e| unavailable(e.to_string()))?
            .resource_actions()
            .map_err(|e| unavailable(e.to_string()))?;
        Ok(Some(LuaActions {
            key,
            plugin,
            bundle,
        }))
    }
}

/// What an action asks for: a patch of the object it ran on (or another object), or an object to create.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionChange {
    /// Patch or create.
    pub operation: Impact,
    /// The object as the script returned it.
    pub object: Value,
}

impl LuaActions {
    /// The kind (`apps/Deployment`).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Whether an action of that name has a script.
    pub fn has(&self, name: &str) -> bool {
        self.bundle.actions.contains_key(name)
    }

    /// The actions the discovery scripts offer for `object`, sorted by name: the first script to offer a name wins
    /// it (a ConfigMap's before a directory's, as Argo CD's custom actions come before its built-in ones). An
    /// action without a script is left out (logged): it could not run.
    pub async fn discover(&self, object: &Value) -> Result<Vec<ActionOffer>, ActionError> {
        let mut offers: Vec<ActionOffer> = Vec::new();
        for (index, settings) in self.bundle.discovery.iter().enumerate() {
            let origin = self.origin(&format!("discovery[{index}]"));
            let found = self
                .plugin
                .discover(settings.clone(), object.to_string())
                .await
                .map_err(|source| ActionError::Call { origin, source })?;
            for offer in found {
                if offers.iter().any(|o| o.name == offer.name) {
                    continue;
                }
                if !self.has(&offer.name) {
                    tracing::warn!(kind = %self.key, action = %offer.name,
                        "a Lua discovery script offers an action without an action.lua; it is not listed");
                    continue;
                }
                offers.push(offer);
            }
        }
        offers.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(offers)
    }

    /// Runs action `name` on `object` with Argo CD's `actionParams`: the changes it asks for, parsed, nothing
    /// applied.
    pub async fn run(
        &self,
        name: &str,
        object: &Value,
        parameters: Vec<(String, String)>,
    ) -> Result<Vec<ActionChange>, ActionError> {
        let settings = self
            .bundle
            .actions
            .get(name)
            .ok_or_else(|| ActionError::Unknown {
                key: self.key.clone(),
                name: name.to_string(),
            })?;
        let origin = self.origin(name);
        let impacted = self
            .plugin
            .run(settings.clone(), object.to_string(), parameters)
            .await
            .map_err(|source| ActionError::Call {
                origin: origin.clone(),
                source,
            })?;
        impacted
            .into_iter()
            .map(|item| {
                let object =
                    serde_json::from_str(&item.object).map_err(|e| ActionError::Output {
                        origin: origin.clone(),
                        message: e.to_string(),
                    })?;
                Ok(ActionChange {
                    operation: item.operation,
                    object,
                })
            })
            .collect()
    }

    /// Where a script came from, for errors.
    fn origin(&self, script: &str) -> String {
        self.bundle
            .origins
            .get(script)
            .cloned()
            .unwrap_or_else(|| format!("{} {script}", self.key))
    }
}
