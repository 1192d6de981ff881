//! Coralogix operator (`coralogix.com`): resources report whether they are `RemoteSynced` with Coralogix.

use weft_sdk::shapes::{ConditionRule, Says, first_matching_condition};
use weft_sdk::{Health, Object, Status};

const REMOTE_SYNCED: &[ConditionRule] = &[
    ConditionRule::when("RemoteSynced", "True")
        .gives(Status::Healthy, Says::Text("Resource is ready")),
    ConditionRule::when("RemoteSynced", "False").gives(Status::Degraded, Says::Message),
];

/// `Alert`, `RecordingRuleGroupSet`.
pub(crate) fn remote_synced(obj: &Object) -> Health {
    first_matching_condition(obj, REMOTE_SYNCED)
        .unwrap_or_else(|| Health::progressing("Waiting for status to be updated"))
}
