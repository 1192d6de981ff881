//! The language tools guest plugins are compiled with, pinned and installed on demand into the user's cache (as
//! the Wasm toolchain is installed on demand): componentize-py from PyPI with `pip`, componentize-js from npm.
//! An install happens once per version, under a lock so parallel builds wait for one another, and into a
//! temporary directory renamed into place, so a broken install is never taken for a finished one.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::{BuildError, BuildEvent, BuildProgress, io_error, log_tail, run_logged};

/// A pinned language tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tool {
    /// Its name.
    pub(crate) name: &'static str,
    /// The pinned version.
    pub(crate) version: &'static str,
    /// How it is installed.
    pub(crate) installer: Installer,
}

/// Where a tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Installer {
    /// A PyPI package installed with `python3 -m pip install --target`.
    Pip {
        /// The requirement (`componentize-py==0.25.1`).
        requirement: &'static str,
    },
    /// An npm package installed with `npm install --prefix`.
    Npm {
        /// The package spec (`@bytecodealliance/componentize-js@0.23.0`).
        package: &'static str,
    },
}

/// componentize-py: CPython and the Python code, snapshotted into a component.
pub(crate) const COMPONENTIZE_PY: Tool = Tool {
    name: "componentize-py",
    version: "0.25.1",
    installer: Installer::Pip {
        requirement: "componentize-py==0.25.1",
    },
};

/// componentize-js: SpiderMonkey (StarlingMonkey) and the JavaScript code, snapshotted into a component.
pub(crate) const COMPONENTIZE_JS: Tool = Tool {
    name: "componentize-js",
    version: "0.23.0",
    installer: Installer::Npm {
        package: "@bytecodealliance/componentize-js@0.23.0",
    },
};

/// The environment variable that points at tools installed elsewhere (a directory holding
/// `componentize-py-0.25.1/` and `componentize-js-0.23.0/` as this module installs them).
pub const TOOLS_DIR_ENV: &str = "WEFT_TOOLS_DIR";

impl Tool {
    /// `componentize-py 0.25.1`.
    pub(crate) fn label(&self) -> String {
        format!("{} {}", self.name, self.version)
    }

    /// The directory it is installed in under `tools`.
    fn dir(&self, tools: &Path) -> PathBuf {
        tools.join(format!("{}-{}", self.name, self.version))
    }

    /// The command that runs the installed tool (arguments still to add).
    pub(crate) fn command(&self, installed: &Path) -> Command {
        match self.installer {
            Installer::Pip { .. } => {
                let mut cmd = Command::new("python3");
                cmd.env("PYTHONPATH", installed)
                    .env_remove("PYTHONHOME")
                    .env("PYTHONDONTWRITEBYTECODE", "1")
                    .args([
                        "-c",
                        "import sys; from componentize_py import script; sys.argv[0] = 'componentize-py'; \
                         sys.exit(script())",
                    ]);
                cmd
            }
            Installer::Npm { .. } => {
                let mut cmd = Command::new("node");
                cmd.env_remove("NODE_OPTIONS").arg(
                    installed.join("node_modules/@bytecodealliance/componentize-js/src/cli.js"),
                );
                cmd
            }
        }
    }

    /// Whether `dir` holds a finished install.
    fn installed(&self, dir: &Path) -> bool {
        match self.installer {
            Installer::Pip { .. } => dir.join("componentize_py").is_dir(),
            Installer::Npm { .. } => dir
                .join("node_modules/@bytecodealliance/componentize-js/src/cli.js")
                .is_file(),
        }
    }
}

/// The directory tools are installed in: `$WEFT_TOOLS_DIR`, else `tools` in the user's Weft cache.
pub(crate) fn tools_dir() -> PathBuf {
    std::env::var_os(TOOLS_DIR_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| super::user_cache_dir().join("tools"))
}

/// The installed tool's directory, installing it first when it is missing and `install` is set.
pub(crate) fn ensure(
    tool: &Tool,
    install: bool,
    log: &Path,
    progress: &mut dyn BuildProgress,
) -> Result<PathBuf, BuildError> {
    let label = tool.label();
    let tools = tools_dir();
    let dir = tool.dir(&tools);
    if tool.installed(&dir) {
        progress.event(BuildEvent::ToolReady {
            tool: &label,
            installed_in: None,
        });
        return Ok(dir);
    }
    if !install {
        return Err(BuildError::Tool(format!(
            "{label} is not installed in {}; run the build without --no-install to install it, or install it \
             there yourself ({})",
            tools.display(),
            tool.how_to_install(&dir)
        )));
    }
    fs::create_dir_all(&tools).map_err(io_error(&tools))?;
    let lock_path = tools.join(format!(".{}.lock", tool.name));
    let lock = fs::File::create(&lock_path).map_err(io_error(&lock_path))?;
    lock.lock().map_err(io_error(&lock_path))?;
    // Another build may have installed it while this one waited for the lock.
    if tool.installed(&dir) {
        let _ = lock.unlock();
        progress.event(BuildEvent::ToolReady {
            tool: &label,
            installed_in: None,
        });
        return Ok(dir);
    }
    let started = Instant::now();
    progress.event(BuildEvent::InstallingTool {
        tool: &label,
        into: &dir,
    });
    let result = install_into(tool, &dir, log);
    let _ = lock.unlock();
    result?;
    progress.event(BuildEvent::ToolReady {
        tool: &label,
        installed_in: Some(started.elapsed()),
    });
    Ok(dir)
}

impl Tool {
    /// The install command, for a person to run.
    fn how_to_install(&self, dir: &Path) -> String {
        match self.installer {
            Installer::Pip { requirement } => format!(
                "python3 -m pip install --target {} {requirement}",
                dir.display()
            ),
            Installer::Npm { package } => {
                format!("npm install --prefix {} {package}", dir.display())
            }
        }
    }
}

fn install_into(tool: &Tool, dir: &Path, log: &Path) -> Result<(), BuildError> {
    let staging = dir.with_extension(format!("installing-{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir_all(&staging).map_err(io_error(&staging))?;
    let mut command = match tool.installer {
        Installer::Pip { requirement } => {
            let mut cmd = Command::new("python3");
            cmd.args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-input",
                "--target",
            ])
            .arg(&staging)
            .arg(requirement);
            cmd
        }
        Installer::Npm { package } => {
            let mut cmd = Command::new("npm");
            cmd.args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
                .arg(&staging)
                .arg(package);
            cmd
        }
    };
    let status = run_logged(&mut command, log)?.map_err(|e| {
        BuildError::Tool(format!(
            "cannot install {}: {e}; install it yourself: {}",
            tool.label(),
            tool.how_to_install(dir)
        ))
    })?;
    if !status.success() || !tool.installed(&staging) {
        let _ = fs::remove_dir_all(&staging);
        return Err(BuildError::Tool(format!(
            "installing {} failed ({status}); install it yourself: {}\n{}",
            tool.label(),
            tool.how_to_install(dir),
            log_tail(log, 20)
        )));
    }
    let _ = fs::remove_dir_all(dir);
    fs::rename(&staging, dir).map_err(io_error(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_install_into_a_versioned_directory_of_the_tools_dir() {
        let tools = Path::new("/cache/weft/tools");
        assert_eq!(
            COMPONENTIZE_PY.dir(tools),
            Path::new("/cache/weft/tools/componentize-py-0.25.1")
        );
        assert_eq!(COMPONENTIZE_JS.label(), "componentize-js 0.23.0");
        assert!(
            COMPONENTIZE_JS
                .how_to_install(&COMPONENTIZE_JS.dir(tools))
                .starts_with("npm install --prefix /cache/weft/tools/componentize-js-0.23.0")
        );
    }

    #[test]
    fn an_empty_directory_is_not_an_install() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!COMPONENTIZE_PY.installed(dir.path()));
        assert!(!COMPONENTIZE_JS.installed(dir.path()));
        fs::create_dir_all(dir.path().join("componentize_py")).unwrap();
        assert!(COMPONENTIZE_PY.installed(dir.path()));
    }
}
