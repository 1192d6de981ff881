//! The gate's settings: which rules run, which registries count as trusted, and whether findings deny or warn.
//!
//! The registry entry's settings are JSON:
//!
//! | field | type | meaning |
//! | --- | --- | --- |
//! | `rules` | list of rule names, required, not empty | `images-pinned`, `no-latest`, `resources`, `no-privileged`, `pss-baseline`, `pss-restricted` |
//! | `allowed_registries` | list of strings, default `[]` | for `images-pinned`: a registry host (`registry.example.com`, `localhost:5000`) or a host and path prefix (`ghcr.io/acme`), matched at a `/` boundary |
//! | `action` | `"deny"` (default) or `"warn"` | what findings do to the sync |
//!
//! Any other field, an unknown rule name, an unknown action or a malformed registry entry is an
//! [`invalid_input`](PluginError::invalid_input) error naming it: a misspelt policy must not pass silently.

use std::collections::BTreeSet;

use serde::Deserialize;
use weft_sdk::PluginError;

use crate::images::RegistryPattern;

/// One rule the settings can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Every container image pinned by digest or from an allowed registry.
    ImagesPinned,
    /// No image tagged `latest`, or with neither tag nor digest.
    NoLatest,
    /// Every container and init container with CPU and memory requests and limits.
    Resources,
    /// No privileged containers, host namespaces or hostPath volumes.
    NoPrivileged,
    /// The Pod Security Standards' baseline profile.
    PssBaseline,
    /// The Pod Security Standards' restricted profile (baseline included).
    PssRestricted,
}

impl Rule {
    /// Every rule, in the order of their names.
    pub const ALL: [Rule; 6] = [
        Rule::ImagesPinned,
        Rule::NoLatest,
        Rule::NoPrivileged,
        Rule::PssBaseline,
        Rule::PssRestricted,
        Rule::Resources,
    ];

    /// The rule's name, as in the settings and in reasons.
    pub fn name(self) -> &'static str {
        match self {
            Rule::ImagesPinned => "images-pinned",
            Rule::NoLatest => "no-latest",
            Rule::Resources => "resources",
            Rule::NoPrivileged => "no-privileged",
            Rule::PssBaseline => "pss-baseline",
            Rule::PssRestricted => "pss-restricted",
        }
    }
}

/// What findings do to the sync.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Stop the sync (the default).
    #[default]
    Deny,
    /// Let it go on, recording the findings.
    Warn,
}

/// The settings as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    rules: Vec<Rule>,
    #[serde(default)]
    allowed_registries: Vec<String>,
    #[serde(default)]
    action: Action,
}

/// The settings, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The rules to run (at least one).
    pub rules: BTreeSet<Rule>,
    /// The registries whose images need no digest.
    pub allowed_registries: Vec<RegistryPattern>,
    /// Deny or warn.
    pub action: Action,
}

impl Settings {
    /// Reads the registry entry's settings text.
    pub fn parse(text: &str) -> Result<Settings, PluginError> {
        if text.trim().is_empty() {
            return Err(PluginError::invalid_input(format!(
                "gate-policy needs settings naming its rules, as {{\"rules\": [\"images-pinned\"]}}; the rules are {}",
                rule_names()
            )));
        }
        let written: Written = serde_json::from_str(text)
            .map_err(|e| PluginError::invalid_input(format!("gate-policy settings: {e}")))?;
        if written.rules.is_empty() {
            return Err(PluginError::invalid_input(format!(
                "gate-policy settings: `rules` is empty; name at least one of {}",
                rule_names()
            )));
        }
        let allowed_registries = written
            .allowed_registries
            .iter()
            .map(|entry| {
                RegistryPattern::parse(entry).map_err(|why| {
                    PluginError::invalid_input(format!(
                        "gate-policy settings: allowed_registries entry {entry:?}: {why}"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Settings {
            rules: written.rules.into_iter().collect(),
            allowed_registries,
            action: written.action,
        })
    }
}

fn rule_names() -> String {
    Rule::ALL
        .iter()
        .map(|rule| rule.name())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_example_reads_with_every_field() {
        let settings = Settings::parse(
            r#"{"rules": ["images-pinned", "no-latest", "resources", "no-privileged", "pss-baseline", "pss-restricted"],
                "allowed_registries": ["registry.example.com", "ghcr.io/acme"], "action": "warn"}"#,
        )
        .unwrap();
        assert_eq!(settings.rules.len(), 6);
        assert_eq!(settings.allowed_registries.len(), 2);
        assert_eq!(settings.action, Action::Warn);
    }

    #[test]
    fn the_action_defaults_to_deny_and_registries_to_none() {
        let settings = Settings::parse(r#"{"rules": ["no-latest"]}"#).unwrap();
        assert_eq!(settings.action, Action::Deny);
        assert!(settings.allowed_registries.is_empty());
        assert_eq!(
            settings.rules.iter().copied().collect::<Vec<_>>(),
            [Rule::NoLatest]
        );
    }

    #[test]
    fn a_rule_named_twice_runs_once() {
        let settings = Settings::parse(r#"{"rules": ["resources", "resources"]}"#).unwrap();
        assert_eq!(settings.rules.len(), 1);
    }

    #[test]
    fn an_unknown_rule_is_named_in_the_error() {
        let error = Settings::parse(r#"{"rules": ["no-latest", "images-pined"]}"#).unwrap_err();
        assert_eq!(error.kind, weft_sdk::ErrorKind::InvalidInput);
        assert!(error.message.contains("images-pined"), "{}", error.message);
    }

    #[test]
    fn an_unknown_field_is_named_in_the_error() {
        let error =
            Settings::parse(r#"{"rules": ["no-latest"], "allowed_registry": []}"#).unwrap_err();
        assert_eq!(error.kind, weft_sdk::ErrorKind::InvalidInput);
        assert!(
            error.message.contains("allowed_registry"),
            "{}",
            error.message
        );
    }

    #[test]
    fn an_unknown_action_is_named_in_the_error() {
        let error = Settings::parse(r#"{"rules": ["no-latest"], "action": "block"}"#).unwrap_err();
        assert!(error.message.contains("block"), "{}", error.message);
    }

    #[test]
    fn missing_or_empty_settings_say_which_rules_exist() {
        for text in ["", "  ", r#"{"rules": []}"#] {
            let error = Settings::parse(text).unwrap_err();
            assert_eq!(error.kind, weft_sdk::ErrorKind::InvalidInput);
            assert!(
                error.message.contains("pss-restricted"),
                "{}",
                error.message
            );
        }
        let error = Settings::parse("{}").unwrap_err();
        assert!(error.message.contains("rules"), "{}", error.message);
    }

    #[test]
    fn a_malformed_registry_entry_is_named_in_the_error() {
        let error = Settings::parse(
            r#"{"rules": ["images-pinned"], "allowed_registries": ["https://ghcr.io"]}"#,
        )
        .unwrap_err();
        assert!(
            error.message.contains("https://ghcr.io"),
            "{}",
            error.message
        );
    }
}
