//! The server's side of apps declared as Kubernetes resources: the controllers that watch Applications and
//! ApplicationSets, keep the store and the directory in step with them and write their statuses. The rules they
//! apply (the definition, tenancy, conversion, decisions, statuses, generators, set plans) are `weft-applications`'s.
//!
//! - [`controller`]: the watch, the store and directory kept in step, statuses written.
//! - [`resource_watch`]: Applications and ApplicationSets watched across the cluster or namespace by namespace.
//! - [`set_controller`]: the ApplicationSets watched, their Applications applied and deleted, statuses written.

pub mod controller;
pub mod resource_watch;
pub mod set_controller;

pub use controller::{ApplicationController, PlaneState, install_definition};
pub use set_controller::{ApplicationSetController, SetView, SetViews};
