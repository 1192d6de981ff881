//! The plugin host: one wasmtime engine, components compiled once, a fresh sandbox per call.
//!
//! Every call gets a new `Store` with a memory cap, a deadline (epoch interruption) and bounded output and logs;
//! whatever a plugin does — loop, allocate, recurse, panic, return garbage — the call ends with a typed
//! [`CallError`] naming the plugin, and the next call works.

mod admission;
mod bindings;
pub mod build;
mod call;
mod epoch;
mod error;
mod guest_wasi;
mod health;
mod host;
mod limits;
mod render;
pub mod scaffold;
pub mod shape;
mod state;
mod steer;

pub use error::{CallError, Failure, LoadError};
pub use health::{CallReport, HealthPlugin, HealthResults};
pub use host::{DEFAULT_KEEP_RESIDENT, HostConfig, HostError, LoadedComponent, PluginHost};
pub use limits::{CallLimits, LimitCeilings, LimitOverrides};
pub use render::RendererPlugin;
pub use state::{LogLine, NoRelated, RelatedObjects, SharedSource};
pub use steer::SteerPlugin;
pub use weft_compiled_cache::Origin as LoadOrigin;

/// The three kinds of plugin, one per WIT world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum World {
    /// Assesses the health of objects.
    HealthCheck,
    /// Renders an app's manifests.
    Renderer,
    /// Plans and steers builds.
    BuildSteer,
}

impl World {
    /// The world's name in `wit/`.
    pub fn as_str(self) -> &'static str {
        match self {
            World::HealthCheck => "health-check",
            World::Renderer => "renderer",
            World::BuildSteer => "build-steer",
        }
    }
}

impl std::fmt::Display for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
