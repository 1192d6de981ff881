//! Weft's build steerer (app type `build`): reads a repository through the host's read-only source view, plans how
//! to build an image of it, and revises the plan when a build fails in a way it recognises.
//!
//! # Detection
//!
//! | kind | recognised by | base image | install / build | start |
//! | --- | --- | --- | --- | --- |
//! | `dockerfile` | `Dockerfile` (or the override `dockerfile`) | its final stage's | the Dockerfile, used as is | its `ENTRYPOINT`/`CMD` |
//! | `rust` | `Cargo.toml` | `rust:<v>-slim`, `<v>` from `rust-toolchain(.toml)`, else `rust-version`, else `1` | `cargo fetch`, `cargo build --release` (`--locked` with a `Cargo.lock`) | the binary |
//! | `go` | `go.mod` | `golang:<v>` from the `go` directive | `go mod download`, `go build` of the root or first `cmd/<name>` | the binary |
//! | `python` | `uv.lock`, `poetry.lock`/`[tool.poetry]`, `requirements.txt`, `pyproject.toml` | `python:<v>-slim`, `<v>` from `.python-version`, `requires-python`, Poetry's `python`, else 3.12 | uv, Poetry or pip | `Procfile` `web`, the project's scripts, `app.py`/`main.py`/... |
//! | `node` | `package.json` | `node:<v>-slim`, `<v>` from `engines.node`, `.nvmrc`, `.node-version`, else 22 | npm, pnpm or yarn by lockfile (frozen when there is one), `run build` | `scripts.start`, `main`, `server.js`/`index.js`/... |
//! | `static` | `index.html` at the root or in `public/`, `dist/`, `build/`, `_site/`, `site/`, `out/`, `www/` | `nginx:1.27-alpine` | none | nginx |
//!
//! Every generated plan gets a Dockerfile rendered from its fields ([`dockerfile`]), `PORT` set to its port, and
//! the environment that limits its toolchain's parallelism when `jobs` is set. The app's build overrides (see
//! [`weft_sdk::steer::OVERRIDE_KEYS`]) are written in as given and never revised.
//!
//! # Steering
//!
//! | failure in the log | revision |
//! | --- | --- |
//! | a toolchain too old (`requires rustc 1.80`, `The engine "node" is incompatible`, `requires-python`, `requires go >=`) | the base image at the version asked for |
//! | a frozen install refusing the lockfile (`npm ci`, `--frozen-lockfile`, `--immutable`, `--locked`, Poetry, `go.sum`) | the unfrozen install command |
//! | a missing tool or library (`pkg-config: not found`, `command not found: make`, OpenSSL, headers) | the system packages that provide it |
//! | out of memory (exit code 137, `Killed`, `out of memory`) | half the parallel jobs (2 from the toolchain's default; at 1, give up) |
//! | no start command (`Missing script: "start"`, the builder's check) | one derived from the project's files, or give up |
//! | the app listening on another port (`listening on :3000`) | that port |
//!
//! Anything else gives up with the failed step, exit code and the log's last line. So does a revision that would
//! change an overridden part, or repeat the plan that failed.

pub mod detect;
pub mod diagnose;
pub mod dockerfile;
pub mod files;
pub mod revise;
pub mod version;

use weft_sdk::{
    BuildFailure, BuildPlan, BuildSteer, PluginError, RepoFacts, Source, SteerDecision,
};

use files::Repo;

/// The steerer.
#[derive(Debug, Clone, Copy, Default)]
pub struct SteerDetect;

impl BuildSteer for SteerDetect {
    fn plan(facts: &RepoFacts, source: &dyn Source) -> Result<BuildPlan, PluginError> {
        detect::plan(facts, Repo::new(source))
    }

    fn steer(
        facts: &RepoFacts,
        plan: &BuildPlan,
        failure: &BuildFailure,
        source: &dyn Source,
    ) -> Result<SteerDecision, PluginError> {
        revise::steer(facts, plan, failure, Repo::new(source))
    }
}

weft_sdk::export_build_steer!(SteerDetect);
