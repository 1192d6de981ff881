//! Flux-style CEL health checks inside Weft's sandbox.
//!
//! One component serves every CEL check: the registry holds a `cel:<group>/<Kind>` entry per configured check, and
//! the host hands the entry's settings to each call, in the shape Flux users know from `healthCheckExprs`:
//!
//! ```json
//! {"current": "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
//!  "inProgress": "...", "failed": "...", "message": "..."}
//! ```
//!
//! The verdict, in order (Flux's order):
//! 1. `status.observedGeneration` set and not `metadata.generation`: progressing, the controller has not seen the
//!    latest spec;
//! 2. `inProgress` true: progressing; 3. `failed` true: degraded; 4. `current` true: healthy;
//! 5. none true: progressing (Flux keeps waiting).
//!
//! An expression that cannot be evaluated (a field the object does not have yet) is progressing too, with a message
//! naming the expression and the error: Flux waits in that case, and guarding with `has()` is the fix. The message
//! is the `message` expression's value when one is set (and evaluates), else the `Ready` condition's message.
//! Expressions see the object as `self` and its top-level fields by name (`status`, `metadata`, `spec`).

use serde::Deserialize;
use weft_cel::Program;
use weft_sdk::{Context, Health, HealthCheck, Object, PluginError};

/// What a `cel:` registry entry is configured with (Flux's field names).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CelSettings {
    /// True when the object is ready.
    pub current: String,
    /// True while the object is still converging.
    #[serde(default)]
    pub in_progress: Option<String>,
    /// True when the object failed.
    #[serde(default)]
    pub failed: Option<String>,
    /// The message shown with the verdict.
    #[serde(default)]
    pub message: Option<String>,
}

/// A check's expressions, compiled.
#[derive(Debug, Clone)]
pub struct CelCheck {
    current: Program,
    in_progress: Option<Program>,
    failed: Option<Program>,
    message: Option<Program>,
}

/// An expression that does not compile, naming which one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpressionError {
    /// The field (`current`, `inProgress`, `failed`, `message`).
    pub field: &'static str,
    /// The expression's source.
    pub expression: String,
    /// What is wrong and where.
    pub error: weft_cel::CompileError,
}

impl std::fmt::Display for ExpressionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} expression {:?} {}",
            self.field, self.expression, self.error
        )
    }
}

impl CelCheck {
    /// Compiles every expression of the settings.
    pub fn compile(settings: &CelSettings) -> Result<CelCheck, ExpressionError> {
        let compile = |field: &'static str, source: &str| {
            Program::compile(source).map_err(|error| ExpressionError {
                field,
                expression: source.to_string(),
                error,
            })
        };
        let optional = |field, source: &Option<String>| {
            source.as_deref().map(|s| compile(field, s)).transpose()
        };
        Ok(CelCheck {
            current: compile("current", &settings.current)?,
            in_progress: optional("inProgress", &settings.in_progress)?,
            failed: optional("failed", &settings.failed)?,
            message: optional("message", &settings.message)?,
        })
    }

    /// The verdict on one object (see the crate docs for the order).
    pub fn assess(&self, object: &Object) -> Health {
        if let (Some(generation), Some(observed)) =
            (object.generation(), object.observed_generation())
            && generation != observed
        {
            return Health::progressing(format!(
                "Waiting for the controller to observe generation {generation} (observed {observed})"
            ));
        }
        let message = || self.message(object);
        let checks = [
            (
                "inProgress",
                self.in_progress.as_ref(),
                Health::progressing as fn(String) -> Health,
            ),
            ("failed", self.failed.as_ref(), Health::degraded),
            ("current", Some(&self.current), Health::healthy),
        ];
        for (field, program, verdict) in checks {
            let Some(program) = program else { continue };
            match program.evaluate_bool(object.value()) {
                Ok(true) => return verdict(message()),
                Ok(false) => {}
                Err(error) => {
                    return Health::progressing(format!(
                        "{field} expression {:?} cannot be evaluated yet: {error}",
                        program.source()
                    ));
                }
            }
        }
        Health::progressing(message())
    }

    fn message(&self, object: &Object) -> String {
        let configured = self
            .message
            .as_ref()
            .and_then(|program| program.evaluate_string(object.value()).ok());
        configured
            .or_else(|| object.condition("Ready").map(|c| c.message().to_string()))
            .unwrap_or_default()
    }
}

/// Parses and compiles the settings text the host gives a call.
pub fn check_from_settings(text: &str) -> Result<CelCheck, PluginError> {
    if text.trim().is_empty() {
        return Err(PluginError::invalid_input(
            "health-cel runs the expressions its registry entry is configured with, and this entry has none",
        ));
    }
    let settings: CelSettings = serde_json::from_str(text).map_err(|e| {
        PluginError::invalid_input(format!(
            "health-cel settings must be {{\"current\": ..., \"inProgress\"?, \"failed\"?, \"message\"?}}: {e}"
        ))
    })?;
    CelCheck::compile(&settings).map_err(|e| PluginError::invalid_input(e.to_string()))
}

/// The plugin: the expressions come from the call's settings.
#[derive(Debug)]
pub struct CelHealth;

thread_local! {
    /// The last settings compiled on this thread: a batch compiles its expressions once.
    static COMPILED: std::cell::RefCell<Option<(String, std::rc::Rc<CelCheck>)>> =
        const { std::cell::RefCell::new(None) };
}

/// The compiled check for settings text, compiled once per distinct text on this thread.
fn cached_check(settings: String) -> Result<std::rc::Rc<CelCheck>, PluginError> {
    let cached = COMPILED.with(|cache| {
        cache
            .borrow()
            .as_ref()
            .filter(|(text, _)| *text == settings)
            .map(|(_, check)| check.clone())
    });
    if let Some(check) = cached {
        return Ok(check);
    }
    let check = std::rc::Rc::new(check_from_settings(&settings)?);
    COMPILED.with(|cache| *cache.borrow_mut() = Some((settings, check.clone())));
    Ok(check)
}

impl HealthCheck for CelHealth {
    fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        let check = cached_check(weft_sdk::settings::get())?;
        Ok(Some(check.assess(obj)))
    }
}

weft_sdk::export_health_check!(CelHealth);

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sdk::Status;

    fn settings() -> CelSettings {
        CelSettings {
            current: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')".into(),
            in_progress: Some(
                "status.conditions.exists(c, c.type == 'Reconciling' && c.status == 'True')".into(),
            ),
            failed: Some(
                "status.conditions.exists(c, c.type == 'Ready' && c.status == 'False')".into(),
            ),
            message: None,
        }
    }

    fn widget(conditions: serde_json::Value) -> Object {
        Object::new(serde_json::json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "generation": 2},
            "status": {"observedGeneration": 2, "conditions": conditions}
        }))
        .unwrap()
    }

    #[test]
    fn flux_order_in_progress_then_failed_then_current() {
        let check = CelCheck::compile(&settings()).unwrap();
        let ready =
            widget(serde_json::json!([{"type": "Ready", "status": "True", "message": "up"}]));
        assert_eq!(check.assess(&ready), Health::healthy("up"));
        let failed =
            widget(serde_json::json!([{"type": "Ready", "status": "False", "message": "down"}]));
        assert_eq!(check.assess(&failed), Health::degraded("down"));
        let both = widget(serde_json::json!([
            {"type": "Ready", "status": "False", "message": "down"},
            {"type": "Reconciling", "status": "True"}
        ]));
        assert_eq!(check.assess(&both).status, Status::Progressing);
        let none = widget(serde_json::json!([]));
        assert_eq!(check.assess(&none), Health::progressing(""));
    }

    #[test]
    fn an_unobserved_generation_and_missing_fields_are_progressing() {
        let check = CelCheck::compile(&settings()).unwrap();
        let stale = Object::new(serde_json::json!({
            "metadata": {"generation": 3}, "status": {"observedGeneration": 2}
        }))
        .unwrap();
        assert_eq!(
            check.assess(&stale).message,
            "Waiting for the controller to observe generation 3 (observed 2)"
        );
        let empty = Object::new(serde_json::json!({"metadata": {"name": "x"}})).unwrap();
        let verdict = check.assess(&empty);
        assert_eq!(verdict.status, Status::Progressing);
        assert!(
            verdict.message.contains("inProgress expression")
                && verdict.message.contains("undeclared reference to 'status'"),
            "{verdict:?}"
        );
    }

    #[test]
    fn the_message_expression_wins() {
        let mut with_message = settings();
        with_message.message = Some("'ready: ' + status.conditions[0].status".into());
        let check = CelCheck::compile(&with_message).unwrap();
        let ready =
            widget(serde_json::json!([{"type": "Ready", "status": "True", "message": "up"}]));
        assert_eq!(check.assess(&ready), Health::healthy("ready: True"));
    }

    #[test]
    fn compile_errors_name_the_field_and_expression() {
        let mut broken = settings();
        broken.failed = Some("status.conditions.exists(c, ".into());
        let error = CelCheck::compile(&broken).unwrap_err();
        assert_eq!(error.field, "failed");
        assert!(
            error
                .to_string()
                .starts_with("failed expression \"status.conditions.exists(c, \" at column"),
            "{error}"
        );
    }

    #[test]
    fn the_plugin_reads_its_expressions_from_the_settings() {
        let ready =
            widget(serde_json::json!([{"type": "Ready", "status": "True", "message": "up"}]));
        let text =
            serde_json::json!({"current": "status.conditions[0].status == 'True'"}).to_string();
        let verdict = weft_sdk::settings::with_settings(&text, || {
            weft_sdk::testing::assess::<CelHealth>(&ready)
        });
        assert_eq!(verdict, Ok(Some(Health::healthy("up"))));
        assert!(weft_sdk::testing::assess::<CelHealth>(&ready).is_err());
        let unknown_field =
            weft_sdk::settings::with_settings("{\"current\": \"true\", \"ready\": \"x\"}", || {
                weft_sdk::testing::assess::<CelHealth>(&ready)
            });
        assert!(
            unknown_field
                .unwrap_err()
                .message
                .contains("settings must be")
        );
    }
}
