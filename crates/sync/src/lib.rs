//! The pure core of making a cluster match a render: the diff of desired against live ([`diff`], with the
//! normalizations that hide defaults and ignored fields, [`normalize`]), the plan and its order ([`plan`],
//! [`order`]) with the prune fuse bounding deletions (and re-creations of objects the API will not update in place,
//! [`recreate`]), the sync and health status of an app ([`status`]), the
//! owned-resource tree ([`tree`]), environment fingerprints ([`fingerprint`]), endpoint readiness
//! ([`endpoints`]) and objects two apps render ([`shared`]: held, released, taken over) and Argo CD's sync options
//! ([`sync_options`]).
//!
//! Nothing here does I/O: a caller reads the cluster and passes objects in, and gets decisions out. It must not
//! depend on the cluster layer (`weft-cluster`), the plugin host, the store or the server; the parts of syncing
//! that read and write a cluster (comparing against the live cache, applying a plan, observing) are the server's,
//! which injects the cluster.

pub mod diff;
pub mod endpoints;
pub mod fingerprint;
mod fuse;
pub mod normalize;
pub mod order;
pub mod plan;
pub mod recreate;
pub mod shared;
pub mod status;
pub mod sync_options;
pub mod tree;

pub use weft_core::tracking;

pub use fuse::{
    ARGOCD_SYNC_OPTIONS_ANNOTATION, FuseTrip, KeepReason, PruneCandidate, PruneDecision, PruneFuse,
    RenderOutcome, SYNC_OPTIONS_ANNOTATION,
};
