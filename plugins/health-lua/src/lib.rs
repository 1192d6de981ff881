//! Argo CD's Lua health checks, run unchanged inside Weft's sandbox.
//!
//! One component serves every Lua check: the registry holds a `lua:<group>/<Kind>` entry per configured script, and
//! the host hands the entry's settings (`{"script": "<lua source>"}`) to each call. A check runs as Argo CD runs
//! one: a fresh Lua state per object, the object as the global `obj` (JSON `null` becomes `nil`, arrays are 1-based
//! tables), and the returned table read as `{status, message}`:
//!
//! - a status other than Argo CD's six (`Healthy`, `Progressing`, `Degraded`, `Suspended`, `Missing`, `Unknown`) is
//!   `unknown` with "Lua returned an invalid health status", as in Argo CD;
//! - `nil` (or an empty table, Argo CD's empty health) is no opinion: the host asks the next plugin for the kind;
//! - a Lua error is `unknown` with the Lua error message, never a trap;
//! - any other return value is `unknown` saying what was returned instead of a table.
//!
//! The dialect is Argo CD's (gopher-lua: Lua 5.1 plus `goto`): the engine runs in Lua 5.2 mode, with `unpack` and
//! `table.getn` defined for 5.1 scripts. Libraries: base, table, string, math and a safe `os` (`time`, `clock`,
//! `date`); no `io`, no `require` of anything but `os` (see [`sandbox`]). The host's deadline and memory cap bound
//! a script that loops or allocates without end.

mod convert;
mod os;
pub mod sandbox;
mod verdict;

use serde::Deserialize;
use weft_sdk::{Context, Health, HealthCheck, Object, PluginError};

pub use verdict::INVALID_STATUS;

/// What a `lua:` registry entry is configured with.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LuaSettings {
    /// The script's Lua source.
    pub script: String,
}

impl LuaSettings {
    /// Parses the settings text the host gives a call.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        if text.trim().is_empty() {
            return Err(PluginError::invalid_input(
                "health-lua runs the script its registry entry is configured with, and this entry has none \
                 (settings must be {\"script\": \"...\"})",
            ));
        }
        serde_json::from_str(text).map_err(|e| {
            PluginError::invalid_input(format!(
                "health-lua settings must be {{\"script\": \"...\"}}: {e}"
            ))
        })
    }
}

/// Runs `script` against `object` in a fresh Lua state: the verdict, or `None` for no opinion. Script failures are
/// verdicts (`unknown` with the reason), never errors.
pub fn run_check(script: &str, object: &serde_json::Value) -> Option<Health> {
    match sandbox::run(script, object) {
        Ok(returned) => returned,
        Err(message) => Some(Health::unknown(message)),
    }
}

/// The plugin: the script comes from the call's settings.
#[derive(Debug)]
pub struct LuaHealth;

impl HealthCheck for LuaHealth {
    fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        let settings = LuaSettings::parse(&weft_sdk::settings::get())?;
        Ok(run_check(&settings.script, obj.value()))
    }
}

weft_sdk::export_health_check!(LuaHealth);

#[cfg(test)]
mod tests;
