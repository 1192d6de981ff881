//! Plugin manifests: what a plugin is, what it serves, and which component bytes it pins.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::{LimitOverrides, World};

/// A plugin manifest (TOML). In a plugin crate it is `weft-plugin.toml` without `component` and `sha256`; the
/// build installs it next to the component with both filled in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct PluginManifest {
    /// The plugin's name, unique in a registry.
    pub name: String,
    /// The world the component implements.
    pub world: World,
    /// For `health-check`: `group/Kind` keys, `*` matching any run of characters (`apps/Deployment`,
    /// `*.crossplane.io/*`, `*`). The core group is empty: `/Pod`, or just `Pod`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<String>,
    /// For `health-check`: the plugin serves no kind by itself. It runs with settings (a Lua script, CEL
    /// expressions), and the registry holds one instance of it per configured kind, each with its own name, keys
    /// and settings (see the plugin host's `Registry::add_instance`). A template lists no `kinds`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub template: bool,
    /// For `health-check`: the kinds of the children the check reads (`apps/StatefulSet`, `Service`): objects that
    /// operators make for the objects it serves, which the app itself may not deploy. The server watches them so
    /// that `children` holds them in `weft serve` as in `weft health`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub child_kinds: Vec<String>,
    /// For `renderer` and `build-steer`: the app types it serves (`helm`, `kustomize`, `node`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub app_types: Vec<String>,
    /// The component file, relative to the manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<PathBuf>,
    /// sha256 of the component file, in hex: a component that does not match is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Limits that replace the world's defaults.
    #[serde(default, skip_serializing_if = "is_default")]
    pub limits: LimitOverrides,
    /// How the plugin is built.
    #[serde(default, skip_serializing_if = "BuildSettings::is_default")]
    pub build: BuildSettings,
}

/// Build settings of a plugin folder (`[build]` in `weft-plugin.toml`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct BuildSettings {
    /// The language the plugin is written in; by default Rust when the folder has a `Cargo.toml`, Python when it
    /// has the Python module, JavaScript when it has the entry file.
    pub language: Option<Language>,
    /// The guest's stack in KiB (Rust's default is 1024; Rust only). A small stack keeps the memory a call touches
    /// compact, so the host's resident region covers it and a fresh instance costs no page faults; plugins that
    /// recurse deeply (template engines) keep the default.
    pub stack_kib: Option<u32>,
    /// Python: the module that registers the check (`check`, for `check.py` beside the manifest).
    pub module: Option<String>,
    /// JavaScript: the ES module that exports `assess` (`check.js`), relative to the manifest.
    pub entry: Option<String>,
}

/// The language of a plugin's source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Rust with the `weft-sdk` crate, built for `wasm32-unknown-unknown`.
    Rust,
    /// Python with the `weft` package, built with componentize-py.
    Python,
    /// JavaScript with the `weft-sdk` package, built with componentize-js.
    #[serde(alias = "js")]
    JavaScript,
}

impl Language {
    /// The name a person types (`rust`, `python`, `javascript`).
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::Python => "python",
            Language::JavaScript => "javascript",
        }
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Language {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "rust" | "rs" => Ok(Language::Rust),
            "python" | "py" => Ok(Language::Python),
            "javascript" | "js" => Ok(Language::JavaScript),
            other => Err(format!(
                "language {other:?}: use rust, python or javascript (js)"
            )),
        }
    }
}

impl BuildSettings {
    fn is_default(&self) -> bool {
        *self == BuildSettings::default()
    }
}

fn is_default(limits: &LimitOverrides) -> bool {
    *limits == LimitOverrides::default()
}

impl PluginManifest {
    fn check_build_language(&self) -> Result<(), String> {
        let build = &self.build;
        let language = build.language;
        if build.stack_kib.is_some() && language.is_some_and(|l| l != Language::Rust) {
            return Err("build.stack-kib is for Rust plugins".into());
        }
        if let Some(module) = &build.module {
            let identifier = module.split('.').all(|part| {
                part.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
            if !identifier {
                return Err(format!(
                    "build.module = {module:?}: name a Python module (`check`, `my_checks.database`)"
                ));
            }
            if language.is_some_and(|l| l != Language::Python) {
                return Err("build.module is for Python plugins".into());
            }
        }
        if let Some(entry) = &build.entry {
            let path = std::path::Path::new(entry);
            let inside = path
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !inside || !(entry.ends_with(".js") || entry.ends_with(".mjs")) {
                return Err(format!(
                    "build.entry = {entry:?}: name a .js file inside the plugin's folder (no `..`)"
                ));
            }
            if language.is_some_and(|l| l != Language::JavaScript) {
                return Err("build.entry is for JavaScript plugins".into());
            }
        }
        if language.is_some_and(|l| l != Language::Rust) && self.world != World::HealthCheck {
            return Err(format!(
                "a {} plugin must be written in Rust for now: Python and JavaScript plugins are health checks",
                self.world
            ));
        }
        Ok(())
    }

    /// Parses and checks a manifest.
    pub fn parse(text: &str) -> Result<Self, String> {
        let manifest: PluginManifest = toml::from_str(text).map_err(|e| e.to_string())?;
        manifest.check()?;
        Ok(manifest)
    }

    /// Renders the manifest as TOML.
    pub fn to_toml(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|e| e.to_string())
    }

    fn check(&self) -> Result<(), String> {
        let valid_name = !self.name.is_empty()
            && self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid_name {
            return Err(format!(
                "name {:?}: use letters, digits, '-' and '_'",
                self.name
            ));
        }
        if let Some(component) = &self.component {
            // Inside the plugin's own directory: a plain relative path, no `..`, no root.
            let inside = !component.as_os_str().is_empty()
                && component
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !inside {
                return Err(format!(
                    "component {:?}: name a file inside the manifest's directory (a relative path without `..`)",
                    component.display()
                ));
            }
        }
        if let Some(stack) = self.build.stack_kib
            && !(16..=8192).contains(&stack)
        {
            return Err(format!("build.stack-kib = {stack}: use 16 to 8192 KiB"));
        }
        self.check_build_language()?;
        match self.world {
            World::Gate
                if self.template
                    || !self.kinds.is_empty()
                    || !self.app_types.is_empty()
                    || !self.child_kinds.is_empty() =>
            {
                Err(
                    "a gate plugin serves no kinds or app types: `[[gate]]` entries in weft.toml name it, each with                      its settings; remove `kinds`, `app-types`, `child-kinds` and `template`"
                        .into(),
                )
            }
            World::Gate => Ok(()),
            World::HealthCheck if self.template && !self.kinds.is_empty() => Err(
                "a template plugin serves no kinds by itself (its instances do): remove `kinds` or `template`"
                    .into(),
            ),
            World::Renderer | World::BuildSteer if self.template => Err(format!(
                "`template` is for health-check plugins; a {} plugin lists `app-types`",
                self.world
            )),
            World::HealthCheck if self.template => Ok(()),
            World::HealthCheck if self.kinds.is_empty() => Err(
                "a health-check plugin must list the kinds it serves (`kinds = [\"group/Kind\"]`)"
                    .into(),
            ),
            World::HealthCheck if !self.app_types.is_empty() => Err(
                "`app-types` is for renderer and build-steer plugins; health checks list `kinds`"
                    .into(),
            ),
            World::Renderer | World::BuildSteer if self.app_types.is_empty() => Err(format!(
                "a {} plugin must list the app types it serves (`app-types = [\"...\"]`)",
                self.world
            )),
            World::Renderer | World::BuildSteer if !self.kinds.is_empty() => Err(format!(
                "`kinds` is for health-check plugins; a {} plugin lists `app-types`",
                self.world
            )),
            World::Renderer | World::BuildSteer if !self.child_kinds.is_empty() => Err(format!(
                "`child-kinds` is for health-check plugins, not a {} plugin",
                self.world
            )),
            _ => {
                for key in &self.kinds {
                    KindPattern::parse(key)?;
                }
                for key in &self.child_kinds {
                    child_kind(key)?;
                }
                Ok(())
            }
        }
    }
}

/// A `child-kinds` entry as `(group, Kind)`: `group/Kind`, or `Kind` (or `/Kind`) for the core group; no globs,
/// since each is a kind to watch.
pub fn child_kind(key: &str) -> Result<(String, String), String> {
    let (group, kind) = key.rsplit_once('/').unwrap_or(("", key));
    let valid_kind = kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && kind.chars().all(|c| c.is_ascii_alphanumeric());
    let valid_group = group
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-');
    if !valid_kind || !valid_group {
        return Err(format!(
            "child-kinds: {key:?} is not `group/Kind` (or `Kind` for the core group); globs are not allowed"
        ));
    }
    Ok((group.to_string(), kind.to_string()))
}

/// A `group/Kind` key a health plugin serves.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KindPattern {
    group: String,
    kind: String,
}

/// How specific a pattern is; a larger value wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Specificity {
    /// 2: exact group; 1: a group glob; 0: any group.
    group: u8,
    /// For group globs: the literal characters, so `*.aws.crossplane.io` beats `*.crossplane.io`.
    group_literal: usize,
    /// 1: exact kind; 0: any kind.
    kind: u8,
}

impl KindPattern {
    /// Parses `group/Kind`, `Kind` (core group), `*` (anything) or `group/*`.
    pub fn parse(key: &str) -> Result<Self, String> {
        let (group, kind) = match key {
            "*" => ("*", "*"),
            _ => key.rsplit_once('/').unwrap_or(("", key)),
        };
        let valid = |s: &str| {
            s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-.*_".contains(c))
        };
        if kind.is_empty() || !valid(group) || !valid(kind) || (kind.contains('*') && kind != "*") {
            return Err(format!(
                "kind key {key:?}: expected `group/Kind`, `Kind` for the core group, `group/*` or `*` \
                 (`*` in the group matches any characters)"
            ));
        }
        Ok(KindPattern {
            group: group.to_string(),
            kind: kind.to_string(),
        })
    }

    /// Whether the pattern covers a group and kind.
    pub fn matches(&self, group: &str, kind: &str) -> bool {
        (self.kind == "*" || self.kind == kind)
            && weft_sdk::dispatch::glob_matches(&self.group, group)
    }

    /// How specific the pattern is: exact group over a group glob over any group, then exact kind over any kind.
    pub fn specificity(&self) -> Specificity {
        let group = if self.group == "*" {
            0
        } else if self.group.contains('*') {
            1
        } else {
            2
        };
        Specificity {
            group,
            group_literal: self.group.chars().filter(|&c| c != '*').count(),
            kind: u8::from(self.kind != "*"),
        }
    }
}

impl std::fmt::Display for KindPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.group, self.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_forms() {
        assert!(
            KindPattern::parse("apps/Deployment")
                .unwrap()
                .matches("apps", "Deployment")
        );
        assert!(KindPattern::parse("Pod").unwrap().matches("", "Pod"));
        assert!(KindPattern::parse("/Pod").unwrap().matches("", "Pod"));
        assert!(KindPattern::parse("*").unwrap().matches("x.io", "Y"));
        let glob = KindPattern::parse("*.crossplane.io/*").unwrap();
        assert!(glob.matches("rds.aws.crossplane.io", "DBInstance"));
        assert!(!glob.matches("crossplane.io", "X"));
        assert!(KindPattern::parse("apps/Dep*").is_err());
        assert!(KindPattern::parse("apps/").is_err());
        assert!(KindPattern::parse("a b/C").is_err());
    }

    #[test]
    fn specificity_orders_exact_then_glob_then_any() {
        let s = |k: &str| KindPattern::parse(k).unwrap().specificity();
        assert!(s("apps/Deployment") > s("apps/*"));
        assert!(s("apps/*") > s("*.apps/*"));
        assert!(s("*.aws.crossplane.io/*") > s("*.crossplane.io/*"));
        assert!(s("*.crossplane.io/*") > s("*/Deployment"));
        assert!(s("*/Deployment") > s("*"));
    }

    #[test]
    fn manifests_are_checked() {
        let ok = PluginManifest::parse(
            "name = \"x\"\nworld = \"health-check\"\nkinds = [\"apps/Deployment\"]\n",
        );
        assert!(ok.is_ok());
        let unknown = PluginManifest::parse(
            "name = \"x\"\nworld = \"health-check\"\nkinds = [\"A\"]\nkind = 1\n",
        );
        assert!(unknown.unwrap_err().contains("unknown field"));
        let children = PluginManifest::parse(
            "name = \"x\"\nworld = \"health-check\"\nkinds = [\"acme.io/Database\"]\nchild-kinds = [\"apps/StatefulSet\", \"Service\"]\n",
        )
        .unwrap();
        assert_eq!(children.child_kinds, ["apps/StatefulSet", "Service"]);
        assert_eq!(
            child_kind("Service").unwrap(),
            ("".to_string(), "Service".to_string())
        );
        for bad in ["apps/*", "*", "apps/statefulset", "Apps/StatefulSet"] {
            assert!(child_kind(bad).is_err(), "{bad}");
        }
        let no_kinds = PluginManifest::parse("name = \"x\"\nworld = \"health-check\"\n");
        assert!(no_kinds.unwrap_err().contains("must list the kinds"));
        let bad_world =
            PluginManifest::parse("name = \"x\"\nworld = \"healthcheck\"\nkinds = [\"A\"]\n");
        assert!(bad_world.is_err());
        let renderer =
            PluginManifest::parse("name = \"r\"\nworld = \"renderer\"\napp-types = [\"yaml\"]\n");
        assert!(renderer.is_ok());
        let template =
            PluginManifest::parse("name = \"lua\"\nworld = \"health-check\"\ntemplate = true\n")
                .unwrap();
        assert!(template.template && template.kinds.is_empty());
        let both = PluginManifest::parse(
            "name = \"lua\"\nworld = \"health-check\"\ntemplate = true\nkinds = [\"A\"]\n",
        );
        assert!(both.unwrap_err().contains("serves no kinds"));
        let render_template = PluginManifest::parse(
            "name = \"r\"\nworld = \"renderer\"\napp-types = [\"yaml\"]\ntemplate = true\n",
        );
        assert!(render_template.is_err());
    }

    #[test]
    fn build_settings_are_checked() {
        let base = "name = \"x\"\nworld = \"health-check\"\nkinds = [\"A\"]\n";
        let small = PluginManifest::parse(&format!("{base}[build]\nstack-kib = 128\n")).unwrap();
        assert_eq!(small.build.stack_kib, Some(128));
        assert!(PluginManifest::parse(&format!("{base}[build]\nstack-kib = 1\n")).is_err());
        assert!(PluginManifest::parse(&format!("{base}[build]\nstack = 64\n")).is_err());
    }

    #[test]
    fn installed_manifests_round_trip() {
        let mut m =
            PluginManifest::parse("name = \"x\"\nworld = \"health-check\"\nkinds = [\"A\"]\n")
                .unwrap();
        m.sha256 = Some("ab".into());
        m.component = Some("x.wasm".into());
        for outside in [
            "../../elsewhere/x.wasm",
            "/tmp/x.wasm",
            "a/../../x.wasm",
            "",
        ] {
            let mut escaping = m.clone();
            escaping.component = Some(outside.into());
            let error = escaping.check().unwrap_err();
            assert!(
                error.contains("inside the manifest's directory"),
                "{outside}: {error}"
            );
        }
        m.limits.memory_mib = Some(8);
        m.build.stack_kib = Some(64);
        assert_eq!(PluginManifest::parse(&m.to_toml().unwrap()).unwrap(), m);
    }
}
