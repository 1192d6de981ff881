//! Apps declared as Kubernetes resources (`applications.weft.dev`, kind `Application`): the definition Weft
//! installs, the operator's map of namespaces to orgs and what each org may name, an Application read as an app
//! (or refused, with the reason in its status), every Application decided at once (names claimed without
//! chance), the status written back, and the controller that does the watching and writing.
//!
//! - [`crd`]: the definition and the resource's coordinates.
//! - [`tenancy`]: `[[org]]` and `[applications]`; namespace to org, destination and source allow-lists.
//! - [`convert`]: one resource to one app, or a [`Refusal`].
//! - [`decide`]: all resources at once: names held elsewhere or shared.
//! - [`status`]: the status for an app's view and state.
//! - [`controller`]: the watch, the store and directory kept in step, statuses written.
//! - [`generate`]: an ApplicationSet's generators (list, git directories and files, clusters) to parameter sets.
//! - [`set_plan`]: a set's template instantiated, and its deletions through the fleet-level prune fuse.
//! - [`resource_watch`]: Applications and ApplicationSets watched across the cluster or namespace by namespace.
//! - [`set_controller`]: the ApplicationSets watched, their Applications applied and deleted, statuses written.

pub mod controller;
pub mod convert;
pub mod crd;
pub mod decide;
pub mod generate;
pub mod resource_watch;
pub mod set_controller;
pub mod set_plan;
pub mod status;
pub mod tenancy;

pub use controller::{ApplicationController, PlaneState, install_definition};
pub use convert::Refusal;
pub use set_controller::{ApplicationSetController, SetView, SetViews};
pub use tenancy::{ApplicationsConfig, OrgSpec, Tenancy};
