//! `weft health FILE...`: assess objects from files with the registered plugins.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use serde_json::{Value, json};
use weft_engine::config::Config;
use weft_health::scripts::{add_lua_scripts, read_argocd_cm, read_lua_dir};
use weft_health::{AssessOptions, HealthAssessor, ObjectSet};
use weft_plugin_build as build;
use weft_plugin_host::registry::{BUILTIN_DIR_ENV, Provenance, Registry, holds_manifests};
use weft_plugin_host::{HostConfig, PluginHost, World};

use crate::PluginSources;
use crate::build_progress::BuildReporter;

#[derive(Debug, clap::Args)]
pub(crate) struct HealthArgs {
    /// YAML or JSON files; `-` reads standard input. Every document is assessed (a `List` is flattened) except
    /// Secrets, which Weft never surfaces. Objects in the files are also what a plugin sees as an object's children.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    sources: PluginSources,
    #[command(flatten)]
    checks: CheckSources,
}

/// Health checks brought as Lua scripts or CEL expressions (run by the built-in `health-lua` and `health-cel`
/// plugins). Each script is a registry entry `lua:<group>/<Kind>` that takes part in the usual precedence.
#[derive(Debug, Default, clap::Args)]
pub(crate) struct CheckSources {
    /// A directory in Argo CD's `resource_customizations` layout (`<group>/<Kind>/health.lua`, `_` for any group or
    /// kind); repeatable.
    #[arg(long = "lua-dir", value_name = "DIR")]
    pub(crate) lua_dirs: Vec<PathBuf>,
    /// An `argocd-cm` ConfigMap file: its `resource.customizations.health.<group>_<Kind>` keys and the health
    /// scripts of its `resource.customizations` key; repeatable.
    #[arg(long = "argocd-cm", value_name = "FILE")]
    pub(crate) argocd_cm: Vec<PathBuf>,
    /// A `weft.toml` whose `[health]` checks (Lua directories, ConfigMaps, scripts, CEL) to use.
    #[arg(long = "config", value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
}

/// Adds the checks of `sources` to a registry; a broken CEL expression or a duplicate key stops here, naming the
/// kind and where it was configured.
/// A directory or file named both on the command line and in the `--config` file is read once (by the
/// configuration's checks), so naming it twice is not a duplicate.
pub(crate) fn add_checks(registry: &mut Registry, sources: &CheckSources) -> anyhow::Result<()> {
    let config = match &sources.config {
        Some(path) => Some((path, Config::load(path)?)),
        None => None,
    };
    let configured: Vec<PathBuf> = config
        .iter()
        .flat_map(|(_, config)| {
            config
                .health
                .lua_dirs
                .iter()
                .chain(&config.health.argocd_cm)
        })
        .map(|path| same_file_key(path))
        .collect();
    let named_in_config = |path: &PathBuf| configured.contains(&same_file_key(path));
    let mut lua = Vec::new();
    for dir in sources.lua_dirs.iter().filter(|dir| !named_in_config(dir)) {
        lua.extend(read_lua_dir(dir).with_context(|| format!("--lua-dir {}", dir.display()))?);
    }
    for file in sources
        .argocd_cm
        .iter()
        .filter(|file| !named_in_config(file))
    {
        lua.extend(
            read_argocd_cm(file).with_context(|| format!("--argocd-cm {}", file.display()))?,
        );
    }
    add_lua_scripts(registry, &lua)?;
    if let Some((path, config)) = &config {
        weft_health::configured::add_configured_checks(registry, &config.health)
            .with_context(|| format!("the [health] checks of {}", path.display()))?;
    }
    Ok(())
}

/// What says two paths name the same file: the canonical path when it exists, the path as written otherwise (the
/// read then fails, naming it).
fn same_file_key(path: &std::path::Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

pub(crate) fn run(args: HealthArgs) -> anyhow::Result<u8> {
    let mut objects = Vec::new();
    for file in &args.files {
        objects.extend(read_objects(file)?);
    }
    let mut registry = build_registry(&args.sources)?;
    add_checks(&mut registry, &args.checks)?;
    if !registry
        .plugins()
        .iter()
        .any(|p| p.manifest.world == World::HealthCheck)
    {
        bail!(
            "no health-check plugin is registered, so no object could get a verdict: drop --no-builtin or add \
             plugins with --plugins DIR, --lua-dir DIR or --argocd-cm FILE"
        );
    }
    let host = PluginHost::new(HostConfig::default())?;
    let assessor = HealthAssessor::new(host, registry, AssessOptions::default());
    let related = Arc::new(ObjectSet::new(&objects));
    // Secrets are never surfaced, not even as a line saying they exist.
    objects.retain(|o| !weft_core::secrets::is_secret(o));
    let assessments = assessor.assess_blocking(&objects, related)?;
    let mut out = String::new();
    for (object, assessment) in objects.iter().zip(assessments) {
        let text = |pointer: &str| object.pointer(pointer).and_then(Value::as_str);
        // An object no plugin answers is `unknown`, saying why; never a null status.
        let verdict = assessment.verdict();
        let line = json!({
            "apiVersion": text("/apiVersion"),
            "kind": text("/kind"),
            "namespace": text("/metadata/namespace"),
            "name": text("/metadata/name"),
            "status": verdict.status.as_str(),
            "message": verdict.message,
            "plugin": assessment.answered_by,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    crate::print_stdout(&out)?;
    Ok(0)
}

/// The built-in plugin that answers for kinds no other plugin serves.
const GENERIC_FALLBACK: &str = "health-generic";

/// The registry for a command: built-in plugins (unless turned off) and the user's directories.
pub(crate) fn build_registry(sources: &PluginSources) -> anyhow::Result<Registry> {
    let mut registry = Registry::new();
    if !sources.no_builtin {
        let dir = builtin_plugins()?;
        registry
            .add_dir(&dir, Provenance::BuiltIn)
            .with_context(|| format!("loading built-in plugins from {}", dir.display()))?;
    }
    for dir in &sources.plugin_dirs {
        registry
            .add_dir(dir, Provenance::User)
            .with_context(|| format!("loading user plugins from {}", dir.display()))?;
    }
    for key in &sources.no_fallback {
        registry
            .disable_for(GENERIC_FALLBACK, key)
            .with_context(|| format!("--no-fallback {key}"))?;
    }
    Ok(registry)
}

/// The directory of installed built-in plugins: `$WEFT_BUILTIN_PLUGINS`, else where they are installed beside the
/// executable; run from a Weft checkout where none are installed yet (a first `cargo run`), they are built first,
/// showing progress. Fails, saying what to do, when they can be neither found nor built.
fn builtin_plugins() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os(BUILTIN_DIR_ENV) {
        let dir = PathBuf::from(dir);
        if !holds_manifests(&dir) {
            bail!(
                "{BUILTIN_DIR_ENV}={} holds no installed plugin manifests (*.toml files with their components); \
                 point it at the directory `weft plugin build --out DIR` installed into",
                dir.display()
            );
        }
        return Ok(dir);
    }
    if let Some(dir) = Registry::builtin_dir() {
        return Ok(dir);
    }
    let Some((workspace, out)) = checkout_install_dir() else {
        bail!(
            "no built-in plugins are installed beside this weft executable ({}); build them in a Weft checkout \
             with `weft plugin build`, or point {BUILTIN_DIR_ENV} at a directory of installed plugins",
            std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        );
    };
    eprintln!(
        "weft: no built-in plugins are installed yet; building them into {} (first run of this checkout only: \
         about 5 to 10 minutes on 2 cores, most of it compiling Rust for wasm32; later runs start at once)",
        out.display()
    );
    let roots = [workspace.join("plugins"), workspace.join("examples")];
    let mut reporter = BuildReporter::new();
    let built = build::ensure_built_with_progress(&workspace, &roots, &out, &mut reporter);
    drop(reporter);
    if let Err(error) = built {
        bail!(
            "building the built-in plugins failed: {error}\nFix what the message names and run the command again \
             (the plugins are built on the first run that needs them), or build them alone with \
             `cargo run --bin weft -- plugin build`."
        );
    }
    if !holds_manifests(&out) {
        bail!(
            "the plugin build finished but {} holds no installed plugins; run `weft plugin build` to see why",
            out.display()
        );
    }
    Ok(out)
}

/// When this executable was built in a Weft checkout (or runs inside one): the workspace, and where its
/// built-in plugins belong, `plugins/` in the cargo target directory holding the executable (where
/// [`Registry::builtin_dir`] looks), else the workspace's `target/plugins`.
fn checkout_install_dir() -> Option<(PathBuf, PathBuf)> {
    let exe = std::env::current_exe().ok();
    let exe_dir = exe.as_deref().and_then(std::path::Path::parent);
    // Cargo marks every target directory with a CACHEDIR.TAG: `target/release/weft` installs into
    // `target/plugins`, whatever CARGO_TARGET_DIR says.
    let target_dir = exe_dir
        .and_then(std::path::Path::parent)
        .filter(|dir| dir.join("CACHEDIR.TAG").is_file());
    let workspace = exe_dir
        .and_then(build::find_workspace)
        .or_else(|| build::find_workspace(&std::env::current_dir().ok()?))?;
    let out = match target_dir {
        Some(dir) => dir.join("plugins"),
        None => workspace.join(build::DEFAULT_OUT_DIR),
    };
    Some((workspace, out))
}

/// Every object in a YAML/JSON file (multi-document; `List` items flattened).
pub(crate) fn read_objects(path: &PathBuf) -> anyhow::Result<Vec<Value>> {
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading standard input")?
    } else {
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?
    };
    let documents = weft_sdk::testing::yaml_documents(&text)
        .with_context(|| format!("{}: not valid YAML or JSON", path.display()))?;
    let mut objects = Vec::new();
    for (index, document) in documents.into_iter().enumerate() {
        if !document.is_object() {
            bail!(
                "{}: document {} is not an object",
                path.display(),
                index + 1
            );
        }
        let is_list = document
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|k| k.ends_with("List"))
            && document.get("items").is_some_and(Value::is_array);
        if is_list {
            let items = document
                .get("items")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            objects.extend(items);
        } else {
            objects.push(document);
        }
    }
    Ok(objects)
}
