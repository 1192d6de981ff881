//! Calling a `gate` plugin: a fresh metered sandbox per call with the entry's settings, the plan in, a verdict out,
//! the verdict's size and shape checked by the host.

use std::sync::Arc;

use weft_sdk::gate::{Change, GateRequest, Reason, Verdict};
use weft_sdk::{ErrorKind, PluginError};

use super::World;
use super::bindings::gate::exports::weft::plugin::deploy_gate as wit;
use super::bindings::gate::weft::plugin::types as wit_types;
use super::bindings::gate::{Gate, GatePre};
use super::call::{classify, instance_pre, new_store, on_blocking_thread, wrong_world};
use super::error::{CallError, Failure, LoadError};
use super::host::{HostInner, LoadedComponent, PluginHost};
use super::limits::CallLimits;
use super::shape::Sandbox;
use super::state::CallState;

/// A loaded deploy gate, bound to one entry's settings.
#[derive(Clone)]
pub struct GatePlugin {
    name: Arc<str>,
    sha256: Arc<str>,
    limits: CallLimits,
    settings: Arc<str>,
    pre: GatePre<CallState>,
    host: Arc<HostInner>,
}

impl std::fmt::Debug for GatePlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatePlugin")
            .field("name", &self.name)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl PluginHost {
    /// Binds a loaded component to the `gate` world, under `name` with `settings` (JSON text, empty for none).
    pub fn gate_plugin(
        &self,
        component: &LoadedComponent,
        name: &str,
        settings: &str,
        limits: CallLimits,
    ) -> Result<GatePlugin, LoadError> {
        let pre = instance_pre(&self.inner.gate_linker, component, World::Gate)?;
        let pre =
            GatePre::new(pre).map_err(|e| wrong_world(component, World::Gate, format!("{e:#}")))?;
        Ok(GatePlugin {
            name: name.into(),
            sha256: component.sha256.as_str().into(),
            limits: self.inner.config.effective(World::Gate, limits),
            settings: settings.into(),
            pre,
            host: self.inner.clone(),
        })
    }
}

impl GatePlugin {
    /// The gate's name (its `[[gate]]` entry's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// sha256 of the component.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The limits each call runs under.
    pub fn limits(&self) -> &CallLimits {
        &self.limits
    }

    /// Judges a plan on the calling thread. The outer `Result` is the sandbox's verdict on the call (the plugin
    /// trapped, timed out, broke the contract); the inner one is the plugin's own error. The host treats both as
    /// a deny.
    pub fn evaluate_blocking(
        &self,
        request: &GateRequest,
    ) -> Result<Result<Verdict, PluginError>, CallError> {
        let wit_request = request_to_wit(request);
        let mut state = CallState::new(self.limits.memory_bytes, self.limits.max_log_bytes);
        state.settings = self.settings.clone();
        let mut store = new_store(
            &self.host,
            World::Gate,
            Sandbox::Native,
            &self.limits,
            state,
        );
        let raw = self
            .pre
            .instantiate(&mut store)
            .map_err(|e| Failure::Instantiate(format!("{e:#}")))
            .and_then(|instance: Gate| {
                instance
                    .weft_plugin_deploy_gate()
                    .call_evaluate(&mut store, &wit_request)
                    .map_err(|e| classify(&e, store.data(), &self.limits))
            })
            .map_err(|failure| self.fail(failure))?;
        match raw {
            Ok(verdict) => {
                let verdict = verdict_from_wit(verdict);
                let size: usize = verdict
                    .reasons()
                    .iter()
                    .map(|r| r.object.len() + r.rule.len() + r.message.len())
                    .sum();
                if size > self.limits.max_output_bytes {
                    return Err(self.fail(Failure::OutputTooLarge {
                        size,
                        limit: self.limits.max_output_bytes,
                    }));
                }
                if let Some(reason) = verdict.reasons().iter().find(|r| r.rule.trim().is_empty()) {
                    return Err(self.fail(Failure::InvalidOutput(format!(
                        "a reason names no rule ({:?})",
                        reason.message
                    ))));
                }
                Ok(Ok(verdict))
            }
            Err(error) => Ok(Err(error_from_wit(error))),
        }
    }

    /// Judges a plan on a blocking thread, bounded like every plugin call.
    pub async fn evaluate(
        &self,
        request: GateRequest,
    ) -> Result<Result<Verdict, PluginError>, CallError> {
        let plugin = self.clone();
        on_blocking_thread(&self.host, &self.name, Sandbox::Native, move || {
            plugin.evaluate_blocking(&request)
        })
        .await
    }

    fn fail(&self, failure: Failure) -> CallError {
        CallError::decided(&self.name, failure)
    }
}

fn request_to_wit(request: &GateRequest) -> wit::GateRequest {
    wit::GateRequest {
        app: wit::AppFacts {
            name: request.app.name.clone(),
            org: request.app.org.clone(),
            env: request.app.env.clone(),
            cluster: request.app.cluster.clone(),
            namespace: request.app.namespace.clone(),
        },
        revision: request.revision.clone(),
        objects: request
            .objects
            .iter()
            .map(|object| wit::PlannedObject {
                reference: object.reference.clone(),
                change: match object.change {
                    Change::Create => wit::Change::Create,
                    Change::Update => wit::Change::Update,
                    Change::Prune => wit::Change::Prune,
                    Change::Unchanged => wit::Change::Unchanged,
                },
                manifest: object.manifest.to_string(),
                diff: object.diff.clone(),
            })
            .collect(),
        images: request
            .images
            .iter()
            .map(|image| wit::Image {
                reference: image.reference.clone(),
                digest: image.digest.clone(),
                pinned_in_source: image.pinned_in_source,
                objects: image.objects.clone(),
            })
            .collect(),
        build: request.build.as_ref().map(|build| wit::BuildRecord {
            commit: build.commit.clone(),
            image: build.image.clone(),
            kind: build.kind.clone(),
        }),
    }
}

fn verdict_from_wit(verdict: wit::Verdict) -> Verdict {
    let reasons = |list: Vec<wit::Reason>| {
        list.into_iter()
            .map(|r| Reason {
                object: r.object,
                rule: r.rule,
                message: r.message,
            })
            .collect()
    };
    match verdict {
        wit::Verdict::Allow => Verdict::Allow,
        wit::Verdict::Warn(list) => Verdict::Warn(reasons(list)),
        wit::Verdict::Deny(list) => Verdict::Deny(reasons(list)),
    }
}

fn error_from_wit(error: wit_types::PluginError) -> PluginError {
    PluginError {
        kind: match error.kind {
            wit_types::ErrorKind::InvalidInput => ErrorKind::InvalidInput,
            wit_types::ErrorKind::Unsupported => ErrorKind::Unsupported,
            wit_types::ErrorKind::Failed => ErrorKind::Failed,
        },
        message: error.message,
    }
}
