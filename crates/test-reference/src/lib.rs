//! Checks against reference tools — kubectl, Helm's own library, a browser, a registry — for test binaries with
//! `harness = false`.
//!
//! A check whose tool is found runs. One whose tool is missing must never pass without running: it is reported
//! ignored, with the reason printed, and under CI (`CI=true`), where every reference is installed on purpose, it
//! fails instead, naming the tool and how to install it. Running the ignored checks anyway (`--ignored`,
//! `--include-ignored`) fails them too, since there is nothing to run them against.
//!
//! Also a throwaway PostgreSQL server ([`PostgresServer`]) for the store's and the reliability suite's tests, and a
//! throwaway CNCF distribution registry ([`Registry`]) to push images to and resolve them from, and a small
//! filesystem of a test's own to fill ([`SmallFilesystem`]), skipped with the reason where it cannot be mounted.
//! The [`deviations`] of a public corpus (its `deviations.yaml`) are read, rewritten and judged here too.
//!
//! Must not depend on anything of Weft's: plugin crates use it for their parity tests.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

pub mod deviations;
mod postgres;
mod registry;
mod small_filesystem;

pub use postgres::{POSTGRES_INSTALL, PostgresServer, postgres_bin_dir};
pub use registry::{
    OCI_CONFIG, OCI_INDEX, OCI_LAYER, OCI_MANIFEST, REGISTRY_INSTALL, Registry, ServedManifest,
    digest_of, htpasswd,
};
pub use small_filesystem::SmallFilesystem;

pub use libtest_mimic::{Arguments, Failed, Trial};

/// The environment variable CI sets; `true` or `1` turns a missing reference into a failure.
pub const CI_ENV: &str = "CI";

/// Whether this run is CI's, where a missing reference is a failure.
pub fn under_ci() -> bool {
    std::env::var(CI_ENV).is_ok_and(|v| matches!(v.trim(), "true" | "1" | "yes"))
}

/// A reference tool: found (where), or missing (why, and how to install it).
#[derive(Debug, Clone)]
pub struct Reference {
    name: String,
    found: Result<PathBuf, String>,
}

impl Reference {
    /// A tool found at `path`.
    pub fn found(name: impl Into<String>, path: impl Into<PathBuf>) -> Reference {
        Reference {
            name: name.into(),
            found: Ok(path.into()),
        }
    }

    /// A tool that is missing, and why.
    pub fn missing(name: impl Into<String>, why: impl Into<String>) -> Reference {
        Reference {
            name: name.into(),
            found: Err(why.into()),
        }
    }

    /// A command: the first of `candidates` that is an executable file, else the first directory on `PATH`
    /// holding one named `command`; it must answer `probe_args` with success.
    pub fn command(
        command: &str,
        candidates: &[&str],
        probe_args: &[&str],
        install: &str,
    ) -> Reference {
        let on_path = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(command))
                .find(|p| p.is_file())
        });
        let path = candidates
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
            .or(on_path);
        let Some(path) = path else {
            return Reference::missing(command, format!("{command} is not installed ({install})"));
        };
        match Command::new(&path).args(probe_args).output() {
            Ok(output) if output.status.success() => Reference::found(command, path),
            Ok(output) => Reference::missing(
                command,
                format!(
                    "{} {} failed: {}",
                    path.display(),
                    probe_args.join(" "),
                    String::from_utf8_lossy(&output.stderr).trim()
                ),
            ),
            Err(error) => Reference::missing(
                command,
                format!("{} cannot run: {error} ({install})", path.display()),
            ),
        }
    }

    /// `kubectl`, at `/usr/bin/kubectl` or on `PATH`.
    pub fn kubectl() -> Reference {
        Reference::command(
            "kubectl",
            &["/usr/bin/kubectl"],
            &["version", "--client"],
            "install kubectl from the Kubernetes release or your distribution",
        )
    }

    /// The CNCF distribution registry, `docker-registry`, at `/usr/bin/docker-registry` or on `PATH`; run with
    /// [`Registry::start`].
    pub fn docker_registry() -> Reference {
        Reference::command(
            "docker-registry",
            &["/usr/bin/docker-registry"],
            &["--version"],
            REGISTRY_INSTALL,
        )
    }

    /// A Python module importable by `python3`, installed from PyPI as `package`.
    pub fn python_module(module: &str, package: &str) -> Reference {
        let name = format!("python3 module {module}");
        let output = Command::new("python3")
            .args(["-c", &format!("import {module}")])
            .output();
        match output {
            Ok(output) if output.status.success() => Reference::found(name, "python3"),
            Ok(output) => Reference::missing(
                name,
                format!(
                    "{} (install it with `python3 -m pip install {package}`)",
                    String::from_utf8_lossy(&output.stderr)
                        .lines()
                        .last()
                        .unwrap_or("cannot be imported")
                ),
            ),
            Err(error) => Reference::missing(name, format!("python3 cannot run: {error}")),
        }
    }

    /// An npm package installed under `prefix` (`npm install --prefix PREFIX PACKAGE`), run with the machine's
    /// `node`; [`Reference::path`] is the prefix, where scripts that import it must be placed.
    pub fn node_package(package: &str, prefix: &std::path::Path) -> Reference {
        let name = format!("npm package {package}");
        let install = format!("npm install --prefix {} {package}", prefix.display());
        if Command::new("node").arg("--version").output().is_err() {
            return Reference::missing(
                name,
                format!("node cannot run (install Node.js, then `{install}`)"),
            );
        }
        let manifest = prefix
            .join("node_modules")
            .join(package)
            .join("package.json");
        if manifest.is_file() {
            Reference::found(name, prefix)
        } else {
            Reference::missing(
                name,
                format!(
                    "{} is missing (install it with `{install}`)",
                    manifest.display()
                ),
            )
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where it is, when found.
    pub fn path(&self) -> Option<&Path> {
        self.found.as_deref().ok()
    }

    /// A check against this tool: runs `body` when the tool is found; otherwise ignored (or failed under CI).
    pub fn trial(
        &self,
        name: impl Into<String>,
        body: impl FnOnce() -> Result<(), Failed> + Send + 'static,
    ) -> Trial {
        match &self.found {
            Ok(_) => Trial::test(name, body),
            Err(why) => {
                let message = format!("{} is missing: {why}", self.name);
                if under_ci() {
                    Trial::test(name, move || {
                        Err(
                            format!("{message}; under CI every reference tool must be installed")
                                .into(),
                        )
                    })
                } else {
                    Trial::test(name, move || {
                        Err(format!("skipped, not run: {message}").into())
                    })
                    .with_ignored_flag(true)
                }
            }
        }
    }
}

/// Runs the trials as `cargo test` runs tests, first printing one line per missing reference: which checks it
/// skips (or fails, under CI) and why.
pub fn run(references: &[&Reference], trials: Vec<Trial>) -> ExitCode {
    let args = Arguments::from_args();
    for reference in references {
        if let Err(why) = &reference.found {
            if under_ci() {
                println!(
                    "FAILING: {} is missing under CI ({CI_ENV}=true): {why}",
                    reference.name
                );
            } else {
                println!(
                    "SKIPPED: the checks against {} are ignored, not run: {why}",
                    reference.name
                );
            }
        }
    }
    libtest_mimic::run(&args, trials).exit_code()
}

/// Turns a `Result<(), String>` check into a trial outcome.
pub fn outcome(result: Result<(), String>) -> Result<(), Failed> {
    result.map_err(Failed::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_command_names_how_to_install_it() {
        let reference = Reference::command(
            "weft-no-such-tool",
            &["/nonexistent/weft-no-such-tool"],
            &["--version"],
            "it does not exist",
        );
        assert!(reference.path().is_none());
        let Err(why) = &reference.found else {
            panic!("found a tool that does not exist")
        };
        assert!(
            why.contains("is not installed (it does not exist)"),
            "{why}"
        );
    }

    #[test]
    fn a_found_command_has_its_path() {
        let reference = Reference::command("sh", &["/bin/sh"], &["-c", "true"], "");
        assert_eq!(reference.path(), Some(Path::new("/bin/sh")));
    }
}
