//! A configuration's `[health]` table as registry entries: its Lua and CEL checks ([`crate::scripts`]) and its Lua
//! resource actions ([`crate::action_scripts`]), which come from the same directories and ConfigMaps.

use weft_plugin_host::registry::{Provenance, Registry};

use super::action_scripts::add_configured_actions;
use super::scripts::{
    CEL_TEMPLATE, ScriptError, add_lua_scripts, cel_instance, configured_lua, read_argocd_cm,
    read_lua_dir,
};
use super::settings::HealthChecks;

/// Adds every check of a configuration's `[health]` table: the Lua directories, the ConfigMaps, the inline Lua
/// scripts and the CEL checks, in that order, and the Lua resource actions of the directories and ConfigMaps
/// (`lua-actions:` entries, see [`crate::action_scripts`]). Returns how many entries were added.
pub fn add_configured_checks(
    registry: &mut Registry,
    health: &HealthChecks,
) -> Result<usize, ScriptError> {
    let mut scripts = Vec::new();
    for dir in &health.lua_dirs {
        scripts.extend(read_lua_dir(dir)?);
    }
    for file in &health.argocd_cm {
        scripts.extend(read_argocd_cm(file)?);
    }
    scripts.extend(configured_lua(health)?);
    add_lua_scripts(registry, &scripts)?;
    let kinds_with_actions = add_configured_actions(registry, health)?;
    for (index, check) in health.cel.iter().enumerate() {
        let instance = cel_instance(check, &format!("weft.toml health.cel[{index}]"))?;
        registry.add_instance(CEL_TEMPLATE, instance, Provenance::User)?;
    }
    Ok(scripts.len() + health.cel.len() + kinds_with_actions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scripts::LUA_TEMPLATE;
    use crate::settings::CelCheck;

    #[test]
    fn configured_checks_become_instances() {
        use weft_plugin_host::registry::PluginManifest;
        let mut registry = Registry::new();
        for name in [LUA_TEMPLATE, CEL_TEMPLATE] {
            let manifest = PluginManifest::parse(&format!(
                "name = \"{name}\"\nworld = \"health-check\"\ntemplate = true\n"
            ))
            .unwrap();
            registry.add(manifest, Provenance::BuiltIn, None).unwrap();
        }
        let health = HealthChecks {
            lua: vec![crate::settings::LuaCheck {
                kind: "example.com/Widget".into(),
                script: Some("return nil".into()),
                script_file: None,
            }],
            cel: vec![CelCheck {
                kind: "example.com/Gadget".into(),
                current: "status.ready == true".into(),
                in_progress: None,
                failed: Some("has(status.error)".into()),
                message: None,
            }],
            ..HealthChecks::default()
        };
        assert_eq!(add_configured_checks(&mut registry, &health).unwrap(), 2);
        let cel = registry.get("cel:example.com/Gadget").unwrap();
        assert_eq!(cel.instance_of(), Some(CEL_TEMPLATE));
        assert_eq!(
            cel.settings(),
            Some("{\"current\":\"status.ready == true\",\"failed\":\"has(status.error)\"}")
        );
        assert!(registry.get("lua:example.com/Widget").is_some());
        let broken = CelCheck {
            current: "status.ready ==".into(),
            ..health.cel[0].clone()
        };
        let error = cel_instance(&broken, "weft.toml health.cel[0]")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("example.com/Gadget")
                && error.contains("current expression \"status.ready ==\""),
            "{error}"
        );
    }
}
