//! The Weft plugin SDK: write a health check in a few lines, test it natively, ship it as a Wasm component.
//!
//! A health check is a type that implements [`HealthCheck`]; [`export_health_check!`] turns it into the
//! `health-check` world's export. The same code builds natively, so its logic is unit-tested with
//! [`testing`] and no Wasm at all.
//!
//! Plugins and the host both depend on it, so it depends on no other Weft crate and never on the host's (it builds
//! for Wasm inside every plugin).
//!
//! ```
//! use weft_sdk::{Context, Health, HealthCheck, Object, PluginError};
//!
//! /// Health of `Widget` objects (group `example.weft.dev`).
//! pub struct WidgetHealth;
//!
//! impl HealthCheck for WidgetHealth {
//!     fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
//!         if !obj.generation_observed() {
//!             return Ok(Some(Health::progressing("Waiting for the controller to observe the spec")));
//!         }
//!         Ok(Some(match obj.condition("Ready") {
//!             Some(c) if c.is_true() => Health::healthy(c.message()),
//!             Some(c) if c.is_false() => Health::degraded(c.message()),
//!             _ => Health::progressing("Waiting for the Ready condition"),
//!         }))
//!     }
//! }
//!
//! // In the plugin crate (crate-type = ["cdylib", "rlib"]):
//! weft_sdk::export_health_check!(WidgetHealth);
//!
//! // And natively, in its unit tests:
//! let verdict = weft_sdk::testing::assess_yaml::<WidgetHealth>(r#"
//! apiVersion: example.weft.dev/v1
//! kind: Widget
//! metadata: {name: w, generation: 2}
//! status:
//!   observedGeneration: 2
//!   conditions: [{type: Ready, status: "True", message: all good}]
//! "#).unwrap();
//! assert_eq!(verdict, Some(Health::healthy("all good")));
//! ```

mod check;
pub mod clock;
mod condition;
pub mod dispatch;
pub mod gate;
pub mod glob;
mod health;
pub mod image;
pub mod log;
pub mod lookup;
pub mod manifests;
mod number;
mod object;
pub mod pods;
pub mod remote;
pub mod render;
pub mod secret;
pub mod semver;
pub mod settings;
pub mod shapes;
pub mod source;
pub mod steer;
pub mod testing;

#[doc(hidden)]
pub mod guest;

/// Bindings generated from `wit/` by wit-bindgen, one module per world (enabled by the crate feature of the
/// same name). Plugin code rarely needs them directly: the traits and macros of this crate wrap them.
pub mod bindings;

pub use check::{Context, HealthCheck, Related};
pub use condition::Condition;
pub use dispatch::{Check, KindTable};
pub use health::{ErrorKind, Health, PluginError, Status};
pub use lookup::{FixedObjects, LiveObjects, Lookup};
pub use object::{Object, Replicas};
pub use render::{
    ClusterFacts, Manifest, RenderError, RenderOutput, RenderRequest, RenderSeed, Renderer,
};
pub use serde_json::{self, Value, json};
pub use source::{DirEntry, EntryKind, Source, SourceError};
pub use steer::{BuildFailure, BuildPlan, BuildSteer, RepoFacts, Revision, SteerDecision};
