//! The plugin registry a configuration asks for: the built-in plugins unless turned off, its plugin directories
//! as user plugins, then its `[health]` Lua scripts and CEL checks.

use anyhow::Context as _;
use weft_engine::config::Config;
use weft_plugin_host::registry::{Provenance, Registry};

use crate::PluginSources;
use crate::health::build_registry;

/// The registry for `config`, with `sources`' command-line additions.
pub(crate) fn registry(sources: &PluginSources, config: &Config) -> anyhow::Result<Registry> {
    let mut registry = if config.plugins.builtin {
        build_registry(sources)?
    } else {
        Registry::new()
    };
    for dir in &config.plugins.dirs {
        registry
            .add_dir(dir, Provenance::User)
            .with_context(|| format!("loading user plugins from {}", dir.display()))?;
    }
    weft_health::configured::add_configured_checks(&mut registry, &config.health)
        .context("loading the configuration's [health] checks")?;
    Ok(registry)
}
