//! Assessing the health of objects: the host's own rules first, then the registered plugins in precedence order.

mod assessor;
mod objects;
mod rules;
pub mod scripts;
pub mod settings;

pub use assessor::{AssessError, AssessOptions, Assessment, HealthAssessor};
pub use objects::ObjectSet;
pub use rules::{PENDING_DELETION_RULE, SECRET_RULE, pending_deletion};
pub use settings::{CelCheck, HealthChecks, LuaCheck};
