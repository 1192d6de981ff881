//! The plugin host: one wasmtime engine, components compiled once, a fresh sandbox per call.
//!
//! Every call gets a new `Store` with a memory cap, a deadline (epoch interruption) and bounded output and logs;
//! whatever a plugin does — loop, allocate, recurse, panic, return garbage — the call ends with a typed
//! [`CallError`] naming the plugin, and the next call works.
//!
//! The registry ([`registry`]) chooses the plugin for a kind or app type. Of Weft's crates this depends on
//! `weft-plugin-contract`, `weft-core` (Secret redaction) and the SDK; it must not depend on sources, rendering,
//! the cluster or the server, and never on the plugin toolchain (`weft-plugin-build`).

mod actions;
mod admission;
mod bindings;
mod call;
mod epoch;
mod error;
mod gate;
mod guest_wasi;
mod health;
mod host;
mod limits;
pub mod registry;
mod render;
pub use weft_plugin_contract::shape;
mod state;
mod steer;

pub use actions::{
    ActionCallError, ActionOffer, ActionParameter, ActionPlugin, Impact, ImpactedObject,
};
pub use error::{CallError, Failure, LoadError};
pub use gate::GatePlugin;
pub use health::{CallReport, HealthPlugin, HealthResults};
pub use host::{DEFAULT_KEEP_RESIDENT, HostConfig, HostError, LoadedComponent, PluginHost};
pub use limits::{CallLimits, LimitCeilings, LimitOverrides};
pub use render::RendererPlugin;
pub use state::{LogLine, NoRelated, RelatedObjects, SharedSource};
pub use steer::SteerPlugin;
pub use weft_compiled_cache::Origin as LoadOrigin;

pub use weft_plugin_contract::World;
