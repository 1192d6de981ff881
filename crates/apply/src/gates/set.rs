//! The gate plugins of `[[gate]]`, loaded once at start (a gate whose plugin is missing or of another world stops
//! the start, naming it), and run for a sync in the configured order, each failure a deny naming the plugin.

use std::collections::BTreeMap;

use weft_sdk::gate::GateRequest;

use super::config::{self, GateEntry};
use super::verdicts::GateResult;
use weft_app::AppSpec;
use weft_plugin_host::registry::Registry;
use weft_plugin_host::{CallLimits, GatePlugin, PluginHost, World};

/// Why the gates could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum GateSetError {
    /// A gate names a plugin the registry does not have.
    #[error("gate {gate}: no plugin {plugin:?} is installed (gate plugins: {known})")]
    UnknownPlugin {
        /// The gate.
        gate: String,
        /// The plugin it names.
        plugin: String,
        /// The gate plugins there are.
        known: String,
    },
    /// The plugin named is not a gate.
    #[error("gate {gate}: plugin {plugin} is a {world} plugin, not a gate")]
    WrongWorld {
        /// The gate.
        gate: String,
        /// The plugin it names.
        plugin: String,
        /// The plugin's world.
        world: World,
    },
    /// The plugin's component could not be loaded.
    #[error("gate {gate}: {message}")]
    Load {
        /// The gate.
        gate: String,
        /// Why.
        message: String,
    },
}

/// One configured gate with its plugin bound to its settings.
#[derive(Debug, Clone)]
struct LoadedGate {
    entry: GateEntry,
    plugin: GatePlugin,
}

/// Every configured gate, loaded.
#[derive(Debug, Clone, Default)]
pub struct GateSet {
    gates: Vec<LoadedGate>,
    entries: Vec<GateEntry>,
}

impl GateSet {
    /// No gates.
    pub fn empty() -> Self {
        GateSet::default()
    }

    /// Loads the plugin of every entry from `registry` into `host`.
    pub fn load(
        entries: &[GateEntry],
        host: &PluginHost,
        registry: &Registry,
    ) -> Result<GateSet, GateSetError> {
        let mut gates = Vec::new();
        for entry in entries {
            let Some(registered) = registry.get(&entry.plugin) else {
                let mut known: Vec<&str> = registry
                    .plugins()
                    .iter()
                    .filter(|p| p.manifest.world == World::Gate)
                    .map(|p| p.name())
                    .collect();
                known.sort();
                return Err(GateSetError::UnknownPlugin {
                    gate: entry.name.clone(),
                    plugin: entry.plugin.clone(),
                    known: if known.is_empty() {
                        "none installed".into()
                    } else {
                        known.join(", ")
                    },
                });
            };
            if registered.manifest.world != World::Gate {
                return Err(GateSetError::WrongWorld {
                    gate: entry.name.clone(),
                    plugin: entry.plugin.clone(),
                    world: registered.manifest.world,
                });
            }
            let load = |message: String| GateSetError::Load {
                gate: entry.name.clone(),
                message,
            };
            let path = registered
                .component_path()
                .ok_or_else(|| load(format!("plugin {} has no component", entry.plugin)))?;
            let component = host
                .load_component_file(
                    registered.name(),
                    World::Gate,
                    &path,
                    registered.manifest.sha256.as_deref(),
                )
                .map_err(|e| load(e.to_string()))?;
            let limits = CallLimits::GATE.with_overrides(&registered.manifest.limits);
            let settings = entry
                .settings_json()
                .map_err(|e| load(format!("its settings cannot be given as JSON: {e}")))?;
            let plugin = host
                .gate_plugin(&component, &entry.name, &settings, limits)
                .map_err(|e| load(e.to_string()))?;
            gates.push(LoadedGate {
                entry: entry.clone(),
                plugin,
            });
        }
        Ok(GateSet {
            gates,
            entries: entries.to_vec(),
        })
    }

    /// The entries, as configured.
    pub fn entries(&self) -> &[GateEntry] {
        &self.entries
    }

    /// The names of the gates `app` runs, in order (with those it names that were not loaded, which deny).
    pub fn names_for(&self, app: &AppSpec) -> Vec<String> {
        let mut names: Vec<String> = config::for_app(&self.entries, app)
            .iter()
            .map(|entry| entry.name.clone())
            .collect();
        let unloaded: Vec<String> = app
            .gates
            .iter()
            .filter(|name| !names.contains(name))
            .cloned()
            .collect();
        names.extend(unloaded);
        names
    }

    /// Runs the gates `app` runs on `request`, in order, every one of them (a deny does not hide the next gate's
    /// findings). A gate that fails denies, naming the plugin and why.
    pub async fn run(&self, app: &AppSpec, request: &GateRequest) -> Vec<GateResult> {
        let by_name: BTreeMap<&str, &LoadedGate> = self
            .gates
            .iter()
            .map(|gate| (gate.entry.name.as_str(), gate))
            .collect();
        let mut results = Vec::new();
        // A gate the app names that this server did not load (declared by a reload after it started) denies.
        for name in app
            .gates
            .iter()
            .filter(|name| !self.entries.iter().any(|e| e.name == **name))
        {
            results.push(GateResult::failed(
                name,
                "",
                false,
                "no such gate was loaded when this server started (gates take effect at the next start)",
            ));
        }
        for entry in config::for_app(&self.entries, app) {
            let Some(gate) = by_name.get(entry.name.as_str()) else {
                results.push(GateResult::failed(
                    &entry.name,
                    &entry.plugin,
                    entry.overridable,
                    "its plugin is not loaded",
                ));
                continue;
            };
            let result = match gate.plugin.evaluate(request.clone()).await {
                Ok(Ok(verdict)) => {
                    GateResult::answered(&entry.name, &entry.plugin, entry.overridable, verdict)
                }
                Ok(Err(error)) => GateResult::failed(
                    &entry.name,
                    &entry.plugin,
                    entry.overridable,
                    format!("plugin {} could not judge the plan: {error}", entry.plugin),
                ),
                Err(error) => GateResult::failed(
                    &entry.name,
                    &entry.plugin,
                    entry.overridable,
                    format!("plugin {} {}", entry.plugin, error.failure),
                ),
            };
            results.push(result);
        }
        results
    }
}
