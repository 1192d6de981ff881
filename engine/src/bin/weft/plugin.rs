//! `weft plugin build|test|list`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use clap::Subcommand;
use weft_engine::health::{ObjectSet, scripts};
use weft_engine::plugin::build::{self, BuildRequest};
use weft_engine::plugin::{CallLimits, HealthPlugin, HostConfig, PluginHost, World};
use weft_engine::registry::{PluginManifest, Registry};

use crate::health::{CheckSources, add_checks, build_registry, read_objects};
use crate::{PluginSources, exit};

#[derive(Debug, Subcommand)]
pub(crate) enum PluginCommand {
    /// Build every plugin crate (a directory with `weft-plugin.toml`) under `plugins/` and `examples/` into a
    /// component, installed with its manifest and sha256 in one directory.
    Build {
        /// The workspace (default: the one holding the current directory).
        #[arg(long)]
        workspace: Option<PathBuf>,
        /// Directories whose plugin crates to build, relative to the workspace (default: plugins, examples).
        #[arg(long = "dir", value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// Where to install (default: target/plugins in the workspace, where `weft` finds its built-ins).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Fail instead of installing a missing Wasm toolchain.
        #[arg(long)]
        no_install: bool,
    },
    /// Run a health plugin against a test suite in Argo CD's `health_test.yaml` format. An input file may hold
    /// several documents: the first is assessed, the others are what the plugin sees as its children.
    Test {
        /// A registered plugin's name, an installed manifest (`.toml`), a component (`.wasm`), or a Lua health script
        /// (a `.lua` file, or an Argo CD `resource_customizations` kind directory holding `health.lua`), which runs
        /// through the built-in health-lua plugin.
        plugin: String,
        /// The suite file (default for a kind directory: its `health_test.yaml`).
        cases: Option<PathBuf>,
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
        PluginCommand::Build {
            workspace,
            dirs,
            out,
            no_install,
        } => build_plugins(workspace, dirs, out, no_install),
        PluginCommand::Test {
            plugin,
            cases,
            sources,
        } => {
            let cases = match cases {
                Some(cases) => cases,
                None if Path::new(&plugin).is_dir() => Path::new(&plugin).join("health_test.yaml"),
                None => bail!("name the suite file (health_test.yaml) after the plugin"),
            };
            test_plugin(&plugin, &cases, &sources)
        }
        PluginCommand::List { sources, checks } => list(&sources, &checks),
    }
}

fn build_plugins(
    workspace: Option<PathBuf>,
    dirs: Vec<PathBuf>,
    out: Option<PathBuf>,
    no_install: bool,
) -> anyhow::Result<u8> {
    let workspace = match workspace {
        Some(dir) => dir,
        None => {
            let cwd = std::env::current_dir()?;
            build::find_workspace(&cwd).with_context(|| {
                format!(
                    "{} is not inside the Weft workspace; pass --workspace",
                    cwd.display()
                )
            })?
        }
    };
    let dirs = if dirs.is_empty() {
        vec![PathBuf::from("plugins"), PathBuf::from("examples")]
    } else {
        dirs
    };
    let roots: Vec<PathBuf> = dirs.iter().map(|d| workspace.join(d)).collect();
    let request = BuildRequest {
        crates: build::discover(&roots)?,
        out_dir: out.unwrap_or_else(|| workspace.join(build::DEFAULT_OUT_DIR)),
        workspace,
        install_toolchain: !no_install,
    };
    let mut reporter = crate::build_progress::BuildReporter::new();
    let built = build::build_with_progress(&request, &mut reporter)?;
    drop(reporter);
    for plugin in built {
        println!(
            "{:<20} {} {:>8} bytes  {}",
            plugin.name,
            plugin.sha256,
            plugin.size,
            plugin.component.display()
        );
    }
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

fn test_plugin(plugin: &str, cases: &Path, sources: &PluginSources) -> anyhow::Result<u8> {
    let host = PluginHost::new(HostConfig::default())?;
    let plugin = resolve_plugin(&host, plugin, sources)?;
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
                Some(Err(e)) => (false, format!("plugin error: {e}")),
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
            &sha[..sha.len().min(12)],
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
