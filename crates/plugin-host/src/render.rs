//! Calling a `renderer` plugin: a fresh sandbox per render, the app's source tree as its only readable files.

use std::sync::Arc;

use serde_json::Value;
use weft_sdk::{Manifest, RenderError, RenderOutput, RenderRequest};

use super::World;
use super::bindings::renderer::exports::weft::plugin::render as wit;
use super::bindings::renderer::{Renderer, RendererPre};
use super::call::{classify, instance_pre, new_store, on_blocking_thread, wrong_world};
use super::error::{CallError, Failure, LoadError};
use super::host::{HostInner, LoadedComponent, PluginHost};
use super::limits::CallLimits;
use super::shape::Sandbox;
use super::state::{CallState, SharedSource};

/// A loaded renderer plugin.
#[derive(Clone)]
pub struct RendererPlugin {
    name: Arc<str>,
    sha256: Arc<str>,
    limits: CallLimits,
    pre: RendererPre<CallState>,
    host: Arc<HostInner>,
}

impl std::fmt::Debug for RendererPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RendererPlugin")
            .field("name", &self.name)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl PluginHost {
    /// Binds a loaded component to the `renderer` world.
    pub fn renderer_plugin(
        &self,
        component: &LoadedComponent,
        limits: CallLimits,
    ) -> Result<RendererPlugin, LoadError> {
        let pre = instance_pre(&self.inner.render_linker, component, World::Renderer)?;
        let pre = RendererPre::new(pre)
            .map_err(|e| wrong_world(component, World::Renderer, format!("{e:#}")))?;
        Ok(RendererPlugin {
            name: component.name.as_str().into(),
            sha256: component.sha256.as_str().into(),
            limits: self.inner.config.effective(World::Renderer, limits),
            pre,
            host: self.inner.clone(),
        })
    }
}

impl RendererPlugin {
    /// The plugin's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// sha256 of the component: part of every render cache key.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// Renders on the calling thread. The outer `Result` is the sandbox's verdict (the plugin trapped, timed out,
    /// broke the contract); the inner one is the plugin's own (the chart or overlay is wrong).
    pub fn render_blocking(
        &self,
        request: &RenderRequest,
        source: SharedSource,
    ) -> Result<Result<RenderOutput, RenderError>, CallError> {
        let fail = |failure| CallError::decided(&self.name, failure);
        let mut state = CallState::new(self.limits.memory_bytes, self.limits.max_log_bytes);
        state.source = Some(source);
        state.cluster = request.cluster.clone();
        state.seed = request.seed.clone();
        state.revision_time = request.revision_time;
        state.lookup = request.lookup.clone();
        let mut store = new_store(
            &self.host,
            World::Renderer,
            Sandbox::Native,
            &self.limits,
            state,
        );
        let wit_request = wit::RenderRequest {
            app: request.app.clone(),
            namespace: request.namespace.clone(),
            release: request.release.clone(),
            parameters: request.parameters.clone(),
            values: request.values.clone(),
        };
        let outcome = self
            .pre
            .instantiate(&mut store)
            .map_err(|e| Failure::Instantiate(format!("{e:#}")))
            .and_then(|instance: Renderer| {
                instance
                    .weft_plugin_render()
                    .call_render(&mut store, &wit_request)
                    .map_err(|e| classify(&e, store.data(), &self.limits))
            });
        if let (Some(budget), Ok(left)) = (self.limits.fuel, store.get_fuel()) {
            tracing::debug!(plugin = %self.name, steps = budget - left, budget, "render finished");
        }
        let raw = outcome.map_err(fail)?;
        let output = match raw {
            Ok(output) => output,
            Err(error) => {
                return Ok(Err(RenderError {
                    message: error.message,
                    file: error.file,
                    line: error.line,
                }));
            }
        };
        let size: usize = output
            .manifests
            .iter()
            .map(|m| m.json.len() + m.file.as_ref().map_or(0, String::len))
            .chain(output.files_used.iter().map(String::len))
            .sum();
        if size > self.limits.max_output_bytes {
            return Err(fail(Failure::OutputTooLarge {
                size,
                limit: self.limits.max_output_bytes,
            }));
        }
        let mut manifests = Vec::with_capacity(output.manifests.len());
        for (index, manifest) in output.manifests.into_iter().enumerate() {
            let object: Value = serde_json::from_str(&manifest.json).map_err(|e| {
                fail(Failure::InvalidOutput(format!(
                    "manifest {index} is not JSON: {e}"
                )))
            })?;
            manifests.push(Manifest {
                object,
                file: manifest.file,
            });
        }
        Ok(Ok(RenderOutput {
            manifests,
            files_used: output.files_used,
        }))
    }

    /// Renders on a blocking thread, bounded like every plugin call.
    pub async fn render(
        &self,
        request: RenderRequest,
        source: SharedSource,
    ) -> Result<Result<RenderOutput, RenderError>, CallError> {
        let plugin = self.clone();
        on_blocking_thread(&self.host, &self.name, Sandbox::Native, move || {
            plugin.render_blocking(&request, source)
        })
        .await
    }
}
