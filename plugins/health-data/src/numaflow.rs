//! Numaflow (`numaflow.numaproj.io`): Pipelines, Vertices, MonoVertices and InterStepBufferServices report a
//! `phase` and health conditions; Numaplane marks a child whose progressive upgrade failed with a label.

use weft_sdk::shapes::observed_generation_matches;
use weft_sdk::{Health, Object};

use crate::lua::is_set;

/// How one Numaflow kind is read.
struct Kind {
    /// The kind's name in messages.
    name: &'static str,
    /// Phases in which the kind is paused (reported healthy).
    paused: &'static [&'static str],
    /// Whether a failed health condition's own message explains the failure; otherwise a fixed one does.
    condition_explains: bool,
    /// Whether Numaplane's failed-progressive-upgrade label is honoured.
    progressive_label: bool,
}

const PROGRESSIVE_RESULT_LABEL: &str = "numaplane.numaproj.io/progressive-result-state";

const INTER_STEP_BUFFER_SERVICE: Kind = Kind {
    name: "InterStepBufferService",
    paused: &[],
    condition_explains: true,
    progressive_label: true,
};
const MONO_VERTEX: Kind = Kind {
    name: "MonoVertex",
    paused: &["Paused"],
    condition_explains: false,
    progressive_label: true,
};
const PIPELINE: Kind = Kind {
    name: "Pipeline",
    paused: &["Paused", "Pausing"],
    condition_explains: false,
    progressive_label: true,
};
const VERTEX: Kind = Kind {
    name: "Vertex",
    paused: &["Paused"],
    condition_explains: true,
    progressive_label: false,
};

/// An InterStepBufferService.
pub(crate) fn inter_step_buffer_service(obj: &Object) -> Health {
    assess(obj, &INTER_STEP_BUFFER_SERVICE)
}

/// A MonoVertex.
pub(crate) fn mono_vertex(obj: &Object) -> Health {
    assess(obj, &MONO_VERTEX)
}

/// A Pipeline.
pub(crate) fn pipeline(obj: &Object) -> Health {
    assess(obj, &PIPELINE)
}

/// A Vertex.
pub(crate) fn vertex(obj: &Object) -> Health {
    assess(obj, &VERTEX)
}

/// Once the controller has seen the current spec: a `False` condition, phase `Failed` or a failed progressive
/// upgrade is degraded; a paused or running phase is healthy. Anything else is still progressing.
fn assess(obj: &Object, kind: &Kind) -> Health {
    let waiting = Health::progressing(format!("Waiting for {} status", kind.name));
    if !is_set(obj, "status") || !observed_generation_matches(obj) {
        return waiting;
    }
    let unhealthy = obj.conditions().filter(|c| c.is_false()).last();
    let phase = obj.str("status.phase").unwrap_or("");
    let progressive_failed =
        kind.progressive_label && obj.label(PROGRESSIVE_RESULT_LABEL) == Some("failed");
    if phase == "Failed" {
        return Health::degraded(obj.str("status.message").unwrap_or(""));
    }
    if progressive_failed {
        return Health::degraded("Failed progressive upgrade");
    }
    if let Some(condition) = unhealthy {
        return Health::degraded(if kind.condition_explains {
            condition.message()
        } else {
            "Subresources are unhealthy"
        });
    }
    if kind.paused.contains(&phase) {
        return Health::healthy(format!("{} is paused", kind.name));
    }
    if phase == "Running" {
        return Health::healthy(format!("{} is healthy", kind.name));
    }
    waiting
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn verdict(kind: &str, status: &str) -> Health {
        let yaml = format!(
            "apiVersion: numaflow.numaproj.io/v1alpha1\nkind: {kind}\nmetadata: {{name: n, generation: 1}}\n\
             status: {status}"
        );
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn failed_phase_reports_the_status_message() {
        let h = verdict(
            "Pipeline",
            "{observedGeneration: 1, phase: Failed, message: bad edge}",
        );
        assert_eq!(h, Health::degraded("bad edge"));
    }

    #[test]
    fn pausing_pipeline_and_unknown_phase() {
        let h = verdict("Pipeline", "{observedGeneration: 1, phase: Pausing}");
        assert_eq!(h, Health::healthy("Pipeline is paused"));
        let h = verdict("Vertex", "{observedGeneration: 1, phase: Pending}");
        assert_eq!(h, Health::progressing("Waiting for Vertex status"));
        let h = verdict(
            "InterStepBufferService",
            "{observedGeneration: 1, phase: Running, conditions: [{type: Deployed, status: 'False', message: no sts}]}",
        );
        assert_eq!(h, Health::degraded("no sts"));
    }
}
