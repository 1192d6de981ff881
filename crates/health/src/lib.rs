//! Assessing the health of objects: the host's own rules first, then the registered plugins in precedence order.
//!
//! Of Weft's crates it depends on `weft-plugin-host` (the plugins it calls), `weft-core` and the SDK, and on
//! `health-lua` to compile Lua scripts natively; it must not depend on the cluster (callers pass the objects a check
//! may read), sync or the server.

pub mod action_scripts;
pub mod actions;
mod assessor;
pub mod configured;
mod objects;
mod rules;
pub mod scripts;
pub mod settings;

pub use assessor::{AssessError, AssessOptions, Assessment, HealthAssessor};
pub use objects::ObjectSet;
pub use rules::{PENDING_DELETION_RULE, SECRET_RULE, pending_deletion};
pub use settings::{CelCheck, HealthChecks, LuaCheck};
