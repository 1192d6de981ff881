//! AWS Controllers for Kubernetes (`*.services.k8s.aws`): every ACK resource reports `ACK.Terminal` (an error the
//! controller will not retry) and `Ready`.

use weft_sdk::shapes::{ConditionRule, Says, first_matching_condition};
use weft_sdk::{Health, Object, Status};

const CONDITIONS: &[ConditionRule] = &[
    ConditionRule::when("ACK.Terminal", "True").gives(Status::Degraded, Says::Message),
    ConditionRule::when("Ready", "False").gives(Status::Progressing, Says::Message),
    ConditionRule::when("Ready", "True").gives(Status::Healthy, Says::Text("")),
];

/// Any ACK resource.
pub(crate) fn resource(obj: &Object) -> Health {
    first_matching_condition(obj, CONDITIONS)
        .unwrap_or_else(|| Health::progressing("Waiting for resource to be ready"))
}
