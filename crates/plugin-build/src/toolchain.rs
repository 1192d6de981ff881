//! The Wasm toolchain Rust plugins are built with: rustup's `wasm32-unknown-unknown` target when it is installed;
//! otherwise Debian's Rust (`rustc-web`, `cargo-web`, `rust-web-src`, `lld-19`) building `std` from source with
//! `-Zbuild-std`, installed with apt-get when missing and the machine allows it.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::{BuildError, BuildEvent, BuildProgress, io_error, log_tail};

/// The Debian packages that make up the fallback toolchain.
pub(crate) const DEBIAN_PACKAGES: [&str; 4] = ["rustc-web", "cargo-web", "rust-web-src", "lld-19"];
pub(crate) const DEBIAN_CARGO: &str = "/usr/bin/cargo";
pub(crate) const DEBIAN_RUSTC: &str = "/usr/bin/rustc";
pub(crate) const DEBIAN_LINKER: &str = "/usr/bin/wasm-ld-19";
const DEBIAN_STD_SOURCE: &str = "/usr/lib/rustlib/src/rust/library/Cargo.lock";

impl Toolchain {
    /// The name of its target directory under a build root (the two never share one).
    pub(crate) fn dir_name(self) -> &'static str {
        match self {
            Toolchain::Rustup => "rustup",
            Toolchain::Debian => "debian",
        }
    }

    /// Whether a target directory already holds the standard library compiled for wasm32 with the plugin
    /// profile (always true for rustup, which ships it prebuilt).
    pub(crate) fn std_is_built(self, target_dir: &Path) -> bool {
        if self == Toolchain::Rustup {
            return true;
        }
        let deps = target_dir
            .join("wasm32-unknown-unknown")
            .join("plugin")
            .join("deps");
        fs::read_dir(deps).is_ok_and(|entries| {
            entries.filter_map(Result::ok).any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("libstd-") && name.ends_with(".rlib")
            })
        })
    }
}

/// The toolchain a build uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toolchain {
    /// rustup's toolchain with the `wasm32-unknown-unknown` target installed.
    Rustup,
    /// Debian's Rust building `std` from source.
    Debian,
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
