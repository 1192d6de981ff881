//! Patches: strategic merge patches with Kubernetes' merge keys, and JSON 6902 patches.

pub mod json6902;
pub mod merge_keys;
pub mod openapi;
pub mod strategic;
