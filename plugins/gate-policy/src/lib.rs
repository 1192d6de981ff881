//! Weft's built-in deploy-gate policies: images by digest or from allowed registries, no `:latest`, resource
//! requests and limits, no privileged or host access, and the Kubernetes Pod Security Standards (baseline and
//! restricted), judged on a sync's plan before anything is applied.
//!
//! One component serves every policy gate: each `[[gate]]` registry entry that names it gives its own settings
//! (see [`settings`]), for example
//!
//! ```json
//! {"rules": ["images-pinned", "no-latest", "resources", "no-privileged", "pss-restricted"],
//!  "allowed_registries": ["registry.example.com", "ghcr.io/acme"],
//!  "action": "deny"}
//! ```
//!
//! Only the objects that remain after the sync (every change but a prune) are judged, and of those only the ones
//! that carry a pod spec ([`pods`]). Each finding is a [`Reason`] whose `object` is the planned object's
//! reference, whose `rule` is the rule's name (`pss-baseline/<control>` and `pss-restricted/<control>` for the Pod
//! Security Standards, see [`rules::pss`]) and whose message names the container and the field path. The reasons
//! come sorted by object, rule and message, without duplicates, so the same plan always gets the same verdict; with
//! `"action": "warn"` they warn instead of deny.

pub mod images;
pub mod pods;
pub mod rules;
pub mod settings;

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;

use weft_sdk::PluginError;
use weft_sdk::gate::{DeployGate, GateRequest, Reason, Verdict};

use crate::settings::{Action, Settings};

/// The policy gate: reads its settings, runs the rules they name, and denies or warns with what they find.
#[derive(Debug, Clone, Copy, Default)]
pub struct PolicyGate;

impl PolicyGate {
    /// Judges `request` under already parsed `settings` (what [`DeployGate::evaluate`] does after reading them).
    pub fn judge(settings: &Settings, request: &GateRequest) -> Verdict {
        let reasons: Vec<Reason> = rules::judge(settings, request);
        match settings.action {
            Action::Deny => Verdict::deny_if_any(reasons),
            Action::Warn => Verdict::warn_if_any(reasons),
        }
    }
}

impl DeployGate for PolicyGate {
    fn evaluate(request: &GateRequest) -> Result<Verdict, PluginError> {
        let settings = Settings::parse(&weft_sdk::settings::get())?;
        Ok(Self::judge(&settings, request))
    }
}

weft_sdk::export_gate!(PolicyGate);
