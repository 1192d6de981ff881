//! What a deploy gate implements: a sync's plan in, allow / warn / deny out, before anything is applied. The types
//! mirror the `deploy-gate` interface of `wit/plugin.wit`; [`export_gate!`](crate::export_gate) turns a
//! [`DeployGate`] into the `gate` world's export.
//!
//! ```
//! use weft_sdk::gate::{DeployGate, GateRequest, Reason, Verdict};
//! use weft_sdk::PluginError;
//!
//! /// Refuses every image without a digest.
//! pub struct DigestsOnly;
//!
//! impl DeployGate for DigestsOnly {
//!     fn evaluate(request: &GateRequest) -> Result<Verdict, PluginError> {
//!         let reasons: Vec<Reason> = request
//!             .images
//!             .iter()
//!             .filter(|image| image.digest.is_none() && !image.pinned_in_source)
//!             .map(|image| Reason::new("", "digest", format!("{} has no digest", image.reference)))
//!             .collect();
//!         Ok(Verdict::deny_if_any(reasons))
//!     }
//! }
//!
//! // In the plugin crate (crate-type = ["cdylib", "rlib"], feature "gate"):
//! // weft_sdk::export_gate!(DigestsOnly);
//! ```

use serde::{Deserialize, Serialize};

use crate::health::PluginError;
use crate::object::Object;

/// The app being synced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppFacts {
    /// The app's name.
    pub name: String,
    /// The org (tenant) it belongs to; `None` for the operator's own apps.
    pub org: Option<String>,
    /// The environment it deploys to (`main`, `staging`, ...).
    pub env: String,
    /// The destination cluster's name.
    pub cluster: String,
    /// The destination namespace, when the app has one.
    pub namespace: Option<String>,
}

/// What the sync will do to one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Create it.
    Create,
    /// Update it.
    Update,
    /// Delete it (prune).
    Prune,
    /// Leave it: it matches.
    Unchanged,
}

impl Change {
    /// The lowercase name (`create`, `update`, `prune`, `unchanged`).
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Create => "create",
            Change::Update => "update",
            Change::Prune => "prune",
            Change::Unchanged => "unchanged",
        }
    }

    /// Whether the object will exist after the sync (every change but a prune).
    pub fn remains(self) -> bool {
        self != Change::Prune
    }
}

/// One object of the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedObject {
    /// `group:Kind:namespace:name`, as `apps:Deployment:shop:web` (how Weft names objects everywhere).
    pub reference: String,
    /// What the sync does to it.
    pub change: Change,
    /// The desired object (for a prune: the live object being deleted); a Secret reduced to its kind, type and
    /// identifying metadata.
    pub manifest: serde_json::Value,
    /// A summary of the diff against the live object; empty for create and unchanged.
    pub diff: String,
}

impl PlannedObject {
    /// The manifest as an [`Object`], for its typed accessors (an error when it is not a JSON object).
    pub fn object(&self) -> Result<Object, PluginError> {
        Object::new(self.manifest.clone())
    }

    /// The object's kind.
    pub fn kind(&self) -> &str {
        self.manifest
            .get("kind")
            .and_then(|kind| kind.as_str())
            .unwrap_or_default()
    }
}

/// One container image of the desired objects.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// The reference as rendered.
    pub reference: String,
    /// The digest it was resolved to, when images are resolved for the app.
    pub digest: Option<String>,
    /// Whether the reference as rendered already names a digest.
    pub pinned_in_source: bool,
    /// The objects that run it.
    pub objects: Vec<String>,
}

/// The build that made the app's image, when Weft built it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildRecord {
    /// The commit built.
    pub commit: String,
    /// The image pushed.
    pub image: String,
    /// The build plan's kind.
    pub kind: String,
}

/// Everything a gate is asked about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateRequest {
    /// The app.
    pub app: AppFacts,
    /// The pinned commit being deployed.
    pub revision: String,
    /// Every object of the plan.
    pub objects: Vec<PlannedObject>,
    /// Every container image of the desired objects.
    pub images: Vec<Image>,
    /// The build, when there was one.
    pub build: Option<BuildRecord>,
}

/// One finding: which object broke which rule, and how.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Reason {
    /// The object at fault; empty when the finding is about the whole plan.
    pub object: String,
    /// The rule's name.
    pub rule: String,
    /// What is wrong, for a person.
    pub message: String,
}

impl Reason {
    /// A reason.
    pub fn new(
        object: impl Into<String>,
        rule: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Reason {
            object: object.into(),
            rule: rule.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.object.is_empty() {
            write!(f, "[{}] {}", self.rule, self.message)
        } else {
            write!(f, "{}: [{}] {}", self.object, self.rule, self.message)
        }
    }
}

/// A gate's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", content = "reasons", rename_all = "lowercase")]
pub enum Verdict {
    /// Go on.
    Allow,
    /// Go on, and record these.
    Warn(Vec<Reason>),
    /// Stop: nothing is applied.
    Deny(Vec<Reason>),
}

impl Verdict {
    /// `Deny(reasons)`, or `Allow` when there are none.
    pub fn deny_if_any(reasons: Vec<Reason>) -> Verdict {
        if reasons.is_empty() {
            Verdict::Allow
        } else {
            Verdict::Deny(reasons)
        }
    }

    /// `Warn(reasons)`, or `Allow` when there are none.
    pub fn warn_if_any(reasons: Vec<Reason>) -> Verdict {
        if reasons.is_empty() {
            Verdict::Allow
        } else {
            Verdict::Warn(reasons)
        }
    }

    /// The reasons given (none for `Allow`).
    pub fn reasons(&self) -> &[Reason] {
        match self {
            Verdict::Allow => &[],
            Verdict::Warn(reasons) | Verdict::Deny(reasons) => reasons,
        }
    }

    /// What it says, without its reasons.
    pub fn kind(&self) -> VerdictKind {
        match self {
            Verdict::Allow => VerdictKind::Allow,
            Verdict::Warn(_) => VerdictKind::Warn,
            Verdict::Deny(_) => VerdictKind::Deny,
        }
    }

    /// `allow`, `warn` or `deny`.
    pub fn as_str(&self) -> &'static str {
        self.kind().as_str()
    }
}

/// What a verdict says, without its reasons: how the host records a gate's answer (`allow`, `warn`, `deny`, the
/// words of [`VerdictKind::as_str`] and of its JSON) and how people read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerdictKind {
    /// Go on.
    Allow,
    /// Go on; the reasons are recorded.
    Warn,
    /// Stop: nothing is applied (on the host, also what a gate that failed says).
    Deny,
}

impl VerdictKind {
    /// `allow`, `warn` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictKind::Allow => "allow",
            VerdictKind::Warn => "warn",
            VerdictKind::Deny => "deny",
        }
    }
}

/// A deploy gate. Its configuration comes from [`settings::get`](crate::settings::get).
pub trait DeployGate {
    /// Judges one sync's plan. An error is a failed gate: the host denies the sync, naming the plugin.
    fn evaluate(request: &GateRequest) -> Result<Verdict, PluginError>;
}

#[cfg(feature = "gate")]
#[doc(hidden)]
pub mod glue {
    //! Between the generated `gate` exports and [`DeployGate`](super::DeployGate). Used by the export macro; not
    //! public API.

    use super::{
        AppFacts, BuildRecord, Change, DeployGate, GateRequest, Image, PlannedObject, Reason,
        Verdict,
    };
    use crate::bindings::gate::exports::weft::plugin::deploy_gate as wit;
    use crate::bindings::gate::weft::plugin::types;
    use crate::health::{ErrorKind, PluginError};

    fn request(request: wit::GateRequest) -> Result<GateRequest, PluginError> {
        let objects = request
            .objects
            .into_iter()
            .map(|object| {
                let manifest = serde_json::from_str(&object.manifest).map_err(|e| {
                    PluginError::invalid_input(format!("{}: {e}", object.reference))
                })?;
                Ok(PlannedObject {
                    reference: object.reference,
                    change: match object.change {
                        wit::Change::Create => Change::Create,
                        wit::Change::Update => Change::Update,
                        wit::Change::Prune => Change::Prune,
                        wit::Change::Unchanged => Change::Unchanged,
                    },
                    manifest,
                    diff: object.diff,
                })
            })
            .collect::<Result<Vec<_>, PluginError>>()?;
        Ok(GateRequest {
            app: AppFacts {
                name: request.app.name,
                org: request.app.org,
                env: request.app.env,
                cluster: request.app.cluster,
                namespace: request.app.namespace,
            },
            revision: request.revision,
            objects,
            images: request
                .images
                .into_iter()
                .map(|image| Image {
                    reference: image.reference,
                    digest: image.digest,
                    pinned_in_source: image.pinned_in_source,
                    objects: image.objects,
                })
                .collect(),
            build: request.build.map(|build| BuildRecord {
                commit: build.commit,
                image: build.image,
                kind: build.kind,
            }),
        })
    }

    fn reasons(reasons: Vec<Reason>) -> Vec<wit::Reason> {
        reasons
            .into_iter()
            .map(|reason| wit::Reason {
                object: reason.object,
                rule: reason.rule,
                message: reason.message,
            })
            .collect()
    }

    fn error_to_wit(error: PluginError) -> types::PluginError {
        types::PluginError {
            kind: match error.kind {
                ErrorKind::InvalidInput => types::ErrorKind::InvalidInput,
                ErrorKind::Unsupported => types::ErrorKind::Unsupported,
                ErrorKind::Failed => types::ErrorKind::Failed,
            },
            message: error.message,
        }
    }

    /// Evaluates with `G`, converting to and from the generated types.
    pub fn evaluate<G: DeployGate>(
        request_in: wit::GateRequest,
    ) -> Result<wit::Verdict, types::PluginError> {
        crate::guest::install_panic_hook();
        let request = request(request_in).map_err(error_to_wit)?;
        match G::evaluate(&request).map_err(error_to_wit)? {
            Verdict::Allow => Ok(wit::Verdict::Allow),
            Verdict::Warn(list) => Ok(wit::Verdict::Warn(reasons(list))),
            Verdict::Deny(list) => Ok(wit::Verdict::Deny(reasons(list))),
        }
    }
}

/// Exports a [`DeployGate`] as the component's `deploy-gate` interface (only when compiling for Wasm; natively the
/// crate is an ordinary library whose logic is unit-tested by calling [`DeployGate::evaluate`]).
#[cfg(feature = "gate")]
#[macro_export]
macro_rules! export_gate {
    ($gate:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            struct WeftGateExport;

            impl $crate::bindings::gate::exports::weft::plugin::deploy_gate::Guest for WeftGateExport {
                fn evaluate(
                    request: $crate::bindings::gate::exports::weft::plugin::deploy_gate::GateRequest,
                ) -> ::std::result::Result<
                    $crate::bindings::gate::exports::weft::plugin::deploy_gate::Verdict,
                    $crate::bindings::gate::weft::plugin::types::PluginError,
                > {
                    $crate::gate::glue::evaluate::<$gate>(request)
                }
            }

            $crate::bindings::gate::export_gate_world!(
                WeftGateExport with_types_in $crate::bindings::gate
            );
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_with_no_reasons_allows() {
        assert_eq!(Verdict::deny_if_any(vec![]), Verdict::Allow);
        assert_eq!(Verdict::warn_if_any(vec![]), Verdict::Allow);
        let reason = Reason::new(":Pod:a:b", "no-latest", "image x:latest");
        assert_eq!(
            Verdict::deny_if_any(vec![reason.clone()]).reasons(),
            std::slice::from_ref(&reason)
        );
        assert_eq!(reason.to_string(), ":Pod:a:b: [no-latest] image x:latest");
    }

    #[test]
    fn a_verdict_serialises_with_its_name_and_reasons() {
        let verdict = Verdict::Warn(vec![Reason::new("", "r", "m")]);
        let json = serde_json::to_value(&verdict).unwrap();
        assert_eq!(json["verdict"], "warn");
        assert_eq!(json["reasons"][0]["rule"], "r");
        assert_eq!(serde_json::from_value::<Verdict>(json).unwrap(), verdict);
    }

    #[test]
    fn a_verdict_s_word_is_the_word_its_json_and_its_kind_s_json_carry() {
        let reasons = || vec![Reason::new("", "r", "m")];
        for verdict in [
            Verdict::Allow,
            Verdict::Warn(reasons()),
            Verdict::Deny(reasons()),
        ] {
            let word = verdict.as_str();
            assert_eq!(serde_json::to_value(&verdict).unwrap()["verdict"], word);
            assert_eq!(serde_json::to_value(verdict.kind()).unwrap(), word);
            assert_eq!(
                serde_json::from_value::<VerdictKind>(word.into()).unwrap(),
                verdict.kind()
            );
        }
        assert_eq!(
            [VerdictKind::Allow, VerdictKind::Warn, VerdictKind::Deny].map(VerdictKind::as_str),
            ["allow", "warn", "deny"]
        );
    }
}
