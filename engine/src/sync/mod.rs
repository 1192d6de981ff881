//! Making the cluster match the rendered manifests.
//!
//! Before the plan boundary nothing changes in the cluster: [`compare`] turns a render into the desired set and
//! diffs it against the live set ([`diff`], [`normalize`]); [`plan`] decides every step and its order ([`order`])
//! with the prune fuse bounding deletions, and the deploy [`gates`] judge it. After it, [`syncer`] applies the plan batch by batch and records an
//! [`operation`]; [`cascade`] deletes every object of an app whose Application is deleted with the resources
//! finalizer; [`partial`] limits a plan to some objects (a single resource's sync); [`release`] writes the marks by which an app lets go of objects another app may then take over;
//! [`observe`] reports sync, health, versions and the resource tree ([`status`], [`tree`]).

pub mod cascade;
pub mod compare;
pub mod dry_runs;
pub mod gates;
pub mod legacy;
pub mod observe;
pub mod operation;
pub mod partial;
pub mod release;
pub mod syncer;
pub use weft_core::tracking;
pub use weft_sync::{
    diff, endpoints, fingerprint, normalize, order, plan, shared, status, sync_options, tree,
};

pub use weft_sync::{
    ARGOCD_SYNC_OPTIONS_ANNOTATION, FuseTrip, KeepReason, PruneCandidate, PruneDecision, PruneFuse,
    RenderOutcome, SYNC_OPTIONS_ANNOTATION,
};
