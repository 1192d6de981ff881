//! Weft's host engine: runs sandboxed Wasm plugins and chooses the plugin for each object or app.
//!
//! - [`api`]: the HTTP API.
//! - [`app`]: what an app is (source, renderer, destination, sync policy), as configured.
//! - [`auth`]: who is calling the API: bearer tokens and OIDC JWTs resolved to a principal, and rate limits.
//! - [`build`]: images from source: steer plugins plan and revise builds; BuildKit, Podman or commands run them.
//! - [`config`]: `weft.toml`: listen address, store, cluster, plugins, defaults, apps.
//! - [`deploy`]: one app from source to cluster: render, sync, history, rollback.
//! - [`queue`]: the deploy queue: operations persisted before they run, claimed under a concurrency limit.
//! - [`reconcile`]: the reconciler loop: status on an interval and on watch events, automated sync, self-heal.
//! - [`plugin`]: the wasmtime host — loading, compiling and caching components, and calling them under limits.
//! - [`registry`]: plugin manifests, and which plugin serves which kind or app type.
//! - [`health`]: assessing objects with the registered health plugins and the host's own rules.
//! - [`render`]: checking and caching what renderer plugins produce.
//! - [`sync`]: making the cluster match the render: diff, plan, prune fuse, apply, status, resource tree.
//! - [`metrics`]: Prometheus metrics (reconciles, queue, plugins, API).
//! - [`logs`]: bounded in-memory log streams that clients follow from the first line.
//! - [`cluster`]: talking to a cluster: served kinds, a watch-backed live cache, server-side apply, pod logs.
//! - [`resource`]: naming one object (`group:kind:namespace:name`).
//! - [`server`]: `weft serve` assembled: cluster, store, worker, reconciler, reloads, shutdown.
//! - [`source`]: git sources pinned to commits, and the read-only view of a checkout that plugins get.
//! - [`store`]: apps, their state, the operation queue, settings and API tokens in SQLite or PostgreSQL.

pub mod api;
pub mod app;
pub mod auth;
pub mod build;
pub mod charts;
pub mod cluster;
pub mod config;
pub mod deploy;
pub mod directory;
pub mod health;
pub mod logs;
pub mod metrics;
pub mod plugin;
pub mod queue;
pub mod reconcile;
pub mod registry;
pub mod render;
pub mod resource;
pub mod secrets;
pub mod server;
pub mod source;
pub mod store;
pub mod sync;
pub mod yaml;

#[cfg(test)]
mod layering_tests {
    /// The runtime library never builds plugins: the toolchain (`weft-plugin-build`, which installs compilers and
    /// runs them) is the `weft` command's, so a server's plugin host cannot reach it.
    #[test]
    fn the_runtime_library_does_not_use_the_plugin_toolchain() {
        fn visit(dir: &std::path::Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
                let path = entry.path();
                if path.is_dir() {
                    if path.file_name().is_some_and(|n| n != "bin") {
                        visit(&path, found);
                    }
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    if text.contains(concat!("weft_plugin", "_build")) {
                        found.push(path.display().to_string());
                    }
                }
            }
        }
        let mut found = Vec::new();
        visit(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        assert!(
            found.is_empty(),
            "the runtime uses the toolchain in {found:?}"
        );
    }
}
