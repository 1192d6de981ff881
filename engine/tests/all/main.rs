//! The engine's integration tests, in one binary (as wasmtime keeps its `tests/all/`): each test file was its own
//! binary linking wasmtime, kube and sqlx; one link instead of six. The checks against reference tools (kubectl)
//! are in `tests/references.rs`, whose harness reports them skipped when the tool is missing.

mod support;

mod build_cli;
mod cli;
mod cli_checks;
mod cli_client;
mod cluster;
mod plugin_authors;
mod store;
