//! Jaeger operator (`jaegertracing.io`): a Jaeger instance reports `status.phase`.

use weft_sdk::shapes::{PhaseRow, phase_verdict};
use weft_sdk::{Health, Object, Status};

const PHASES: &[PhaseRow] = &[
    ("Running", Status::Healthy, "Jaeger is Running"),
    ("Failed", Status::Degraded, "Jaeger Failed For Some Reason"),
];

/// A Jaeger: `Running` is healthy, `Failed` degraded, any other phase (or none yet) progressing.
pub(crate) fn jaeger(obj: &Object) -> Health {
    phase_verdict(obj, "status.phase", PHASES)
        .unwrap_or_else(|| Health::progressing("Waiting for Jaeger"))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    #[test]
    fn no_phase_is_waiting() {
        let yaml = "apiVersion: jaegertracing.io/v1\nkind: Jaeger\nmetadata: {name: j}";
        assert_eq!(
            assess_yaml::<DataHealth>(yaml).unwrap(),
            Some(Health::progressing("Waiting for Jaeger"))
        );
    }
}
