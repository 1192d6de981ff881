//! Weft's integration tests, in one binary (as wasmtime keeps its `tests/all/`): each file was its own binary
//! linking wasmtime, kube and sqlx; one link instead of eleven. The checks against reference tools (kubectl) are
//! in `references.rs`, whose harness reports them skipped when the tool is missing.

mod api;
mod applications;
mod automation;
mod builds;
mod charts;
mod claims;
mod clusters;
mod conformance;
mod doc_examples;
mod doc_paths;
mod endpoint_slices;
mod full_disk;
mod gates;
mod hardening;
mod hostile_plugins;
mod image;
mod layering;
mod log_follow;
mod lua_actions;
mod lua_checks;
mod namespaced;
mod outbound;
mod plugin_host;
mod reliability;
mod render;
mod render_lookup;
mod render_seed;
mod replicas;
mod resource_actions;
mod roles;
mod serve;
mod shared_objects;
mod sim_health;
mod sim_kube;
mod sync;
mod tracking;
mod weft_in_kubernetes;
