//! Calling a `health-check` plugin: a fresh sandbox per batch, results checked against the contract.

use std::sync::Arc;

use weft_sdk::{ErrorKind, Health, PluginError, Status};

use super::World;
use super::bindings::health_check::{HealthCheck, HealthCheckPre, weft::plugin::types as wit};
use super::call::{classify, instance_pre, new_store, on_blocking_thread, wrong_world};
use super::error::{CallError, Failure, LoadError};
use super::guest_wasi::GuestWasi;
use super::host::{HostInner, LoadedComponent, PluginHost};
use super::limits::CallLimits;
use super::shape::Sandbox;
use super::state::{CallState, LogLine, RelatedObjects};

/// One result per object: a verdict, no opinion (`None`), or the plugin's own error.
pub type HealthResults = Vec<Result<Option<Health>, PluginError>>;

/// A loaded health-check plugin, ready to be called from any thread.
#[derive(Clone)]
pub struct HealthPlugin {
    name: Arc<str>,
    sha256: Arc<str>,
    limits: CallLimits,
    settings: Arc<str>,
    sandbox: Sandbox,
    pre: HealthCheckPre<CallState>,
    host: Arc<HostInner>,
}

impl std::fmt::Debug for HealthPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HealthPlugin")
            .field("name", &self.name)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// What one call produced besides its results.
#[derive(Debug, Clone, Default)]
pub struct CallReport {
    /// Lines the plugin logged (bounded).
    pub logs: Vec<LogLine>,
    /// Lines dropped over the log limit.
    pub dropped_logs: usize,
}

impl PluginHost {
    /// Binds a loaded component to the `health-check` world; it is instantiated afresh for every call.
    pub fn health_plugin(
        &self,
        component: &LoadedComponent,
        limits: CallLimits,
    ) -> Result<HealthPlugin, LoadError> {
        let linker = match component.sandbox {
            Sandbox::Native => &self.inner.health_linker,
            Sandbox::GuestRuntime => &self.inner.guest_health_linker,
        };
        let pre = instance_pre(linker, component, World::HealthCheck)?;
        let pre = HealthCheckPre::new(pre)
            .map_err(|e| wrong_world(component, World::HealthCheck, format!("{e:#}")))?;
        Ok(HealthPlugin {
            name: component.name.as_str().into(),
            sha256: component.sha256.as_str().into(),
            limits: self.inner.config.effective(World::HealthCheck, limits),
            settings: Arc::from(""),
            sandbox: component.sandbox,
            pre,
            host: self.inner.clone(),
        })
    }
}

impl HealthPlugin {
    /// The plugin's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// sha256 of the component.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The limits each call runs under.
    pub fn limits(&self) -> CallLimits {
        self.limits
    }

    /// The settings every call gets through the `settings` import (empty when none).
    pub fn settings(&self) -> &str {
        &self.settings
    }

    /// The pre-instantiated component (what its other exports are bound on).
    pub(crate) fn instance_pre(&self) -> &wasmtime::component::InstancePre<CallState> {
        self.pre.instance_pre()
    }

    /// The sandbox it runs in.
    pub(crate) fn sandbox(&self) -> Sandbox {
        self.sandbox
    }

    /// The host it runs on.
    pub(crate) fn host(&self) -> &Arc<HostInner> {
        &self.host
    }

    /// The same compiled component as another registry entry: its own name (what errors and verdicts name) and
    /// its own settings (a Lua script, CEL expressions). Cheap: nothing is compiled or copied but the settings.
    pub fn instance(&self, name: &str, settings: &str) -> HealthPlugin {
        HealthPlugin {
            name: name.into(),
            settings: settings.into(),
            ..self.clone()
        }
    }

    /// The same plugin with a shorter deadline (never a longer one than its limits give).
    pub fn with_timeout(&self, timeout: std::time::Duration) -> HealthPlugin {
        let mut limits = self.limits;
        limits.timeout = limits.timeout.min(timeout);
        HealthPlugin {
            limits,
            ..self.clone()
        }
    }

    /// The same plugin with this deadline, longer or shorter than its limits give, within the host's ceiling (for
    /// `weft plugin test --timeout-ms`).
    pub fn with_deadline(&self, timeout: std::time::Duration) -> HealthPlugin {
        let mut limits = self.limits;
        limits.timeout = timeout;
        HealthPlugin {
            limits: self.host.config.effective(World::HealthCheck, limits),
            ..self.clone()
        }
    }

    /// These settings instead of the current ones, under the same name.
    pub fn with_settings(&self, settings: &str) -> HealthPlugin {
        self.instance(&self.name, settings)
    }

    /// Assesses a batch on the calling thread. Prefer [`HealthPlugin::assess`] on an async runtime.
    pub fn assess_blocking(
        &self,
        objects: &[String],
        related: Arc<dyn RelatedObjects>,
    ) -> Result<(HealthResults, CallReport), CallError> {
        let fail = |failure| CallError::decided(&self.name, failure);
        // No plugin ever receives a Secret's values: one in the batch arrives as its metadata only.
        let objects: Vec<String> = objects
            .iter()
            .map(|json| weft_core::secrets::for_plugin(json).into_owned())
            .collect();
        let objects = objects.as_slice();
        let mut state = CallState::new(self.limits.memory_bytes, self.limits.max_log_bytes);
        state.related = related;
        state.settings = self.settings.clone();
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
            .and_then(|instance: HealthCheck| {
                instance
                    .weft_plugin_health()
                    .call_assess(&mut store, objects)
                    .map_err(|e| classify(&e, store.data(), &self.limits))
            });
        let mut state = store.into_data();
        state.keep_standard_output();
        let report = CallReport {
            logs: state.logs.lines,
            dropped_logs: state.logs.dropped,
        };
        let raw = outcome.map_err(fail)?;
        if raw.len() != objects.len() {
            return Err(fail(Failure::InvalidOutput(format!(
                "{} results for {} objects",
                raw.len(),
                objects.len()
            ))));
        }
        let size: usize = raw.iter().map(output_size).sum();
        if size > self.limits.max_output_bytes {
            return Err(fail(Failure::OutputTooLarge {
                size,
                limit: self.limits.max_output_bytes,
            }));
        }
        Ok((raw.into_iter().map(from_wit).collect(), report))
    }

    /// Assesses a batch on a blocking thread, at most as many at once as the host has instance slots.
    pub async fn assess(
        &self,
        objects: Vec<String>,
        related: Arc<dyn RelatedObjects>,
    ) -> Result<(HealthResults, CallReport), CallError> {
        let plugin = self.clone();
        on_blocking_thread(&self.host, &self.name, self.sandbox, move || {
            plugin.assess_blocking(&objects, related)
        })
        .await
    }
}

fn output_size(result: &Result<Option<wit::Health>, wit::PluginError>) -> usize {
    const RECORD: usize = 16;
    RECORD
        + match result {
            Ok(Some(health)) => health.message.len(),
            Ok(None) => 0,
            Err(error) => error.message.len(),
        }
}

fn from_wit(
    result: Result<Option<wit::Health>, wit::PluginError>,
) -> Result<Option<Health>, PluginError> {
    match result {
        Ok(verdict) => Ok(verdict.map(|h| Health::new(status_from_wit(h.status), h.message))),
        Err(e) => Err(PluginError {
            kind: match e.kind {
                wit::ErrorKind::InvalidInput => ErrorKind::InvalidInput,
                wit::ErrorKind::Unsupported => ErrorKind::Unsupported,
                wit::ErrorKind::Failed => ErrorKind::Failed,
            },
            message: e.message,
        }),
    }
}

fn status_from_wit(status: wit::HealthStatus) -> Status {
    match status {
        wit::HealthStatus::Healthy => Status::Healthy,
        wit::HealthStatus::Progressing => Status::Progressing,
        wit::HealthStatus::Degraded => Status::Degraded,
        wit::HealthStatus::Suspended => Status::Suspended,
        wit::HealthStatus::Missing => Status::Missing,
        wit::HealthStatus::Unknown => Status::Unknown,
    }
}
