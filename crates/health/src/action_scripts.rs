//! Argo CD's Lua resource actions: where their scripts come from, and how they become registry entries run by
//! the `health-lua` plugin's `resource-actions` export.
//!
//! Scripts come from the same places as Lua health checks ([`crate::scripts`]):
//! - a directory in Argo CD's `resource_customizations` layout: `<group>/<Kind>/actions/discovery.lua` and
//!   `<group>/<Kind>/actions/<action>/action.lua` (`<Kind>/actions/` for the core group);
//! - an `argocd-cm` ConfigMap: `resource.customizations.actions.<group>_<Kind>` (`<Kind>` alone for the core group),
//!   YAML of `discovery.lua`, `definitions: [{name, action.lua}]` and `mergeBuiltinActions`, and the `actions` of an
//!   entry of the merged `resource.customizations` key.
//!
//! Actions are looked up by the object's exact `group/Kind`, as in Argo CD (no wildcards: a `_` directory with
//! actions is refused). A ConfigMap's actions for a kind replace a directory's, as Argo CD's replace its built-in
//! ones, unless it sets `mergeBuiltinActions: true`: then both discovery scripts run (the ConfigMap's offers first,
//! so its action wins a name both offer) and an action is the ConfigMap's definition when it has one, else the
//! directory's. The same kind's actions in two directories, or in two ConfigMaps, are an error naming both.
//!
//! Every script is compiled when it is loaded, with the health checks' compiler: a script that does not compile is
//! an error then, naming the file or ConfigMap key and the line. Each kind with actions is one registry entry,
//! `lua-actions:<group>/<Kind>`, an instance of `health-lua` serving no kind for health, whose settings carry the
//! compiled scripts ([`ActionBundle`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::scripts::{
    LUA_TEMPLATE, ScriptError, file_name, io_error, key_from_cm_suffix, key_from_dirs,
    lua_settings, sorted_dirs,
};
use super::settings::HealthChecks;
use weft_plugin_host::registry::{PluginInstance, Provenance, Registry};

/// The prefix of the registry entries that hold a kind's actions.
pub const ACTIONS_PREFIX: &str = "lua-actions:";

/// The directory of a kind's actions in a `resource_customizations` directory.
pub const ACTIONS_DIR: &str = "actions";

/// The discovery script in a kind's `actions` directory.
pub const DISCOVERY_SCRIPT: &str = "discovery.lua";

/// The script in an action's directory.
pub const ACTION_SCRIPT: &str = "action.lua";

/// The prefix of `argocd-cm`'s per-kind action keys.
const CM_ACTIONS_PREFIX: &str = "resource.customizations.actions.";

/// The `argocd-cm` key that holds every customization as YAML.
const CM_MERGED_KEY: &str = "resource.customizations";

/// One Lua script and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceScript {
    /// The Lua source.
    pub script: String,
    /// The file or ConfigMap key, for errors.
    pub origin: String,
}

/// The actions of one kind from one place (a directory or a ConfigMap).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindActions {
    /// `group/Kind` (`Kind` for the core group).
    pub key: String,
    /// The discovery script, when there is one.
    pub discovery: Option<SourceScript>,
    /// Each action's script by name.
    pub actions: BTreeMap<String, SourceScript>,
    /// A ConfigMap's `mergeBuiltinActions`: keep a directory's actions for the kind beside these.
    pub merge_with_dirs: bool,
    /// Where they came from.
    pub origin: String,
}

/// The compiled actions of one kind, as a `lua-actions:` entry's settings carry them. Each script is the settings a
/// `health-lua` call runs (`{"bytecode", "digest", "globals"}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionBundle {
    /// The discovery scripts, in order: the first to offer a name wins it.
    pub discovery: Vec<String>,
    /// Each action's script by name.
    pub actions: BTreeMap<String, String>,
    /// Where each script came from (`discovery.lua` paths and action names), for errors.
    #[serde(default)]
    pub origins: BTreeMap<String, String>,
}

/// The registry key of `kind`'s actions, checked: an exact `group/Kind`.
fn exact_key(group: &str, kind: &str, origin: &str) -> Result<String, ScriptError> {
    let key = key_from_dirs(group, kind, origin)?;
    if key.contains('*') {
        return Err(ScriptError::Key {
            origin: origin.to_string(),
            message: format!(
                "{key}: resource actions are looked up by an exact group and kind, as in Argo CD; a wildcard \
                 directory cannot hold actions"
            ),
        });
    }
    Ok(key)
}

/// The actions of every kind in a `resource_customizations` directory, sorted by key. `dir` may also be one kind's
/// directory (holding `actions/`); its key then comes from its last two path components.
pub fn read_actions_dir(dir: &Path) -> Result<Vec<KindActions>, ScriptError> {
    if dir.join(ACTIONS_DIR).is_dir() {
        let canonical = dir.canonicalize().map_err(io_error(dir))?;
        let name = |p: Option<&Path>| {
            p.and_then(Path::file_name)
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string()
        };
        let kind = name(Some(&canonical));
        let group = name(canonical.parent());
        return Ok(read_kind(&dir.join(ACTIONS_DIR), &group, &kind)?
            .into_iter()
            .collect());
    }
    let mut found = Vec::new();
    for first in sorted_dirs(dir)? {
        let first_name = file_name(&first);
        if first.join(ACTIONS_DIR).is_dir() {
            found.extend(read_kind(&first.join(ACTIONS_DIR), "", &first_name)?);
        }
        for second in sorted_dirs(&first)? {
            if second.join(ACTIONS_DIR).is_dir() {
                found.extend(read_kind(
                    &second.join(ACTIONS_DIR),
                    &first_name,
                    &file_name(&second),
                )?);
            }
        }
    }
    found.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(found)
}

/// One kind's `actions` directory: its discovery script and every `<name>/action.lua`; `None` when it has neither.
fn read_kind(
    actions_dir: &Path,
    group: &str,
    kind: &str,
) -> Result<Option<KindActions>, ScriptError> {
    let origin = actions_dir.display().to_string();
    let read = |path: &Path| -> Result<SourceScript, ScriptError> {
        Ok(SourceScript {
            script: std::fs::read_to_string(path).map_err(io_error(path))?,
            origin: path.display().to_string(),
        })
    };
    let discovery_path = actions_dir.join(DISCOVERY_SCRIPT);
    let discovery = if discovery_path.is_file() {
        Some(read(&discovery_path)?)
    } else {
        None
    };
    let mut actions = BTreeMap::new();
    for action_dir in sorted_dirs(actions_dir)? {
        let script = action_dir.join(ACTION_SCRIPT);
        if script.is_file() {
            actions.insert(file_name(&action_dir), read(&script)?);
        }
    }
    if discovery.is_none() && actions.is_empty() {
        return Ok(None);
    }
    Ok(Some(KindActions {
        key: exact_key(group, kind, &origin)?,
        discovery,
        actions,
        merge_with_dirs: false,
        origin,
    }))
}

/// The action customization of an `argocd-cm` key, as Argo CD's `ResourceActions` reads it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CmActions {
    #[serde(default, rename = "discovery.lua")]
    discovery: Option<String>,
    #[serde(default)]
    definitions: Vec<CmDefinition>,
    #[serde(default)]
    merge_builtin_actions: bool,
}

#[derive(Debug, Deserialize)]
struct CmDefinition {
    name: String,
    #[serde(rename = "action.lua")]
    action: String,
}

/// The actions of one ConfigMap customization (YAML text).
fn parse_cm_actions(text: &str, key: String, origin: &str) -> Result<KindActions, ScriptError> {
    let parsed: CmActions = serde_norway::from_str(text).map_err(|e| ScriptError::ConfigMap {
        origin: origin.to_string(),
        message: format!(
            "the actions must be YAML of discovery.lua, definitions and mergeBuiltinActions: {e}"
        ),
    })?;
    let mut actions = BTreeMap::new();
    for (index, definition) in parsed.definitions.into_iter().enumerate() {
        actions.insert(
            definition.name,
            SourceScript {
                script: definition.action,
                origin: format!("{origin} definitions[{index}]"),
            },
        );
    }
    Ok(KindActions {
        key,
        discovery: parsed.discovery.map(|script| SourceScript {
            script,
            origin: format!("{origin} discovery.lua"),
        }),
        actions,
        merge_with_dirs: parsed.merge_builtin_actions,
        origin: origin.to_string(),
    })
}

/// The action customizations of `argocd-cm` ConfigMap text, sorted by key; a per-kind key replaces the merged
/// key's actions for the same kind, as for health scripts.
pub fn parse_argocd_cm_actions(text: &str, origin: &str) -> Result<Vec<KindActions>, ScriptError> {
    let fail = |message: String| ScriptError::ConfigMap {
        origin: origin.to_string(),
        message,
    };
    let documents = weft_sdk::testing::yaml_documents(text).map_err(|e| fail(e.to_string()))?;
    let data = documents
        .iter()
        .find_map(|d| d.get("data").and_then(Value::as_object))
        .ok_or_else(|| fail("no ConfigMap with a `data` map in the file".into()))?;
    let mut found: BTreeMap<String, KindActions> = BTreeMap::new();
    if let Some(merged) = data.get(CM_MERGED_KEY).and_then(Value::as_str) {
        let merged_origin = format!("{origin}: data.{CM_MERGED_KEY:?}");
        let table: serde_norway::Value =
            serde_norway::from_str(merged).map_err(|e| ScriptError::ConfigMap {
                origin: merged_origin.clone(),
                message: e.to_string(),
            })?;
        for (group_kind, customization) in table.as_mapping().into_iter().flatten() {
            let (Some(group_kind), Some(actions)) = (
                group_kind.as_str(),
                customization
                    .get("actions")
                    .and_then(serde_norway::Value::as_str),
            ) else {
                continue;
            };
            let entry_origin = format!("{merged_origin} {group_kind} actions");
            let (group, kind) = group_kind.rsplit_once('/').unwrap_or(("", group_kind));
            let key = exact_key(group, kind, &entry_origin)?;
            found.insert(key.clone(), parse_cm_actions(actions, key, &entry_origin)?);
        }
    }
    for (name, value) in data {
        let Some(suffix) = name.strip_prefix(CM_ACTIONS_PREFIX) else {
            continue;
        };
        let entry_origin = format!("{origin}: data.{name:?}");
        let text = value.as_str().ok_or_else(|| ScriptError::ConfigMap {
            origin: entry_origin.clone(),
            message: "the actions must be a YAML string".into(),
        })?;
        let key = key_from_cm_suffix(suffix, &entry_origin)?;
        if key.contains('*') {
            return Err(ScriptError::Key {
                origin: entry_origin,
                message: "resource actions are looked up by an exact group and kind, as in Argo CD"
                    .into(),
            });
        }
        found.insert(key.clone(), parse_cm_actions(text, key, &entry_origin)?);
    }
    Ok(found.into_values().collect())
}

/// The registry entry name of a kind's actions (`lua-actions:apps/Deployment`, `lua-actions:Pod`).
pub fn entry_name(group: &str, kind: &str) -> String {
    if group.is_empty() {
        format!("{ACTIONS_PREFIX}{kind}")
    } else {
        format!("{ACTIONS_PREFIX}{group}/{kind}")
    }
}

/// Compiles one script for a `lua-actions:` entry, or the error naming the kind, the origin and the line.
fn compiled(key: &str, script: &SourceScript) -> Result<String, ScriptError> {
    lua_settings(&script.script).map_err(|message| ScriptError::LuaAction {
        key: key.to_string(),
        origin: script.origin.clone(),
        message,
    })
}

/// The compiled bundle of one kind's actions: `configured` (a ConfigMap's) over `dirs` (a directory's), as the
/// module docs say. Either may be absent.
pub fn bundle(
    configured: Option<&KindActions>,
    dirs: Option<&KindActions>,
) -> Result<ActionBundle, ScriptError> {
    let mut layers: Vec<&KindActions> = Vec::new();
    layers.extend(configured);
    if configured.is_none_or(|c| c.merge_with_dirs) {
        layers.extend(dirs);
    }
    let mut bundle = ActionBundle::default();
    for layer in layers {
        if let Some(discovery) = &layer.discovery {
            bundle.discovery.push(compiled(&layer.key, discovery)?);
            bundle.origins.insert(
                format!("discovery[{}]", bundle.discovery.len() - 1),
                discovery.origin.clone(),
            );
        }
        for (name, script) in &layer.actions {
            if !bundle.actions.contains_key(name) {
                bundle
                    .actions
                    .insert(name.clone(), compiled(&layer.key, script)?);
                bundle.origins.insert(name.clone(), script.origin.clone());
            }
        }
    }
    Ok(bundle)
}

/// Adds the actions of every Lua directory and `argocd-cm` ConfigMap of a configuration as `lua-actions:` entries
/// of [`LUA_TEMPLATE`], each script compiled first. Returns how many kinds have actions.
pub fn add_configured_actions(
    registry: &mut Registry,
    health: &HealthChecks,
) -> Result<usize, ScriptError> {
    let mut from_dirs: BTreeMap<String, KindActions> = BTreeMap::new();
    for dir in &health.lua_dirs {
        for found in read_actions_dir(dir)? {
            if let Some(first) = from_dirs.get(&found.key) {
                return Err(twice(first, &found));
            }
            from_dirs.insert(found.key.clone(), found);
        }
    }
    let mut from_cms: BTreeMap<String, KindActions> = BTreeMap::new();
    for file in &health.argocd_cm {
        let text = std::fs::read_to_string(file).map_err(io_error(file))?;
        for found in parse_argocd_cm_actions(&text, &file.display().to_string())? {
            if let Some(first) = from_cms.get(&found.key) {
                return Err(twice(first, &found));
            }
            from_cms.insert(found.key.clone(), found);
        }
    }
    let mut keys: Vec<&String> = from_dirs.keys().chain(from_cms.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in &keys {
        let configured = from_cms.get(*key);
        let dirs = from_dirs.get(*key);
        let bundle = bundle(configured, dirs)?;
        let origin = configured
            .or(dirs)
            .map(|k| k.origin.clone())
            .unwrap_or_default();
        let (group, kind) = key.rsplit_once('/').unwrap_or(("", key));
        let settings = serde_json::to_string(&bundle).map_err(|e| ScriptError::ConfigMap {
            origin: origin.clone(),
            message: e.to_string(),
        })?;
        registry.add_instance(
            LUA_TEMPLATE,
            PluginInstance {
                name: entry_name(group, kind),
                kinds: Vec::new(),
                settings,
                origin,
            },
            Provenance::User,
        )?;
    }
    Ok(keys.len())
}

fn twice(first: &KindActions, second: &KindActions) -> ScriptError {
    ScriptError::Key {
        origin: second.origin.clone(),
        message: format!(
            "the actions of {} are also configured in {}: configure a kind's actions in one place",
            second.key, first.origin
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, files: &[(&str, &str)]) {
        for (path, body) in files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, body).unwrap();
        }
    }

    #[test]
    fn a_directory_gives_each_kinds_discovery_and_actions() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                ("apps/Deployment/health.lua", "return nil"),
                ("apps/Deployment/actions/discovery.lua", "return {}"),
                ("apps/Deployment/actions/restart/action.lua", "return obj"),
                (
                    "apps/Deployment/actions/action_test.yaml",
                    "actionTests: []",
                ),
                ("apps/Deployment/actions/testdata/x.yaml", "{}"),
                ("ConfigMap/actions/touch/action.lua", "return obj"),
                ("example.com/Widget/health.lua", "return nil"),
            ],
        );
        let found = read_actions_dir(dir.path()).unwrap();
        let keys: Vec<&str> = found.iter().map(|k| k.key.as_str()).collect();
        assert_eq!(keys, ["ConfigMap", "apps/Deployment"]);
        let deployment = &found[1];
        assert!(deployment.discovery.is_some());
        assert_eq!(deployment.actions.keys().collect::<Vec<_>>(), ["restart"]);
        assert!(found[0].discovery.is_none());
        let one = read_actions_dir(&dir.path().join("apps/Deployment")).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].key, "apps/Deployment");
    }

    #[test]
    fn a_wildcard_directory_cannot_hold_actions() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[("_.example.com/_/actions/x/action.lua", "return obj")],
        );
        let error = read_actions_dir(dir.path()).unwrap_err().to_string();
        assert!(error.contains("exact group and kind"), "{error}");
    }

    #[test]
    fn a_configmap_gives_per_kind_and_merged_actions() {
        let text = r#"
apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm}
data:
  resource.customizations.actions.batch_CronJob: |
    mergeBuiltinActions: true
    discovery.lua: |
      return {suspend = {}}
    definitions:
    - name: suspend
      action.lua: |
        obj.spec.suspend = true
        return obj
  resource.customizations: |
    ConfigMap:
      actions: |
        definitions:
        - name: touch
          action.lua: return obj
"#;
        let found = parse_argocd_cm_actions(text, "argocd-cm.yaml").unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].key, "ConfigMap");
        assert!(found[0].actions.contains_key("touch"));
        let cron = &found[1];
        assert_eq!(cron.key, "batch/CronJob");
        assert!(cron.merge_with_dirs && cron.discovery.is_some());
        assert!(
            cron.actions["suspend"]
                .origin
                .contains("resource.customizations.actions.batch_CronJob")
        );
    }

    fn kind(
        discovery: Option<&str>,
        actions: &[(&str, &str)],
        merge: bool,
        origin: &str,
    ) -> KindActions {
        KindActions {
            key: "batch/CronJob".into(),
            discovery: discovery.map(|script| SourceScript {
                script: script.into(),
                origin: format!("{origin}/discovery.lua"),
            }),
            actions: actions
                .iter()
                .map(|(name, script)| {
                    (
                        name.to_string(),
                        SourceScript {
                            script: script.to_string(),
                            origin: format!("{origin}/{name}"),
                        },
                    )
                })
                .collect(),
            merge_with_dirs: merge,
            origin: origin.into(),
        }
    }

    #[test]
    fn a_configmaps_actions_replace_a_directorys_unless_merged() {
        let dir = kind(
            Some("return {}"),
            &[("resume", "return obj"), ("suspend", "return obj")],
            false,
            "dir",
        );
        let replacing = kind(Some("return {}"), &[("suspend", "return obj")], false, "cm");
        let replaced = bundle(Some(&replacing), Some(&dir)).unwrap();
        assert_eq!(replaced.discovery.len(), 1);
        assert_eq!(replaced.actions.keys().collect::<Vec<_>>(), ["suspend"]);
        let merging = KindActions {
            merge_with_dirs: true,
            ..replacing
        };
        let merged = bundle(Some(&merging), Some(&dir)).unwrap();
        assert_eq!(merged.discovery.len(), 2);
        assert_eq!(
            merged.actions.keys().collect::<Vec<_>>(),
            ["resume", "suspend"]
        );
        assert_eq!(
            merged.origins["suspend"], "cm/suspend",
            "the ConfigMap's definition wins"
        );
        assert_eq!(merged.origins["resume"], "dir/resume");
    }

    #[test]
    fn a_script_that_does_not_compile_is_an_error_naming_its_file_and_line() {
        let broken = kind(
            None,
            &[("suspend", "obj.spec.suspend = \nreturn obj")],
            false,
            "dir",
        );
        let error = bundle(None, Some(&broken)).unwrap_err().to_string();
        assert!(
            error.starts_with(
                "dir/suspend: the Lua action script for batch/CronJob does not compile: line 2:"
            ),
            "{error}"
        );
    }
}
