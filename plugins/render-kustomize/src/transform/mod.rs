//! The built-in transformers a kustomization runs over its resources, one module each.

pub mod build_metadata;
pub mod hash_suffix;
pub mod images;
pub mod labels;
pub mod name_affix;
pub mod namespace;
pub mod replicas;
