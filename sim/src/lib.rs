//! Weft's Kubernetes API simulator (work in progress).

pub mod api_error;
pub mod apiserver;
pub mod catalog;
pub mod config;
pub mod defaults;
pub mod field_path;
pub mod fieldset;
pub mod ids;
pub mod managed_fields;
pub mod patch;
pub mod resource;
pub mod selector;
pub mod ssa;
pub mod store;
pub mod time;
pub mod validate;
