//! The plugin's settings: the policies (the YAML the operator applies to clusters, pasted as is), what a finding
//! does, and plurals for kinds the convention gets wrong.
//!
//! ```json
//! {"policies": ["apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n..."],
//!  "action": "deny",
//!  "plurals": {"example.com/Octopus": "octopi"}}
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use weft_sdk::PluginError;

/// What findings do to the sync.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Stop the sync (a binding's `validationActions: [Deny]`).
    #[default]
    Deny,
    /// Let it go on and record the findings (`[Warn]`).
    Warn,
}

/// The settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// YAML or JSON texts of one or more documents each (or documents already parsed); the
    /// `ValidatingAdmissionPolicy` documents among them are run.
    pub policies: Vec<Value>,
    /// What findings do; `deny` when unset.
    #[serde(default)]
    pub action: Action,
    /// Resource names by `<group>/<Kind>` or `<Kind>`, for kinds whose plural the convention does not give.
    #[serde(default)]
    pub plurals: BTreeMap<String, String>,
}

impl Settings {
    /// Parses the settings text the host gives a call.
    pub fn parse(text: &str) -> Result<Settings, PluginError> {
        if text.trim().is_empty() {
            return Err(PluginError::invalid_input(
                "gate-cel runs the ValidatingAdmissionPolicies its settings give, and it has no settings",
            ));
        }
        serde_json::from_str(text).map_err(|e| {
            PluginError::invalid_input(format!(
                "gate-cel settings must be {{\"policies\": [\"<ValidatingAdmissionPolicy YAML>\", ...], \
                 \"action\"?: \"deny\" | \"warn\", \"plurals\"?: {{\"<group>/<Kind>\": \"<plural>\"}}}}: {e}"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_default_to_deny_and_refuse_unknown_fields() {
        let settings = Settings::parse(r#"{"policies": ["a: 1"]}"#).unwrap();
        assert_eq!(settings.action, Action::Deny);
        assert!(settings.plurals.is_empty());
        let warn = Settings::parse(r#"{"policies": [], "action": "warn"}"#).unwrap();
        assert_eq!(warn.action, Action::Warn);
        for bad in [
            "",
            "  ",
            "{}",
            r#"{"policies": [], "action": "audit"}"#,
            r#"{"policies": [], "bindings": []}"#,
        ] {
            let error = Settings::parse(bad).unwrap_err();
            assert_eq!(error.kind, weft_sdk::ErrorKind::InvalidInput, "{bad}");
        }
    }
}
