//! `weft plugin new|build|test|list`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use clap::Subcommand;
use weft_health::{ObjectSet, scripts};
use weft_plugin_build as build;
use weft_plugin_build::scaffold::{self, ScaffoldRequest, SdkLocation};
use weft_plugin_host::registry::{Language, PluginManifest, Registry};
use weft_plugin_host::{CallLimits, HealthPlugin, HostConfig, PluginHost, World};

use crate::health::{CheckSources, add_checks, build_registry, read_objects};
use crate::{PluginSources, exit};

#[derive(Debug, Subcommand)]
pub(crate) enum PluginCommand {
    /// Make a new health-check plugin in a folder of its own: manifest, code, an Argo CD-style suite with a
    /// child case, and a README. It builds where it is, with `weft plugin build DIR`.
    New {
        /// The plugin's name (`health-database`); also the folder made, unless --dir says otherwise.
        name: String,
        /// The kind it serves, `group/Kind` (`acme.io/Database`; `/Kind` for the core group).
        #[arg(long)]
        kind: String,
        /// The language: rust, python or js.
        #[arg(long, default_value = "rust")]
        lang: Language,
        /// The folder to make (default: ./NAME); it must not exist or be empty.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Build plugins into components, installed with their manifests (which pin each component's sha256) in one
    /// directory. A DIR is a plugin folder (it holds `weft-plugin.toml`) or a folder of them, anywhere: Rust,
    /// Python or JavaScript. Without DIR: the plugin folder you are in, else Weft's own plugins and examples
    /// when you are in its checkout.
    Build {
        /// Plugin folders, or folders of plugin folders.
        #[arg(value_name = "DIR")]
        paths: Vec<PathBuf>,
        /// The Weft checkout whose plugin crates build in its workspace (default: the one holding the current
        /// directory or this executable).
        #[arg(long)]
        workspace: Option<PathBuf>,
        /// Folders to build, relative to the workspace (what DIR does, kept for scripts).
        #[arg(long = "dir", value_name = "DIR", hide = true)]
        dirs: Vec<PathBuf>,
        /// Where to install (default: `dist/` in a plugin folder built alone; target/plugins in Weft's checkout,
        /// where `weft` finds its built-ins).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Fail instead of installing a missing Wasm toolchain or language tool.
        #[arg(long)]
        no_install: bool,
    },
    /// Run a health plugin against a test suite in Argo CD's `health_test.yaml` format. An input file may hold
    /// several documents: the first is assessed, the others are what the plugin sees as its children.
    Test {
        /// A plugin folder (built first, into its `dist/`), a registered plugin's name, an installed manifest
        /// (`.toml`), a component (`.wasm`), or a Lua health script (a `.lua` file, or an Argo CD
        /// `resource_customizations` kind directory holding `health.lua`), which runs through the built-in
        /// health-lua plugin.
        plugin: String,
        /// The suite file (default for a kind directory: its `health_test.yaml`).
        cases: Option<PathBuf>,
        /// Each case's deadline in milliseconds, instead of the plugin's own (which `weft serve` applies); for
        /// suites run on a slow or loaded machine, where a verdict is what is being tested.
        #[arg(long, value_name = "MS")]
        timeout_ms: Option<u64>,
        #[command(flatten)]
        sources: PluginSources,
    },
    /// List the registered plugins, and the Lua and CEL checks (`lua:` and `cel:` entries) that `--lua-dir`,
    /// `--argocd-cm` and `--config` define, each with where it came from (a file, a ConfigMap key, an entry of the
    /// configuration).
    List {
        #[command(flatten)]
        sources: PluginSources,
        #[command(flatten)]
        checks: CheckSources,
    },
}

pub(crate) fn run(command: PluginCommand) -> anyhow::Result<u8> {
    match command {
        PluginCommand::New {
            name,
            kind,
            lang,
            dir,
        } => new_plugin(&name, &kind, lang, dir),
        PluginCommand::Build {
            mut paths,
            workspace,
            dirs,
            out,
            no_install,
        } => {
            let workspace = workspace.or_else(weft_checkout);
            if let Some(workspace) = &workspace {
                paths.extend(dirs.iter().map(|d| workspace.join(d)));
            }
            build_plugins(workspace, paths, out, no_install).map(|_| 0)
        }
        PluginCommand::Test {
            plugin,
            cases,
            timeout_ms,
            sources,
        } => {
            let timeout = timeout_ms.map(std::time::Duration::from_millis);
            let cases = match cases {
                Some(cases) => cases,
                None if Path::new(&plugin).is_dir() => Path::new(&plugin).join("health_test.yaml"),
                None => bail!("name the suite file (health_test.yaml) after the plugin"),
            };
            let folder = Path::new(&plugin);
            if folder.join(build::SOURCE_MANIFEST).is_file() {
                // A plugin folder: build it (cargo and the tools skip what is up to date), then test what was built.
                let built =
                    build_plugins(weft_checkout(), vec![folder.to_path_buf()], None, false)?;
                let manifest = built
                    .first()
                    .map(|b| b.manifest.to_string_lossy().into_owned())
                    .context("the build installed nothing")?;
                return test_plugin(&manifest, &cases, timeout, &sources);
            }
            test_plugin(&plugin, &cases, timeout, &sources)
        }
        PluginCommand::List { sources, checks } => list(&sources, &checks),
    }
}

/// The Weft checkout holding the current directory, else the one holding this executable (`target/debug/weft`).
fn weft_checkout() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok();
    cwd.as_deref().and_then(build::find_workspace).or_else(|| {
        let exe = std::env::current_exe().ok()?;
        build::find_workspace(exe.parent()?)
    })
}

fn build_plugins(
    workspace: Option<PathBuf>,
    paths: Vec<PathBuf>,
    out: Option<PathBuf>,
    no_install: bool,
) -> anyhow::Result<Vec<build::BuiltPlugin>> {
    let cwd = std::env::current_dir()?;
    let in_plugin_folder = cwd.join(build::SOURCE_MANIFEST).is_file();
    // Weft's own plugins: what `weft plugin build` builds without a folder, in its checkout.
    let own_plugins = paths.is_empty()
        && !in_plugin_folder
        && workspace.as_deref().is_some_and(|w| cwd.starts_with(w));
    let roots = match (&workspace, paths.is_empty(), in_plugin_folder) {
        (Some(workspace), _, _) if own_plugins => {
            vec![workspace.join("plugins"), workspace.join("examples")]
        }
        (_, false, _) => paths,
        (_, true, true) => vec![cwd.clone()],
        (_, true, false) => bail!(
            "{} is not a plugin folder (it has no {}); name the folder to build: `weft plugin build DIR`, or make \
             one with `weft plugin new NAME --kind group/Kind`",
            cwd.display(),
            build::SOURCE_MANIFEST
        ),
    };
    for root in &roots {
        if !root.is_dir() {
            bail!("{}: no such folder", root.display());
        }
    }
    let sources = build::discover(&roots)?;
    if sources.is_empty() {
        bail!(
            "no plugin folders (folders holding {}) in {}",
            build::SOURCE_MANIFEST,
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    // Weft's own plugins install where `weft` finds its built-ins; a plugin folder built alone into its own dist/.
    let out = match out {
        Some(out) => out,
        None => match (&workspace, sources.as_slice()) {
            (Some(workspace), _) if own_plugins => workspace.join(build::DEFAULT_OUT_DIR),
            (_, [one]) => one.dir.join("dist"),
            _ => bail!(
                "{} plugins to build: say where to install them with --out DIR",
                sources.len()
            ),
        },
    };
    let mut request = build::BuildRequest::new(workspace, sources, out);
    request.install_toolchain = !no_install;
    let mut reporter = crate::build_progress::BuildReporter::new();
    let built = build::build_with_progress(&request, &mut reporter)?;
    drop(reporter);
    for plugin in &built {
        println!(
            "{:<20} {} {:>8} bytes  {}",
            plugin.name,
            plugin.sha256,
            plugin.size,
            plugin.component.display()
        );
    }
    Ok(built)
}

fn new_plugin(name: &str, kind: &str, lang: Language, dir: Option<PathBuf>) -> anyhow::Result<u8> {
    let dir = dir.unwrap_or_else(|| PathBuf::from(name));
    if dir.exists() && std::fs::read_dir(&dir)?.next().is_some() {
        bail!(
            "{} exists and is not empty; choose another --dir",
            dir.display()
        );
    }
    let sdk = match weft_checkout() {
        Some(checkout) => SdkLocation::Checkout(
            std::fs::canonicalize(&checkout)
                .unwrap_or(checkout)
                .to_string_lossy()
                .into_owned(),
        ),
        None => SdkLocation::Published,
    };
    let files = scaffold::scaffold(&ScaffoldRequest {
        name: name.to_string(),
        kind: kind.to_string(),
        language: lang,
        sdk,
    })?;
    for file in &files {
        let path = dir.join(&file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, &file.text).with_context(|| format!("writing {}", path.display()))?;
    }
    println!(
        "made {} ({lang} health check for {kind}, {} files)\n\nnext:\n  cd {}\n  weft plugin test . health_test.yaml",
        dir.display(),
        files.len(),
        dir.display()
    );
    Ok(0)
}

/// The Lua script a `test` names: a `.lua` file, or a directory holding `health.lua`.
fn lua_script(path: &Path) -> Option<PathBuf> {
    if path.extension().is_some_and(|e| e == "lua") {
        return Some(path.to_path_buf());
    }
    let script = path.join(scripts::HEALTH_SCRIPT);
    script.is_file().then_some(script)
}

/// The health-lua plugin running one script, named `lua:<path>`.
fn lua_plugin(
    host: &PluginHost,
    script: &Path,
    sources: &PluginSources,
) -> anyhow::Result<HealthPlugin> {
    let source =
        std::fs::read_to_string(script).with_context(|| format!("reading {}", script.display()))?;
    let settings = scripts::lua_settings(&source).map_err(|message| {
        anyhow::anyhow!(
            "{}: the Lua health script does not compile: {message}",
            script.display()
        )
    })?;
    let registry = build_registry(sources)?;
    let template = registry.get(scripts::LUA_TEMPLATE).with_context(|| {
        format!(
            "running a Lua script needs the built-in {} plugin, which is not registered",
            scripts::LUA_TEMPLATE
        )
    })?;
    let component = template
        .component_path()
        .with_context(|| format!("plugin {} has no component", scripts::LUA_TEMPLATE))?;
    let loaded = host.load_component_file(
        scripts::LUA_TEMPLATE,
        World::HealthCheck,
        &component,
        template.manifest.sha256.as_deref(),
    )?;
    let limits = CallLimits::HEALTH.with_overrides(&template.manifest.limits);
    Ok(host
        .health_plugin(&loaded, limits)?
        .instance(&format!("lua:{}", script.display()), &settings))
}

/// Loads the plugin a `test` names.
fn resolve_plugin(
    host: &PluginHost,
    plugin: &str,
    sources: &PluginSources,
) -> anyhow::Result<HealthPlugin> {
    let path = Path::new(plugin);
    if let Some(script) = lua_script(path) {
        return lua_plugin(host, &script, sources);
    }
    let (name, component_path, sha256, manifest) = match path.extension().and_then(|e| e.to_str()) {
        Some("wasm") => {
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("plugin")
                .to_string();
            (name, path.to_path_buf(), None, None)
        }
        Some("toml") => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let manifest = PluginManifest::parse(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            let component = manifest
                .component
                .clone()
                .with_context(|| format!("{}: no `component`", path.display()))?;
            let base = path.parent().unwrap_or(Path::new("."));
            (
                manifest.name.clone(),
                base.join(component),
                manifest.sha256.clone(),
                Some(manifest),
            )
        }
        _ => {
            let registry: Registry = build_registry(sources)?;
            let Some(registered) = registry.get(plugin) else {
                let known: Vec<&str> = registry.plugins().iter().map(|p| p.name()).collect();
                bail!(
                    "no plugin named {plugin:?} (known: {}); a plugin of your own is found with --plugins DIR (the \
                     directory `weft plugin build --out DIR` installed it into), or name its installed .toml or its \
                     .wasm directly",
                    known.join(", ")
                );
            };
            let component = registered
                .component_path()
                .with_context(|| format!("plugin {plugin} has no component"))?;
            (
                plugin.to_string(),
                component,
                registered.manifest.sha256.clone(),
                Some(registered.manifest.clone()),
            )
        }
    };
    let limits = manifest.map_or(CallLimits::HEALTH, |m| {
        CallLimits::HEALTH.with_overrides(&m.limits)
    });
    let component = host.load_component_file(
        &name,
        World::HealthCheck,
        &component_path,
        sha256.as_deref(),
    )?;
    Ok(host.health_plugin(&component, limits)?)
}

fn test_plugin(
    plugin: &str,
    cases: &Path,
    timeout: Option<std::time::Duration>,
    sources: &PluginSources,
) -> anyhow::Result<u8> {
    let mut config = HostConfig::default();
    if let Some(timeout) = timeout {
        // The operator's own run: the deadline asked for, past the default ceiling if need be.
        config.ceilings.health.timeout = config.ceilings.health.timeout.max(timeout);
    }
    let host = PluginHost::new(config)?;
    let mut plugin = resolve_plugin(&host, plugin, sources)?;
    if let Some(timeout) = timeout {
        plugin = plugin.with_deadline(timeout);
    }
    let suite = weft_sdk::testing::read_health_suite(cases)?;
    let (mut passed, mut failed) = (0usize, 0usize);
    for case in suite {
        let mut objects = read_objects(&case.input)?.into_iter();
        let Some(object) = objects.next() else {
            bail!("{}: no object in the file", case.input.display());
        };
        let related = Arc::new(ObjectSet::new(objects.as_slice()));
        let outcome = plugin.assess_blocking(&[object.to_string()], related);
        let (matched, got) = match outcome {
            Ok((mut results, _)) => match results.pop() {
                Some(Ok(verdict)) => (
                    verdict.as_ref() == Some(&case.expected),
                    weft_sdk::testing::verdict_text(verdict.as_ref()),
                ),
                Some(Err(e)) => (false, weft_sdk::testing::error_text(&e)),
                None => (false, "no result".to_string()),
            },
            Err(e) => (false, e.to_string()),
        };
        if matched {
            passed += 1;
            println!("ok   {}", case.input.display());
        } else {
            failed += 1;
            println!(
                "FAIL {}",
                weft_sdk::testing::case_failure(&case.input, &case.expected, &got)
            );
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 { 0 } else { exit::FAILED })
}

fn list(sources: &PluginSources, checks: &CheckSources) -> anyhow::Result<u8> {
    use std::fmt::Write as _;
    let mut registry = build_registry(sources)?;
    add_checks(&mut registry, checks)?;
    if registry.plugins().is_empty() {
        eprintln!(
            "weft: no plugins are registered: the built-in ones are {} and no --plugins DIR, --lua-dir, \
             --argocd-cm or --config adds any",
            if sources.no_builtin {
                "turned off (--no-builtin)"
            } else {
                "installed but hold no plugin"
            }
        );
        return Ok(0);
    }
    let name_width = registry
        .plugins()
        .iter()
        .map(|p| p.name().len())
        .max()
        .unwrap_or(0)
        .max(20);
    let mut text = String::new();
    for plugin in registry.plugins() {
        let serves = if plugin.manifest.kinds.is_empty() {
            plugin.manifest.app_types.join(",")
        } else {
            plugin.manifest.kinds.join(",")
        };
        let sha = plugin.manifest.sha256.as_deref().unwrap_or("-");
        write!(
            text,
            "{:<name_width$} {:<13} {:<8} {}  {}",
            plugin.name(),
            plugin.manifest.world.as_str(),
            format!("{:?}", plugin.provenance).to_lowercase(),
            weft_core::short::short_id(sha),
            serves
        )?;
        // A configured check: where it came from, and which plugin runs it.
        if let (Some(template), Some(origin)) = (plugin.instance_of(), plugin.origin()) {
            write!(text, "  (runs on {template}; from {origin})")?;
        }
        writeln!(text)?;
    }
    crate::print_stdout(&text)?;
    Ok(0)
}
