//! Flux (`*.toolkit.fluxcd.io`): suspended when `spec.suspend` says so; otherwise the `Ready` condition's reason,
//! with a verdict from counting the conditions that say "working" and "succeeded", as Argo CD's Flux scripts do.

use weft_sdk::{Health, Object, Status, Value};

/// How a Flux kind's conditions are counted.
struct Counting {
    /// Whether the kind has `spec.suspend`.
    suspendable: bool,
    /// The `Ready` status that counts as still working (`Unknown`; `False` for the image reflector's kinds).
    ready_working: &'static str,
    /// The `Reconciling` reasons that count as working; empty for any.
    reconciling_reasons: &'static [&'static str],
    /// Further condition types whose `True` counts as a success (`Released`, `ArtifactInStorage`, ...).
    also_succeeded: &'static [&'static str],
    /// Whether a `True` `ArtifactOutdated` condition adds its reason to the message (the source kinds).
    artifact_outdated: bool,
    /// How many successes make the object healthy.
    successes: usize,
    /// The verdict when two conditions say "working" (progressing; degraded for receivers, which only retry).
    working: Status,
}

impl Counting {
    const fn ready_only() -> Counting {
        Counting {
            suspendable: true,
            ready_working: "Unknown",
            reconciling_reasons: &[],
            also_succeeded: &[],
            artifact_outdated: false,
            successes: 1,
            working: Status::Progressing,
        }
    }

    /// Whether a `True` `Reconciling` condition with `reason` counts as working.
    fn reconciling_counts(&self, reason: &str) -> bool {
        self.reconciling_reasons.is_empty() || self.reconciling_reasons.contains(&reason)
    }

    fn assess(&self, obj: &Object) -> Health {
        if self.suspendable && obj.bool("spec.suspend") == Some(true) {
            return Health::suspended(format!("{} is suspended", obj.kind()));
        }
        if obj.get("status.conditions").is_none_or(Value::is_null) {
            return Health::progressing("Status unknown");
        }
        let (mut working, mut succeeded) = (0, 0);
        let mut message = String::new();
        for c in obj.conditions() {
            match c.condition_type() {
                "Ready" => {
                    if c.is_true() {
                        succeeded += 1;
                    } else if c.status() == self.ready_working {
                        working += 1;
                    }
                    message = c.reason().to_string();
                }
                "Reconciling" if c.is_true() && self.reconciling_counts(c.reason()) => working += 1,
                "ArtifactOutdated" if self.artifact_outdated && c.is_true() => {
                    message = format!("{message} {}", c.reason());
                }
                other if c.is_true() && self.also_succeeded.contains(&other) => succeeded += 1,
                _ => {}
            }
        }
        let status = if working == 2 {
            self.working
        } else if succeeded == self.successes {
            Status::Healthy
        } else {
            Status::Degraded
        };
        Health::new(status, message)
    }
}

/// The source controller's kinds: ready and with an artifact in storage.
const SOURCE: Counting = Counting {
    also_succeeded: &["ArtifactInStorage"],
    artifact_outdated: true,
    successes: 2,
    ..Counting::ready_only()
};

/// `HelmRelease`: ready and released (or tested).
pub(crate) fn helm_release(obj: &Object) -> Health {
    const HELM_RELEASE: Counting = Counting {
        also_succeeded: &["Released", "TestSuccess"],
        successes: 2,
        ..Counting::ready_only()
    };
    HELM_RELEASE.assess(obj)
}

/// `Kustomization`.
pub(crate) fn kustomization(obj: &Object) -> Health {
    Counting::ready_only().assess(obj)
}

/// `ImageUpdateAutomation`.
pub(crate) fn image_update_automation(obj: &Object) -> Health {
    Counting::ready_only().assess(obj)
}

/// `ImageRepository`: a scan in progress counts as working.
pub(crate) fn image_repository(obj: &Object) -> Health {
    const IMAGE_REPOSITORY: Counting = Counting {
        ready_working: "False",
        reconciling_reasons: &["NewGeneration", "Scanning"],
        ..Counting::ready_only()
    };
    IMAGE_REPOSITORY.assess(obj)
}

/// `ImagePolicy` (which cannot be suspended): applying the policy counts as working.
pub(crate) fn image_policy(obj: &Object) -> Health {
    const IMAGE_POLICY: Counting = Counting {
        suspendable: false,
        ready_working: "False",
        reconciling_reasons: &["NewGeneration", "AccessingRepository", "ApplyingPolicy"],
        ..Counting::ready_only()
    };
    IMAGE_POLICY.assess(obj)
}

/// `Receiver`: a receiver that is not ready is degraded, retrying or not.
pub(crate) fn receiver(obj: &Object) -> Health {
    const RECEIVER: Counting = Counting {
        ready_working: "False",
        working: Status::Degraded,
        ..Counting::ready_only()
    };
    RECEIVER.assess(obj)
}

/// `GitRepository`, `Bucket`, `HelmChart`, `OCIRepository`.
pub(crate) fn source(obj: &Object) -> Health {
    SOURCE.assess(obj)
}

/// `HelmRepository`: OCI repositories report nothing in their status, so they are healthy as they are.
pub(crate) fn helm_repository(obj: &Object) -> Health {
    if obj.bool("spec.suspend") != Some(true) && obj.str("spec.type") == Some("oci") {
        return Health::healthy(
            "Helm repositories of type 'oci' do not contain any information in the status.",
        );
    }
    SOURCE.assess(obj)
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;

    use crate::tests::verdict;

    #[test]
    fn suspended_and_unreported() {
        let got = verdict(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: g}\nspec: {suspend: true}\n",
        );
        assert_eq!(got, Some(Health::suspended("GitRepository is suspended")));
        let got = verdict(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: k}\nspec: {}\n",
        );
        assert_eq!(got, Some(Health::progressing("Status unknown")));
    }

    #[test]
    fn sources_add_an_outdated_artifact_to_the_message() {
        let got = verdict(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata: {name: c}\nspec: {}\nstatus:\n  conditions:\n  \
             - {type: Ready, status: 'True', reason: Succeeded}\n  \
             - {type: ArtifactOutdated, status: 'True', reason: NewChart}\n  \
             - {type: ArtifactInStorage, status: 'True', reason: Succeeded}\n",
        );
        assert_eq!(got, Some(Health::healthy("Succeeded NewChart")));
    }
}
