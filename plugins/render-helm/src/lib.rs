//! Weft's Helm renderer (placeholder docs, completed below).

pub mod funcs;
pub mod json;
pub mod template;
pub mod yaml;
