//! The registry: which plugins exist, and which serves a given kind or app type.
//!
//! Precedence for a `group/Kind`, deterministic and documented:
//! 1. the more specific key wins: an exact group over a group glob (the longer literal glob first) over any group;
//!    then an exact kind over any kind;
//! 2. at equal specificity, a user plugin wins over a built-in one;
//! 3. two plugins of the same provenance claiming the same key is a configuration error when they are added, and
//!    two different keys of equal specificity that both match an object (say `a*/*` and `*b/*`) is an error for that
//!    object — never a coin toss.
//!
//! The candidates come back in that order; the host asks the next one when a plugin has no opinion.
//!
//! A *template* plugin (`template = true`: the Lua and CEL plugins) serves no kind by itself. The registry holds
//! *instances* of it ([`Registry::add_instance`]): entries with their own name (`lua:apps/Deployment`), keys and
//! settings (the script), sharing the template's component. Instances take part in the order above like any other
//! plugin, so a configured Lua script for an exact kind wins over a wildcard script, a longer group glob over a
//! shorter one, and a user script over a built-in plugin at equal specificity.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use weft_plugin_contract::manifest;
pub use weft_plugin_contract::{BuildSettings, KindPattern, Language, PluginManifest, Specificity};

use crate::World;

/// Where a plugin comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provenance {
    /// Shipped with Weft.
    BuiltIn,
    /// Configured by the user; wins over a built-in plugin at equal specificity.
    User,
}

/// A plugin known to the registry.
#[derive(Debug, Clone)]
pub struct RegisteredPlugin {
    /// Its manifest.
    pub manifest: PluginManifest,
    /// Built-in or user.
    pub provenance: Provenance,
    /// Where the manifest was read from (`None` when added in code).
    pub manifest_path: Option<PathBuf>,
    patterns: Vec<KindPattern>,
    /// Keys this plugin must not answer for (configuration can turn a plugin, e.g. the generic fallback, off for
    /// some kinds).
    disabled: Vec<KindPattern>,
    /// For an instance of a template plugin: the template's name, its settings and where they came from.
    instance: Option<InstanceOf>,
}

/// What makes a registry entry an instance of a template plugin.
#[derive(Debug, Clone)]
struct InstanceOf {
    template: String,
    settings: Arc<str>,
    origin: String,
}

/// One configured instance of a template plugin: a Lua script for some kinds, CEL expressions for a kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginInstance {
    /// The entry's name (`lua:apps/Deployment`, `cel:example.com/Widget`).
    pub name: String,
    /// The `group/Kind` keys it serves, in manifest syntax.
    pub kinds: Vec<String>,
    /// What every call gets through the `settings` import (JSON text).
    pub settings: String,
    /// Where it was configured (a script file, a ConfigMap key, `weft.toml`), for error messages.
    pub origin: String,
}

impl RegisteredPlugin {
    /// The plugin's name.
    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// For an instance: the template plugin whose component it runs.
    pub fn instance_of(&self) -> Option<&str> {
        self.instance.as_ref().map(|i| i.template.as_str())
    }

    /// For an instance: the settings its calls get.
    pub fn settings(&self) -> Option<&str> {
        self.instance.as_ref().map(|i| &*i.settings)
    }

    /// For an instance: where it was configured.
    pub fn origin(&self) -> Option<&str> {
        self.instance.as_ref().map(|i| i.origin.as_str())
    }

    /// Where this entry came from, as errors name it: an instance's origin, else the manifest path, else the name.
    fn describe(&self) -> String {
        match (&self.instance, &self.manifest_path) {
            (Some(instance), _) => instance.origin.clone(),
            (None, Some(path)) => path.display().to_string(),
            (None, None) => self.name().to_string(),
        }
    }

    /// The component file, resolved against the manifest's directory.
    pub fn component_path(&self) -> Option<PathBuf> {
        let component = self.manifest.component.as_ref()?;
        let base = self
            .manifest_path
            .as_deref()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."));
        Some(base.join(component))
    }

    /// The most specific of this plugin's keys that matches, if any (none where it is turned off).
    fn best_match(&self, group: &str, kind: &str) -> Option<&KindPattern> {
        if self.disabled.iter().any(|p| p.matches(group, kind)) {
            return None;
        }
        self.patterns
            .iter()
            .filter(|p| p.matches(group, kind))
            .max_by_key(|p| p.specificity())
    }
}

/// Errors building or querying a registry.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// A manifest or directory could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A manifest is malformed.
    #[error("{path}: {reason}")]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// An installed manifest names no component or no sha256.
    #[error("{path}: an installed plugin manifest needs `component` and `sha256`")]
    Unpinned {
        /// The manifest.
        path: PathBuf,
    },
    /// Two plugins have one name.
    #[error("two plugins are named {name:?} ({first} and {second})")]
    DuplicateName {
        /// The name.
        name: String,
        /// Where the first came from.
        first: String,
        /// Where the second came from.
        second: String,
    },
    /// Two plugins of the same provenance claim the same key.
    #[error("plugins {first} and {second} both claim {key}: remove the key from one of them")]
    Conflict {
        /// The key.
        key: String,
        /// One plugin.
        first: String,
        /// The other.
        second: String,
    },
    /// Two keys of equal precedence match one object.
    #[error("{0}")]
    Ambiguous(Box<AmbiguousClaim>),
    /// An instance names a template plugin the registry does not hold.
    #[error(
        "{instance} ({origin}) runs on the {template} plugin, which is not registered: build the built-in plugins \
         (`weft plugin build`) and do not pass --no-builtin"
    )]
    NoTemplate {
        /// The instance's name.
        instance: String,
        /// Where it was configured.
        origin: String,
        /// The template it needs.
        template: String,
    },
    /// An instance names a plugin that is not a template.
    #[error(
        "{instance} ({origin}): {template} is not a template plugin, so it cannot run configured instances"
    )]
    NotATemplate {
        /// The instance's name.
        instance: String,
        /// Where it was configured.
        origin: String,
        /// The plugin named as its template.
        template: String,
    },
}

/// Two plugins whose keys match an object with equal precedence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{group}/{kind} is claimed by {first} ({first_key}) and {second} ({second_key}) with equal precedence: make one \
     key more specific"
)]
pub struct AmbiguousClaim {
    /// The object's group.
    pub group: String,
    /// The object's kind.
    pub kind: String,
    /// One plugin.
    pub first: String,
    /// Its key.
    pub first_key: String,
    /// The other plugin.
    pub second: String,
    /// Its key.
    pub second_key: String,
}

/// Whether `dir` is a directory holding at least one installed plugin manifest (a `*.toml` file at its top).
pub fn holds_manifests(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|entries| {
        entries.filter_map(Result::ok).any(|entry| {
            let path = entry.path();
            path.extension().is_some_and(|e| e == "toml")
                && entry.file_type().is_ok_and(|t| t.is_file())
        })
    })
}

/// The set of known plugins.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    plugins: Vec<RegisteredPlugin>,
}

/// The environment variable that overrides where built-in plugins are looked for.
pub const BUILTIN_DIR_ENV: &str = "WEFT_BUILTIN_PLUGINS";

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Registry::default()
    }

    /// The directory holding the installed built-in plugins: `$WEFT_BUILTIN_PLUGINS` when set, else the first of
    /// `plugins/` beside the `weft` executable, `../plugins` from it (`target/plugins` for `target/release/weft`,
    /// where `weft plugin build` installs them), `../../plugins` (the same for test binaries in
    /// `target/debug/deps`) and `../lib/weft/plugins` (an installed `bin/weft`) that holds installed manifests.
    ///
    /// A directory counts only when it holds at least one `*.toml` manifest: a checkout's source `plugins/` folder
    /// (crates in subdirectories, no manifests at its top) is never taken for installed plugins.
    pub fn builtin_dir() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os(BUILTIN_DIR_ENV) {
            return Some(PathBuf::from(dir));
        }
        let exe = std::env::current_exe().ok()?;
        let exe_dir = exe.parent()?;
        Self::builtin_candidates(exe_dir)
            .into_iter()
            .find(|dir| holds_manifests(dir))
    }

    /// Where the built-in plugins may be installed for an executable in `exe_dir`, in the order they are tried.
    pub fn builtin_candidates(exe_dir: &Path) -> Vec<PathBuf> {
        vec![
            exe_dir.join("plugins"),
            exe_dir.join("../plugins"),
            exe_dir.join("../../plugins"),
            exe_dir.join("../lib/weft/plugins"),
        ]
    }

    /// Adds every installed manifest (`*.toml`) in a directory, in name order.
    pub fn add_dir(&mut self, dir: &Path, provenance: Provenance) -> Result<usize, RegistryError> {
        let io = |source| RegistryError::Io {
            path: dir.to_path_buf(),
            source,
        };
        let mut manifests: Vec<PathBuf> = fs::read_dir(dir)
            .map_err(io)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        manifests.sort();
        for path in &manifests {
            self.add_manifest_file(path, provenance)?;
        }
        Ok(manifests.len())
    }

    /// Adds one installed manifest file.
    pub fn add_manifest_file(
        &mut self,
        path: &Path,
        provenance: Provenance,
    ) -> Result<(), RegistryError> {
        let text = fs::read_to_string(path).map_err(|source| RegistryError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let manifest = PluginManifest::parse(&text).map_err(|reason| RegistryError::Manifest {
            path: path.to_path_buf(),
            reason,
        })?;
        if manifest.component.is_none() || manifest.sha256.is_none() {
            return Err(RegistryError::Unpinned {
                path: path.to_path_buf(),
            });
        }
        self.add(manifest, provenance, Some(path.to_path_buf()))
    }

    /// Adds a plugin from its manifest.
    pub fn add(
        &mut self,
        manifest: PluginManifest,
        provenance: Provenance,
        manifest_path: Option<PathBuf>,
    ) -> Result<(), RegistryError> {
        self.insert(manifest, provenance, manifest_path, None)
    }

    /// Adds an instance of a template plugin (see the module docs): its own name, keys and settings, the template's
    /// component. Conflicts are checked as for any plugin: two instances of one provenance claiming one key, or
    /// sharing a name, are errors naming where each was configured.
    pub fn add_instance(
        &mut self,
        template: &str,
        instance: PluginInstance,
        provenance: Provenance,
    ) -> Result<(), RegistryError> {
        let Some(base) = self.get(template) else {
            return Err(RegistryError::NoTemplate {
                instance: instance.name,
                origin: instance.origin,
                template: template.to_string(),
            });
        };
        if !base.manifest.template || base.instance.is_some() {
            return Err(RegistryError::NotATemplate {
                instance: instance.name,
                origin: instance.origin,
                template: template.to_string(),
            });
        }
        let mut manifest = base.manifest.clone();
        manifest.name = instance.name;
        manifest.kinds = instance.kinds;
        manifest.template = false;
        let manifest_path = base.manifest_path.clone();
        self.insert(
            manifest,
            provenance,
            manifest_path,
            Some(InstanceOf {
                template: template.to_string(),
                settings: instance.settings.into(),
                origin: instance.origin,
            }),
        )
    }

    fn insert(
        &mut self,
        manifest: PluginManifest,
        provenance: Provenance,
        manifest_path: Option<PathBuf>,
        instance: Option<InstanceOf>,
    ) -> Result<(), RegistryError> {
        let describe = RegisteredPlugin::describe;
        let patterns = manifest
            .kinds
            .iter()
            .map(|k| KindPattern::parse(k))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|reason| RegistryError::Manifest {
                path: manifest_path.clone().unwrap_or_default(),
                reason: match &instance {
                    Some(instance) => format!("{}: {reason}", instance.origin),
                    None => reason,
                },
            })?;
        let plugin = RegisteredPlugin {
            manifest,
            provenance,
            manifest_path,
            patterns,
            disabled: Vec::new(),
            instance,
        };
        for existing in &self.plugins {
            if existing.name() == plugin.name() {
                return Err(RegistryError::DuplicateName {
                    name: plugin.name().to_string(),
                    first: describe(existing),
                    second: describe(&plugin),
                });
            }
            if existing.provenance != plugin.provenance
                || existing.manifest.world != plugin.manifest.world
            {
                continue;
            }
            let clash = plugin
                .patterns
                .iter()
                .find(|p| existing.patterns.contains(p))
                .map(ToString::to_string)
                .or_else(|| {
                    plugin
                        .manifest
                        .app_types
                        .iter()
                        .find(|t| existing.manifest.app_types.contains(t))
                        .map(|t| format!("app type {t}"))
                });
            if let Some(key) = clash {
                let name = |p: &RegisteredPlugin| match &p.instance {
                    Some(instance) => format!("{} ({})", p.name(), instance.origin),
                    None => p.name().to_string(),
                };
                return Err(RegistryError::Conflict {
                    key,
                    first: name(existing),
                    second: name(&plugin),
                });
            }
        }
        self.plugins.push(plugin);
        Ok(())
    }

    /// Turns a plugin off for the kinds a key matches (`group/Kind`, `group/*`, `*`): it is no longer a candidate for
    /// them. This is how the generic fallback is switched off per group or kind.
    pub fn disable_for(&mut self, plugin: &str, key: &str) -> Result<(), RegistryError> {
        let pattern = KindPattern::parse(key).map_err(|reason| RegistryError::Manifest {
            path: PathBuf::from(plugin),
            reason,
        })?;
        match self.plugins.iter_mut().find(|p| p.name() == plugin) {
            Some(found) => {
                found.disabled.push(pattern);
                Ok(())
            }
            None => Err(RegistryError::Manifest {
                path: PathBuf::from(plugin),
                reason: format!("no plugin named {plugin:?} to turn off for {key}"),
            }),
        }
    }

    /// The kinds health plugins read as children (`child-kinds`), each once: the server watches them.
    pub fn child_kinds(&self) -> Vec<(String, String)> {
        let mut kinds: Vec<(String, String)> = self
            .plugins()
            .iter()
            .filter(|p| p.manifest.world == World::HealthCheck)
            .flat_map(|p| p.manifest.child_kinds.iter())
            .filter_map(|key| manifest::child_kind(key).ok())
            .collect();
        kinds.sort();
        kinds.dedup();
        kinds
    }

    /// Every plugin, in the order added.
    pub fn plugins(&self) -> &[RegisteredPlugin] {
        &self.plugins
    }

    /// A plugin by name.
    pub fn get(&self, name: &str) -> Option<&RegisteredPlugin> {
        self.plugins.iter().find(|p| p.name() == name)
    }

    /// The health plugins that serve a group and kind, best first (see the module docs for the order).
    pub fn health_candidates(
        &self,
        group: &str,
        kind: &str,
    ) -> Result<Vec<&RegisteredPlugin>, RegistryError> {
        let mut matches: Vec<(&RegisteredPlugin, &KindPattern)> = self
            .plugins
            .iter()
            .filter(|p| p.manifest.world == World::HealthCheck)
            .filter_map(|p| p.best_match(group, kind).map(|pattern| (p, pattern)))
            .collect();
        let rank = |(p, pattern): &(&RegisteredPlugin, &KindPattern)| {
            (pattern.specificity(), p.provenance)
        };
        matches.sort_by_key(|m| std::cmp::Reverse(rank(m)));
        if let Some(pair) = matches.windows(2).find(|w| rank(&w[0]) == rank(&w[1])) {
            return Err(RegistryError::Ambiguous(Box::new(AmbiguousClaim {
                group: group.to_string(),
                kind: kind.to_string(),
                first: pair[0].0.name().to_string(),
                first_key: pair[0].1.to_string(),
                second: pair[1].0.name().to_string(),
                second_key: pair[1].1.to_string(),
            })));
        }
        Ok(matches.into_iter().map(|(p, _)| p).collect())
    }

    /// Every app type the plugins of `world` serve, sorted, each once.
    pub fn app_types(&self, world: World) -> Vec<&str> {
        let mut known: Vec<&str> = self
            .plugins
            .iter()
            .filter(|p| p.manifest.world == world)
            .flat_map(|p| p.manifest.app_types.iter().map(String::as_str))
            .collect();
        known.sort_unstable();
        known.dedup();
        known
    }

    /// The plugin of `world` that serves an app type (a user plugin over a built-in one).
    pub fn for_app_type(&self, world: World, app_type: &str) -> Option<&RegisteredPlugin> {
        self.plugins
            .iter()
            .filter(|p| {
                p.manifest.world == world && p.manifest.app_types.iter().any(|t| t == app_type)
            })
            .max_by_key(|p| p.provenance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renderer_can_raise_its_step_budget() {
        let manifest = PluginManifest::parse(
            "name = \"x\"\nworld = \"renderer\"\napp-types = [\"x\"]\n[limits]\nfuel-millions = 50000\n",
        )
        .unwrap();
        assert_eq!(manifest.limits.fuel_millions, Some(50_000));
        let limits = crate::CallLimits::RENDER.with_overrides(&manifest.limits);
        assert_eq!(limits.fuel, Some(50_000_000_000));
    }

    fn health(name: &str, kinds: &[&str]) -> PluginManifest {
        PluginManifest {
            name: name.into(),
            world: World::HealthCheck,
            kinds: kinds.iter().map(|k| k.to_string()).collect(),
            template: false,
            child_kinds: vec![],
            app_types: vec![],
            component: None,
            sha256: None,
            limits: Default::default(),
            build: Default::default(),
        }
    }

    fn names(registry: &Registry, group: &str, kind: &str) -> Vec<String> {
        registry
            .health_candidates(group, kind)
            .unwrap()
            .into_iter()
            .map(|p| p.name().to_string())
            .collect()
    }

    #[test]
    fn specific_keys_win_then_user_over_builtin() {
        let mut r = Registry::new();
        r.add(health("generic", &["*"]), Provenance::BuiltIn, None)
            .unwrap();
        r.add(
            health("core", &["apps/Deployment", "Pod"]),
            Provenance::BuiltIn,
            None,
        )
        .unwrap();
        r.add(health("apps-any", &["apps/*"]), Provenance::User, None)
            .unwrap();
        r.add(
            health("my-deploy", &["apps/Deployment"]),
            Provenance::User,
            None,
        )
        .unwrap();
        assert_eq!(
            names(&r, "apps", "Deployment"),
            ["my-deploy", "core", "apps-any", "generic"]
        );
        assert_eq!(names(&r, "apps", "StatefulSet"), ["apps-any", "generic"]);
        assert_eq!(names(&r, "", "Pod"), ["core", "generic"]);
    }

    #[test]
    fn a_plugin_can_be_turned_off_for_some_kinds() {
        let mut r = Registry::new();
        r.add(health("generic", &["*"]), Provenance::BuiltIn, None)
            .unwrap();
        r.disable_for("generic", "example.dev/*").unwrap();
        assert!(names(&r, "example.dev", "Widget").is_empty());
        assert_eq!(names(&r, "apps", "Deployment"), ["generic"]);
        assert!(r.disable_for("nope", "*").is_err());
        assert!(r.disable_for("generic", "bad key/").is_err());
    }

    #[test]
    fn same_key_twice_from_users_is_a_conflict() {
        let mut r = Registry::new();
        r.add(health("a", &["x.io/Y"]), Provenance::User, None)
            .unwrap();
        let err = r
            .add(health("b", &["x.io/Y"]), Provenance::User, None)
            .unwrap_err();
        assert!(matches!(err, RegistryError::Conflict { .. }), "{err}");
        // The same key from a user over a built-in is the documented override, not a conflict.
        r.add(health("c", &["x.io/Y"]), Provenance::BuiltIn, None)
            .unwrap();
        let err = r
            .add(health("a", &["z.io/Q"]), Provenance::BuiltIn, None)
            .unwrap_err();
        assert!(matches!(err, RegistryError::DuplicateName { .. }));
    }

    fn template(name: &str) -> PluginManifest {
        PluginManifest {
            kinds: vec![],
            template: true,
            ..health(name, &[])
        }
    }

    fn lua(key: &str, origin: &str) -> PluginInstance {
        PluginInstance {
            name: format!("lua:{key}"),
            kinds: vec![key.to_string()],
            settings: format!("{{\"script\":\"-- {origin}\"}}"),
            origin: origin.to_string(),
        }
    }

    #[test]
    fn instances_follow_the_same_precedence_as_plugins() {
        let mut r = Registry::new();
        r.add(template("health-lua"), Provenance::BuiltIn, None)
            .unwrap();
        r.add(health("generic", &["*"]), Provenance::BuiltIn, None)
            .unwrap();
        r.add(
            health("infra", &["rds.aws.crossplane.io/DBInstance"]),
            Provenance::BuiltIn,
            None,
        )
        .unwrap();
        for (key, origin) in [
            ("*.crossplane.io/*", "dir/_.crossplane.io/_/health.lua"),
            (
                "*.aws.crossplane.io/*",
                "dir/_.aws.crossplane.io/_/health.lua",
            ),
            ("rds.aws.crossplane.io/DBInstance", "argocd-cm.yaml"),
            ("*/Widget", "weft.toml"),
        ] {
            r.add_instance("health-lua", lua(key, origin), Provenance::User)
                .unwrap();
        }
        // Exact over wildcard, a user script over a built-in plugin at equal specificity, the longest glob first.
        assert_eq!(
            names(&r, "rds.aws.crossplane.io", "DBInstance"),
            [
                "lua:rds.aws.crossplane.io/DBInstance",
                "infra",
                "lua:*.aws.crossplane.io/*",
                "lua:*.crossplane.io/*",
                "generic"
            ]
        );
        assert_eq!(
            names(&r, "x.crossplane.io", "Y"),
            ["lua:*.crossplane.io/*", "generic"]
        );
        assert_eq!(
            names(&r, "example.com", "Widget"),
            ["lua:*/Widget", "generic"]
        );
        // The template itself serves nothing; an instance knows its template, settings and origin.
        assert!(!names(&r, "", "Pod").contains(&"health-lua".to_string()));
        let instance = r.get("lua:*/Widget").unwrap();
        assert_eq!(instance.instance_of(), Some("health-lua"));
        assert_eq!(instance.origin(), Some("weft.toml"));
        assert_eq!(instance.settings(), Some("{\"script\":\"-- weft.toml\"}"));
        assert_eq!(r.get("health-lua").unwrap().instance_of(), None);
    }

    #[test]
    fn instance_conflicts_are_reported_never_resolved_by_chance() {
        let mut r = Registry::new();
        r.add(template("health-lua"), Provenance::BuiltIn, None)
            .unwrap();
        r.add(template("health-cel"), Provenance::BuiltIn, None)
            .unwrap();
        r.add_instance(
            "health-lua",
            lua("x.io/Y", "dir/x.io/Y/health.lua"),
            Provenance::User,
        )
        .unwrap();
        let twice = r
            .add_instance(
                "health-lua",
                lua("x.io/Y", "argocd-cm.yaml"),
                Provenance::User,
            )
            .unwrap_err()
            .to_string();
        assert!(
            twice.contains("dir/x.io/Y/health.lua") && twice.contains("argocd-cm.yaml"),
            "{twice}"
        );
        let cel = PluginInstance {
            name: "cel:x.io/Y".into(),
            ..lua("x.io/Y", "weft.toml")
        };
        let clash = r
            .add_instance("health-cel", cel, Provenance::User)
            .unwrap_err();
        assert!(matches!(clash, RegistryError::Conflict { .. }), "{clash}");
        assert!(clash.to_string().contains("weft.toml"), "{clash}");
        // Two different wildcards equally specific for one kind: reported when that kind is assessed.
        r.add_instance(
            "health-lua",
            lua("a*/*", "dir/a_/_/health.lua"),
            Provenance::User,
        )
        .unwrap();
        r.add_instance(
            "health-lua",
            lua("*b/*", "dir/_b/_/health.lua"),
            Provenance::User,
        )
        .unwrap();
        let ambiguous = r.health_candidates("ab", "K").unwrap_err().to_string();
        assert!(
            ambiguous.contains("lua:a*/*") && ambiguous.contains("lua:*b/*"),
            "{ambiguous}"
        );
    }

    #[test]
    fn instances_need_a_registered_template() {
        let mut r = Registry::new();
        let missing = r
            .add_instance("health-lua", lua("x.io/Y", "weft.toml"), Provenance::User)
            .unwrap_err();
        assert!(
            matches!(missing, RegistryError::NoTemplate { .. }),
            "{missing}"
        );
        r.add(health("core", &["Pod"]), Provenance::BuiltIn, None)
            .unwrap();
        let not_template = r
            .add_instance("core", lua("x.io/Y", "weft.toml"), Provenance::User)
            .unwrap_err();
        assert!(matches!(not_template, RegistryError::NotATemplate { .. }));
        r.add(template("health-lua"), Provenance::BuiltIn, None)
            .unwrap();
        let bad_key = r
            .add_instance("health-lua", lua("bad key/", "weft.toml"), Provenance::User)
            .unwrap_err()
            .to_string();
        assert!(bad_key.contains("weft.toml"), "{bad_key}");
    }

    #[test]
    fn equal_precedence_overlap_is_reported_for_the_object() {
        let mut r = Registry::new();
        r.add(health("a", &["a*/*"]), Provenance::User, None)
            .unwrap();
        r.add(health("b", &["*b/*"]), Provenance::User, None)
            .unwrap();
        assert!(matches!(
            r.health_candidates("ab", "K"),
            Err(RegistryError::Ambiguous(_))
        ));
        assert_eq!(names(&r, "ax", "K"), ["a"]);
    }
}
