//! Finding and loading the `build-steer` plugin that serves an app's steer type.

use weft_plugin_host::registry::Registry;
use weft_plugin_host::{CallLimits, PluginHost, SteerPlugin, World};

use super::steering::BuildError;

/// Loads the registry's `build-steer` plugin for `app_type` (a user plugin over a built-in one).
pub fn load_steerer(
    host: &PluginHost,
    registry: &Registry,
    app_type: &str,
) -> Result<SteerPlugin, BuildError> {
    let registered = registry
        .for_app_type(World::BuildSteer, app_type)
        .ok_or_else(|| BuildError::NoSteerer {
            app_type: app_type.to_string(),
            known: known_steer_types(registry),
        })?;
    let name = registered.name();
    let path = registered
        .component_path()
        .ok_or_else(|| BuildError::NoComponent(name.to_string()))?;
    let component = host.load_component_file(
        name,
        World::BuildSteer,
        &path,
        registered.manifest.sha256.as_deref(),
    )?;
    let limits = CallLimits::STEER.with_overrides(&registered.manifest.limits);
    Ok(host.steer_plugin(&component, limits)?)
}

/// The app types that have a build-steer plugin, sorted.
pub fn known_steer_types(registry: &Registry) -> String {
    let mut known: Vec<String> = registry
        .plugins()
        .iter()
        .filter(|p| p.manifest.world == World::BuildSteer)
        .flat_map(|p| p.manifest.app_types.clone())
        .collect();
    known.sort();
    if known.is_empty() {
        "none".into()
    } else {
        known.join(", ")
    }
}
