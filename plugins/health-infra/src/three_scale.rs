//! Red Hat 3scale API Management operators: the `APIManager` installation (`apps.3scale.net`) and the capabilities
//! resources (`capabilities.3scale.net`: products, backends, accounts, ...), which report `Ready`/`Synced`,
//! `Invalid`, `Orphan` and `Failed` conditions.

use weft_sdk::shapes::{ConditionRule, Says, first_matching_condition, true_condition};
use weft_sdk::{Health, Object, Status};

use crate::fields::{is_positive_number, present};

const ACTIVE_DOC: &[ConditionRule] = &[
    ConditionRule::when("Ready", "True")
        .gives(Status::Healthy, Says::Text("3scale ActiveDoc is ready")),
    ConditionRule::when("Invalid", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale ActiveDoc configuration is invalid"),
    ),
    ConditionRule::when("Orphan", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale ActiveDoc references non-existing resources"),
    ),
    ConditionRule::when("Failed", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale ActiveDoc synchronization failed"),
    ),
];

const APPLICATION_AUTH: &[ConditionRule] = &[
    ConditionRule::when("Ready", "True").gives(
        Status::Healthy,
        Says::Text("3scale ApplicationAuth is ready"),
    ),
    ConditionRule::when("Failed", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale ApplicationAuth failed"),
    ),
];

const BACKEND: &[ConditionRule] = &[
    ConditionRule::when("Synced", "True")
        .gives(Status::Healthy, Says::Text("3scale Backend is synced")),
    ConditionRule::when("Invalid", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale Backend configuration is invalid"),
    ),
    ConditionRule::when("Failed", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale Backend synchronization failed"),
    ),
];

const CUSTOM_POLICY_DEFINITION: &[ConditionRule] = &[
    ConditionRule::when("Ready", "True").gives(
        Status::Healthy,
        Says::Text("3scale CustomPolicyDefinition is ready"),
    ),
    ConditionRule::when("Invalid", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale CustomPolicyDefinition configuration is invalid"),
    ),
    ConditionRule::when("Failed", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale CustomPolicyDefinition synchronization failed"),
    ),
];

const DEVELOPER_ACCOUNT: &[ConditionRule] = &[
    ConditionRule::when("Ready", "True").gives(
        Status::Healthy,
        Says::Text("3scale DeveloperAccount is ready"),
    ),
    ConditionRule::when("Invalid", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale DeveloperAccount configuration is invalid"),
    ),
    ConditionRule::when("Failed", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale DeveloperAccount synchronization failed"),
    ),
    ConditionRule::when("Waiting", "True").gives(
        Status::Suspended,
        Says::MessageOr("3scale DeveloperAccount is waiting for approval"),
    ),
];

const DEVELOPER_USER: &[ConditionRule] = &[
    ConditionRule::when("Ready", "True")
        .gives(Status::Healthy, Says::Text("3scale DeveloperUser is ready")),
    ConditionRule::when("Invalid", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale DeveloperUser configuration is invalid"),
    ),
    ConditionRule::when("Orphan", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale DeveloperUser references non-existing resources"),
    ),
    ConditionRule::when("Failed", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale DeveloperUser synchronization failed"),
    ),
];

const OPENAPI: &[ConditionRule] = &[
    ConditionRule::when("Ready", "True")
        .gives(Status::Healthy, Says::Text("3scale OpenAPI is ready")),
    ConditionRule::when("Invalid", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale OpenAPI configuration is invalid"),
    ),
    ConditionRule::when("Failed", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale OpenAPI reconciliation failed"),
    ),
];

const PRODUCT: &[ConditionRule] = &[
    ConditionRule::when("Synced", "True")
        .gives(Status::Healthy, Says::Text("3scale Product is synced")),
    ConditionRule::when("Invalid", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale Product configuration is invalid"),
    ),
    ConditionRule::when("Orphan", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale Product references non-existing resources"),
    ),
    ConditionRule::when("Failed", "True").gives(
        Status::Degraded,
        Says::MessageOr("3scale Product synchronization failed"),
    ),
];

const PROXY_CONFIG_PROMOTE: &[ConditionRule] = &[
    ConditionRule::when("Ready", "True").gives(
        Status::Healthy,
        Says::Text("3scale ProxyConfigPromote is ready"),
    ),
    ConditionRule::when("In-progress", "True").gives(
        Status::Progressing,
        Says::MessageOr("3scale ProxyConfigPromote is in progress"),
    ),
    // Upstream's spelling.
    ConditionRule::when("Failed", "True").gives(
        Status::Degraded,
        Says::MessageOr("3cale ProxyConfigPromote failed"),
    ),
];

/// A capabilities resource: the first condition its rules match, else waiting for the operator.
fn capability(obj: &Object, rules: &[ConditionRule]) -> Health {
    first_matching_condition(obj, rules).unwrap_or_else(|| waiting(obj))
}

fn waiting(obj: &Object) -> Health {
    Health::progressing(format!("Waiting for 3scale {} status...", obj.kind()))
}

/// `ActiveDoc`.
pub(crate) fn active_doc(obj: &Object) -> Health {
    capability(obj, ACTIVE_DOC)
}

/// `ApplicationAuth`.
pub(crate) fn application_auth(obj: &Object) -> Health {
    capability(obj, APPLICATION_AUTH)
}

/// `Backend`.
pub(crate) fn backend(obj: &Object) -> Health {
    capability(obj, BACKEND)
}

/// `CustomPolicyDefinition`.
pub(crate) fn custom_policy_definition(obj: &Object) -> Health {
    capability(obj, CUSTOM_POLICY_DEFINITION)
}

/// `DeveloperAccount`.
pub(crate) fn developer_account(obj: &Object) -> Health {
    capability(obj, DEVELOPER_ACCOUNT)
}

/// `DeveloperUser`: a user suspended in 3scale waits for an admin first.
pub(crate) fn developer_user(obj: &Object) -> Health {
    if obj.str("status.developerUserState") == Some("suspended") {
        return Health::suspended("3scale Developer user is waiting for admin approval");
    }
    capability(obj, DEVELOPER_USER)
}

/// `OpenAPI`.
pub(crate) fn openapi(obj: &Object) -> Health {
    capability(obj, OPENAPI)
}

/// `Product`.
pub(crate) fn product(obj: &Object) -> Health {
    capability(obj, PRODUCT)
}

/// `ProxyConfigPromote`.
pub(crate) fn proxy_config_promote(obj: &Object) -> Health {
    capability(obj, PROXY_CONFIG_PROMOTE)
}

/// `Application`: suspended in 3scale, ready, or failed while it has no id in 3scale yet (a not-ready application
/// that exists in 3scale is still being synchronised).
pub(crate) fn application(obj: &Object) -> Health {
    const READY: ConditionRule = ConditionRule::when("Ready", "True")
        .gives(Status::Healthy, Says::Text("3scale Application is ready"));
    const NOT_READY: ConditionRule = ConditionRule::when_type("Ready").gives(
        Status::Degraded,
        Says::MessageOr("3scale Application is not ready"),
    );
    if obj.str("status.state") == Some("suspended") {
        return Health::suspended("3scale Application is suspended");
    }
    if is_positive_number(present(obj, "status.adminId")) {
        capability(obj, &[READY])
    } else {
        capability(obj, &[READY, NOT_READY])
    }
}

/// `Tenant`: ready with both its tenant and admin ids, degraded when not ready.
pub(crate) fn tenant(obj: &Object) -> Health {
    const NOT_READY: ConditionRule = ConditionRule::when_type("Ready").gives(
        Status::Degraded,
        Says::MessageOr("3scale Tenant is degraded"),
    );
    if present(obj, "status").is_none() {
        return waiting(obj);
    }
    let ready = true_condition(obj, "Ready").is_some();
    if ready
        && is_positive_number(present(obj, "status.tenantId"))
        && is_positive_number(present(obj, "status.adminId"))
    {
        return Health::healthy("3scale Tenant is ready");
    }
    match obj
        .conditions()
        .find(|c| c.condition_type() == "Ready" && !c.is_true())
    {
        Some(c) => NOT_READY.verdict(&c),
        None => waiting(obj),
    }
}

/// `apps.3scale.net/APIManager`: available once every deployment is ready (or its `Available` condition says so);
/// degraded when `Available` is not true for a stated reason.
pub(crate) fn api_manager(obj: &Object) -> Health {
    const AVAILABLE: &str = "3scale APIManager is available";
    if present(obj, "status.deployments").is_some() {
        let listed = |group: &str| present(obj, &format!("status.deployments.{group}")).is_some();
        if listed("ready") && !listed("starting") && !listed("stopped") {
            return Health::healthy(AVAILABLE);
        }
    }
    for c in obj
        .conditions()
        .filter(|c| c.condition_type() == "Available")
    {
        if c.is_true() {
            return Health::healthy(AVAILABLE);
        }
        if !c.reason().is_empty() {
            return Health::degraded(format!("3scale APIManager is degraded: {}", c.reason()));
        }
    }
    Health::progressing("Waiting for 3scale APIManager status...")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    fn verdict(yaml: &str) -> Health {
        assess_yaml::<InfraHealth>(yaml).unwrap().unwrap()
    }

    #[test]
    fn fallback_messages_when_the_operator_gives_none() {
        let h = verdict(
            "apiVersion: capabilities.3scale.net/v1beta1\nkind: Backend\nmetadata: {name: b}\n\
             status:\n  conditions:\n  - {type: Failed, status: 'True'}",
        );
        assert_eq!(h, Health::degraded("3scale Backend synchronization failed"));
        let h = verdict(
            "apiVersion: capabilities.3scale.net/v1beta1\nkind: OpenAPI\nmetadata: {name: o}",
        );
        assert_eq!(
            h,
            Health::progressing("Waiting for 3scale OpenAPI status...")
        );
    }

    #[test]
    fn suspended_applications_and_tenants_without_ids() {
        let h = verdict(
            "apiVersion: capabilities.3scale.net/v1beta1\nkind: Application\nmetadata: {name: a}\nstatus: {state: suspended}",
        );
        assert_eq!(h, Health::suspended("3scale Application is suspended"));
        let h = verdict(
            "apiVersion: capabilities.3scale.net/v1beta1\nkind: Application\nmetadata: {name: a}\n\
             status:\n  adminId: 4\n  conditions:\n  - {type: Ready, status: 'False', message: syncing}",
        );
        assert_eq!(
            h,
            Health::progressing("Waiting for 3scale Application status...")
        );
        let h = verdict(
            "apiVersion: capabilities.3scale.net/v1alpha1\nkind: Tenant\nmetadata: {name: t}\n\
             status:\n  conditions:\n  - {type: Ready, status: 'False'}",
        );
        assert_eq!(h, Health::degraded("3scale Tenant is degraded"));
    }

    #[test]
    fn api_manager_with_all_deployments_ready() {
        let h = verdict(
            "apiVersion: apps.3scale.net/v1alpha1\nkind: APIManager\nmetadata: {name: m}\nstatus: {deployments: {ready: [a]}}",
        );
        assert_eq!(h, Health::healthy("3scale APIManager is available"));
    }
}
