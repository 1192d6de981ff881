//! A deploy gate that runs Kubernetes `ValidatingAdmissionPolicy` validations (admissionregistration.k8s.io/v1,
//! CEL) against a sync's rendered objects before anything is applied, so the policies a team already enforces in
//! its clusters stop a deploy before it starts rather than halfway through.
//!
//! # Settings
//!
//! ```json
//! {"policies": ["<YAML or JSON text of one or more ValidatingAdmissionPolicy documents>", ...],
//!  "action": "deny",
//!  "plurals": {"example.com/Octopus": "octopi"}}
//! ```
//!
//! - `policies`: the same YAML that is applied to the clusters, pasted as is; multi-document text and `List`
//!   documents are read, and documents of other kinds (`ValidatingAdmissionPolicyBinding`, ...) are skipped. An
//!   entry may also be a document as a JSON object. No policy at all is an error.
//! - `action`: `deny` (the default) stops the sync on any finding; `warn` lets it go on and records the findings.
//!   It stands in for a binding's `validationActions`: bindings are not read.
//! - `plurals` (optional): resource names for kinds whose plural the convention does not give (see below).
//!
//! In `weft.toml`:
//!
//! ```toml
//! [[gate]]
//! name = "cluster-policies"
//! plugin = "gate-cel"
//! envs = ["main"]
//! [gate.settings]
//! policies = ['''
//! apiVersion: admissionregistration.k8s.io/v1
//! kind: ValidatingAdmissionPolicy
//! metadata:
//!   name: demo-policy.example.com
//! spec:
//!   matchConstraints:
//!     resourceRules:
//!     - apiGroups: ["apps"]
//!       apiVersions: ["v1"]
//!       operations: ["CREATE", "UPDATE"]
//!       resources: ["deployments"]
//!   validations:
//!   - expression: "object.spec.replicas <= 5"
//! ''']
//! ```
//!
//! Every finding is a reason whose `object` is the planned object's reference and whose `rule` is the policy's
//! name.
//!
//! # What of the policy is honoured
//!
//! - `spec.matchConstraints.resourceRules` and `excludeResourceRules`: `apiGroups`, `apiVersions`, `resources`
//!   (`*`, `*/*`, or a plural name; subresources never match a rendered object), `operations`, `resourceNames` and
//!   `scope`. The operation comes from the planned change: create → `CREATE`, update → `UPDATE`, unchanged →
//!   `UPDATE` (it is reapplied), prune → `DELETE`. A kind's resource name is derived (there is no discovery before
//!   the deploy): lowercase; `s`/`x`/`z`/`ch`/`sh` → `+es`; consonant + `y` → `ies`; else `+s`; with the
//!   built-in exceptions (`Endpoints` → `endpoints`) and the settings' `plurals`. `matchPolicy: Equivalent` matches
//!   exactly: equivalent versions need discovery.
//! - `namespaceSelector` and `objectSelector` (`matchLabels`, and `matchExpressions` with `In`, `NotIn`, `Exists`,
//!   `DoesNotExist`). Limitation: a namespace's labels are not known before the deploy, so a namespace selector
//!   sees only `kubernetes.io/metadata.name` (the label Kubernetes puts on every namespace, holding its name), plus
//!   the labels of a `Namespace` the same plan creates or updates. As in Kubernetes, it never skips a
//!   cluster-scoped object, and a `Namespace` is selected by its own labels. Whether a kind is cluster-scoped
//!   comes from a table of well-known kinds (and a `Cluster` prefix when the manifest names no namespace).
//! - `spec.matchConditions`: all must be true for the policy to apply; a false one skips it whatever the others
//!   give; otherwise an error is a failure (see `failurePolicy`).
//! - `spec.variables`: evaluated in order, each seeing the earlier ones as `variables.<name>`. A variable that
//!   fails only matters to the expressions that read it, which fail with its error (as Kubernetes' lazy variables
//!   do).
//! - `spec.validations`: `expression`, `message`, `messageExpression`, `reason` (checked, not reported). A false
//!   expression is a finding whose message is the message expression's value when that is a non-empty
//!   single-line string, else `message`, else Kubernetes' `failed expression: <expression>`.
//! - `spec.failurePolicy`: `Fail` (the default) makes an expression that cannot be evaluated a finding naming the
//!   expression and the error; `Ignore` skips it. An expression that does not compile fails the whole gate
//!   (`invalid_input`, naming the policy and the expression: the host then fails closed) under `Fail`, and is
//!   skipped like any failing expression under `Ignore`.
//!
//! Expressions see `object` (the desired manifest; null for a delete), `oldObject` (the object being deleted for
//! a delete; null otherwise: only the desired manifest is known before the deploy, so `oldObject`-based
//! transition rules see no old object), `request` (a minimal `AdmissionRequest`: `operation`, `name`, `namespace`,
//! `kind`, `resource`, `requestKind`, `requestResource`, `subResource`, `options`, `dryRun` false, and an empty
//! `userInfo`: no user is known, so user-based exemptions never apply), `namespaceObject` (the plan's `Namespace`
//! when it has one, else a `Namespace` with only its name and name label; null for cluster-scoped objects),
//! `params` (null) and `variables`. Secrets arrive without their data.
//!
//! The objects are the rendered manifests, not what the API server would validate: nothing is defaulted, so a
//! field the API server fills in (a Deployment's `spec.replicas`, a container's `imagePullPolicy`) is absent unless
//! the manifest sets it. Guard such fields with `has()` or `.?field.orValue(...)`, as policies for objects created
//! without them must anyway.
//!
//! # Not supported
//!
//! - `spec.paramKind`: a policy with params is refused (`invalid_input` naming it); there are no param objects
//!   before the deploy. Write the values into the expressions, or leave that policy to the cluster.
//! - `spec.auditAnnotations` are ignored: there is no audit log before a deploy.
//! - `authorizer`, and Kubernetes' CEL libraries beyond what `weft-cel` covers (`quantity`, `url`, `ip`, `cidr`,
//!   `format`, timestamps and durations, type values): an expression using them does not compile.
//! - Field names that Kubernetes escapes (`__dash__`, `__dot__`) are not unescaped; index such fields as maps.

mod evaluate;
mod matching;
mod plural;
mod policy;
mod settings;

use std::collections::BTreeMap;

use serde_json::Value;
use weft_sdk::PluginError;
use weft_sdk::gate::{DeployGate, GateRequest, Verdict};

pub use evaluate::CompiledPolicy;
pub use matching::{Operation, Target};
pub use plural::plural;
pub use policy::{Policy, parse_all};
pub use settings::{Action, Settings};

/// Runs the settings' policies against every planned object.
pub fn run(settings: &Settings, request: &GateRequest) -> Result<Verdict, PluginError> {
    let policies = policy::parse_all(&settings.policies)?
        .iter()
        .map(CompiledPolicy::compile)
        .collect::<Result<Vec<_>, _>>()?;
    let namespaces: BTreeMap<String, Value> = request
        .objects
        .iter()
        .filter(|object| {
            object.change.remains()
                && object.kind() == "Namespace"
                && object.manifest.get("apiVersion").and_then(Value::as_str) == Some("v1")
        })
        .filter_map(|object| {
            let name = object.manifest.pointer("/metadata/name")?.as_str()?;
            Some((name.to_string(), object.manifest.clone()))
        })
        .collect();
    let mut reasons = Vec::new();
    for object in &request.objects {
        let target = Target::of(object, &request.app, &namespaces, &settings.plurals);
        let mut activation = None;
        for policy in policies.iter().filter(|policy| policy.applies(&target)) {
            let activation = activation
                .get_or_insert_with(|| evaluate::activation(object, &target, &namespaces));
            policy.evaluate(object, activation, &mut reasons);
        }
    }
    Ok(match settings.action {
        Action::Deny => Verdict::deny_if_any(reasons),
        Action::Warn => Verdict::warn_if_any(reasons),
    })
}

/// The gate: its policies come from the call's settings.
#[derive(Debug)]
pub struct CelGate;

impl DeployGate for CelGate {
    fn evaluate(request: &GateRequest) -> Result<Verdict, PluginError> {
        let settings = Settings::parse(&weft_sdk::settings::get())?;
        run(&settings, request)
    }
}

#[cfg(test)]
mod tests;

weft_sdk::export_gate!(CelGate);
