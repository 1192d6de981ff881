//! Every Application resource decided at once: each one's app or why it is refused. A name the configuration or
//! the API holds is refused to an Application, naming the holder; a name two Applications share goes to the older
//! (then the one whose namespace sorts first), never to whichever a watch delivered first. Pure.

use std::collections::BTreeMap;

use serde_json::Value;
use weft_store::AppOrigin;

use super::convert::{Refusal, app_of};
use super::tenancy::Tenancy;
use weft_app::{ApiAppRules, AppSpec};

/// What became of one Application resource.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Its `metadata.generation`.
    pub generation: i64,
    /// The org its namespace maps to.
    pub org: Option<String>,
    /// The app it runs as, or why it does not.
    pub outcome: Result<AppSpec, Refusal>,
}

/// A resource's `(namespace, name)` (empty strings for what it lacks).
pub fn namespaced_name(object: &Value) -> (String, String) {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    (
        text(&object["metadata"]["namespace"]),
        text(&object["metadata"]["name"]),
    )
}

/// Decides every Application: `taken` holds the names of apps from the other origins.
pub fn decide(
    objects: &[Value],
    tenancy: &Tenancy,
    rules: &ApiAppRules,
    taken: &BTreeMap<String, AppOrigin>,
) -> Vec<Decision> {
    let mut ordered: Vec<&Value> = objects.iter().collect();
    let key = |o: &Value| {
        let (namespace, name) = namespaced_name(o);
        (
            o["metadata"]["creationTimestamp"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            namespace,
            name,
        )
    };
    ordered.sort_by_cached_key(|o| key(o));
    let mut claimed: BTreeMap<String, String> = BTreeMap::new();
    let mut decisions = Vec::with_capacity(ordered.len());
    for object in ordered {
        let (_, namespace, name) = key(object);
        let org = tenancy.org_of(&namespace).ok().map(|org| org.name.clone());
        // The name is held by the oldest Application that has it, valid or not: a team whose Application is
        // refused for a while (a typo, a narrowed allow-list) does not lose its app's name, history and objects to
        // another namespace's newer Application. Another org's namespace is not named to this one.
        let outcome = if let Some(origin) = taken.get(&name) {
            Err(Refusal::NameTaken {
                name: name.clone(),
                holder: format!("an app {}", origin.described()),
            })
        } else if let Some(holder) = claimed.get(&name) {
            Err(Refusal::NameTaken {
                name: name.clone(),
                holder: if *holder == namespace {
                    format!("an older Application in {namespace}")
                } else {
                    "an older Application in another namespace".to_string()
                },
            })
        } else {
            claimed.insert(name.clone(), namespace.clone());
            app_of(object, tenancy, rules).map(|mut app| {
                app.origin = AppOrigin::Resource;
                app
            })
        };
        decisions.push(Decision {
            namespace,
            name,
            generation: object["metadata"]["generation"].as_i64().unwrap_or(0),
            org,
            outcome,
        });
    }
    decisions
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tenancy::OrgSpec;

    fn tenancy() -> Tenancy {
        Tenancy::new(vec![
            OrgSpec {
                clusters: vec![],
                cluster_kinds: vec![],
                name: "shop".into(),
                namespaces: vec!["shop-apps".into()],
                destinations: vec!["*".into()],
                source_repos: vec!["*".into()],
            },
            OrgSpec {
                clusters: vec![],
                cluster_kinds: vec![],
                name: "bank".into(),
                namespaces: vec!["bank-apps".into()],
                destinations: vec!["*".into()],
                source_repos: vec!["*".into()],
            },
        ])
    }

    fn application(namespace: &str, name: &str, created: &str) -> Value {
        json!({
            "apiVersion": "weft.dev/v1alpha1",
            "kind": "Application",
            "metadata": {"name": name, "namespace": namespace, "creationTimestamp": created, "generation": 1},
            "spec": {
                "type": "yaml",
                "source": {"repoURL": "https://git.example.com/apps.git", "path": name},
                "destination": {"namespace": name}
            }
        })
    }

    #[test]
    fn a_name_two_applications_share_goes_to_the_older_whatever_the_order_they_came_in() {
        let older = application("bank-apps", "web", "2026-12-01T00:00:00Z");
        let newer = application("shop-apps", "web", "2026-12-02T00:00:00Z");
        for objects in [
            vec![older.clone(), newer.clone()],
            vec![newer.clone(), older.clone()],
        ] {
            let decisions = decide(
                &objects,
                &tenancy(),
                &ApiAppRules::default(),
                &BTreeMap::new(),
            );
            let winner = decisions.iter().find(|d| d.outcome.is_ok()).unwrap();
            assert_eq!(winner.namespace, "bank-apps");
            assert_eq!(
                winner.outcome.as_ref().unwrap().org.as_deref(),
                Some("bank")
            );
            let loser = decisions.iter().find(|d| d.outcome.is_err()).unwrap();
            let refusal = loser.outcome.as_ref().unwrap_err();
            assert_eq!(refusal.reason(), "NameTaken");
            assert!(
                refusal.to_string().contains("another namespace"),
                "{refusal}"
            );
            assert!(!refusal.to_string().contains("bank-apps"), "{refusal}");
        }
    }

    #[test]
    fn a_refused_older_application_keeps_its_name_from_a_newer_one() {
        let mut older = application("bank-apps", "web", "2026-12-01T00:00:00Z");
        older["spec"]["destination"]["namespace"] = json!("");
        let newer = application("shop-apps", "web", "2026-12-02T00:00:00Z");
        let decisions = decide(
            &[newer, older],
            &tenancy(),
            &ApiAppRules::default(),
            &BTreeMap::new(),
        );
        assert!(
            decisions.iter().all(|d| d.outcome.is_err()),
            "{decisions:#?}"
        );
        let newer = decisions
            .iter()
            .find(|d| d.namespace == "shop-apps")
            .unwrap();
        assert_eq!(newer.outcome.as_ref().unwrap_err().reason(), "NameTaken");
    }

    #[test]
    fn a_name_the_configuration_or_the_api_holds_is_refused_naming_the_holder() {
        let taken = BTreeMap::from([("web".to_string(), AppOrigin::Config)]);
        let decisions = decide(
            &[application("shop-apps", "web", "2026-12-01T00:00:00Z")],
            &tenancy(),
            &ApiAppRules::default(),
            &taken,
        );
        let refusal = decisions[0].outcome.as_ref().unwrap_err();
        assert!(
            refusal.to_string().contains("configuration file"),
            "{refusal}"
        );
        assert_eq!(decisions[0].org.as_deref(), Some("shop"));
    }

    #[test]
    fn an_accepted_application_runs_as_a_resource_app() {
        let decisions = decide(
            &[application("shop-apps", "web", "2026-12-01T00:00:00Z")],
            &tenancy(),
            &ApiAppRules::default(),
            &BTreeMap::new(),
        );
        assert_eq!(
            decisions[0].outcome.as_ref().unwrap().origin,
            AppOrigin::Resource
        );
        assert_eq!(decisions[0].generation, 1);
    }
}
