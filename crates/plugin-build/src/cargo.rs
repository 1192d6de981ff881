//! Rust plugins: `cargo` builds for `wasm32-unknown-unknown` with the `plugin` profile. Weft's own plugin crates
//! are members of its workspace and build together; a plugin anywhere else builds as the package its own
//! `Cargo.toml` names (`--manifest-path`, never a package looked up by name), with the profile supplied on the
//! command line, so nothing in Weft's workspace or lockfile changes. Every build shares one target directory per
//! toolchain, so the standard library and common dependencies are compiled once.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::toolchain::{DEBIAN_CARGO, DEBIAN_LINKER, DEBIAN_RUSTC, Toolchain};
use super::{BuildError, BuildEvent, BuildProgress, PluginSource, io_error, log_tail};

/// The `plugin` profile, as `--config` arguments: what Weft's workspace declares as `[profile.plugin]`, given to
/// a plugin built outside it. Keep the two equal: a test compares them, and equal profiles let both kinds of build
/// reuse one compiled standard library.
pub(crate) const PLUGIN_PROFILE: [(&str, &str); 6] = [
    ("inherits", "\"release\""),
    ("opt-level", "3"),
    ("lto", "true"),
    ("codegen-units", "1"),
    ("panic", "\"abort\""),
    ("strip", "\"debuginfo\""),
];

/// Counts what cargo reports compiled across the invocations of one build.
#[derive(Debug, Default)]
pub(crate) struct CompileCounter {
    dependencies: usize,
    plugins: BTreeSet<String>,
    total: usize,
}

impl CompileCounter {
    /// A counter for a build of `total` plugins.
    pub(crate) fn new(total: usize) -> Self {
        CompileCounter {
            total,
            ..CompileCounter::default()
        }
    }

    /// Records a plugin as compiled (a guest-language one, which cargo does not report) and says so.
    pub(crate) fn plugin_done(&mut self, name: &str, progress: &mut dyn BuildProgress) {
        if self.plugins.insert(name.to_string()) {
            progress.event(BuildEvent::PluginCompiled {
                name,
                index: self.plugins.len(),
                total: self.total,
            });
        }
    }
}

/// Where cargo runs: in Weft's workspace for its members, or on one package's own manifest.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CargoScope<'a> {
    /// Members of the workspace at this path, chosen with `-p`.
    Workspace(&'a Path),
    /// The package of one `Cargo.toml`, in whatever workspace it belongs to (its own, for a scaffolded plugin).
    Standalone(&'a Path),
}

/// One cargo invocation building Rust plugins for `wasm32-unknown-unknown`.
pub(crate) struct CargoRun<'a> {
    pub(crate) toolchain: Toolchain,
    pub(crate) scope: CargoScope<'a>,
    pub(crate) target_dir: &'a Path,
    pub(crate) stack_kib: Option<u32>,
    pub(crate) plugins: &'a [&'a PluginSource],
    pub(crate) log: &'a Path,
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
        cargo.arg(if self.stack_kib.is_some() {
            "rustc"
        } else {
            "build"
        });
        match self.scope {
            CargoScope::Workspace(workspace) => {
                cargo.current_dir(workspace);
                for plugin in self.plugins {
                    if let Some(package) = plugin.package() {
                        cargo.args(["-p", package]);
                    }
                }
            }
            CargoScope::Standalone(manifest) => {
                let dir = manifest.parent().unwrap_or(Path::new("."));
                cargo.current_dir(dir).arg("--manifest-path").arg(manifest);
                for (key, value) in PLUGIN_PROFILE {
                    cargo
                        .arg("--config")
                        .arg(format!("profile.plugin.{key}={value}"));
                }
            }
        }
        cargo
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
        if let Some(kib) = self.stack_kib {
            cargo
                .args(["--lib", "--", "-C"])
                .arg(format!("link-arg=-zstack-size={}", u64::from(kib) * 1024));
        }
        cargo
    }

    /// Runs cargo: its messages (JSON on stdout) become progress events, everything it prints for people goes to
    /// the log. Returns each plugin's built module, by the plugin's directory, as cargo reported it.
    pub(crate) fn run(
        &self,
        counter: &mut CompileCounter,
        progress: &mut dyn BuildProgress,
    ) -> Result<BTreeMap<PathBuf, PathBuf>, BuildError> {
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
        // Plugins are known by their manifests' directories, never by package name: two packages of one name
        // (a member of Weft's workspace and an outside plugin) stay apart.
        let plugins: BTreeMap<PathBuf, &str> = self
            .plugins
            .iter()
            .map(|p| (canonical(&p.dir), p.manifest.name.as_str()))
            .collect();
        let mut modules = BTreeMap::new();
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Some(artifact) = Artifact::parse(&line) else {
                    continue;
                };
                let plugin = artifact
                    .manifest_dir
                    .as_deref()
                    .and_then(|dir| plugins.get(&canonical(dir)).map(|name| (dir, *name)));
                match plugin {
                    Some((dir, name)) => {
                        if let Some(wasm) = artifact.wasm {
                            modules.insert(canonical(dir), wasm);
                        }
                        counter.plugin_done(name, progress);
                    }
                    None => {
                        counter.dependencies += 1;
                        progress.event(BuildEvent::DependencyCompiled {
                            name: &artifact.package,
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
            Ok(modules)
        } else {
            Err(BuildError::Cargo {
                status: status.to_string(),
                log: self.log.to_path_buf(),
                tail: log_tail(self.log, 40),
            })
        }
    }
}

/// Which package last built each plugin module in a shared target directory. Two packages of one name (one of
/// Weft's plugins and an author's plugin named the same) write the same module file; cargo, finding the file newer
/// than its sources, would hand the other package's module back as up to date. So before a build, a module that
/// another manifest built last is removed, and cargo builds this package's own.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct ModuleOwners {
    /// Module file name (`health_core.wasm`) -> the directory of the package that built it.
    owners: BTreeMap<String, PathBuf>,
}

impl ModuleOwners {
    const FILE: &'static str = "weft-module-owners.json";

    fn path(target_dir: &Path) -> PathBuf {
        target_dir.join(Self::FILE)
    }

    /// The record of a target directory (empty when there is none or it does not parse).
    pub(crate) fn load(target_dir: &Path) -> Self {
        fs::read(Self::path(target_dir))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Removes the modules of `plugins` that another package built last, and records these plugins as theirs.
    pub(crate) fn claim(&mut self, target_dir: &Path, plugins: &[&PluginSource]) {
        let modules = target_dir.join("wasm32-unknown-unknown").join("plugin");
        for plugin in plugins {
            let Some(file) = module_file(plugin) else {
                continue;
            };
            let dir = canonical(&plugin.dir);
            if self.owners.get(&file).is_some_and(|owner| *owner != dir) {
                let _ = fs::remove_file(modules.join(&file));
                let _ = fs::remove_file(modules.join("deps").join(&file));
            }
            self.owners.insert(file, dir);
        }
    }

    /// Writes the record.
    pub(crate) fn save(&self, target_dir: &Path) -> Result<(), BuildError> {
        let path = Self::path(target_dir);
        fs::create_dir_all(target_dir).map_err(io_error(target_dir))?;
        let bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        fs::write(&path, bytes).map_err(io_error(&path))
    }
}

/// The module file cargo writes for a Rust plugin: its `[lib] name`, else its package name with `-` as `_`.
fn module_file(plugin: &PluginSource) -> Option<String> {
    let package = plugin.package()?;
    let lib_name = fs::read_to_string(plugin.dir.join("Cargo.toml"))
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .and_then(|cargo| {
            cargo
                .get("lib")
                .and_then(|lib| lib.get("name"))
                .and_then(toml::Value::as_str)
                .map(str::to_string)
        });
    Some(format!(
        "{}.wasm",
        lib_name.unwrap_or_else(|| package.replace('-', "_"))
    ))
}

/// A path with symlinks resolved, or as given when it cannot be.
pub(crate) fn canonical(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What a cargo `compiler-artifact` message says.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Artifact {
    /// The package's name.
    pub(crate) package: String,
    /// The directory of the package's `Cargo.toml`.
    pub(crate) manifest_dir: Option<PathBuf>,
    /// The `.wasm` file it produced, if any.
    pub(crate) wasm: Option<PathBuf>,
}

impl Artifact {
    /// The artifact a line of cargo's JSON output reports (`None` for any other line, and for build scripts,
    /// which are compiled and run for the host).
    pub(crate) fn parse(line: &str) -> Option<Artifact> {
        let message: serde_json::Value = serde_json::from_str(line).ok()?;
        if message.get("reason")?.as_str()? != "compiler-artifact" {
            return None;
        }
        let kinds = message.pointer("/target/kind")?.as_array()?;
        if kinds.iter().any(|k| k.as_str() == Some("custom-build")) {
            return None;
        }
        let from_id = message
            .get("package_id")
            .and_then(serde_json::Value::as_str)
            .and_then(package_name);
        let package = from_id.or_else(|| {
            message
                .pointer("/target/name")
                .and_then(serde_json::Value::as_str)
                .map(|name| name.replace('_', "-"))
        })?;
        let manifest_dir = message
            .get("manifest_path")
            .and_then(serde_json::Value::as_str)
            .and_then(|p| Path::new(p).parent())
            .map(Path::to_path_buf);
        let wasm = message
            .get("filenames")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(serde_json::Value::as_str)
            .find(|f| f.ends_with(".wasm"))
            .map(PathBuf::from);
        Some(Artifact {
            package,
            manifest_dir,
            wasm,
        })
    }
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
pub(crate) fn scrub_cargo_env(cmd: &mut Command) {
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

/// The directories of the members of the workspace at `workspace` (its `[workspace] members`, literal paths).
pub(crate) fn workspace_members(workspace: &Path) -> BTreeSet<PathBuf> {
    let Ok(text) = fs::read_to_string(workspace.join("Cargo.toml")) else {
        return BTreeSet::new();
    };
    let Ok(manifest) = text.parse::<toml::Table>() else {
        return BTreeSet::new();
    };
    manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
        .map(|member| canonical(&workspace.join(member)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_artifact_messages_name_their_package_directory_and_module() {
        let lib = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/plugins/health-core#0.1.0","manifest_path":"/w/plugins/health-core/Cargo.toml","target":{"kind":["cdylib","rlib"],"name":"health_core"},"filenames":["/t/deps/libhealth_core.rlib","/t/health_core.wasm"]}"#;
        assert_eq!(
            Artifact::parse(lib),
            Some(Artifact {
                package: "health-core".into(),
                manifest_dir: Some(PathBuf::from("/w/plugins/health-core")),
                wasm: Some(PathBuf::from("/t/health_core.wasm")),
            })
        );
        let dep = r#"{"reason":"compiler-artifact","package_id":"registry+https://github.com/rust-lang/crates.io-index#serde_json@1.0.140","target":{"kind":["lib"],"name":"serde_json"}}"#;
        let dep = Artifact::parse(dep).unwrap();
        assert_eq!(dep.package, "serde_json");
        assert_eq!(dep.wasm, None);
        let named = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/sdk#weft-sdk@0.1.0","target":{"kind":["lib"],"name":"weft_sdk"}}"#;
        assert_eq!(Artifact::parse(named).unwrap().package, "weft-sdk");
        let script = r#"{"reason":"compiler-artifact","package_id":"registry+x#serde@1.0.0","target":{"kind":["custom-build"],"name":"build-script-build"}}"#;
        assert_eq!(Artifact::parse(script), None);
        assert_eq!(
            Artifact::parse(r#"{"reason":"build-finished","success":true}"#),
            None
        );
        assert_eq!(Artifact::parse("not json"), None);
    }

    #[test]
    fn the_profile_given_to_outside_plugins_is_the_workspaces() {
        let workspace = crate::find_workspace(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        let text = fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
        let manifest: toml::Table = text.parse().unwrap();
        let declared = manifest["profile"]["plugin"].as_table().unwrap();
        let given: BTreeMap<&str, toml::Value> = PLUGIN_PROFILE
            .iter()
            .map(|(k, v)| {
                (
                    *k,
                    format!("v = {v}").parse::<toml::Table>().unwrap()["v"].clone(),
                )
            })
            .collect();
        assert_eq!(declared.len(), given.len());
        for (key, value) in declared {
            assert_eq!(given.get(key.as_str()), Some(value), "profile.plugin.{key}");
        }
    }

    #[test]
    fn a_module_another_package_of_the_same_name_built_is_removed_before_a_build() {
        let root = tempfile::tempdir().unwrap();
        let plugin = |dir: &str| {
            let dir = root.path().join(dir);
            fs::create_dir_all(&dir).unwrap();
            fs::write(
                dir.join("Cargo.toml"),
                "[package]\nname = \"health-core\"\n",
            )
            .unwrap();
            PluginSource {
                dir,
                manifest: weft_plugin_contract::PluginManifest::parse(
                    "name = \"health-core\"\nworld = \"health-check\"\nkinds = [\"x/Y\"]\n",
                )
                .unwrap(),
                language: crate::SourceLanguage::Rust {
                    package: "health-core".into(),
                },
            }
        };
        let (ours, theirs) = (
            plugin("weft/plugins/health-core"),
            plugin("author/health-core"),
        );
        let target = root.path().join("target");
        let modules = target.join("wasm32-unknown-unknown/plugin");
        fs::create_dir_all(modules.join("deps")).unwrap();
        let write_modules = || {
            fs::write(modules.join("health_core.wasm"), "module").unwrap();
            fs::write(modules.join("deps/health_core.wasm"), "module").unwrap();
        };
        write_modules();
        let mut owners = ModuleOwners::load(&target);
        owners.claim(&target, &[&ours]);
        assert!(
            modules.join("health_core.wasm").exists(),
            "no owner yet: kept"
        );
        owners.save(&target).unwrap();
        let mut owners = ModuleOwners::load(&target);
        owners.claim(&target, &[&ours]);
        assert!(modules.join("health_core.wasm").exists(), "its own: kept");
        owners.claim(&target, &[&theirs]);
        assert!(!modules.join("health_core.wasm").exists());
        assert!(!modules.join("deps/health_core.wasm").exists());
        write_modules();
        owners.claim(&target, &[&ours]);
        assert!(
            !modules.join("health_core.wasm").exists(),
            "back to ours: rebuilt"
        );
    }

    #[test]
    fn the_workspace_members_include_the_builtin_plugins() {
        let workspace = crate::find_workspace(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        let members = workspace_members(&workspace);
        assert!(members.contains(&canonical(&workspace.join("plugins/health-core"))));
        assert!(!members.contains(&canonical(&workspace.join("plugins"))));
    }
}
