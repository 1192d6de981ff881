//! Calling the `resource-actions` export of a health-check component (the Lua plugin runs Argo CD's resource
//! actions beside its health checks): a fresh sandbox per call, under the component's health limits, the script
//! given as the call's settings. A Secret is refused before any plugin is called.

use std::sync::Arc;

use serde::Serialize;
use weft_sdk::{ErrorKind, PluginError};

use super::World;
use super::bindings::resource_action::exports::weft::plugin::resource_actions as wit;
use super::bindings::resource_action::{ResourceAction, ResourceActionPre};
use super::call::{classify, new_store, on_blocking_thread};
use super::error::{CallError, Failure, LoadError};
use super::guest_wasi::GuestWasi;
use super::health::HealthPlugin;
use super::host::HostInner;
use super::limits::CallLimits;
use super::shape::Sandbox;
use super::state::CallState;

/// A parameter an action takes, as its discovery script declares it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ActionParameter {
    /// Its name (`replicas`).
    pub name: String,
    /// A value the script gives it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub value: String,
    /// Its type, as the script says.
    #[serde(rename = "type", skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Its default.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub default: String,
}

/// One action a discovery script offers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionOffer {
    /// The action's name.
    pub name: String,
    /// Shown, not runnable now.
    pub disabled: bool,
    /// The icon Argo CD's UI shows.
    pub icon_class: String,
    /// The name to show, when not the action's.
    pub display_name: String,
    /// The parameters it takes.
    pub params: Vec<ActionParameter>,
}

/// What to do with an object an action returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Impact {
    /// Patch the live object to it.
    Patch,
    /// Create it.
    Create,
}

/// One object an action returned, as JSON text (parsed by the caller, which decides what it may apply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImpactedObject {
    /// Patch or create.
    pub operation: Impact,
    /// The object.
    pub object: String,
}

/// Why an action call produced nothing to apply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionCallError {
    /// The object is a Secret: no plugin ever receives one, so no action runs on it.
    #[error("resource actions never run on a Secret")]
    Secret,
    /// The host stopped the call (a trap, its deadline, its memory cap) or refused its output.
    #[error(transparent)]
    Call(#[from] CallError),
    /// The script failed, or returned what Argo CD refuses; the message is the plugin's (Lua's error).
    #[error("{0}")]
    Script(String),
}

/// The `resource-actions` export of a loaded health-check component, ready to be called from any thread.
#[derive(Clone)]
pub struct ActionPlugin {
    name: Arc<str>,
    limits: CallLimits,
    sandbox: Sandbox,
    pre: ResourceActionPre<CallState>,
    host: Arc<HostInner>,
}

impl std::fmt::Debug for ActionPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionPlugin")
            .field("name", &self.name)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl HealthPlugin {
    /// The component's `resource-actions` export, with this entry's name and limits; an error naming the world
    /// when the component does not export it (one built before the interface existed).
    pub fn resource_actions(&self) -> Result<ActionPlugin, LoadError> {
        let pre = ResourceActionPre::new(self.instance_pre().clone()).map_err(|e| {
            LoadError::WrongWorld {
                plugin: self.name().to_string(),
                world: "resource-action".into(),
                message: format!("{e:#}"),
            }
        })?;
        Ok(ActionPlugin {
            name: self.name().into(),
            limits: self.limits(),
            sandbox: self.sandbox(),
            pre,
            host: self.host().clone(),
        })
    }
}

/// The call both functions make: a fresh store with `settings`, the export called, its output bounded.
enum Request<'a> {
    Discover,
    Run(&'a [(String, String)]),
}

/// What the export answered.
enum Answer {
    Offers(Vec<wit::ActionOffer>),
    Impacted(Vec<wit::ImpactedObject>),
}

impl ActionPlugin {
    /// The plugin's name (the registry entry it runs for).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs the discovery script `settings` (a Lua entry's settings) on `object` (JSON text) on the calling thread.
    pub fn discover_blocking(
        &self,
        settings: &str,
        object: &str,
    ) -> Result<Vec<ActionOffer>, ActionCallError> {
        match self.call(settings, object, Request::Discover)? {
            Answer::Offers(offers) => Ok(offers.into_iter().map(offer_from_wit).collect()),
            Answer::Impacted(_) => Err(ActionCallError::Script("unreachable answer".into())),
        }
    }

    /// Runs the action script `settings` on `object` with `parameters` on the calling thread: the objects to
    /// patch or create.
    pub fn run_blocking(
        &self,
        settings: &str,
        object: &str,
        parameters: &[(String, String)],
    ) -> Result<Vec<ImpactedObject>, ActionCallError> {
        match self.call(settings, object, Request::Run(parameters))? {
            Answer::Impacted(impacted) => Ok(impacted
                .into_iter()
                .map(|item| ImpactedObject {
                    operation: match item.operation {
                        wit::Impact::Patch => Impact::Patch,
                        wit::Impact::Create => Impact::Create,
                    },
                    object: item.object,
                })
                .collect()),
            Answer::Offers(_) => Err(ActionCallError::Script("unreachable answer".into())),
        }
    }

    /// [`ActionPlugin::discover_blocking`] on a blocking thread.
    pub async fn discover(
        &self,
        settings: String,
        object: String,
    ) -> Result<Vec<ActionOffer>, ActionCallError> {
        let plugin = self.clone();
        blocking(&self.host, &self.name, self.sandbox, move || {
            plugin.discover_blocking(&settings, &object)
        })
        .await
    }

    /// [`ActionPlugin::run_blocking`] on a blocking thread.
    pub async fn run(
        &self,
        settings: String,
        object: String,
        parameters: Vec<(String, String)>,
    ) -> Result<Vec<ImpactedObject>, ActionCallError> {
        let plugin = self.clone();
        blocking(&self.host, &self.name, self.sandbox, move || {
            plugin.run_blocking(&settings, &object, &parameters)
        })
        .await
    }

    fn call(
        &self,
        settings: &str,
        object: &str,
        request: Request<'_>,
    ) -> Result<Answer, ActionCallError> {
        if serde_json::from_str::<serde_json::Value>(object)
            .map(|value| weft_core::secrets::is_secret(&value))
            .unwrap_or(false)
        {
            return Err(ActionCallError::Secret);
        }
        let object = object.to_string();
        let fail = |failure| CallError::decided(&self.name, failure);
        let mut state = CallState::new(self.limits.memory_bytes, self.limits.max_log_bytes);
        state.settings = settings.into();
        if self.sandbox == Sandbox::GuestRuntime {
            state.wasi = Some(Box::new(GuestWasi::deny_all(
                state.started_at,
                self.limits.max_log_bytes,
            )));
        }
        let mut store = new_store(
            &self.host,
            World::HealthCheck,
            self.sandbox,
            &self.limits,
            state,
        );
        let outcome = self
            .pre
            .instantiate(&mut store)
            .map_err(|e| Failure::Instantiate(format!("{e:#}")))
            .and_then(|instance: ResourceAction| {
                let export = instance.weft_plugin_resource_actions();
                match request {
                    Request::Discover => export
                        .call_discover(&mut store, &object)
                        .map(|answer| answer.map(Answer::Offers)),
                    Request::Run(parameters) => export
                        .call_run(&mut store, &object, parameters)
                        .map(|answer| answer.map(Answer::Impacted)),
                }
                .map_err(|e| classify(&e, store.data(), &self.limits))
            });
        let answer = outcome.map_err(fail)?;
        let answer =
            answer.map_err(|error| ActionCallError::Script(plugin_error(error).message))?;
        let size = match &answer {
            Answer::Offers(offers) => offers
                .iter()
                .map(|o| 64 + o.name.len() + o.icon_class.len() + o.display_name.len())
                .sum(),
            Answer::Impacted(impacted) => impacted.iter().map(|i| 16 + i.object.len()).sum(),
        };
        if size > self.limits.max_output_bytes {
            return Err(fail(Failure::OutputTooLarge {
                size,
                limit: self.limits.max_output_bytes,
            })
            .into());
        }
        Ok(answer)
    }
}

async fn blocking<T: Send + 'static>(
    host: &Arc<HostInner>,
    name: &str,
    sandbox: Sandbox,
    call: impl FnOnce() -> Result<T, ActionCallError> + Send + 'static,
) -> Result<T, ActionCallError> {
    on_blocking_thread(host, name, sandbox, move || Ok(call()))
        .await
        .map_err(ActionCallError::Call)?
}

fn plugin_error(
    error: super::bindings::health_check::weft::plugin::types::PluginError,
) -> PluginError {
    use super::bindings::health_check::weft::plugin::types::ErrorKind as Kind;
    PluginError {
        kind: match error.kind {
            Kind::InvalidInput => ErrorKind::InvalidInput,
            Kind::Unsupported => ErrorKind::Unsupported,
            Kind::Failed => ErrorKind::Failed,
        },
        message: error.message,
    }
}

fn offer_from_wit(offer: wit::ActionOffer) -> ActionOffer {
    ActionOffer {
        name: offer.name,
        disabled: offer.disabled,
        icon_class: offer.icon_class,
        display_name: offer.display_name,
        params: offer
            .params
            .into_iter()
            .map(|param| ActionParameter {
                name: param.name,
                value: param.value,
                kind: param.type_,
                default: param.default,
            })
            .collect(),
    }
}
