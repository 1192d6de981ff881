//! Rust projects (`Cargo.toml`): the toolchain pinned by `rust-toolchain.toml` / `rust-toolchain`, else any Rust 1
//! (`base/rust-build:1`: `rust-version` is a minimum, and a toolchain too old for it is named in the build's log,
//! which moves the base to that version); a release build, `--locked` when `Cargo.lock` is committed, the
//! dependencies fetched from `Cargo.toml` and `Cargo.lock` before the source is copied; the binary alone runs on
//! `base/cc` (glibc, as the non-root user), or on Debian with the runtime libraries of its system packages.

use weft_sdk::{BuildPlan, PluginError};

use crate::dockerfile::OUT_DIR;
use crate::files::{Repo, first_line, toml_str};
use crate::version;

/// The port a Rust service is assumed to listen on when nothing says otherwise.
const DEFAULT_PORT: u16 = 8080;

/// A `Cargo.toml` at the root.
pub fn detect(repo: Repo<'_>) -> Result<Option<BuildPlan>, PluginError> {
    let Some(cargo) = repo.toml("Cargo.toml")? else {
        return Ok(None);
    };
    let image = match toolchain(repo)? {
        Toolchain::Version(v) => format!("base/rust-build:{v}"),
        Toolchain::Stable => "base/rust-build:1".to_string(),
        Toolchain::Nightly => "base/rust-build:nightly".to_string(),
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
    let bin = binary(repo, &cargo)?;
    let mut build = vec![format!("cargo build --release{locked}")];
    if let Some(bin) = &bin {
        build.push(format!("install -D target/release/{bin} {OUT_DIR}/{bin}"));
    }
    Ok(Some(BuildPlan {
        kind: "rust".into(),
        base_image: image,
        system_packages,
        install: vec![format!("cargo fetch{locked}")],
        build,
        start: bin.map(|bin| format!("/app/{bin}")),
        port: Some(DEFAULT_PORT),
        ..BuildPlan::default()
    }))
}

enum Toolchain {
    Version(String),
    Stable,
    Nightly,
}

/// The files `cargo fetch` reads, copied before the source, and the package that needs a stand-in `src/main.rs`
/// beside them: `Cargo.toml` and `Cargo.lock` for one package whose only target is `src/main.rs`; none (the whole
/// source first) for a workspace, or a package that names its targets or a build script.
pub fn dependency_files(repo: Repo<'_>) -> Result<(Vec<String>, Option<String>), PluginError> {
    const PLAIN: [&str; 10] = [
        "package",
        "dependencies",
        "dev-dependencies",
        "build-dependencies",
        "features",
        "profile",
        "target",
        "patch",
        "badges",
        "lints",
    ];
    let Some(cargo) = repo.toml("Cargo.toml")? else {
        return Ok((Vec::new(), None));
    };
    let Some(package) = toml_str(&cargo, "package.name") else {
        return Ok((Vec::new(), None));
    };
    let plain = cargo.keys().all(|key| PLAIN.contains(&key.as_str()))
        && cargo.get("package").and_then(|p| p.get("build")).is_none()
        && !repo.has_file("build.rs")
        && repo.has_file("src/main.rs")
        && !repo.has_file("src/lib.rs")
        && repo.files_in("src/bin").is_empty();
    if !plain || has_path_dependency(&cargo) {
        return Ok((Vec::new(), None));
    }
    let mut files = vec!["Cargo.toml".to_string()];
    if repo.has_file("Cargo.lock") {
        files.push("Cargo.lock".into());
    }
    Ok((files, Some(package.to_string())))
}

/// Whether a dependency (of any kind, for any target) is a path in the repository, which a fetch before the
/// source would not find.
fn has_path_dependency(cargo: &toml::Table) -> bool {
    const KINDS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let tables = KINDS.iter().filter_map(|kind| cargo.get(*kind)).chain(
        cargo
            .get("target")
            .and_then(toml::Value::as_table)
            .into_iter()
            .flat_map(|targets| targets.values())
            .flat_map(|target| KINDS.iter().filter_map(move |kind| target.get(*kind))),
    );
    tables
        .filter_map(toml::Value::as_table)
        .flat_map(|deps| deps.values())
        .any(|dep| dep.get("path").is_some())
}

/// The toolchain: `rust-toolchain.toml`'s channel, the legacy `rust-toolchain` file, else any Rust 1.
fn toolchain(repo: Repo<'_>) -> Result<Toolchain, PluginError> {
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
            return Ok(Toolchain::Version(version::render(&v, 2)));
        }
    }
    Ok(Toolchain::Stable)
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
