//! What one pass of an ApplicationSet does: its template instantiated for every parameter set (the Applications it
//! wants), and which of the Applications it made before are deleted, which the fleet-level prune fuse holds. Pure.
//!
//! The fuse is the object-level one ([`PruneFuse`]) over the set's Applications, with its rules in order: a
//! generator that failed, or that yields nothing, deletes nothing; more deletions than `maxDeletions`, or a larger
//! share of the set's Applications than `maxRatio`, deletes nothing until exactly those deletions are confirmed.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::crd;
use super::generate::Params;
use weft_core::resource::is_dns_label;
use weft_sync::{KeepReason, PruneCandidate, PruneFuse, RenderOutcome};

/// The label on every Application a set makes, naming the set.
pub const SET_LABEL: &str = "weft.dev/applicationset";

/// Why a set's Applications cannot be made from its template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// A placeholder names no parameter of the set.
    #[error("{{{{{name}}}}} names no parameter (this set has: {known})")]
    UnknownParameter {
        /// The placeholder's parameter.
        name: String,
        /// The parameters there are.
        known: String,
    },
    /// A placeholder is not closed.
    #[error("{text:?}: a placeholder is not closed")]
    Unclosed {
        /// The string.
        text: String,
    },
    /// The instantiated name is not a DNS label.
    #[error("the template makes the name {0:?}, which is not a DNS label")]
    BadName(String),
    /// Two parameter sets make the same name.
    #[error("two parameter sets make the Application {0}")]
    Duplicate(String),
    /// The template lacks a part.
    #[error("template.{0} is missing")]
    Missing(&'static str),
}

/// `text` with every `{{ name }}` replaced by the parameter's value.
pub fn substitute(text: &str, params: &Params) -> Result<String, TemplateError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find("}}").ok_or_else(|| TemplateError::Unclosed {
            text: text.to_string(),
        })?;
        let name = after[..end].trim();
        let value = params
            .get(name)
            .ok_or_else(|| TemplateError::UnknownParameter {
                name: name.to_string(),
                known: params.keys().cloned().collect::<Vec<_>>().join(", "),
            })?;
        out.push_str(value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `value` with every string substituted (keys stay as written).
fn instantiate(value: &Value, params: &Params) -> Result<Value, TemplateError> {
    Ok(match value {
        Value::String(text) => Value::String(substitute(text, params)?),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| instantiate(item, params))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), instantiate(v, params)?)))
                .collect::<Result<Map<_, _>, TemplateError>>()?,
        ),
        other => other.clone(),
    })
}

/// The Applications `set` (an ApplicationSet object) wants for `param_sets`: each in the set's namespace (whatever
/// the template says), labelled with the set's name and owned by it.
pub fn applications(set: &Value, param_sets: &[Params]) -> Result<Vec<Value>, TemplateError> {
    let template = &set["spec"]["template"];
    let metadata = template
        .get("metadata")
        .ok_or(TemplateError::Missing("metadata"))?;
    let spec = template.get("spec").ok_or(TemplateError::Missing("spec"))?;
    let set_name = set["metadata"]["name"].as_str().unwrap_or_default();
    let namespace = set["metadata"]["namespace"].as_str().unwrap_or_default();
    let mut names = BTreeSet::new();
    let mut out = Vec::with_capacity(param_sets.len());
    for params in param_sets {
        let metadata = instantiate(metadata, params)?;
        let name = metadata["name"]
            .as_str()
            .ok_or(TemplateError::Missing("metadata.name"))?
            .to_string();
        if !is_dns_label(&name) {
            return Err(TemplateError::BadName(name));
        }
        if !names.insert(name.clone()) {
            return Err(TemplateError::Duplicate(name));
        }
        let mut labels = metadata["labels"].as_object().cloned().unwrap_or_default();
        labels.insert(SET_LABEL.into(), json!(set_name));
        let mut object = json!({
            "apiVersion": format!("{}/{}", crd::GROUP, crd::VERSION),
            "kind": crd::KIND,
            "metadata": {
                "name": name,
                "namespace": namespace,
                "labels": labels,
                "ownerReferences": [{
                    "apiVersion": format!("{}/{}", crd::GROUP, crd::VERSION),
                    "kind": crd::SET_KIND,
                    "name": set_name,
                    "uid": set["metadata"]["uid"],
                    "controller": true
                }]
            },
            "spec": instantiate(spec, params)?
        });
        for key in ["annotations", "finalizers"] {
            if let Some(value) = metadata.get(key) {
                object["metadata"][key] = value.clone();
            }
        }
        out.push(object);
    }
    Ok(out)
}

/// One pass of a set.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SetPlan {
    /// Applications to apply (all it wants; none when generating failed).
    pub apply: Vec<Value>,
    /// Names of its Applications to delete.
    pub delete: Vec<String>,
    /// Names of its Applications kept from deletion (by any of the fuse's rules).
    pub held: Vec<String>,
    /// Those kept because the fleet fuse tripped: what a confirmation must name, exactly.
    pub confirmable: Vec<String>,
    /// Why they are held, when the fuse tripped or generating failed or yielded nothing.
    pub reason: Option<String>,
}

/// The set's fleet-level fuse from its `syncPolicy.fuse` (the object-level defaults where it says nothing; no kind
/// is exempt).
pub fn fuse_of(set: &Value) -> PruneFuse {
    let fuse = &set["spec"]["syncPolicy"]["fuse"];
    let defaults = PruneFuse::default();
    PruneFuse {
        max_deletions: fuse["maxDeletions"]
            .as_u64()
            .map_or(defaults.max_deletions, |n| n as usize),
        max_ratio: fuse["maxRatio"].as_f64().unwrap_or(defaults.max_ratio),
        never_prune: Vec::new(),
    }
}

/// Why a pass could not make a set's Applications (nothing is deleted then; the set's status says why).
#[derive(Debug, thiserror::Error)]
pub enum SetFailure {
    /// A generator could not be read or run, or yields too many parameter sets.
    #[error(transparent)]
    Generate(#[from] crate::generate::GenerateError),
    /// A generator's repository is not one the set's org may name.
    #[error(transparent)]
    Tenancy(#[from] crate::tenancy::TenancyError),
    /// A generator's repository is neither https:// nor ssh:// (nor a file URL the server allows).
    #[error("{repo}: a generator's repository is https:// or ssh://")]
    Scheme {
        /// The repository.
        repo: String,
    },
    /// A generator's credential does not cover its repository or is not the org's.
    #[error(transparent)]
    Credential(#[from] weft_source::CredentialError),
    /// The task reading a generator's repository ended without an answer.
    #[error("the generator task failed: {0}")]
    Task(String),
    /// The template cannot be instantiated with a parameter set.
    #[error(transparent)]
    Template(#[from] TemplateError),
}

/// Plans a pass: `wanted` is what the template made (or why generating failed), `existing` the set's Applications
/// now, `confirmed` the deletions an admin confirmed (they go only when they are exactly the ones held).
pub fn plan(
    wanted: Result<Vec<Value>, SetFailure>,
    existing: &[Value],
    fuse: &PruneFuse,
    confirmed: Option<&BTreeSet<String>>,
) -> SetPlan {
    let name_of = |o: &Value| {
        o["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let (apply, outcome, failure) = match wanted {
        Ok(apply) => {
            let count = apply.len();
            (apply, RenderOutcome::Rendered(count), None)
        }
        Err(error) => (Vec::new(), RenderOutcome::Failed, Some(error)),
    };
    let wanted_names: BTreeSet<String> = apply.iter().map(name_of).collect();
    let candidates: Vec<PruneCandidate> = existing
        .iter()
        .filter(|o| !wanted_names.contains(&name_of(o)))
        .map(PruneCandidate::of)
        .collect();
    let gone: BTreeSet<String> = candidates.iter().map(|c| c.identity.name.clone()).collect();
    let confirmed = confirmed.is_some_and(|c| !gone.is_empty() && *c == gone);
    let decision = fuse.decide(existing.len(), candidates, outcome, confirmed);
    let reason = if let Some(error) = failure {
        (!decision.kept.is_empty())
            .then(|| format!("generating failed, so nothing is deleted: {error}"))
    } else if outcome == RenderOutcome::Rendered(0) && !decision.kept.is_empty() {
        Some("the generators yield no parameter sets, so nothing is deleted".into())
    } else {
        decision.tripped.as_ref().map(|trip| {
            format!(
                "the fleet fuse holds {} deletion(s): {}; confirm them to delete",
                trip.wanted, trip.reason
            )
        })
    };
    SetPlan {
        apply,
        delete: decision.delete.into_iter().map(|id| id.name).collect(),
        confirmable: decision
            .kept
            .iter()
            .filter(|(_, why)| *why == KeepReason::FuseTripped)
            .map(|(id, _)| id.name.clone())
            .collect(),
        held: decision.kept.into_iter().map(|(id, _)| id.name).collect(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> Value {
        json!({
            "apiVersion": "weft.dev/v1alpha1", "kind": "ApplicationSet",
            "metadata": {"name": "shops", "namespace": "shop-apps", "uid": "u-1"},
            "spec": {
                "generators": [],
                "template": {
                    "metadata": {"name": "shop-{{path.basename}}", "finalizers": ["weft.dev/resources-finalizer"]},
                    "spec": {"type": "yaml", "source": {"repoURL": "https://git.example/x.git", "path": "{{ path }}"},
                             "destination": {"namespace": "shop-{{path.basename}}"}}
                },
                "syncPolicy": {"fuse": {"maxDeletions": 5, "maxRatio": 0.5}}
            }
        })
    }

    fn params(dir: &str) -> Params {
        Params::from([
            ("path".into(), format!("apps/{dir}")),
            ("path.basename".into(), dir.into()),
        ])
    }

    fn names(objects: &[Value]) -> Vec<&str> {
        objects
            .iter()
            .map(|o| o["metadata"]["name"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn the_template_makes_one_owned_labelled_application_per_parameter_set() {
        let apps = applications(&set(), &[params("web"), params("api")]).unwrap();
        assert_eq!(names(&apps), ["shop-web", "shop-api"]);
        let web = &apps[0];
        assert_eq!(web["metadata"]["namespace"], "shop-apps");
        assert_eq!(web["metadata"]["labels"][SET_LABEL], "shops");
        assert_eq!(web["metadata"]["ownerReferences"][0]["uid"], "u-1");
        assert_eq!(
            web["metadata"]["finalizers"][0],
            "weft.dev/resources-finalizer"
        );
        assert_eq!(web["spec"]["source"]["path"], "apps/web");
        assert_eq!(web["spec"]["destination"]["namespace"], "shop-web");
    }

    #[test]
    fn an_unknown_placeholder_a_bad_name_or_a_duplicate_is_an_error() {
        let mut unknown = set();
        unknown["spec"]["template"]["spec"]["env"] = json!("{{ environment }}");
        let error = applications(&unknown, &[params("web")]).unwrap_err();
        assert!(error.to_string().contains("environment"), "{error}");
        assert!(error.to_string().contains("path.basename"), "{error}");
        let error = applications(&set(), &[params("Web_1")]).unwrap_err();
        assert_eq!(error, TemplateError::BadName("shop-Web_1".into()));
        let error = applications(&set(), &[params("web"), params("web")]).unwrap_err();
        assert_eq!(error, TemplateError::Duplicate("shop-web".into()));
        assert!(substitute("{{ open", &Params::new()).is_err());
    }

    #[test]
    fn a_failed_or_empty_generation_deletes_nothing() {
        let existing = applications(&set(), &[params("web"), params("api")]).unwrap();
        let fuse = fuse_of(&set());
        let failed = plan(
            Err(SetFailure::Generate(
                crate::generate::GenerateError::Repository {
                    repo: "https://git.example.com/fleet".into(),
                    message: "the repository is unreachable".into(),
                },
            )),
            &existing,
            &fuse,
            None,
        );
        assert!(failed.apply.is_empty() && failed.delete.is_empty());
        assert_eq!(failed.held.len(), 2);
        assert!(failed.reason.unwrap().contains("unreachable"));
        assert!(
            failed.confirmable.is_empty(),
            "nothing to confirm: generating failed"
        );
        let empty = plan(Ok(vec![]), &existing, &fuse, None);
        assert!(empty.delete.is_empty());
        assert_eq!(empty.held.len(), 2);
    }

    #[test]
    fn a_sudden_shrink_is_held_until_exactly_those_deletions_are_confirmed() {
        let all: Vec<Params> = ["a", "b", "c", "d"].iter().map(|d| params(d)).collect();
        let existing = applications(&set(), &all).unwrap();
        let fuse = fuse_of(&set());
        let shrunk = applications(&set(), &all[..1]).unwrap();
        let held = plan(Ok(shrunk.clone()), &existing, &fuse, None);
        assert!(held.delete.is_empty());
        assert_eq!(held.held, ["shop-b", "shop-c", "shop-d"]);
        assert_eq!(held.confirmable, held.held);
        assert!(held.reason.unwrap().contains("3 of 4"));
        assert_eq!(held.apply.len(), 1, "what it still wants is applied");
        let other = BTreeSet::from(["shop-b".to_string()]);
        assert!(
            plan(Ok(shrunk.clone()), &existing, &fuse, Some(&other))
                .delete
                .is_empty()
        );
        let exact: BTreeSet<String> = held.held.iter().cloned().collect();
        let confirmed = plan(Ok(shrunk), &existing, &fuse, Some(&exact));
        assert_eq!(confirmed.delete, ["shop-b", "shop-c", "shop-d"]);
        // Within the fuse, deletions go without a confirmation.
        let one_less = applications(&set(), &all[..3]).unwrap();
        assert_eq!(
            plan(Ok(one_less), &existing, &fuse, None).delete,
            ["shop-d"]
        );
    }
}
