//! Deploy gates: the `[[gate]]` entries of `weft.toml` ([`config`]), which of them an app runs ([`config::for_app`]),
//! the plan as a gate sees it ([`request`]), the verdicts combined with an admin's override ([`verdicts`]), and the
//! gate plugins loaded and run in order, failing closed ([`set`]).
//!
//! Gates run after the plan and before the plan boundary: a deny leaves the cluster untouched.

pub mod config;
pub mod request;
pub mod set;
pub mod verdicts;

pub use config::GateEntry;
pub use set::{GateSet, GateSetError};
pub use verdicts::{GateDecision, GateOverride, GateResult, GateVerdict};

/// What a sync runs its gates with: the gates, the destination's name, the digests the images were pinned to, the
/// build that made the app's image, and an admin's override for this sync.
#[derive(Debug, Clone)]
pub struct GateRun {
    /// Every configured gate (the app's are chosen by its env, org and `gates`).
    pub set: std::sync::Arc<GateSet>,
    /// The destination cluster's name.
    pub cluster: String,
    /// Reference as rendered → the digest it was pinned to.
    pub digests: request::Digests,
    /// The build of the app's image, when Weft built it.
    pub build: Option<weft_sdk::gate::BuildRecord>,
    /// An admin's override of overridable denies, for this sync.
    pub override_: Option<GateOverride>,
}
