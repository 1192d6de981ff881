//! What a Weft plugin is, shared by the host that runs plugins and the toolchain that builds them: the worlds, the
//! manifest (`weft-plugin.toml` as written and as installed), the limits a manifest may ask for, and the shape of a
//! component read from its bytes. Pure data and checks: no I/O beyond what a caller hands in, no wasmtime, no
//! engine; everything that uses plugins depends on it, and of Weft's crates it depends only on `weft-sdk`, whose kind-key
//! glob plugins and host share.

mod limits;
pub mod manifest;
pub mod shape;
mod world;

pub use limits::LimitOverrides;
pub use manifest::{BuildSettings, KindPattern, Language, PluginManifest, Specificity};
pub use world::World;
