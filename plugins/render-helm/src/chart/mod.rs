//! Charts: loading them from the source tree, their dependencies, their values, `--set` syntax, and the objects
//! (`.Files`, `.Capabilities`) templates see.

pub mod archive;
pub mod dependencies;
pub mod glob;
pub mod helmignore;
pub mod loader;
pub mod objects;
pub mod schema;
pub mod strvals;
pub mod values;

pub use dependencies::ChartNode;
pub use loader::{Chart, load};
