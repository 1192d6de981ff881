//! Making the cluster match the rendered manifests. So far: the prune fuse, the pure rule that bounds what one
//! reconcile may delete.

mod fuse;
pub mod tracking;

pub use fuse::{
    ARGOCD_SYNC_OPTIONS_ANNOTATION, FuseTrip, KeepReason, PruneCandidate, PruneDecision, PruneFuse,
    RenderOutcome, SYNC_OPTIONS_ANNOTATION,
};
