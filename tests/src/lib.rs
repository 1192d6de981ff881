//! Shared support for the integration tests: where the workspace is, the plugins built for them, git repositories
//! to sync from, and a started server with the state its API serves.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use weft_auth::Authenticator;
use weft_core::rate_limit::RateLimiter;
use weft_engine::api::{ApiState, StreamLimits};
use weft_engine::config::Config;
use weft_engine::server::{Server, ServerOptions};
use weft_plugin_build as build;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// The built-in plugins (`plugins/` and `examples/`), built into `target/plugins` on first use.
pub fn builtin_plugins() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build_into(&["plugins", "examples"], "target/plugins"))
}

/// The test-only plugins (`tests/plugins/`), built into `target/test-plugins` on first use.
pub fn test_plugins() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build_into(&["tests/plugins"], "target/test-plugins"))
}

fn build_into(roots: &[&str], out: &str) -> PathBuf {
    let workspace = workspace();
    let roots: Vec<PathBuf> = roots.iter().map(|r| workspace.join(r)).collect();
    let out = workspace.join(out);
    if let Err(error) = build::ensure_built(&workspace, &roots, &out) {
        panic!("building plugins for the tests failed: {error}");
    }
    out
}

/// A render pipeline over the built-in plugins, with git checkouts under `cache` and no render cache.
pub fn render_pipeline(cache: &Path) -> weft_render::RenderPipeline {
    weft_render::RenderPipeline::new(
        weft_plugin_host::PluginHost::new(weft_plugin_host::HostConfig {
            cache_dir: None,
            ..weft_plugin_host::HostConfig::default()
        })
        .expect("a plugin host"),
        Arc::new(builtin_registry()),
        weft_source::GitSources::new(cache.join("git"), 1 << 30),
        None,
    )
}

/// The conformance corpus copied from Argo CD (see `tests/conformance/README.md`).
pub fn conformance() -> PathBuf {
    workspace().join("tests").join("conformance")
}

/// A git repository holding one app's manifests (in its `app` directory), for tests that sync from git.
#[derive(Debug)]
pub struct GitRepo {
    dir: tempfile::TempDir,
}

impl GitRepo {
    /// A new repository with branch `main` and a committer set.
    pub fn new() -> GitRepo {
        let repo = GitRepo {
            dir: tempfile::TempDir::new().unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.email", "test@weft.invalid"]);
        repo.git(&["config", "user.name", "Weft tests"]);
        repo
    }

    /// Runs git in the repository; returns its standard output.
    pub fn git(&self, args: &[&str]) -> String {
        let output = Command::new("git")
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    }

    /// Replaces the `app` directory's files with `files` (names may hold directories) and commits; returns the
    /// commit.
    pub fn commit(&self, files: &[(&str, String)]) -> String {
        let app = self.dir.path().join("app");
        let _ = std::fs::remove_dir_all(&app);
        std::fs::create_dir_all(&app).unwrap();
        std::fs::write(app.join(".keep"), "").unwrap();
        for (name, content) in files {
            let path = app.join(name);
            std::fs::create_dir_all(path.parent().unwrap_or(&app)).unwrap();
            std::fs::write(path, content).unwrap();
        }
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", "change"]);
        self.git(&["rev-parse", "HEAD"])
    }

    /// The repository's directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Default for GitRepo {
    fn default() -> Self {
        GitRepo::new()
    }
}

/// The built-in plugins and the test plugin `name` (from `tests/plugins/`) as a user plugin.
pub fn registry_with_test_plugin(name: &str) -> weft_plugin_host::registry::Registry {
    let mut registry = builtin_registry();
    registry
        .add_manifest_file(
            &test_plugins().join(format!("{name}.toml")),
            weft_plugin_host::registry::Provenance::User,
        )
        .expect("the test plugin loads");
    registry
}

/// A registry of the built-in plugins (built on first use).
pub fn builtin_registry() -> weft_plugin_host::registry::Registry {
    let mut registry = weft_plugin_host::registry::Registry::new();
    registry
        .add_dir(
            builtin_plugins(),
            weft_plugin_host::registry::Provenance::BuiltIn,
        )
        .expect("the built-in plugins load");
    registry
}

/// `weft serve`'s machinery for `config` with the built-in plugins, started with `options`, and the state its API
/// serves (the config's tokens and rate limit), wired as `weft serve` wires them; the API is
/// `weft_engine::api::router(state)`.
pub async fn serve_api(config: &Config, options: ServerOptions) -> (Server, ApiState) {
    serve_api_with(config, options, builtin_registry()).await
}

/// [`serve_api`] with a registry of the caller's.
pub async fn serve_api_with(
    config: &Config,
    options: ServerOptions,
    registry: weft_plugin_host::registry::Registry,
) -> (Server, ApiState) {
    let server = Server::start(config.clone(), registry, options)
        .await
        .unwrap();
    let auth = Authenticator::new(&config.auth, server.state.store.clone()).unwrap();
    let state = ApiState {
        server: server.state.clone(),
        auth: Arc::new(auth),
        limiter: Arc::new(RateLimiter::new(&config.auth.rate_limit)),
        streams: Arc::new(StreamLimits::configured(
            &config.api,
            config.api.max_connections,
        )),
    };
    (server, state)
}
