//! `[[gate]]` in `weft.toml`: a named gate plugin with its settings, whether an admin may override its deny, and
//! the apps it applies to by default (per env, per org), besides the apps that name it.

use serde::{Deserialize, Serialize};

use weft_app::{AppSpec, Env};

/// One `[[gate]]` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateEntry {
    /// The gate's name: what apps reference (`gates = ["..."]`) and what verdicts name.
    pub name: String,
    /// The gate plugin it runs (`gate-policy`, `gate-cel`, or an operator's plugin of the `gate` world).
    pub plugin: String,
    /// The plugin's settings (a rule list, CEL policies), handed to every call as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<toml::Value>,
    /// Whether an admin may override a deny for one sync (recorded with who and why). Default `true`.
    #[serde(default = "overridable_by_default")]
    pub overridable: bool,
    /// Apps of these environments run it without naming it (`envs = ["main"]`: stricter for production).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub envs: Vec<Env>,
    /// Apps of these orgs run it without naming it (`"*"` for every app, the operator's own included).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub orgs: Vec<String>,
}

fn overridable_by_default() -> bool {
    true
}

impl GateEntry {
    /// The settings as the JSON text a plugin reads (empty when there are none).
    pub fn settings_json(&self) -> Result<String, serde_json::Error> {
        self.settings
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map(Option::unwrap_or_default)
    }

    /// Whether `app` runs this gate: it names it, or its env or org is one the gate applies to by default. An app
    /// an org's team declared as an Application resource chose its own `env`, so it cannot use it to escape a gate:
    /// it runs the gates of every env.
    pub fn applies_to(&self, app: &AppSpec) -> bool {
        let env_chosen_by_tenant = app.origin == weft_store::AppOrigin::Resource;
        app.gates.contains(&self.name)
            || self.envs.contains(&app.env)
            || (env_chosen_by_tenant && !self.envs.is_empty())
            || self
                .orgs
                .iter()
                .any(|org| org == "*" || app.org.as_deref() == Some(org.as_str()))
    }
}

/// The gates `app` runs, in the order they are configured.
pub fn for_app<'a>(entries: &'a [GateEntry], app: &AppSpec) -> Vec<&'a GateEntry> {
    entries
        .iter()
        .filter(|entry| entry.applies_to(app))
        .collect()
}

/// Checks the entries: names are DNS labels, unique, and plugins named. The key and message of the first error.
pub fn validate(entries: &[GateEntry]) -> Result<(), (String, String)> {
    let mut seen = std::collections::BTreeSet::new();
    for (index, entry) in entries.iter().enumerate() {
        let key = |field: &str| format!("gate[{index}].{field}");
        let label = !entry.name.is_empty()
            && entry.name.len() <= 63
            && entry
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !entry.name.starts_with('-')
            && !entry.name.ends_with('-');
        if !label {
            return Err((
                key("name"),
                format!(
                    "{:?} is not a gate name: use lowercase letters, digits and '-' (a DNS label)",
                    entry.name
                ),
            ));
        }
        if !seen.insert(entry.name.as_str()) {
            return Err((
                key("name"),
                format!("gate {:?} is declared twice", entry.name),
            ));
        }
        if entry.plugin.trim().is_empty() {
            return Err((key("plugin"), "name the gate plugin it runs".into()));
        }
    }
    Ok(())
}

/// A gate an app names that `weft.toml` does not declare.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no gate {name:?} is declared in weft.toml (declared: {})",
    if declared.is_empty() { "none".to_string() } else { declared.join(", ") }
)]
pub struct UnknownGate {
    /// The gate the app names.
    pub name: String,
    /// The gates declared.
    pub declared: Vec<String>,
}

/// Checks that every gate `app` names is declared; the unknown one and the known ones.
pub fn check_references(entries: &[GateEntry], app: &AppSpec) -> Result<(), UnknownGate> {
    for name in &app.gates {
        if !entries.iter().any(|entry| entry.name == *name) {
            return Err(UnknownGate {
                name: name.clone(),
                declared: entries.iter().map(|e| e.name.clone()).collect(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &str) -> GateEntry {
        toml::from_str(text).unwrap()
    }

    fn app(env: Env, org: Option<&str>, gates: &[&str]) -> AppSpec {
        let mut app: AppSpec = toml::from_str(
            r#"name = "shop"
type = "yaml"
namespace = "shop"
source = { path = "app" }"#,
        )
        .unwrap();
        app.env = env;
        app.org = org.map(str::to_string);
        app.gates = gates.iter().map(|g| g.to_string()).collect();
        app
    }

    #[test]
    fn an_app_runs_the_gates_of_its_env_and_org_and_those_it_names_in_configured_order() {
        let entries = vec![
            entry("name = \"strict\"\nplugin = \"gate-policy\"\nenvs = [\"main\"]"),
            entry("name = \"acme-rules\"\nplugin = \"gate-cel\"\norgs = [\"acme\"]"),
            entry("name = \"opt-in\"\nplugin = \"gate-policy\""),
            entry("name = \"everyone\"\nplugin = \"gate-policy\"\norgs = [\"*\"]"),
        ];
        let names = |app: &AppSpec| -> Vec<String> {
            for_app(&entries, app)
                .iter()
                .map(|e| e.name.clone())
                .collect()
        };
        assert_eq!(
            names(&app(Env::Main, Some("acme"), &[])),
            ["strict", "acme-rules", "everyone"]
        );
        assert_eq!(
            names(&app(Env::Dev, None, &["opt-in"])),
            ["opt-in", "everyone"]
        );
        assert_eq!(names(&app(Env::Test, Some("other"), &[])), ["everyone"]);
        // A team's Application says `env: dev` itself: it still runs production's gates.
        let mut tenant = app(Env::Dev, Some("acme"), &[]);
        tenant.origin = weft_store::AppOrigin::Resource;
        assert_eq!(names(&tenant), ["strict", "acme-rules", "everyone"]);
    }

    #[test]
    fn gates_are_overridable_unless_marked_and_settings_reach_the_plugin_as_json() {
        let gate = entry(
            "name = \"pss\"\nplugin = \"gate-policy\"\noverridable = false\nsettings = { rules = [\"pss-restricted\"] }",
        );
        assert!(!gate.overridable);
        assert_eq!(
            gate.settings_json().unwrap(),
            r#"{"rules":["pss-restricted"]}"#
        );
        assert!(entry("name = \"x\"\nplugin = \"p\"").overridable);
        assert_eq!(
            entry("name = \"x\"\nplugin = \"p\"")
                .settings_json()
                .unwrap(),
            ""
        );
    }

    #[test]
    fn bad_names_twice_declared_gates_and_unknown_references_are_named() {
        let bad = entry("name = \"Bad_Name\"\nplugin = \"p\"");
        assert_eq!(validate(&[bad]).unwrap_err().0, "gate[0].name");
        let a = entry("name = \"a\"\nplugin = \"p\"");
        let err = validate(&[a.clone(), a.clone()]).unwrap_err();
        assert!(err.1.contains("declared twice"), "{err:?}");
        let err = check_references(&[a], &app(Env::Main, None, &["missing"])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no gate \"missing\" is declared in weft.toml (declared: a)"
        );
        let none = check_references(&[], &app(Env::Main, None, &["missing"])).unwrap_err();
        assert_eq!(
            none.to_string(),
            "no gate \"missing\" is declared in weft.toml (declared: none)"
        );
    }
}
