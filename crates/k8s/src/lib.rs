//! One implementation of each Kubernetes semantic Weft needs, shared by the simulator, the Kustomize renderer and
//! the diff, so they cannot disagree: how each list of each built-in kind merges ([`schema`], generated from the
//! Kubernetes OpenAPI document), how one list of one object merges for apply and for strategic merge patch
//! ([`lists`]), the three patch formats ([`patch`]: JSON Patch, JSON merge patch, strategic merge patch), label
//! and field selectors ([`selector`]), the protobuf encoding of the built-in kinds ([`protobuf`]), and a
//! CustomResourceDefinition's structural schema applied to an object ([`structural`]), and the field sets
//! `metadata.managedFields` records, with who owns which field ([`fieldset`]).
//!
//! Pure functions over `serde_json` values; builds for `wasm32-unknown-unknown` (the renderers use it inside the
//! sandbox). Must not depend on any other Weft crate.

pub mod fieldset;
pub mod lists;
pub mod patch;
pub mod protobuf;
pub mod schema;
pub mod selector;
pub mod structural;
