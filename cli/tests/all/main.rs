//! The `weft` command's integration tests, in one binary: the command run as a stranger runs it (first run, plugin
//! builds, `weft health`, `weft plugin`, the API client against a `weft serve` child). The checks against reference
//! tools (kubectl, the language toolchains, the JavaScript client) are in `tests/references.rs`, whose harness
//! reports them skipped when the tool is missing.

mod support;

mod build_cli;
mod cli;
mod cli_app;
mod cli_checks;
mod cli_client;
mod cli_logs;
mod cli_token;
mod cli_wait_healthy;
mod doc_examples;
mod plugin_authors;
