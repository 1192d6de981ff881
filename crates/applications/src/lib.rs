//! Apps declared as Kubernetes resources (`applications.weft.dev`, kind `Application`, and `ApplicationSet`), as
//! pure rules: the definition Weft installs, the operator's map of namespaces to orgs and what each org may name, an
//! Application read as an app (or refused, with the reason in its status), every Application decided at once (names
//! claimed without chance), the status written back, and an ApplicationSet's generators and plan. The controllers
//! that watch and write are the server's (`weft-engine`'s `applications`).
//!
//! - [`crd`]: the definition and the resource's coordinates.
//! - [`tenancy`]: `[[org]]` and `[applications]`; namespace to org, destination and source allow-lists.
//! - [`convert`]: one resource to one app, or a [`Refusal`].
//! - [`decide`]: all resources at once: names held elsewhere or shared.
//! - [`status`]: the status for an app's view and state.
//! - [`generate`]: an ApplicationSet's generators (list, git directories and files, clusters) to parameter sets.
//! - [`set_plan`]: a set's template instantiated, and its deletions through the fleet-level prune fuse.

pub mod convert;
pub mod crd;
pub mod decide;
pub mod generate;
pub mod set_plan;
pub mod status;
pub mod tenancy;

pub use convert::Refusal;
pub use tenancy::{ApplicationsConfig, OrgSpec, Tenancy};
