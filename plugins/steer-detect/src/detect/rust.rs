//! Rust projects (`Cargo.toml`): the toolchain from `rust-toolchain.toml` / `rust-toolchain`, else the package's
//! `rust-version`; a release build, `--locked` when `Cargo.lock` is committed; the binary as the start command.

use weft_sdk::{BuildPlan, PluginError};

use crate::files::{Repo, first_line, toml_str};
use crate::version;

/// The port a Rust service is assumed to listen on when nothing says otherwise.
const DEFAULT_PORT: u16 = 8080;

/// A `Cargo.toml` at the root.
pub fn detect(repo: Repo<'_>) -> Result<Option<BuildPlan>, PluginError> {
    let Some(cargo) = repo.toml("Cargo.toml")? else {
        return Ok(None);
    };
    let image = match toolchain(repo, &cargo)? {
        Toolchain::Version(v) => format!("rust:{v}-slim"),
        Toolchain::Stable => "rust:1-slim".to_string(),
        Toolchain::Nightly => "rustlang/rust:nightly-slim".to_string(),
    };
    let lock = repo.has_file("Cargo.lock");
    let locked = if lock { " --locked" } else { "" };
    let mut system_packages = Vec::new();
    if let Some(lockfile) = repo.text("Cargo.lock")?
        && lockfile.contains("name = \"openssl-sys\"")
    {
        // openssl-sys links the system OpenSSL found through pkg-config.
        system_packages = vec!["pkg-config".to_string(), "libssl-dev".to_string()];
    }
    let start = binary(repo, &cargo)?.map(|bin| format!("./target/release/{bin}"));
    Ok(Some(BuildPlan {
        kind: "rust".into(),
        base_image: image,
        system_packages,
        install: vec![format!("cargo fetch{locked}")],
        build: vec![format!("cargo build --release{locked}")],
        start,
        port: Some(DEFAULT_PORT),
        ..BuildPlan::default()
    }))
}

enum Toolchain {
    Version(String),
    Stable,
    Nightly,
}

/// The toolchain: `rust-toolchain.toml`'s channel, the legacy `rust-toolchain` file, else `rust-version`.
fn toolchain(repo: Repo<'_>, cargo: &toml::Table) -> Result<Toolchain, PluginError> {
    let channel = match repo.toml("rust-toolchain.toml")? {
        Some(file) => toml_str(&file, "toolchain.channel").map(str::to_string),
        None => repo
            .text("rust-toolchain")?
            .as_deref()
            .and_then(first_line)
            .map(str::to_string),
    };
    if let Some(channel) = channel {
        let channel = channel.trim();
        if channel.starts_with("nightly") || channel.starts_with("beta") {
            return Ok(Toolchain::Nightly);
        }
        if let Some(v) = version::parse(channel) {
            return Ok(Toolchain::Version(version::render(&v, 3)));
        }
        return Ok(Toolchain::Stable);
    }
    let declared = toml_str(cargo, "package.rust-version")
        .or_else(|| toml_str(cargo, "workspace.package.rust-version"))
        .and_then(version::parse);
    Ok(match declared {
        Some(v) => Toolchain::Version(version::render(&v, 3)),
        None => Toolchain::Stable,
    })
}

/// The binary the image runs: the first `[[bin]]`, the package itself when it has `src/main.rs`, its first
/// `src/bin/*.rs`, or (in a workspace) the first member with a `src/main.rs`.
fn binary(repo: Repo<'_>, cargo: &toml::Table) -> Result<Option<String>, PluginError> {
    if let Some(name) = cargo
        .get("bin")
        .and_then(|b| b.as_array())
        .and_then(|bins| bins.first())
        .and_then(|bin| bin.get("name"))
        .and_then(|n| n.as_str())
    {
        return Ok(Some(name.to_string()));
    }
    if let Some(name) = toml_str(cargo, "package.name") {
        if repo.has_file("src/main.rs") {
            return Ok(Some(name.to_string()));
        }
        if let Some(bin) = repo
            .files_in("src/bin")
            .iter()
            .find_map(|f| f.strip_suffix(".rs"))
        {
            return Ok(Some(bin.to_string()));
        }
        return Ok(None);
    }
    let members = cargo
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .map(|m| m.iter().filter_map(|v| v.as_str()).collect::<Vec<_>>())
        .unwrap_or_default();
    for member in members.iter().filter(|m| !m.contains('*')) {
        if !repo.has_file(&format!("{member}/src/main.rs")) {
            continue;
        }
        if let Some(member_cargo) = repo.toml(&format!("{member}/Cargo.toml"))?
            && let Some(name) = toml_str(&member_cargo, "package.name")
        {
            return Ok(Some(name.to_string()));
        }
    }
    Ok(None)
}
