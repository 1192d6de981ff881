//! Building plugin crates into components: a `wasm32-unknown-unknown` build, encoded with `wit-component`, installed
//! in one directory with a manifest that pins its sha256.
//!
//! The Wasm toolchain: rustup's `wasm32-unknown-unknown` target when it is installed; otherwise Debian's Rust
//! (`rustc-web`, `cargo-web`, `rust-web-src`, `lld-19`) building `std` from source with `-Zbuild-std`, installed with
//! apt-get when missing and the machine allows it. The two never share a target directory, and the inner cargo
//! gets a clean environment so a surrounding cargo's `RUSTC`, `RUSTFLAGS` or `CARGO_*` cannot leak into it.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    #[error("cargo build of the plugins failed ({status}); its output is above")]
    Cargo {
        /// cargo's exit status.
        status: String,
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
/// the machine allows).
pub fn detect_toolchain(install: bool) -> Result<Toolchain, BuildError> {
    if rustup_has_wasm_target() {
        return Ok(Toolchain::Rustup);
    }
    if debian_toolchain_present() {
        return Ok(Toolchain::Debian);
    }
    if !install {
        return Err(BuildError::Toolchain(format!(
            "rustup has no wasm32-unknown-unknown target and Debian's Rust is not installed; install it with \
             `apt-get install -y {}` or `rustup target add wasm32-unknown-unknown`",
            DEBIAN_PACKAGES.join(" ")
        )));
    }
    install_debian_toolchain()?;
    if debian_toolchain_present() {
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

fn install_debian_toolchain() -> Result<(), BuildError> {
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
    eprintln!(
        "weft: installing Debian's Rust for Wasm builds ({})",
        DEBIAN_PACKAGES.join(" ")
    );
    let run = |args: &[&str]| -> Result<(), BuildError> {
        let status = Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map_err(|e| BuildError::Toolchain(format!("cannot run apt-get: {e}")))?;
        if status.success() {
            Ok(())
        } else {
            Err(BuildError::Toolchain(format!(
                "apt-get {} failed ({status})",
                args.join(" ")
            )))
        }
    };
    run(&["update", "-q"])?;
    let mut install = vec!["install", "-y", "-q"];
    install.extend(DEBIAN_PACKAGES);
    run(&install)
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

/// Builds the crates and installs their components. Cargo's output goes to stderr.
pub fn build(request: &BuildRequest) -> Result<Vec<BuiltPlugin>, BuildError> {
    if request.crates.is_empty() {
        return Ok(Vec::new());
    }
    let toolchain = detect_toolchain(request.install_toolchain)?;
    // Link flags are per cargo invocation, so crates are built in groups of equal stack size, each group in a
    // target directory of its own (alternating flags in one directory would rebuild everything each time).
    let mut groups: BTreeMap<Option<u32>, Vec<&PluginCrate>> = BTreeMap::new();
    for plugin in &request.crates {
        groups
            .entry(plugin.manifest.build.stack_kib)
            .or_default()
            .push(plugin);
    }
    fs::create_dir_all(&request.out_dir).map_err(io_error(&request.out_dir))?;
    let mut built = Vec::new();
    for (stack_kib, crates) in groups {
        let mut target_dir =
            request
                .workspace
                .join("target")
                .join("plugin-build")
                .join(match toolchain {
                    Toolchain::Rustup => "rustup",
                    Toolchain::Debian => "debian",
                });
        if let Some(kib) = stack_kib {
            target_dir.set_extension(format!("stack-{kib}k"));
        }
        run_cargo(
            toolchain,
            &request.workspace,
            &target_dir,
            stack_kib,
            &crates,
        )?;
        let modules = target_dir.join("wasm32-unknown-unknown").join("plugin");
        for plugin in crates {
            let module = modules.join(format!("{}.wasm", plugin.package.replace('-', "_")));
            built.push(install(plugin, &module, &request.out_dir)?);
        }
    }
    Ok(built)
}

/// One `cargo build` of plugin crates for `wasm32-unknown-unknown`; cargo's output goes to stderr.
fn run_cargo(
    toolchain: Toolchain,
    workspace: &Path,
    target_dir: &Path,
    stack_kib: Option<u32>,
    crates: &[&PluginCrate],
) -> Result<(), BuildError> {
    let mut cargo = match toolchain {
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
    if let Some(kib) = stack_kib {
        cargo.env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
            format!("-C link-arg=-zstack-size={}", u64::from(kib) * 1024),
        );
    }
    cargo
        .current_dir(workspace)
        .args([
            "build",
            "--target",
            "wasm32-unknown-unknown",
            "--profile",
            "plugin",
        ])
        .arg("--target-dir")
        .arg(target_dir);
    if toolchain == Toolchain::Debian {
        cargo.arg("-Zbuild-std=std,panic_abort");
    }
    for plugin in crates {
        cargo.args(["-p", &plugin.package]);
    }
    let status = cargo
        .stdout(std::process::Stdio::inherit())
        .status()
        .map_err(|e| BuildError::Toolchain(format!("cannot run cargo: {e}")))?;
    if status.success() {
        Ok(())
    } else {
        Err(BuildError::Cargo {
            status: status.to_string(),
        })
    }
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
    let built = build(&request);
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
    fn encoding_rejects_bytes_that_are_not_a_module() {
        let err = encode_component(b"not a wasm module").unwrap_err();
        assert!(!err.is_empty());
    }
}
