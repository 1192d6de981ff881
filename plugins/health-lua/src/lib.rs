//! Argo CD's Lua health checks, run unchanged inside Weft's sandbox.
//!
//! One component serves every Lua check: the registry holds a `lua:<group>/<Kind>` entry per configured script, and
//! the host hands the entry's settings to each call: the script, and the bytecode the host compiled it to when it
//! was loaded (see [`precompiled`]). A check runs as Argo CD runs one: a fresh Lua state per object, the object as
//! the global `obj` (JSON `null` becomes `nil`, arrays are 1-based tables), and the returned table read as
//! `{status, message}`:
//!
//! - a status other than Argo CD's six (`Healthy`, `Progressing`, `Degraded`, `Suspended`, `Missing`, `Unknown`) is
//!   `unknown` with "Lua returned an invalid health status", as in Argo CD;
//! - `nil` (or an empty table, Argo CD's empty health) is no opinion: the host asks the next plugin for the kind;
//!   so is a table whose `status` or `message` is a number, boolean or table, which Argo CD also reads as the
//!   empty health (see `verdict`);
//! - a Lua error is `unknown` with the Lua error message, never a trap;
//! - any other return value is `unknown` saying what was returned instead of a table.
//!
//! The dialect is Argo CD's (gopher-lua: Lua 5.1 plus `goto`): the engine runs in Lua 5.2 mode, with `unpack` and
//! `table.getn` defined for 5.1 scripts, and gopher-lua's Unicode-aware `string.upper`/`string.lower`. A JSON
//! `null` inside an array is skipped, as Argo CD's conversion skips it (`["a", null, "c"]` is `{"a", "c"}`).
//! Libraries: base, table, string, math and a safe `os` (`time`, `clock`, `date`); no `io`, no `require` of
//! anything but `os` (see [`sandbox`]). The host's deadline and memory cap bound a script that loops or allocates
//! without end.
//!
//! The same component exports Argo CD's Lua resource actions (the `resource-actions` interface of the
//! `resource-action` world, see [`actions`]): discovery and action scripts run in the same sandbox, with the same
//! dialect and limits, the script again coming through the entry's settings.

pub mod actions;
mod case;
mod convert;
mod needs;
mod os;
pub mod precompiled;
pub mod sandbox;
mod tojson;
mod verdict;

use std::cell::RefCell;

use serde::Deserialize;
use weft_sdk::{Context, Health, HealthCheck, Object, PluginError};

pub use needs::Needs;
pub use precompiled::{compile, settings_for};
pub use sandbox::Program;
pub use verdict::INVALID_STATUS;

/// What a `lua:` registry entry is configured with: the host's compiled form ([`settings_for`]: `bytecode`,
/// `digest`, `globals`), or Lua source (`script`) that the plugin compiles itself.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LuaSettings {
    /// The script's Lua source, when the host did not compile it.
    #[serde(default)]
    pub script: Option<String>,
    /// The script compiled by the host, in base64.
    #[serde(default)]
    pub bytecode: Option<String>,
    /// [`precompiled::digest`] of the bytecode, checked before it is loaded.
    #[serde(default)]
    pub digest: Option<String>,
    /// The sandbox globals the script can reach ([`Needs::names`]); all of them when absent.
    #[serde(default)]
    pub globals: Option<Vec<String>>,
}

/// What settings look like, for error messages.
const SETTINGS_SHAPE: &str = concat!(
    "{\"script\": \"...\"}, or the host's compiled form ",
    "{\"bytecode\": ..., \"digest\": ..., \"globals\": [...]}"
);

impl LuaSettings {
    /// Parses the settings text the host gives a call.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        if text.trim().is_empty() {
            return Err(PluginError::invalid_input(format!(
                "health-lua runs the script its registry entry is configured with, and this entry has none \
                 (settings must be {SETTINGS_SHAPE})"
            )));
        }
        let settings: Self = serde_json::from_str(text).map_err(|e| {
            PluginError::invalid_input(format!("health-lua settings must be {SETTINGS_SHAPE}: {e}"))
        })?;
        if settings.script.is_none() && settings.bytecode.is_none() {
            return Err(PluginError::invalid_input(format!(
                "health-lua settings have neither a script nor bytecode (they must be {SETTINGS_SHAPE})"
            )));
        }
        Ok(settings)
    }

    /// What the checks of this entry run: the host's bytecode once it is checked (or why it cannot be used), else
    /// the source.
    pub fn program(self) -> Program {
        let Some(bytecode) = self.bytecode else {
            return Program::Source(self.script.unwrap_or_default());
        };
        let Some(digest) = self.digest else {
            return Program::Unusable(
                "the settings of this entry have bytecode without its digest".into(),
            );
        };
        let needs = match self.globals.as_deref().map(Needs::from_names) {
            None => Needs::ALL,
            Some(Ok(needs)) => needs,
            Some(Err(message)) => {
                return Program::Unusable(format!("the settings of this entry name an {message}"));
            }
        };
        match precompiled::Precompiled::decode(&bytecode, &digest) {
            Ok(checked) => Program::Bytecode {
                bytecode: checked.into_bytes().into(),
                needs,
            },
            Err(message) => Program::Unusable(message),
        }
    }
}

/// Runs `script` against `object` in a fresh Lua state: the verdict, or `None` for no opinion. Script failures are
/// verdicts (`unknown` with the reason), never errors.
pub fn run_check(script: &str, object: &serde_json::Value) -> Option<Health> {
    verdict_of(sandbox::run(
        &mut Program::Source(script.to_string()),
        object,
    ))
}

fn verdict_of(outcome: Result<Option<Health>, String>) -> Option<Health> {
    outcome.unwrap_or_else(|message| Some(Health::unknown(message)))
}

thread_local! {
    /// The settings text this instance last ran and its program: the checks of one call (all with the same
    /// settings) decode the bytecode once, or compile the source once.
    static PROGRAM: RefCell<Option<(String, Program)>> = const { RefCell::new(None) };
}

/// The plugin: the script comes from the call's settings.
#[derive(Debug)]
pub struct LuaHealth;

impl HealthCheck for LuaHealth {
    fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        let text = weft_sdk::settings::get();
        PROGRAM.with(|cache| {
            let mut cache = cache.borrow_mut();
            let program = match &mut *cache {
                Some((cached, program)) if *cached == text => program,
                slot => {
                    let program = LuaSettings::parse(&text)?.program();
                    &mut slot.insert((text, program)).1
                }
            };
            Ok(verdict_of(sandbox::run(program, obj.value())))
        })
    }
}

weft_sdk::export_health_check!(LuaHealth);

/// The program a resource-action call runs: the call's settings, parsed (the host's compiled form, or source).
pub fn action_program(settings: &str) -> Result<Program, PluginError> {
    Ok(LuaSettings::parse(settings)?.program())
}

/// The `resource-actions` export: the script comes from the call's settings, each call runs it once.
#[cfg(target_arch = "wasm32")]
mod action_export {
    use weft_sdk::bindings::health::weft::plugin::types::{ErrorKind, PluginError};
    use weft_sdk::bindings::resource_action::exports::weft::plugin::resource_actions::{
        ActionOffer, ActionParameter, Guest, Impact, ImpactedObject,
    };

    use crate::actions::{self, Operation};

    struct LuaActions;

    /// A failed script: the plugin understood the input and the script failed (Argo CD's error, word for word).
    fn failed(message: String) -> PluginError {
        PluginError {
            kind: ErrorKind::Failed,
            message,
        }
    }

    fn parsed(object: &str) -> Result<serde_json::Value, PluginError> {
        serde_json::from_str(object).map_err(|e| PluginError {
            kind: ErrorKind::InvalidInput,
            message: format!("the object is not JSON: {e}"),
        })
    }

    fn program() -> Result<crate::Program, PluginError> {
        crate::action_program(&weft_sdk::settings::get()).map_err(|e| PluginError {
            kind: ErrorKind::InvalidInput,
            message: e.message,
        })
    }

    impl Guest for LuaActions {
        fn discover(object: String) -> Result<Vec<ActionOffer>, PluginError> {
            let offers = actions::discover(&mut program()?, &parsed(&object)?).map_err(failed)?;
            Ok(offers
                .into_iter()
                .map(|offer| ActionOffer {
                    name: offer.name,
                    disabled: offer.disabled,
                    icon_class: offer.icon_class,
                    display_name: offer.display_name,
                    params: offer
                        .params
                        .into_iter()
                        .map(|param| ActionParameter {
                            name: param.name,
                            value: param.value,
                            type_: param.kind,
                            default: param.default,
                        })
                        .collect(),
                })
                .collect())
        }

        fn run(
            object: String,
            parameters: Vec<(String, String)>,
        ) -> Result<Vec<ImpactedObject>, PluginError> {
            let impacted =
                actions::run(&mut program()?, &parsed(&object)?, &parameters).map_err(failed)?;
            Ok(impacted
                .into_iter()
                .map(|item| ImpactedObject {
                    operation: match item.operation {
                        Operation::Patch => Impact::Patch,
                        Operation::Create => Impact::Create,
                    },
                    object: item.object.to_string(),
                })
                .collect())
        }
    }

    weft_sdk::export_resource_actions!(LuaActions);
}

#[cfg(test)]
mod tests;
