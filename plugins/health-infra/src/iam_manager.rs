//! Keikoproj iam-manager (`iammanager.keikoproj.io/Iamrole`): `status.state` is `Ready` once the AWS role exists;
//! its error states carry a retry count and the AWS error.

use weft_sdk::{Health, Object};

use crate::fields::{is_positive_number, lua_text, present};

/// The states iam-manager sets when it cannot reconcile a role.
const ERROR_STATES: &[&str] = &[
    "Error",
    "RolesMaxLimitReached",
    "PolicyNotAllowed",
    "RoleNameNotAvailable",
];

/// `Iamrole`.
pub(crate) fn iam_role(obj: &Object) -> Health {
    if present(obj, "status").is_some() {
        let field = |name: &str| {
            present(obj, &format!("status.{name}"))
                .and_then(lua_text)
                .unwrap_or_else(|| "<none>".to_owned())
        };
        let (name, arn, id) = (field("roleName"), field("roleARN"), field("roleID"));
        let state = obj.str("status.state").unwrap_or("");
        if state == "Ready" {
            return Health::healthy(format!(
                "Role '{name}' exists with ARN '{arn}' and ID '{id}'."
            ));
        }
        if ERROR_STATES.contains(&state) {
            let mut message = String::from("Failed to reconcile the Iamrole ");
            let retries = present(obj, "status.retryCount");
            if is_positive_number(retries)
                && let Some(retries) = retries.and_then(lua_text)
            {
                message.push_str(&format!("(retry {retries}) "));
            }
            message.push_str(&format!(
                "for role '{name}' with ARN '{arn}' and ID '{id}'."
            ));
            if let Some(error) = present(obj, "status.errorDescription").and_then(lua_text) {
                message.push_str(&format!(" Reconciliation error was: {error}"));
            }
            return Health::degraded(message);
        }
    }
    Health::progressing("Waiting for Iamrole to be reconciled")
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::InfraHealth;

    #[test]
    fn ready_role_names_itself() {
        let h = assess_yaml::<InfraHealth>(
            "apiVersion: iammanager.keikoproj.io/v1alpha1\nkind: Iamrole\nmetadata: {name: r}\n\
             status: {state: Ready, roleName: app, roleARN: 'arn:aws:iam::1:role/app'}",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            h,
            Health::healthy(
                "Role 'app' exists with ARN 'arn:aws:iam::1:role/app' and ID '<none>'."
            )
        );
    }
}
