//! Lua and CEL health checks brought from Argo CD and Flux: where they come from, and how they become registry
//! entries run by the `health-lua` and `health-cel` plugins.
//!
//! Lua scripts come from
//! - a directory in Argo CD's `resource_customizations` layout: `<group>/<Kind>/health.lua`, and `<Kind>/health.lua`
//!   for the core group; a directory named `_` means any group or any kind, and `_` inside a group name any
//!   characters (`_.crossplane.io/_/health.lua` serves every kind of every `*.crossplane.io` group), as in Argo CD;
//! - an `argocd-cm` ConfigMap: the per-kind keys `resource.customizations.health.<group>_<Kind>` (`<Kind>` alone,
//!   or `_<Kind>`, for the core group; `*` globs as in Argo CD) and the merged `resource.customizations` key (YAML of
//!   `<group>/<Kind>: {health.lua: ...}`). Within one ConfigMap a per-kind key replaces the merged key's script for
//!   the same kind, as Argo CD does;
//! - Weft's configuration: `[[health.lua]]` entries (`kind` and `script` or `script_file`).
//!
//! Every script is compiled when it is loaded (with the `health-lua` plugin's own crate: the same engine, Lua
//! version and chunk name): a script that does not compile is an error then, naming the kind, the file or
//! ConfigMap key and the line, as a CEL expression's is; and the entry's settings carry the bytecode, so no check
//! compiles the script again.
//!
//! CEL checks come from `[[health.cel]]` entries in Weft's configuration (Flux's `current`, `inProgress`, `failed`
//! and a `message` expression); every expression is compiled when the configuration is read.
//!
//! Every script or check is a registry entry of its own, `lua:<group>/<Kind>` or `cel:<group>/<Kind>` (`lua:Pod` for
//! the core group, globs kept: `lua:*.crossplane.io/*`), with user provenance. So the lookup order is the
//! registry's, deterministic and the same for plugins and scripts:
//! 1. an exact `group/Kind` over a group glob over any group, a longer glob (more literal characters) over a
//!    shorter one, then an exact kind over any kind;
//! 2. at equal specificity, a user script over a built-in plugin;
//! 3. the same key configured twice (two files, a file and the ConfigMap, a script and a CEL check) is an error
//!    naming both places when the scripts are loaded, and two different keys equally specific for one kind (`a*/*`
//!    and `*b/*`) are an error when that kind is assessed. Argo CD picks one at random in that case; Weft refuses.
//!
//! Unlike Argo CD, where any configured script (even a wildcard) replaces a built-in check, a built-in plugin with
//! an exact key stays ahead of a user wildcard script: configure the exact key to override it. And a script with no
//! opinion (`return nil`) hands the object to the next candidate instead of leaving it without health.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::settings::{CelCheck, HealthChecks};
use weft_plugin_host::registry::{
    KindPattern, PluginInstance, Provenance, Registry, RegistryError,
};

/// The template plugin that runs Lua scripts.
pub const LUA_TEMPLATE: &str = "health-lua";

/// The template plugin that runs CEL checks.
pub const CEL_TEMPLATE: &str = "health-cel";

/// The script file in a `resource_customizations` kind directory.
pub const HEALTH_SCRIPT: &str = "health.lua";

/// The prefix of `argocd-cm`'s per-kind health keys.
const CM_HEALTH_PREFIX: &str = "resource.customizations.health.";

/// The `argocd-cm` key that holds every customization as YAML.
const CM_MERGED_KEY: &str = "resource.customizations";

/// A Lua health script for one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LuaScript {
    /// The key it serves, in registry syntax (`cert-manager.io/Certificate`, `Pod`, `*.crossplane.io/*`).
    pub key: String,
    /// The Lua source.
    pub script: String,
    /// Where it came from (a file, a ConfigMap key), for error messages.
    pub origin: String,
}

impl LuaScript {
    /// The registry entry for this script, compiled: its settings carry the bytecode each check loads (so no check
    /// compiles), and a script that does not compile is an error now, naming the kind, the file or ConfigMap key,
    /// and the line.
    pub fn instance(&self) -> Result<PluginInstance, ScriptError> {
        let settings = lua_settings(&self.script).map_err(|message| ScriptError::Lua {
            key: self.key.clone(),
            origin: self.origin.clone(),
            message,
        })?;
        Ok(PluginInstance {
            name: format!("lua:{}", self.key),
            kinds: vec![self.key.clone()],
            settings,
            origin: self.origin.clone(),
        })
    }
}

/// The settings of a `health-lua` entry running `script` (its bytecode, the bytecode's digest and the sandbox
/// globals it names: `health_lua::settings_for`), or why it does not compile, with the line (`line 3: '=' expected
/// near 'status'`).
pub fn lua_settings(script: &str) -> Result<String, String> {
    health_lua::settings_for(script).map_err(|message| lua_error_at_line(&message))
}

/// A Lua compile error with the chunk name turned into a line number (`health.lua:3: ...` is `line 3: ...`): the
/// error names the file itself.
fn lua_error_at_line(message: &str) -> String {
    let chunk = health_lua::precompiled::CHUNK_NAME.trim_start_matches('=');
    match message
        .strip_prefix(chunk)
        .and_then(|rest| rest.strip_prefix(':'))
    {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => format!("line {rest}"),
        _ => message.to_string(),
    }
}

/// Why scripts could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// A file or directory could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A ConfigMap file is not one Argo CD would read.
    #[error("{origin}: {message}")]
    ConfigMap {
        /// The file.
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// A directory name or ConfigMap key does not name a group and kind.
    #[error("{origin}: {message}")]
    Key {
        /// Where the key was found.
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// A Lua script does not compile.
    #[error("{origin}: the Lua health script for {key} does not compile: {message}")]
    Lua {
        /// The key it serves.
        key: String,
        /// Where it came from (a file, a ConfigMap key, an entry of the configuration).
        origin: String,
        /// Lua's error, with the line (`line 3: '=' expected near 'status'`).
        message: String,
    },
    /// A Lua resource action or discovery script does not compile.
    #[error("{origin}: the Lua action script for {key} does not compile: {message}")]
    LuaAction {
        /// The kind whose actions it is part of.
        key: String,
        /// Where it came from (a file, a ConfigMap key).
        origin: String,
        /// Lua's error, with the line.
        message: String,
    },
    /// A CEL expression does not compile (the message names the kind and the expression).
    #[error("{0}")]
    Cel(String),
    /// The registry refused an entry (a duplicate key, a missing template plugin).
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

/// Turns an I/O error on `path` into a [`ScriptError::Io`] naming it.
pub(crate) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ScriptError + '_ {
    move |source| ScriptError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The registry key for a group and kind (core group: the kind alone), checked.
fn checked_key(group: &str, kind: &str, origin: &str) -> Result<String, ScriptError> {
    let key = if group.is_empty() {
        kind.to_string()
    } else {
        format!("{group}/{kind}")
    };
    KindPattern::parse(&key).map_err(|message| ScriptError::Key {
        origin: origin.to_string(),
        message,
    })?;
    Ok(key)
}

/// The key for a `resource_customizations` directory pair: `_` is Argo CD's wildcard (`_.crossplane.io`, `_`).
pub fn key_from_dirs(group: &str, kind: &str, origin: &str) -> Result<String, ScriptError> {
    checked_key(&group.replace('_', "*"), &kind.replace('_', "*"), origin)
}

/// The key for the part of an `argocd-cm` key after `resource.customizations.health.`: `<group>_<Kind>`, or
/// `<Kind>` / `_<Kind>` for the core group.
pub fn key_from_cm_suffix(suffix: &str, origin: &str) -> Result<String, ScriptError> {
    let (group, kind) = suffix.split_once('_').unwrap_or(("", suffix));
    checked_key(group, kind, origin)
}

/// Every `health.lua` in a `resource_customizations` directory, sorted by key. `dir` may also be one kind's
/// directory (holding `health.lua` itself); its key then comes from its last two path components.
pub fn read_lua_dir(dir: &Path) -> Result<Vec<LuaScript>, ScriptError> {
    if dir.join(HEALTH_SCRIPT).is_file() {
        let canonical = dir.canonicalize().map_err(io_error(dir))?;
        let name = |p: Option<&Path>| {
            p.and_then(Path::file_name)
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string()
        };
        let kind = name(Some(&canonical));
        let group = name(canonical.parent());
        return Ok(vec![read_script(&dir.join(HEALTH_SCRIPT), &group, &kind)?]);
    }
    let mut scripts = Vec::new();
    for first in sorted_dirs(dir)? {
        let first_name = file_name(&first);
        if first.join(HEALTH_SCRIPT).is_file() {
            // `<Kind>/health.lua`: a core-group kind.
            scripts.push(read_script(&first.join(HEALTH_SCRIPT), "", &first_name)?);
        }
        for second in sorted_dirs(&first)? {
            let script = second.join(HEALTH_SCRIPT);
            if script.is_file() {
                scripts.push(read_script(&script, &first_name, &file_name(&second))?);
            }
        }
    }
    scripts.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(scripts)
}

/// The last component of `path`, or nothing.
pub(crate) fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The directories in `dir`, sorted by path.
pub(crate) fn sorted_dirs(dir: &Path) -> Result<Vec<PathBuf>, ScriptError> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io_error(dir))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    Ok(dirs)
}

fn read_script(path: &Path, group: &str, kind: &str) -> Result<LuaScript, ScriptError> {
    let origin = path.display().to_string();
    let key = key_from_dirs(group, kind, &origin)?;
    let script = std::fs::read_to_string(path).map_err(io_error(path))?;
    Ok(LuaScript {
        key,
        script,
        origin,
    })
}

/// The health scripts of an `argocd-cm` ConfigMap file.
pub fn read_argocd_cm(path: &Path) -> Result<Vec<LuaScript>, ScriptError> {
    let text = std::fs::read_to_string(path).map_err(io_error(path))?;
    parse_argocd_cm(&text, &path.display().to_string())
}

/// The health scripts of `argocd-cm` ConfigMap text (YAML; the first document with a `data` map), sorted by key.
pub fn parse_argocd_cm(text: &str, origin: &str) -> Result<Vec<LuaScript>, ScriptError> {
    let fail = |message: String| ScriptError::ConfigMap {
        origin: origin.to_string(),
        message,
    };
    let documents = weft_sdk::testing::yaml_documents(text).map_err(|e| fail(e.to_string()))?;
    let data = documents
        .iter()
        .find_map(|d| d.get("data").and_then(Value::as_object))
        .ok_or_else(|| fail("no ConfigMap with a `data` map in the file".into()))?;
    let mut scripts: BTreeMap<String, LuaScript> = BTreeMap::new();
    if let Some(merged) = data.get(CM_MERGED_KEY) {
        let merged_origin = format!("{origin}: data.{CM_MERGED_KEY:?}");
        let text = merged
            .as_str()
            .ok_or_else(|| fail(format!("data.{CM_MERGED_KEY:?} must be a YAML string")))?;
        let table: serde_norway::Value =
            serde_norway::from_str(text).map_err(|e| ScriptError::ConfigMap {
                origin: merged_origin.clone(),
                message: e.to_string(),
            })?;
        if let Some(entries) = table.as_mapping() {
            for (group_kind, customization) in entries {
                let Some(group_kind) = group_kind.as_str() else {
                    continue;
                };
                let Some(script) = customization
                    .get("health.lua")
                    .and_then(serde_norway::Value::as_str)
                else {
                    continue;
                };
                let entry_origin = format!("{merged_origin} {group_kind}");
                let (group, kind) = group_kind.rsplit_once('/').unwrap_or(("", group_kind));
                let key = checked_key(group, kind, &entry_origin)?;
                scripts.insert(
                    key.clone(),
                    LuaScript {
                        key,
                        script: script.to_string(),
                        origin: entry_origin,
                    },
                );
            }
        }
    }
    for (name, value) in data {
        let Some(suffix) = name.strip_prefix(CM_HEALTH_PREFIX) else {
            continue;
        };
        let entry_origin = format!("{origin}: data.{name:?}");
        let script = value.as_str().ok_or_else(|| ScriptError::ConfigMap {
            origin: entry_origin.clone(),
            message: "the script must be a string".into(),
        })?;
        let key = key_from_cm_suffix(suffix, &entry_origin)?;
        scripts.insert(
            key.clone(),
            LuaScript {
                key,
                script: script.to_string(),
                origin: entry_origin,
            },
        );
    }
    Ok(scripts.into_values().collect())
}

/// The `[[health.lua]]` entries of a configuration, scripts read from their files.
pub fn configured_lua(health: &HealthChecks) -> Result<Vec<LuaScript>, ScriptError> {
    health
        .lua
        .iter()
        .enumerate()
        .map(|(index, lua)| {
            let entry = format!("weft.toml health.lua[{index}]");
            let mut origin = entry.clone();
            let script = match (&lua.script, &lua.script_file) {
                (Some(script), _) => script.clone(),
                (None, Some(file)) => {
                    origin = format!("{} ({entry})", file.display());
                    std::fs::read_to_string(file).map_err(io_error(file))?
                }
                (None, None) => {
                    return Err(ScriptError::Key {
                        origin,
                        message: "set `script` or `script_file`".into(),
                    });
                }
            };
            KindPattern::parse(&lua.kind).map_err(|message| ScriptError::Key {
                origin: origin.clone(),
                message,
            })?;
            Ok(LuaScript {
                key: lua.kind.clone(),
                script,
                origin,
            })
        })
        .collect()
}

/// Adds Lua scripts to a registry as `lua:` instances of [`LUA_TEMPLATE`] (user provenance), each compiled first
/// (see [`LuaScript::instance`]).
pub fn add_lua_scripts(registry: &mut Registry, scripts: &[LuaScript]) -> Result<(), ScriptError> {
    for script in scripts {
        registry.add_instance(LUA_TEMPLATE, script.instance()?, Provenance::User)?;
    }
    Ok(())
}

/// The registry entry for a CEL check, its expressions compiled first.
pub fn cel_instance(check: &CelCheck, origin: &str) -> Result<PluginInstance, ScriptError> {
    check
        .compile()
        .map_err(|(_, message)| ScriptError::Cel(format!("{origin}: {message}")))?;
    let mut settings = serde_json::Map::new();
    for (field, expression) in check.expressions() {
        settings.insert(field.to_string(), Value::String(expression.to_string()));
    }
    Ok(PluginInstance {
        name: format!("cel:{}", check.kind),
        kinds: vec![check.kind.clone()],
        settings: Value::Object(settings).to_string(),
        origin: origin.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_names_map_to_keys_with_argo_wildcards() {
        let key = |g: &str, k: &str| key_from_dirs(g, k, "x").unwrap();
        assert_eq!(
            key("cert-manager.io", "Certificate"),
            "cert-manager.io/Certificate"
        );
        assert_eq!(key("_.crossplane.io", "_"), "*.crossplane.io/*");
        assert_eq!(key("_", "Widget"), "*/Widget");
        assert_eq!(key("", "Pod"), "Pod");
        assert!(key_from_dirs("a b", "C", "x").is_err());
        assert!(key_from_dirs("x.io", "Wid_", "x").is_err());
    }

    #[test]
    fn configmap_keys_map_to_keys() {
        let key = |s: &str| key_from_cm_suffix(s, "x").unwrap();
        assert_eq!(
            key("cert-manager.io_Certificate"),
            "cert-manager.io/Certificate"
        );
        assert_eq!(key("*.aws.crossplane.io_*"), "*.aws.crossplane.io/*");
        assert_eq!(key("_Pod"), "Pod");
        assert_eq!(key("Pod"), "Pod");
    }

    #[test]
    fn a_configmap_gives_per_kind_and_merged_scripts() {
        let text = r#"
apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm, namespace: argocd}
data:
  resource.customizations.health.cert-manager.io_Certificate: |
    return {status = "Healthy"}
  resource.customizations.health.*.crossplane.io_*: |
    return nil
  resource.customizations.ignoreDifferences.apps_Deployment: |
    jsonPointers: [/spec/replicas]
  resource.customizations: |
    argoproj.io/Rollout:
      health.lua: |
        return {status = "Progressing"}
    cert-manager.io/Certificate:
      health.lua: |
        return {status = "Degraded"}
    apps/Deployment:
      ignoreDifferences: |
        jsonPointers: [/spec/replicas]
    ConfigMap:
      health.lua: return nil
"#;
        let scripts = parse_argocd_cm(text, "argocd-cm.yaml").unwrap();
        let keys: Vec<&str> = scripts.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "*.crossplane.io/*",
                "ConfigMap",
                "argoproj.io/Rollout",
                "cert-manager.io/Certificate"
            ]
        );
        // The per-kind key replaces the merged key's script for the same kind.
        let certificate = &scripts[3];
        assert!(certificate.script.contains("Healthy"), "{certificate:?}");
        assert!(
            certificate
                .origin
                .contains("resource.customizations.health.cert-manager.io_Certificate")
        );
        assert!(
            scripts[2]
                .origin
                .contains("\"resource.customizations\" argoproj.io/Rollout")
        );
        assert!(parse_argocd_cm("kind: ConfigMap\n", "cm.yaml").is_err());
        let bad = parse_argocd_cm(
            "data:\n  resource.customizations.health.a b_C: x\n",
            "cm.yaml",
        )
        .unwrap_err();
        assert!(bad.to_string().contains("cm.yaml"), "{bad}");
    }

    #[test]
    fn a_directory_gives_its_scripts_sorted_by_key() {
        let dir = tempfile::tempdir().unwrap();
        for (path, body) in [
            ("cert-manager.io/Certificate/health.lua", "-- cert"),
            ("_.crossplane.io/_/health.lua", "-- crossplane"),
            ("Pod/health.lua", "-- pod"),
            (
                "apps/Deployment/actions/restart/action.lua",
                "-- not health",
            ),
            ("cert-manager.io/Issuer/health_test.yaml", "tests: []"),
        ] {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, body).unwrap();
        }
        let scripts = read_lua_dir(dir.path()).unwrap();
        let keys: Vec<&str> = scripts.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(
            keys,
            ["*.crossplane.io/*", "Pod", "cert-manager.io/Certificate"]
        );
        let one = read_lua_dir(&dir.path().join("cert-manager.io/Certificate")).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].key, "cert-manager.io/Certificate");
        let instance = one[0].instance().unwrap();
        assert_eq!(instance.name, "lua:cert-manager.io/Certificate");
        // The settings carry the compiled script, not the source.
        let settings: Value = serde_json::from_str(&instance.settings).unwrap();
        assert!(settings["bytecode"].is_string() && settings["digest"].is_string());
        assert_eq!(settings["globals"], serde_json::json!([]));
        assert!(read_lua_dir(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn a_script_that_does_not_compile_is_an_error_naming_kind_origin_and_line() {
        let broken = LuaScript {
            key: "cert-manager.io/Certificate".into(),
            script: "local hs = {}\nif obj.status == nil then\n  hs.status = \nend\nreturn hs\n"
                .into(),
            origin: "dir/cert-manager.io/Certificate/health.lua".into(),
        };
        let error = broken.instance().unwrap_err().to_string();
        assert!(
            error.starts_with(
                "dir/cert-manager.io/Certificate/health.lua: the Lua health script for \
                 cert-manager.io/Certificate does not compile: line 4:"
            ),
            "{error}"
        );
        let mut registry = Registry::new();
        let error = add_lua_scripts(&mut registry, &[broken]).unwrap_err();
        assert!(matches!(error, ScriptError::Lua { .. }), "{error}");
        assert_eq!(
            lua_error_at_line("health.lua:12: unexpected symbol near 'x'"),
            "line 12: unexpected symbol near 'x'"
        );
        assert_eq!(lua_error_at_line("not enough memory"), "not enough memory");
    }
}
