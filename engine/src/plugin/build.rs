//! Building plugin crates into components: a `wasm32-unknown-unknown` build, encoded with `wit-component`, installed
//! in one directory with a manifest that pins its sha256.
//!
//! The Wasm toolchain: rustup's `wasm32-unknown-unknown` target when it is installed; otherwise Debian's Rust
//! (`rustc-web`, `cargo-web`, `rust-web-src`, `lld-19`) building `std` from source with `-Zbuild-std`, installed with
//! apt-get when missing and the machine allows it. The two never share a target directory, and the inner cargo
//! gets a clean environment so a surrounding cargo's `RUSTC`, `RUSTFLAGS` or `CARGO_*` cannot leak into it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead as _, BufReader, Read as _, Seek as _, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::registry::PluginManifest;

/// The file that marks a crate as a plugin and describes it.
pub const SOURCE_MANIFEST: &str = "weft-plugin.toml";

/// Where `weft plugin build` installs components by default, relative to the workspace.
pub const DEFAULT_OUT_DIR: &str = "target/plugins";

/// The Debian packages that make up the fallback toolchain.
const DEBIAN_PACKAGES: [&str; 4] = ["rustc-web", "cargo-web", "rust-web-src", "lld-19"];
const DEBIAN_CARGO: &str = "/usr/bin/cargo";
const DEBIAN_RUSTC: &str = "/usr/bin/rustc";
const DEBIAN_LINKER: &str = "/usr/bin/wasm-ld-19";
const DEBIAN_STD_SOURCE: &str = "/usr/lib/rustlib/src/rust/library/Cargo.lock";

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A plugin crate's manifest is malformed.
    #[error("{path}: {reason}")]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// No usable Wasm toolchain, and none could be installed.
    #[error("no Wasm toolchain: {0}")]
    Toolchain(String),
    /// cargo failed.
    #[error("cargo build of the plugins failed ({status}); the end of its output (all of it in {}):\n{tail}", log.display())]
    Cargo {
        /// cargo's exit status.
        status: String,
        /// The file holding cargo's whole output.
        log: PathBuf,
        /// The last lines of that output.
        tail: String,
    },
    /// A built module could not be encoded as a component.
    #[error("{plugin}: encoding the module as a component failed: {reason}")]
    Encode {
        /// The plugin.
        plugin: String,
        /// wit-component's message.
        reason: String,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A crate that builds a plugin.
#[derive(Debug, Clone)]
pub struct PluginCrate {
    /// The crate's directory.
    pub dir: PathBuf,
    /// The cargo package name.
    pub package: String,
    /// Its `weft-plugin.toml`.
    pub manifest: PluginManifest,
}

/// An installed component.
#[derive(Debug, Clone)]
pub struct BuiltPlugin {
    /// The plugin's name.
    pub name: String,
    /// The component file.
    pub component: PathBuf,
    /// The installed manifest.
    pub manifest: PathBuf,
    /// sha256 of the component, in hex.
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
}

/// The toolchain a build uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toolchain {
    /// rustup's toolchain with the `wasm32-unknown-unknown` target installed.
    Rustup,
    /// Debian's Rust building `std` from source.
    Debian,
}

/// What a build reports as it goes, so a command can show progress a person can follow.
#[derive(Debug, Clone, Copy)]
pub enum BuildEvent<'a> {
    /// The build starts: how many plugins, with which toolchain.
    Started {
        /// The plugins to build.
        plugins: usize,
    },
    /// The Wasm toolchain is missing and is being installed (a step of its own: it downloads packages).
    InstallingToolchain {
        /// The packages.
        packages: &'a [&'a str],
    },
    /// The toolchain is ready.
    ToolchainReady {
        /// Which one.
        toolchain: Toolchain,
        /// How long installing it took, when it had to be installed.
        installed_in: Option<Duration>,
    },
    /// A crate that plugins depend on (the standard library's crates included) finished compiling.
    DependencyCompiled {
        /// The crate.
        name: &'a str,
        /// How many dependency crates have finished so far.
        count: usize,
    },
    /// A plugin crate finished compiling.
    PluginCompiled {
        /// The plugin.
        name: &'a str,
        /// 1-based position among the plugins compiled so far.
        index: usize,
        /// How many plugins the build has.
        total: usize,
    },
    /// The build is over: every plugin is installed.
    Finished {
        /// How many plugins.
        plugins: usize,
        /// How long the whole build took.
        elapsed: Duration,
    },
}

/// Receives a build's [`BuildEvent`]s.
pub trait BuildProgress {
    /// One event.
    fn event(&mut self, event: BuildEvent<'_>);
}

/// A [`BuildProgress`] that shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl BuildProgress for Quiet {
    fn event(&mut self, _event: BuildEvent<'_>) {}
}

/// Finds plugin crates: every directory directly under each of `roots` that has a `Cargo.toml` and a
/// `weft-plugin.toml`, sorted by path.
pub fn discover(roots: &[PathBuf]) -> Result<Vec<PluginCrate>, BuildError> {
    let mut crates = Vec::new();
    for root in roots {
        let entries = fs::read_dir(root).map_err(io_error(root))?;
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join(SOURCE_MANIFEST).is_file() && p.join("Cargo.toml").is_file())
            .collect();
        dirs.sort();
        for dir in dirs {
            crates.push(read_crate(&dir)?);
        }
    }
    Ok(crates)
}

fn read_crate(dir: &Path) -> Result<PluginCrate, BuildError> {
    let manifest_path = dir.join(SOURCE_MANIFEST);
    let text = fs::read_to_string(&manifest_path).map_err(io_error(&manifest_path))?;
    let manifest = PluginManifest::parse(&text).map_err(|reason| BuildError::Manifest {
        path: manifest_path,
        reason,
    })?;
    let cargo_path = dir.join("Cargo.toml");
    let cargo_text = fs::read_to_string(&cargo_path).map_err(io_error(&cargo_path))?;
    let cargo: toml::Table =
        cargo_text
            .parse()
            .map_err(|e: toml::de::Error| BuildError::Manifest {
                path: cargo_path.clone(),
                reason: e.to_string(),
            })?;
    let package = cargo
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .ok_or_else(|| BuildError::Manifest {
            path: cargo_path,
            reason: "no [package] name".into(),
        })?
        .to_string();
    Ok(PluginCrate {
        dir: dir.to_path_buf(),
        package,
        manifest,
    })
}

/// Picks the toolchain: rustup's target when installed, else Debian's (installing it when `install` is set and
/// the machine allows; apt-get's output goes to `log`).
pub fn detect_toolchain(
    install: bool,
    log: Option<&Path>,
    progress: &mut dyn BuildProgress,
) -> Result<Toolchain, BuildError> {
    if rustup_has_wasm_target() {
        progress.event(BuildEvent::ToolchainReady {
            toolchain: Toolchain::Rustup,
            installed_in: None,
        });
        return Ok(Toolchain::Rustup);
    }
    if debian_toolchain_present() {
        progress.event(BuildEvent::ToolchainReady {
            toolchain: Toolchain::Debian,
            installed_in: None,
        });
        return Ok(Toolchain::Debian);
    }
    if !install {
        return Err(BuildError::Toolchain(format!(
            "rustup has no wasm32-unknown-unknown target and Debian's Rust is not installed; install it with \
             `apt-get install -y {}` or `rustup target add wasm32-unknown-unknown`",
            DEBIAN_PACKAGES.join(" ")
        )));
    }
    let started = Instant::now();
    progress.event(BuildEvent::InstallingToolchain {
        packages: &DEBIAN_PACKAGES,
    });
    install_debian_toolchain(log)?;
    if debian_toolchain_present() {
        progress.event(BuildEvent::ToolchainReady {
            toolchain: Toolchain::Debian,
            installed_in: Some(started.elapsed()),
        });
        Ok(Toolchain::Debian)
    } else {
        Err(BuildError::Toolchain(
            "apt-get finished but Debian's Rust toolchain is still incomplete".into(),
        ))
    }
}

fn rustup_has_wasm_target() -> bool {
    Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .is_ok_and(|out| {
            out.status.success()
                && String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .any(|l| l.trim() == "wasm32-unknown-unknown")
        })
}

fn debian_toolchain_present() -> bool {
    [DEBIAN_CARGO, DEBIAN_RUSTC, DEBIAN_LINKER, DEBIAN_STD_SOURCE]
        .iter()
        .all(|p| Path::new(p).exists())
}

fn install_debian_toolchain(log: Option<&Path>) -> Result<(), BuildError> {
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !is_root {
        return Err(BuildError::Toolchain(format!(
            "Debian's Rust is needed and only root can install it: run `sudo apt-get install -y {}`",
            DEBIAN_PACKAGES.join(" ")
        )));
    }
    let run = |args: &[&str]| -> Result<(), BuildError> {
        let mut command = Command::new("apt-get");
        command
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null());
        let mut log_file = None;
        if let Some(path) = log {
            let file = fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(io_error(path))?;
            let err = file.try_clone().map_err(io_error(path))?;
            command.stdout(file).stderr(err);
            log_file = Some(path);
        }
        let status = command
            .status()
            .map_err(|e| BuildError::Toolchain(format!("cannot run apt-get: {e}")))?;
        if status.success() {
            return Ok(());
        }
        let tail = log_file.map(|p| log_tail(p, 20)).unwrap_or_default();
        Err(BuildError::Toolchain(format!(
            "apt-get {} failed ({status}){}{tail}",
            args.join(" "),
            if tail.is_empty() { "" } else { ":\n" }
        )))
    };
    run(&["update", "-q"])?;
    let mut install = vec!["install", "-y", "-q"];
    install.extend(DEBIAN_PACKAGES);
    run(&install)
}

/// The last `lines` lines of a log file (empty when it cannot be read).
fn log_tail(path: &Path, lines: usize) -> String {
    let Ok(mut file) = fs::File::open(path) else {
        return String::new();
    };
    // The tail of a long log is in its last few KiB.
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = file.seek(SeekFrom::Start(len.saturating_sub(16 * 1024)));
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// What to build and where to put it.
#[derive(Debug, Clone)]
pub struct BuildRequest {
    /// The cargo workspace holding the crates.
    pub workspace: PathBuf,
    /// The crates.
    pub crates: Vec<PluginCrate>,
    /// Where components and manifests are installed.
    pub out_dir: PathBuf,
    /// Whether a missing toolchain may be installed.
    pub install_toolchain: bool,
}

/// Builds the crates and installs their components, showing nothing; cargo's output is kept in
/// `target/plugin-build/build.log` and quoted in the error when the build fails.
pub fn build(request: &BuildRequest) -> Result<Vec<BuiltPlugin>, BuildError> {
    build_with_progress(request, &mut Quiet)
}

/// Builds the crates and installs their components, reporting each step to `progress`.
pub fn build_with_progress(
    request: &BuildRequest,
    progress: &mut dyn BuildProgress,
) -> Result<Vec<BuiltPlugin>, BuildError> {
    if request.crates.is_empty() {
        return Ok(Vec::new());
    }
    let started = Instant::now();
    let build_root = request.workspace.join("target").join("plugin-build");
    fs::create_dir_all(&build_root).map_err(io_error(&build_root))?;
    let log = build_root.join("build.log");
    fs::write(&log, "").map_err(io_error(&log))?;
    progress.event(BuildEvent::Started {
        plugins: request.crates.len(),
    });
    let toolchain = detect_toolchain(request.install_toolchain, Some(&log), progress)?;
    // One target directory, so the standard library and the dependencies are built once. A plugin's stack size
    // is a link argument: plugins with the default stack are built by one `cargo build`; each one with its own
    // stack by a `cargo rustc` that passes the argument to its final link only (RUSTFLAGS would rebuild
    // everything, std included, for every distinct size).
    let target_dir = build_root.join(match toolchain {
        Toolchain::Rustup => "rustup",
        Toolchain::Debian => "debian",
    });
    let (plain, sized): (Vec<&PluginCrate>, Vec<&PluginCrate>) = request
        .crates
        .iter()
        .partition(|c| c.manifest.build.stack_kib.is_none());
    fs::create_dir_all(&request.out_dir).map_err(io_error(&request.out_dir))?;
    let mut counter = CompileCounter {
        total: request.crates.len(),
        ..CompileCounter::default()
    };
    let mut runs: Vec<(Option<u32>, Vec<&PluginCrate>)> = Vec::new();
    if !plain.is_empty() {
        runs.push((None, plain));
    }
    runs.extend(
        sized
            .into_iter()
            .map(|c| (c.manifest.build.stack_kib, vec![c])),
    );
    let modules = target_dir.join("wasm32-unknown-unknown").join("plugin");
    let mut built = Vec::new();
    for (stack_kib, crates) in runs {
        let cargo = CargoRun {
            toolchain,
            workspace: &request.workspace,
            target_dir: &target_dir,
            stack_kib,
            crates: &crates,
            log: &log,
        };
        cargo.run(&mut counter, progress)?;
        for plugin in crates {
            let module = modules.join(format!("{}.wasm", plugin.package.replace('-', "_")));
            built.push(install(plugin, &module, &request.out_dir)?);
        }
    }
    progress.event(BuildEvent::Finished {
        plugins: built.len(),
        elapsed: started.elapsed(),
    });
    Ok(built)
}

/// Counts what cargo reports compiled across the invocations of one build.
#[derive(Debug, Default)]
struct CompileCounter {
    dependencies: usize,
    plugins: BTreeSet<String>,
    total: usize,
}

/// One `cargo build` of plugin crates for `wasm32-unknown-unknown`.
struct CargoRun<'a> {
    toolchain: Toolchain,
    workspace: &'a Path,
    target_dir: &'a Path,
    stack_kib: Option<u32>,
    crates: &'a [&'a PluginCrate],
    log: &'a Path,
}

impl CargoRun<'_> {
    fn command(&self) -> Command {
        let mut cargo = match self.toolchain {
            Toolchain::Rustup => {
                let mut cmd = Command::new("cargo");
                scrub_cargo_env(&mut cmd);
                cmd
            }
            Toolchain::Debian => {
                let mut cmd = Command::new(DEBIAN_CARGO);
                scrub_cargo_env(&mut cmd);
                let path = std::env::var_os("PATH").unwrap_or_default();
                let mut paths = vec![PathBuf::from("/usr/bin")];
                paths.extend(std::env::split_paths(&path));
                cmd.env("PATH", std::env::join_paths(paths).unwrap_or(path))
                    .env("RUSTC", DEBIAN_RUSTC)
                    .env("RUSTC_BOOTSTRAP", "1")
                    .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER", DEBIAN_LINKER);
                cmd
            }
        };
        // `cargo build` for plugins with the default stack; `cargo rustc` for one with a stack size of its own,
        // which reaches that crate's link only.
        cargo
            .current_dir(self.workspace)
            .arg(if self.stack_kib.is_some() {
                "rustc"
            } else {
                "build"
            })
            .args([
                "--target",
                "wasm32-unknown-unknown",
                "--profile",
                "plugin",
                "--message-format=json-render-diagnostics",
            ])
            .arg("--target-dir")
            .arg(self.target_dir);
        if self.toolchain == Toolchain::Debian {
            cargo.arg("-Zbuild-std=std,panic_abort");
        }
        for plugin in self.crates {
            cargo.args(["-p", &plugin.package]);
        }
        if let Some(kib) = self.stack_kib {
            cargo
                .args(["--lib", "--", "-C"])
                .arg(format!("link-arg=-zstack-size={}", u64::from(kib) * 1024));
        }
        cargo
    }

    /// Runs cargo: its messages (JSON on stdout) become progress events, everything it prints for people goes to
    /// the log.
    fn run(
        &self,
        counter: &mut CompileCounter,
        progress: &mut dyn BuildProgress,
    ) -> Result<(), BuildError> {
        let log = fs::OpenOptions::new()
            .append(true)
            .open(self.log)
            .map_err(io_error(self.log))?;
        let mut child = self
            .command()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|e| BuildError::Toolchain(format!("cannot run cargo: {e}")))?;
        let packages: BTreeMap<&str, &str> = self
            .crates
            .iter()
            .map(|c| (c.package.as_str(), c.manifest.name.as_str()))
            .collect();
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Some(package) = compiled_package(&line) else {
                    continue;
                };
                match packages.get(package.as_str()) {
                    Some(plugin) => {
                        if counter.plugins.insert((*plugin).to_string()) {
                            progress.event(BuildEvent::PluginCompiled {
                                name: plugin,
                                index: counter.plugins.len(),
                                total: counter.total,
                            });
                        }
                    }
                    None => {
                        counter.dependencies += 1;
                        progress.event(BuildEvent::DependencyCompiled {
                            name: &package,
                            count: counter.dependencies,
                        });
                    }
                }
            }
        }
        let status = child
            .wait()
            .map_err(|e| BuildError::Toolchain(format!("waiting for cargo: {e}")))?;
        if status.success() {
            Ok(())
        } else {
            Err(BuildError::Cargo {
                status: status.to_string(),
                log: self.log.to_path_buf(),
                tail: log_tail(self.log, 40),
            })
        }
    }
}

/// The package a cargo `compiler-artifact` message is about (`None` for any other line).
fn compiled_package(line: &str) -> Option<String> {
    let message: serde_json::Value = serde_json::from_str(line).ok()?;
    if message.get("reason")?.as_str()? != "compiler-artifact" {
        return None;
    }
    // Build scripts are compiled and run for the host; only the crates themselves count.
    let kinds = message.pointer("/target/kind")?.as_array()?;
    if kinds.iter().any(|k| k.as_str() == Some("custom-build")) {
        return None;
    }
    let from_id = message
        .get("package_id")
        .and_then(serde_json::Value::as_str)
        .and_then(package_name);
    from_id.or_else(|| {
        message
            .pointer("/target/name")
            .and_then(serde_json::Value::as_str)
            .map(|name| name.replace('_', "-"))
    })
}

/// A package's name from a cargo package id: `path+file:///dir#name@0.1.0`, `registry+...#name@1.0.0`, or the
/// older `name 0.1.0 (source)` form.
fn package_name(id: &str) -> Option<String> {
    if let Some((_, fragment)) = id.rsplit_once('#') {
        let name = fragment.split('@').next()?;
        // `path+file:///dir/name#0.1.0` leaves the name in the path.
        if name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            let path = id.split('#').next()?;
            return path.rsplit('/').next().map(str::to_string);
        }
        return Some(name.to_string());
    }
    id.split_whitespace().next().map(str::to_string)
}

/// Removes what a surrounding cargo (a `cargo run` or `cargo test`) or rustup sets, which would otherwise point the
/// inner build at the wrong compiler or flags.
fn scrub_cargo_env(cmd: &mut Command) {
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        let leaks = (key.starts_with("CARGO") && key != "CARGO_HOME")
            || key.starts_with("RUSTC")
            || key.starts_with("RUSTDOC")
            || key == "RUSTFLAGS"
            || key == "RUSTUP_TOOLCHAIN";
        if leaks {
            cmd.env_remove(key);
        }
    }
}

/// Encodes a core module as a component and installs it with its manifest.
fn install(plugin: &PluginCrate, module: &Path, out_dir: &Path) -> Result<BuiltPlugin, BuildError> {
    let name = plugin.manifest.name.clone();
    let bytes = fs::read(module).map_err(io_error(module))?;
    let component = encode_component(&bytes).map_err(|reason| BuildError::Encode {
        plugin: name.clone(),
        reason,
    })?;
    let sha256 = hex::encode(Sha256::digest(&component));
    let component_path = out_dir.join(format!("{name}.wasm"));
    write_atomic(&component_path, &component)?;
    let mut installed = plugin.manifest.clone();
    installed.component = Some(PathBuf::from(format!("{name}.wasm")));
    installed.sha256 = Some(sha256.clone());
    let manifest_path = out_dir.join(format!("{name}.toml"));
    let text = installed.to_toml().map_err(|reason| BuildError::Manifest {
        path: manifest_path.clone(),
        reason,
    })?;
    write_atomic(&manifest_path, text.as_bytes())?;
    Ok(BuiltPlugin {
        name,
        component: component_path,
        manifest: manifest_path,
        sha256,
        size: component.len() as u64,
    })
}

/// Turns a core module carrying wit-bindgen's component-type section into a validated component.
pub fn encode_component(module: &[u8]) -> Result<Vec<u8>, String> {
    wit_component::ComponentEncoder::default()
        .module(module)
        .and_then(|encoder| encoder.validate(true).encode())
        .map_err(|e| format!("{e:#}"))
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let mut file = fs::File::create(&tmp).map_err(io_error(&tmp))?;
    file.write_all(bytes).map_err(io_error(&tmp))?;
    drop(file);
    fs::rename(&tmp, path).map_err(io_error(path))
}

/// The workspace that holds `start`: the nearest ancestor whose `Cargo.toml` has a `[workspace]` table and which
/// has a `wit/` directory.
pub fn find_workspace(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| {
        let cargo = fs::read_to_string(dir.join("Cargo.toml")).ok()?;
        (cargo.contains("[workspace]") && dir.join("wit").is_dir()).then(|| dir.to_path_buf())
    })
}

/// Builds the crates under `roots` into `out_dir`, holding a lock file there so concurrent callers (parallel test
/// processes) build once and wait for each other.
pub fn ensure_built(
    workspace: &Path,
    roots: &[PathBuf],
    out_dir: &Path,
) -> Result<Vec<BuiltPlugin>, BuildError> {
    ensure_built_with_progress(workspace, roots, out_dir, &mut Quiet)
}

/// [`ensure_built`], reporting each step to `progress`.
pub fn ensure_built_with_progress(
    workspace: &Path,
    roots: &[PathBuf],
    out_dir: &Path,
    progress: &mut dyn BuildProgress,
) -> Result<Vec<BuiltPlugin>, BuildError> {
    fs::create_dir_all(out_dir).map_err(io_error(out_dir))?;
    let lock_path = out_dir.join(".build.lock");
    let lock = fs::File::create(&lock_path).map_err(io_error(&lock_path))?;
    lock.lock().map_err(io_error(&lock_path))?;
    let request = BuildRequest {
        workspace: workspace.to_path_buf(),
        crates: discover(roots)?,
        out_dir: out_dir.to_path_buf(),
        install_toolchain: true,
    };
    let built = build_with_progress(&request, progress);
    let _ = lock.unlock();
    built
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_this_workspace() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let workspace = find_workspace(here).unwrap();
        assert!(workspace.join("wit").join("plugin.wit").is_file());
    }

    #[test]
    fn discovers_plugin_crates_with_their_packages() {
        let workspace = find_workspace(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        let crates = discover(&[workspace.join("plugins")]).unwrap();
        let core = crates.iter().find(|c| c.package == "health-core").unwrap();
        assert_eq!(core.manifest.name, "health-core");
    }

    #[test]
    fn cargo_artifact_messages_name_their_package() {
        let lib = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/plugins/health-core#0.1.0","target":{"kind":["cdylib"],"name":"health_core"}}"#;
        assert_eq!(compiled_package(lib).as_deref(), Some("health-core"));
        let dep = r#"{"reason":"compiler-artifact","package_id":"registry+https://github.com/rust-lang/crates.io-index#serde_json@1.0.140","target":{"kind":["lib"],"name":"serde_json"}}"#;
        assert_eq!(compiled_package(dep).as_deref(), Some("serde_json"));
        let named = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/sdk#weft-sdk@0.1.0","target":{"kind":["lib"],"name":"weft_sdk"}}"#;
        assert_eq!(compiled_package(named).as_deref(), Some("weft-sdk"));
        let script = r#"{"reason":"compiler-artifact","package_id":"registry+x#serde@1.0.0","target":{"kind":["custom-build"],"name":"build-script-build"}}"#;
        assert_eq!(compiled_package(script), None);
        assert_eq!(
            compiled_package(r#"{"reason":"build-finished","success":true}"#),
            None
        );
        assert_eq!(compiled_package("not json"), None);
    }

    #[test]
    fn a_log_tail_is_its_last_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let text: String = (1..=100).map(|n| format!("line {n}\n")).collect();
        fs::write(&path, text).unwrap();
        assert_eq!(log_tail(&path, 3), "line 98\nline 99\nline 100");
        assert_eq!(log_tail(&dir.path().join("absent"), 3), "");
    }

    #[test]
    fn encoding_rejects_bytes_that_are_not_a_module() {
        let err = encode_component(b"not a wasm module").unwrap_err();
        assert!(!err.is_empty());
    }
}
