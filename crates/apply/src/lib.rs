//! weft-apply: making a cluster match an app's rendered manifests, the parts that read the cluster, call the gates
//! and write (the server's deploy and reconciler drive it; it knows nothing of them). The pure rules are
//! `weft-sync`'s ([`weft_sync::diff`], [`weft_sync::normalize`], [`weft_sync::plan`] with the prune fuse,
//! [`weft_sync::order`], [`weft_sync::status`], [`weft_sync::tree`]); callers name that crate.
//!
//! Before the plan boundary nothing changes in the cluster: [`compare`] turns a render into the desired set and
//! diffs it against the live set; `weft_sync::plan` decides every step and its order, with the prune fuse bounding
//! deletions, and the deploy [`gates`] judge it. After it, [`syncer`] applies the plan batch by batch and records an
//! [`operation`]; [`cascade`] deletes every object of an app whose Application is deleted with the resources
//! finalizer; [`partial`] limits a plan to some objects (a single resource's sync); [`release`] writes the marks by
//! which an app lets go of objects another app may then take over; [`observe`] reports sync, health, versions and
//! the resource tree; [`failure`] types why a sync stopped; [`views`] holds what the reconciler last saw of each app,
//! shared with the API; [`dry_runs`] remembers the dry runs that found an object in sync, and [`legacy`] which apps
//! own objects tracked the old way (by an app's name alone).

pub mod cascade;
pub mod compare;
pub mod dry_runs;
pub mod failure;
pub mod gates;
pub mod legacy;
pub mod observe;
pub mod operation;
pub mod partial;
pub mod release;
pub mod syncer;
pub mod views;
