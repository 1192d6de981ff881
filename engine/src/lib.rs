//! Weft's server's wiring, as a library: configuration, deploys, the deploy queue, the reconciler, replicas, the
//! HTTP API and the Application controllers, and the server `weft serve` runs. It is assembled from the layers below
//! it: what an app is is `weft-app`'s, applying a plan `weft-apply`'s, who calls the API `weft-auth`'s, the rules of
//! Application resources `weft-applications`', the store `weft-store`'s and image builds `weft-build`'s. The `weft`
//! command (and its embedded example) is a package of its own (`cli/`); this crate must not depend on it, on the
//! plugin toolchain, or on `anyhow`.
//!
//! Callers name the crate that holds a thing (`weft_app`, `weft_apply`, `weft_auth`, `weft_applications`,
//! `weft_plugin_host`, `weft_source`, `weft_render`, `weft_health`, `weft_cluster`, `weft_sync`, `weft_core`):
//! nothing is re-exported here, so a path says which layer a thing lives in. `docs/architecture.md` has the crate
//! map.
//!
//! - [`api`]: the HTTP API.
//! - [`applications`]: the controllers of `Application` and `ApplicationSet` resources (their rules are
//!   `weft-applications`').
//! - [`config`]: `weft.toml`: listen address, store, cluster, plugins, defaults, apps.
//! - [`deploy`]: one app from source to cluster: render, sync, history, rollback.
//! - [`directory`]: the apps a server serves, by name.
//! - [`queue`]: the deploy queue: operations persisted before they run, claimed under a concurrency limit.
//! - [`reconcile`]: the reconciler loop: status on an interval and on watch events, automated sync, self-heal.
//! - [`replicas`]: replicas sharing a store divide the apps: membership, owners by rendezvous hashing, views
//!   exchanged.
//! - [`recent`]: comparisons made for reads, reused while the reconciler's comparison of the app stands.
//! - [`server`]: `weft serve` assembled: cluster, store, worker, reconciler, reloads, shutdown.

pub mod api;
pub mod applications;
pub mod config;
pub mod deploy;
pub mod directory;
pub mod queue;
pub mod recent;
pub mod reconcile;
pub mod replicas;
pub mod server;

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
