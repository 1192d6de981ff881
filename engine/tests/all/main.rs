//! The engine library's integration tests, in one binary (as wasmtime keeps its `tests/all/`): the cluster layer
//! against the simulator and the store against SQLite and PostgreSQL. The `weft` command's tests are the `weft`
//! package's (`cli/tests`).

mod cluster;
mod store;
