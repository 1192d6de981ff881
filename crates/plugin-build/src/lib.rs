//! The plugin toolchain: building plugins into components installed in one directory with manifests that pin their
//! sha256 (Rust crates with cargo for `wasm32-unknown-unknown`, encoded with `wit-component`; Python with
//! componentize-py; JavaScript with componentize-js), and making new plugin folders (`weft plugin new`). A plugin
//! folder may be anywhere: Weft's own plugins build in its workspace, an author's in their own repository, with
//! nothing of Weft's changed.
//!
//! Used by the `weft` command and by tests, never by the runtime: it installs toolchains and runs compilers, which
//! have no place in a server's plugin host. It depends on `weft-plugin-contract` alone of Weft's crates.

mod cargo;
mod guest;
pub mod scaffold;
mod toolchain;
mod tools;

use std::fs;
use std::io::{Read as _, Seek as _, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use self::cargo::{
    CargoRun, CargoScope, CompileCounter, ModuleOwners, canonical, workspace_members,
};
pub use self::toolchain::{Toolchain, detect_toolchain};
use weft_plugin_contract::{Language, PluginManifest};

/// The file that marks a folder as a plugin and describes it.
pub const SOURCE_MANIFEST: &str = "weft-plugin.toml";

/// Where `weft plugin build` installs components by default, relative to the workspace.
pub const DEFAULT_OUT_DIR: &str = "target/plugins";

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
    /// A language tool (componentize-py, componentize-js) is missing and could not be installed.
    #[error("{0}")]
    Tool(String),
    /// A guest-language plugin's compiler failed.
    #[error("{plugin}: {tool} failed ({status}); the end of its output (all of it in {}):\n{tail}", log.display())]
    GuestCompile {
        /// The plugin.
        plugin: String,
        /// The tool.
        tool: &'static str,
        /// Its exit status.
        status: String,
        /// The file holding its whole output.
        log: PathBuf,
        /// The last lines of that output.
        tail: String,
    },
    /// A plugin folder is not something Weft can build.
    #[error("{dir}: {reason}")]
    Source {
        /// The folder.
        dir: PathBuf,
        /// What is missing or wrong.
        reason: String,
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

/// A plugin folder: its manifest and the source it builds from.
#[derive(Debug, Clone)]
pub struct PluginSource {
    /// The folder.
    pub dir: PathBuf,
    /// Its `weft-plugin.toml`.
    pub manifest: PluginManifest,
    /// The language and what the build starts from.
    pub language: SourceLanguage,
}

/// What a plugin is written in, and its entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceLanguage {
    /// A Rust crate.
    Rust {
        /// Its cargo package name.
        package: String,
    },
    /// A Python module registering its check with `weft.health_check`.
    Python {
        /// The module (`check` for `check.py`).
        module: String,
    },
    /// A JavaScript ES module exporting `assess`.
    JavaScript {
        /// The file, relative to the folder.
        entry: String,
    },
}

impl PluginSource {
    /// The cargo package, for a Rust plugin.
    pub fn package(&self) -> Option<&str> {
        match &self.language {
            SourceLanguage::Rust { package } => Some(package),
            _ => None,
        }
    }

    /// The language.
    pub fn language(&self) -> Language {
        match self.language {
            SourceLanguage::Rust { .. } => Language::Rust,
            SourceLanguage::Python { .. } => Language::Python,
            SourceLanguage::JavaScript { .. } => Language::JavaScript,
        }
    }
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

/// What a build reports as it goes, so a command can show progress a person can follow.
#[derive(Debug, Clone, Copy)]
pub enum BuildEvent<'a> {
    /// The build starts.
    Started {
        /// The plugins to build.
        plugins: usize,
        /// The file the tools' own output goes to.
        log: &'a Path,
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
    /// Compiling Rust plugins starts.
    Compiling {
        /// With which toolchain.
        toolchain: Toolchain,
        /// Whether the standard library for wasm32 is already compiled (Debian's toolchain builds it from source
        /// on the first build of a build directory, which takes minutes; later builds reuse it).
        std_built: bool,
    },
    /// A language tool (componentize-py, componentize-js) is missing and is being installed.
    InstallingTool {
        /// The tool and its version (`componentize-py 0.25.1`).
        tool: &'a str,
        /// Where it goes.
        into: &'a Path,
    },
    /// A language tool is ready.
    ToolReady {
        /// The tool and its version.
        tool: &'a str,
        /// How long installing it took, when it had to be installed.
        installed_in: Option<Duration>,
    },
    /// A guest-language plugin's compilation starts (it takes seconds: the tool snapshots an initialised
    /// language runtime).
    CompilingGuest {
        /// The plugin.
        name: &'a str,
        /// Its language.
        language: Language,
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

/// Finds plugin folders: each of `roots` that holds a `weft-plugin.toml` is one; otherwise every directory
/// directly under it that holds one, sorted by path.
pub fn discover(roots: &[PathBuf]) -> Result<Vec<PluginSource>, BuildError> {
    let mut sources = Vec::new();
    for root in roots {
        if root.join(SOURCE_MANIFEST).is_file() {
            sources.push(read_source(root)?);
            continue;
        }
        let entries = fs::read_dir(root).map_err(io_error(root))?;
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join(SOURCE_MANIFEST).is_file())
            .collect();
        dirs.sort();
        for dir in dirs {
            sources.push(read_source(&dir)?);
        }
    }
    Ok(sources)
}

/// Reads one plugin folder: its manifest, and its language (the manifest's `[build] language`, else what the
/// folder holds: a `Cargo.toml`, the Python module, the JavaScript entry).
pub fn read_source(dir: &Path) -> Result<PluginSource, BuildError> {
    // Absolute: the tools run in directories of their own.
    let dir = &fs::canonicalize(dir).map_err(io_error(dir))?;
    let manifest_path = dir.join(SOURCE_MANIFEST);
    let text = fs::read_to_string(&manifest_path).map_err(io_error(&manifest_path))?;
    let manifest = PluginManifest::parse(&text).map_err(|reason| BuildError::Manifest {
        path: manifest_path,
        reason,
    })?;
    let module = manifest
        .build
        .module
        .clone()
        .unwrap_or_else(|| "check".into());
    let entry = manifest
        .build
        .entry
        .clone()
        .unwrap_or_else(|| "check.js".into());
    let module_file = format!("{}.py", module.replace('.', "/"));
    let language = match manifest.build.language {
        Some(language) => language,
        None if dir.join("Cargo.toml").is_file() => Language::Rust,
        None if dir.join(&module_file).is_file() => Language::Python,
        None if dir.join(&entry).is_file() => Language::JavaScript,
        None => {
            return Err(BuildError::Source {
                dir: dir.to_path_buf(),
                reason: format!(
                    "no source to build: a Rust plugin has a Cargo.toml, a Python one {module_file}, a JavaScript \
                     one {entry} (or say which with `[build] language` in {SOURCE_MANIFEST})"
                ),
            });
        }
    };
    let missing = |file: &str| BuildError::Source {
        dir: dir.to_path_buf(),
        reason: format!("a {language} plugin needs {file}, which is not there"),
    };
    let language = match language {
        Language::Rust => SourceLanguage::Rust {
            package: cargo_package(dir)?,
        },
        Language::Python if dir.join(&module_file).is_file() => SourceLanguage::Python { module },
        Language::Python => return Err(missing(&module_file)),
        Language::JavaScript if dir.join(&entry).is_file() => SourceLanguage::JavaScript { entry },
        Language::JavaScript => return Err(missing(&entry)),
    };
    Ok(PluginSource {
        dir: dir.to_path_buf(),
        manifest,
        language,
    })
}

fn cargo_package(dir: &Path) -> Result<String, BuildError> {
    let cargo_path = dir.join("Cargo.toml");
    let cargo_text = fs::read_to_string(&cargo_path).map_err(io_error(&cargo_path))?;
    let cargo: toml::Table =
        cargo_text
            .parse()
            .map_err(|e: toml::de::Error| BuildError::Manifest {
                path: cargo_path.clone(),
                reason: e.to_string(),
            })?;
    Ok(cargo
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .ok_or_else(|| BuildError::Manifest {
            path: cargo_path,
            reason: "no [package] name".into(),
        })?
        .to_string())
}

/// Runs a command to its end with no input and both outputs appended to `log`: the outer error is the log's, the
/// inner one the command's (it could not be started).
pub(crate) fn run_logged(
    command: &mut std::process::Command,
    log: &Path,
) -> Result<std::io::Result<std::process::ExitStatus>, BuildError> {
    let out = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(io_error(log))?;
    let err = out.try_clone().map_err(io_error(log))?;
    Ok(command
        .stdin(std::process::Stdio::null())
        .stdout(out)
        .stderr(err)
        .status())
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
    /// Weft's workspace, when building from a checkout of it: plugin crates that are its members build there.
    pub workspace: Option<PathBuf>,
    /// The plugins.
    pub sources: Vec<PluginSource>,
    /// Where components and manifests are installed.
    pub out_dir: PathBuf,
    /// Where builds happen and keep their outputs (target directories, generated files, the log): the
    /// workspace's `target/plugin-build`, else [`user_build_root`].
    pub build_root: PathBuf,
    /// Whether a missing toolchain or language tool may be installed.
    pub install_toolchain: bool,
}

impl BuildRequest {
    /// A request for `sources`, building in `workspace`'s `target/plugin-build` when there is a workspace and in
    /// the user's cache otherwise.
    pub fn new(workspace: Option<PathBuf>, sources: Vec<PluginSource>, out_dir: PathBuf) -> Self {
        let build_root = match &workspace {
            Some(workspace) => workspace.join("target").join("plugin-build"),
            None => user_build_root(),
        };
        BuildRequest {
            workspace,
            sources,
            out_dir,
            build_root,
            install_toolchain: true,
        }
    }
}

/// `$XDG_CACHE_HOME/weft/plugin-build`, else `$HOME/.cache/weft/plugin-build`, else a directory under the
/// system's temporary directory.
pub fn user_build_root() -> PathBuf {
    user_cache_dir().join("plugin-build")
}

/// `$XDG_CACHE_HOME/weft`, else `$HOME/.cache/weft`, else `weft` under the system's temporary directory.
pub(crate) fn user_cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("weft")
}

/// Builds the plugins and installs their components, showing nothing; the tools' output is kept in
/// `build.log` under the build root and quoted in the error when the build fails.
pub fn build(request: &BuildRequest) -> Result<Vec<BuiltPlugin>, BuildError> {
    build_with_progress(request, &mut Quiet)
}

/// Builds the plugins and installs their components, reporting each step to `progress`.
pub fn build_with_progress(
    request: &BuildRequest,
    progress: &mut dyn BuildProgress,
) -> Result<Vec<BuiltPlugin>, BuildError> {
    if request.sources.is_empty() {
        return Ok(Vec::new());
    }
    let started = Instant::now();
    let build_root = &request.build_root;
    fs::create_dir_all(build_root).map_err(io_error(build_root))?;
    // One build at a time per build root: they share the log, the target directories and the guests' work
    // directories (cargo would wait for its target directory anyway).
    let lock_path = build_root.join(".build.lock");
    let lock = fs::File::create(&lock_path).map_err(io_error(&lock_path))?;
    lock.lock().map_err(io_error(&lock_path))?;
    let built = build_locked(request, progress, started);
    let _ = lock.unlock();
    built
}

fn build_locked(
    request: &BuildRequest,
    progress: &mut dyn BuildProgress,
    started: Instant,
) -> Result<Vec<BuiltPlugin>, BuildError> {
    let build_root = &request.build_root;
    let log = build_root.join("build.log");
    fs::write(&log, "").map_err(io_error(&log))?;
    fs::create_dir_all(&request.out_dir).map_err(io_error(&request.out_dir))?;
    progress.event(BuildEvent::Started {
        plugins: request.sources.len(),
        log: &log,
    });
    let mut counter = CompileCounter::new(request.sources.len());
    let (rust, guests): (Vec<&PluginSource>, Vec<&PluginSource>) = request
        .sources
        .iter()
        .partition(|s| s.language() == Language::Rust);
    let mut built = Vec::new();
    if !rust.is_empty() {
        built.extend(build_rust(request, &rust, &log, &mut counter, progress)?);
    }
    for source in guests {
        let component = guest::compile(request, source, &log, progress)?;
        counter.plugin_done(&source.manifest.name, progress);
        built.push(install_component(source, component, &request.out_dir)?);
    }
    progress.event(BuildEvent::Finished {
        plugins: built.len(),
        elapsed: started.elapsed(),
    });
    Ok(built)
}

/// Builds the Rust plugins: the workspace's members together, each outside plugin on its own manifest, all in one
/// target directory per toolchain. A plugin's stack size is a link argument: plugins with the default stack are
/// built by one `cargo build`; each one with its own stack by a `cargo rustc` that passes the argument to its
/// final link only (RUSTFLAGS would rebuild everything, std included, for every distinct size).
fn build_rust(
    request: &BuildRequest,
    plugins: &[&PluginSource],
    log: &Path,
    counter: &mut CompileCounter,
    progress: &mut dyn BuildProgress,
) -> Result<Vec<BuiltPlugin>, BuildError> {
    let toolchain = detect_toolchain(request.install_toolchain, Some(log), progress)?;
    let target_dir = request.build_root.join(toolchain.dir_name());
    progress.event(BuildEvent::Compiling {
        toolchain,
        std_built: toolchain.std_is_built(&target_dir),
    });
    let members = request
        .workspace
        .as_deref()
        .map(workspace_members)
        .unwrap_or_default();
    let (inside, outside): (Vec<&PluginSource>, Vec<&PluginSource>) = plugins
        .iter()
        .partition(|p| members.contains(&canonical(&p.dir)));
    let mut runs: Vec<(CargoScope<'_>, Option<u32>, Vec<&PluginSource>)> = Vec::new();
    if let Some(workspace) = request.workspace.as_deref() {
        let (plain, sized): (Vec<&PluginSource>, Vec<&PluginSource>) = inside
            .iter()
            .partition(|c| c.manifest.build.stack_kib.is_none());
        if !plain.is_empty() {
            runs.push((CargoScope::Workspace(workspace), None, plain));
        }
        runs.extend(sized.into_iter().map(|c| {
            (
                CargoScope::Workspace(workspace),
                c.manifest.build.stack_kib,
                vec![c],
            )
        }));
    }
    let manifests: Vec<PathBuf> = outside.iter().map(|p| p.dir.join("Cargo.toml")).collect();
    for (plugin, manifest) in outside.iter().zip(&manifests) {
        runs.push((
            CargoScope::Standalone(manifest),
            plugin.manifest.build.stack_kib,
            vec![*plugin],
        ));
    }
    let mut owners = ModuleOwners::load(&target_dir);
    let mut built = Vec::new();
    for (scope, stack_kib, plugins) in runs {
        owners.claim(&target_dir, &plugins);
        owners.save(&target_dir)?;
        let cargo = CargoRun {
            toolchain,
            scope,
            target_dir: &target_dir,
            stack_kib,
            plugins: &plugins,
            log,
        };
        let modules = cargo.run(counter, progress)?;
        for plugin in plugins {
            let module =
                modules
                    .get(&canonical(&plugin.dir))
                    .ok_or_else(|| BuildError::Source {
                        dir: plugin.dir.clone(),
                        reason: "cargo built no .wasm module for it: is its crate-type `cdylib`?"
                            .into(),
                    })?;
            let bytes = fs::read(module).map_err(io_error(module))?;
            let component = encode_component(&bytes).map_err(|reason| BuildError::Encode {
                plugin: plugin.manifest.name.clone(),
                reason,
            })?;
            built.push(install_component(plugin, component, &request.out_dir)?);
        }
    }
    Ok(built)
}

/// Installs a component with its manifest, which pins its sha256. The manifest installed has no `[build]`
/// table: how it was built is the source's business.
fn install_component(
    plugin: &PluginSource,
    component: Vec<u8>,
    out_dir: &Path,
) -> Result<BuiltPlugin, BuildError> {
    let name = plugin.manifest.name.clone();
    let sha256 = hex::encode(Sha256::digest(&component));
    let component_path = out_dir.join(format!("{name}.wasm"));
    write_atomic(&component_path, &component)?;
    let mut installed = plugin.manifest.clone();
    installed.component = Some(PathBuf::from(format!("{name}.wasm")));
    installed.sha256 = Some(sha256.clone());
    installed.build = weft_plugin_contract::BuildSettings::default();
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
    let request = BuildRequest::new(
        Some(workspace.to_path_buf()),
        discover(roots)?,
        out_dir.to_path_buf(),
    );
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
        let sources = discover(&[workspace.join("plugins")]).unwrap();
        let core = sources
            .iter()
            .find(|c| c.package() == Some("health-core"))
            .unwrap();
        assert_eq!(core.manifest.name, "health-core");
        // A plugin folder itself is a root too.
        let one = discover(&[workspace.join("examples/health-widget")]).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].language(), Language::Rust);
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
