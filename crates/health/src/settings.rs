//! `[health]` in `weft.toml`: the Lua and CEL checks an operator brings from Argo CD and Flux.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Health checks brought from Argo CD (Lua) or Flux (CEL), run by the `health-lua` and `health-cel` plugins
/// (`[health]`). See [`crate::scripts`] for how they become registry entries and the lookup order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HealthChecks {
    /// Directories in Argo CD's `resource_customizations/<group>/<Kind>/health.lua` layout (`_` for any group or
    /// kind).
    pub lua_dirs: Vec<PathBuf>,
    /// `argocd-cm` ConfigMap files whose health customizations to use.
    pub argocd_cm: Vec<PathBuf>,
    /// Lua scripts, one key each (`[[health.lua]]`).
    pub lua: Vec<LuaCheck>,
    /// CEL checks, one key each (`[[health.cel]]`).
    pub cel: Vec<CelCheck>,
}

/// A Lua health script for a key (`[[health.lua]]`): the script inline or in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LuaCheck {
    /// `group/Kind` (`Kind` alone for the core group; `*` globs, as plugin manifests write keys).
    pub kind: String,
    /// The script.
    #[serde(default)]
    pub script: Option<String>,
    /// A file holding the script (relative to the configuration file).
    #[serde(default)]
    pub script_file: Option<PathBuf>,
}

/// A CEL health check for a key (`[[health.cel]]`), in the shape of Flux's `healthCheckExprs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CelCheck {
    /// `group/Kind`, as for [`LuaCheck::kind`].
    pub kind: String,
    /// True when the object is ready (healthy).
    pub current: String,
    /// True while it converges (progressing); evaluated first.
    #[serde(default)]
    pub in_progress: Option<String>,
    /// True when it failed (degraded); evaluated second.
    #[serde(default)]
    pub failed: Option<String>,
    /// The message shown with the verdict (default: the Ready condition's message).
    #[serde(default)]
    pub message: Option<String>,
}

impl CelCheck {
    /// The expressions that are set, with Flux's field names.
    pub fn expressions(&self) -> Vec<(&'static str, &str)> {
        let mut all = vec![("current", self.current.as_str())];
        for (field, expression) in [
            ("inProgress", &self.in_progress),
            ("failed", &self.failed),
            ("message", &self.message),
        ] {
            if let Some(expression) = expression {
                all.push((field, expression.as_str()));
            }
        }
        all
    }

    /// Compiles every expression: the first that does not compile, as `(field, message naming the kind and the
    /// expression)`.
    pub fn compile(&self) -> Result<(), (&'static str, String)> {
        for (field, expression) in self.expressions() {
            if let Err(error) = weft_cel::Program::compile(expression) {
                return Err((
                    field,
                    format!("{}: {field} expression {expression:?} {error}", self.kind),
                ));
            }
        }
        Ok(())
    }
}
