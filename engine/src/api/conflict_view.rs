//! An operation as one caller may read it: the holder of each object another app held is named as far as the
//! caller may read that holder's org (an admin every app; a member of the refused app's org the apps of the orgs
//! it may read, "an app of another org" otherwise), worded when it is read from the holder kept in the record.

use weft_sync::shared::{Conflict, reword_refusal};

use weft_app::AppSpec;
use weft_apply::operation::Operation;
use weft_auth::Principal;

/// `operation`, an operation of `app`, as `caller` may read it: its conflicts and the refusal in its message worded
/// for the caller, the holders' keys removed.
pub(crate) fn for_caller(mut operation: Operation, app: &AppSpec, caller: &Principal) -> Operation {
    if operation.conflicts.is_empty() {
        return operation;
    }
    let refused = app.identity();
    let worded: Vec<Conflict> = operation
        .conflicts
        .iter()
        .map(|conflict| conflict.worded_for(&refused, |org| caller.can_read(org)))
        .collect();
    operation.message = operation
        .message
        .map(|message| reword_refusal(&message, &operation.conflicts, &worded));
    operation.conflicts = worded;
    operation
}

#[cfg(test)]
mod tests {
    use weft_core::resource::ResourceRef;
    use weft_core::tracking::parse_tracking_id;
    use weft_sync::shared::refusal;

    use super::*;
    use weft_apply::operation::Trigger;

    fn app(name: &str, org: &str) -> AppSpec {
        let spec: AppSpec = toml::from_str(&format!(
            "name = \"{name}\"\norg = \"{org}\"\ntype = \"yaml\"\nnamespace = \"shop\"\n\
             source = {{ repo = \"https://git.example/shop.git\", path = \"app\", ref = \"main\" }}\n"
        ))
        .unwrap();
        spec
    }

    /// An operation of `refused` stopped by a ConfigMap that `holder` (`ORG/NAME`) holds.
    fn refused_by(refused: &AppSpec, holder: &str) -> Operation {
        let holder = parse_tracking_id(&format!("{holder}:/ConfigMap:shop/shared")).unwrap();
        let conflicts = vec![Conflict::new(
            ResourceRef::new("", "ConfigMap", "shop", "shared"),
            &holder,
            &refused.identity(),
        )];
        let mut operation = Operation::start("op-1", &refused.name, Trigger::Manual);
        operation.message = refusal(&conflicts);
        operation.conflicts = conflicts;
        operation
    }

    #[test]
    fn an_admin_is_told_another_orgs_holder_and_a_member_of_the_refused_apps_org_is_not() {
        let payroll = app("payroll", "globex");
        let operation = refused_by(&payroll, "acme/shop");
        let admin = for_caller(operation.clone(), &payroll, &Principal::admin("root"));
        assert_eq!(admin.conflicts[0].holder, "app shop of org acme");
        assert!(
            admin
                .message
                .as_deref()
                .is_some_and(|m| m.contains("held by app shop of org acme;")),
            "{:?}",
            admin.message
        );
        let member = Principal::member("alice", "globex").unwrap();
        let told = for_caller(operation, &payroll, &member);
        assert_eq!(told.conflicts[0].holder, "an app of another org");
        let text = serde_json::to_string(&told).unwrap();
        assert!(
            !text.contains("acme") && !text.contains("shop of") && !text.contains("holderKey"),
            "{text}"
        );
    }

    #[test]
    fn a_member_is_told_its_own_orgs_holder_by_name() {
        let copy = app("shop-copy", "acme");
        let member = Principal::member("alice", "acme").unwrap();
        let told = for_caller(refused_by(&copy, "acme/shop"), &copy, &member);
        assert_eq!(told.conflicts[0].holder, "app shop");
        assert!(told.conflicts[0].holder_key.is_none());
    }
}
