//! One Application resource read as an app: its spec (Kubernetes' camelCase; Argo CD's field names where the idea
//! is the same: `source.repoURL`, `targetRevision`, `destination`, `syncPolicy.automated`, `ignoreDifferences`),
//! its org from its namespace, and the rules an app defined through the API is held to. Pure: no I/O.

use serde_json::{Map, Value, json};
use weft_sync::sync_options::{SyncOptionError, parse_sync_option};

use super::tenancy::{OrgSpec, Tenancy, TenancyError};
use weft_app::{ApiAppRules, AppSpec};

/// The name an Application's destination may give for the default (management) cluster, as Argo CD names the
/// cluster it runs in.
pub const IN_CLUSTER: &str = "in-cluster";

/// The address Argo CD gives the cluster it runs in (`spec.destination.server`): the default cluster here.
pub const IN_CLUSTER_SERVER: &str = "https://kubernetes.default.svc";

/// Why an Application is not run. Its status carries the reason and the message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refusal {
    /// The spec cannot be read as an app, or breaks a rule every app from outside the configuration keeps.
    #[error("{0}")]
    InvalidSpec(String),
    /// A field of its spec cannot become an app setting.
    #[error(transparent)]
    InvalidField(#[from] FieldError),
    /// The operator's org map does not allow it.
    #[error(transparent)]
    NotAllowed(#[from] TenancyError),
    /// Another app already has its name.
    #[error("the name {name} is taken by {holder}")]
    NameTaken {
        /// The app's name.
        name: String,
        /// Who has it: `weft.toml`, the API, or another Application (`namespace/name`).
        holder: String,
    },
}

impl Refusal {
    /// The condition reason, in Kubernetes' CamelCase.
    pub fn reason(&self) -> &'static str {
        match self {
            Refusal::InvalidSpec(_) | Refusal::InvalidField(_) => "InvalidSpec",
            Refusal::NotAllowed(TenancyError::NamespaceNotMapped { .. }) => "NamespaceNotMapped",
            Refusal::NotAllowed(
                TenancyError::DestinationNotAllowed { .. } | TenancyError::ClusterNotAllowed { .. },
            ) => "DestinationNotAllowed",
            Refusal::NotAllowed(
                TenancyError::SourceNotAllowed { .. } | TenancyError::UnclearSource { .. },
            ) => "SourceNotAllowed",
            Refusal::NameTaken { .. } => "NameTaken",
        }
    }
}

/// A field of an Application's spec that cannot become an app setting, named by its path.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FieldError {
    /// An object was expected.
    #[error("{at}: expected an object")]
    NotAnObject {
        /// The field's path (`spec.source`).
        at: String,
    },
    /// A field an Application does not have.
    #[error("{at}.{key}: not a field of an Application (known: {})", known.join(", "))]
    Unknown {
        /// The path of the object holding it.
        at: String,
        /// The field.
        key: String,
        /// The fields that object may have.
        known: Vec<String>,
    },
    /// `spec.syncPolicy.syncOptions` is not a list.
    #[error("spec.syncPolicy.syncOptions: expected a list of Name=true|false strings")]
    SyncOptionsNotAList,
    /// A sync option is not a string.
    #[error("{at}: expected a Name=true|false string")]
    SyncOptionNotAString {
        /// The option's path (`spec.syncPolicy.syncOptions[2]`).
        at: String,
    },
    /// A sync option Weft has no setting for, or one it cannot read.
    #[error("{at}: {error}")]
    SyncOption {
        /// The option's path.
        at: String,
        /// What is wrong with it.
        error: SyncOptionError,
    },
}

/// The app an Application resource declares, or why it may not run.
pub fn app_of(object: &Value, tenancy: &Tenancy, rules: &ApiAppRules) -> Result<AppSpec, Refusal> {
    let invalid = |message: String| Refusal::InvalidSpec(message);
    let name = object["metadata"]["name"]
        .as_str()
        .ok_or_else(|| invalid("metadata.name is missing".into()))?;
    let namespace = object["metadata"]["namespace"]
        .as_str()
        .ok_or_else(|| invalid("metadata.namespace is missing".into()))?;
    // The org first: a resource in a namespace nobody owns is not looked at further.
    let org = tenancy.org_of(namespace)?;
    let spec = object
        .get("spec")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("spec is missing".into()))?;
    let mut app = Map::new();
    app.insert("name".into(), json!(name));
    app.insert("org".into(), json!(org.name));
    copy_spec_settings(spec, &mut app)?;
    read_sources(spec, &mut app)?;
    let cluster = read_destination(spec, tenancy, &mut app)?;
    if let Some(policy) = spec.get("syncPolicy") {
        app.insert("sync".into(), sync_policy(policy)?);
    }
    if let Some(ignore) = spec.get("ignoreDifferences") {
        app.insert("ignore".into(), ignore_differences(ignore)?);
    }
    let mut app = checked_app(app, rules)?;
    tenancy.admit(namespace, &cluster, &app.namespace, &source_repos(&app))?;
    // What it renders may go only where its org may deploy: checked on every render, before anything is applied.
    app.confinement = Some(confinement(org));
    // Each Application is its own incarnation of the name: what an earlier one left behind is not this one's.
    app.incarnation = incarnation(object);
    Ok(app)
}

/// Copies the spec's plain settings (`type`, `env`, `values`, ...) under their app names, refusing a field an
/// Application does not have; the sections read on their own (`source`, `destination`, ...) are left.
fn copy_spec_settings(
    spec: &Map<String, Value>,
    app: &mut Map<String, Value>,
) -> Result<(), FieldError> {
    copy_known(
        spec,
        app,
        "spec",
        &[
            ("type", "type"),
            ("env", "env"),
            ("role", "role"),
            ("parameters", "parameters"),
            ("valueFiles", "value_files"),
            ("values", "values"),
            ("release", "release"),
            ("lookup", "lookup"),
        ],
        &[
            "source",
            "valuesSource",
            "destination",
            "syncPolicy",
            "ignoreDifferences",
        ],
    )
}

/// The spec's field `key`, or a refusal saying it is missing.
fn required<'a>(spec: &'a Map<String, Value>, key: &str) -> Result<&'a Value, Refusal> {
    spec.get(key)
        .ok_or_else(|| Refusal::InvalidSpec(format!("spec.{key} is missing")))
}

/// Reads `spec.source` (required) and `spec.valuesSource` (optional) into the app's `source` and `values_source`.
fn read_sources(spec: &Map<String, Value>, app: &mut Map<String, Value>) -> Result<(), Refusal> {
    let source = renamed(
        required(spec, "source")?,
        "spec.source",
        &[
            ("repoURL", "repo"),
            ("path", "path"),
            ("targetRevision", "ref"),
            ("chart", "chart"),
            ("version", "version"),
            ("credential", "credential"),
        ],
    )?;
    app.insert("source".into(), Value::Object(source));
    if let Some(values_source) = spec.get("valuesSource") {
        let values_source = renamed(
            values_source,
            "spec.valuesSource",
            &[
                ("repoURL", "repo"),
                ("targetRevision", "ref"),
                ("credential", "credential"),
            ],
        )?;
        app.insert("values_source".into(), Value::Object(values_source));
    }
    Ok(())
}

/// Reads `spec.destination` (required) into the app's `cluster` (left out for the default one) and `namespace`;
/// returns the cluster it deploys to.
fn read_destination(
    spec: &Map<String, Value>,
    tenancy: &Tenancy,
    app: &mut Map<String, Value>,
) -> Result<String, Refusal> {
    let destination = renamed(
        required(spec, "destination")?,
        "spec.destination",
        &[
            ("namespace", "namespace"),
            ("cluster", "cluster"),
            ("name", "name"),
            ("server", "server"),
        ],
    )?;
    let cluster = destination_cluster(&destination, tenancy)?;
    // The default cluster is no cluster named, as for every other origin.
    if cluster != tenancy.default_cluster() {
        app.insert("cluster".into(), json!(cluster));
    }
    let destination_namespace = destination
        .get("namespace")
        .ok_or_else(|| Refusal::InvalidSpec("spec.destination.namespace is missing".into()))?;
    app.insert("namespace".into(), destination_namespace.clone());
    Ok(cluster)
}

/// The cluster a destination names: the default one when it names none, `in-cluster` or Argo CD's
/// `https://kubernetes.default.svc`, else one this server manages, by name (`cluster`, or Argo CD's `name`). Any other
/// cluster or address is refused, listing the clusters; naming the cluster twice (`cluster`, `name` and `server`
/// together) is refused, as Argo CD refuses `name` with `server`.
fn destination_cluster(
    destination: &Map<String, Value>,
    tenancy: &Tenancy,
) -> Result<String, Refusal> {
    let named: Vec<&str> = ["cluster", "name", "server"]
        .into_iter()
        .filter(|key| destination.contains_key(*key))
        .collect();
    if named.len() > 1 {
        return Err(Refusal::InvalidSpec(format!(
            "spec.destination: names its cluster twice ({}); give one of cluster, name and server",
            named.join(", ")
        )));
    }
    let Some(key) = named.first() else {
        return Ok(tenancy.default_cluster().to_string());
    };
    let manages = || {
        format!(
            "it manages: {}; {IN_CLUSTER} is {}",
            tenancy.clusters().join(", "),
            tenancy.default_cluster()
        )
    };
    match (*key, &destination[*key]) {
        ("server", Value::String(url)) if url.trim_end_matches('/') == IN_CLUSTER_SERVER => {
            Ok(tenancy.default_cluster().to_string())
        }
        ("server", other) => Err(Refusal::InvalidSpec(format!(
            "spec.destination.server: {other} is not an address Weft knows: Weft names its clusters, so name it \
             with spec.destination.name ({})",
            manages()
        ))),
        (_, Value::String(name)) if name == IN_CLUSTER => Ok(tenancy.default_cluster().to_string()),
        (_, Value::String(name)) if tenancy.clusters().contains(name) => Ok(name.clone()),
        (key, other) => Err(Refusal::InvalidSpec(format!(
            "spec.destination.{key}: {other} is not a cluster this server manages ({})",
            manages()
        ))),
    }
}

/// `spec.ignoreDifferences` (a list of rules) as the app's `ignore`, each rule's fields under their app names.
fn ignore_differences(rules: &Value) -> Result<Value, Refusal> {
    let rules = rules
        .as_array()
        .ok_or_else(|| Refusal::InvalidSpec("spec.ignoreDifferences: expected a list".into()))?;
    let mut out = Vec::new();
    for (index, rule) in rules.iter().enumerate() {
        let rule = renamed(
            rule,
            &format!("spec.ignoreDifferences[{index}]"),
            &[
                ("group", "group"),
                ("kind", "kind"),
                ("name", "name"),
                ("namespace", "namespace"),
                ("jsonPointers", "json_pointers"),
                ("managedFieldsManagers", "managed_fields_managers"),
                ("jqPathExpressions", "jq_path_expressions"),
            ],
        )?;
        out.push(Value::Object(rule));
    }
    Ok(Value::Array(out))
}

/// The app's fields read as an app, which must be valid and keep the rules an app defined through the API keeps.
fn checked_app(app: Map<String, Value>, rules: &ApiAppRules) -> Result<AppSpec, Refusal> {
    let invalid = |message: String| Refusal::InvalidSpec(message);
    let app: AppSpec =
        serde_json::from_value(Value::Object(app)).map_err(|e| invalid(format!("spec: {e}")))?;
    app.validate().map_err(|e| invalid(e.to_string()))?;
    app.check_api_rules(rules)
        .map_err(|e| invalid(e.to_string()))?;
    Ok(app)
}

/// The repositories an app reads: its source's (if any) and its values source's.
fn source_repos(app: &AppSpec) -> Vec<&str> {
    let mut repos: Vec<&str> = app.source.repo.iter().map(String::as_str).collect();
    if let Some(values) = &app.values_source {
        repos.push(&values.repo);
    }
    repos
}

/// Where an app of `org` may deploy and what it may read: the org's destinations, namespaces, cluster kinds and
/// source repositories.
fn confinement(org: &OrgSpec) -> weft_app::Confinement {
    weft_app::Confinement {
        org: org.name.clone(),
        namespaces: org.destinations.clone(),
        application_namespaces: org.namespaces.clone(),
        cluster_kinds: org.cluster_kinds.clone(),
        source_repos: org.source_repos.clone(),
    }
}

/// The Application's `metadata.uid`, if it has a non-empty one.
fn incarnation(object: &Value) -> Option<String> {
    object
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .filter(|uid| !uid.is_empty())
        .map(str::to_string)
}

/// `value` (at `at`) as an object whose fields are all in `renames`, under their app names.
fn renamed(
    value: &Value,
    at: &str,
    renames: &[(&str, &str)],
) -> Result<Map<String, Value>, FieldError> {
    let from = value
        .as_object()
        .ok_or_else(|| FieldError::NotAnObject { at: at.to_string() })?;
    let mut to = Map::new();
    copy_known(from, &mut to, at, renames, &[])?;
    Ok(to)
}

/// Copies the fields a map may have under their app names; a field it may not have is an error naming it, one in
/// `handled` is left to the caller.
fn copy_known(
    from: &Map<String, Value>,
    to: &mut Map<String, Value>,
    at: &str,
    renames: &[(&str, &str)],
    handled: &[&str],
) -> Result<(), FieldError> {
    for (key, value) in from {
        if handled.contains(&key.as_str()) {
            continue;
        }
        match renames.iter().find(|(from, _)| from == key) {
            Some((_, to_key)) => {
                to.insert((*to_key).to_string(), value.clone());
            }
            None => {
                return Err(FieldError::Unknown {
                    at: at.to_string(),
                    key: key.clone(),
                    known: renames
                        .iter()
                        .map(|(from, _)| *from)
                        .chain(handled.iter().copied())
                        .map(str::to_string)
                        .collect(),
                });
            }
        }
    }
    Ok(())
}

/// `spec.syncPolicy` as an app's `sync`: `automated` present turns automation on, its `prune` and `selfHeal` as
/// Argo CD's; `prune` may also stand beside it (Weft prunes in manual syncs too).
fn sync_policy(policy: &Value) -> Result<Value, FieldError> {
    let policy = policy.as_object().ok_or_else(|| FieldError::NotAnObject {
        at: "spec.syncPolicy".into(),
    })?;
    let mut out = Map::new();
    copy_known(
        policy,
        &mut out,
        "spec.syncPolicy",
        &[
            ("prune", "prune"),
            ("createNamespace", "create_namespace"),
            ("force", "force"),
            ("replace", "replace"),
            ("respectIgnoreDifferences", "respect_ignore_differences"),
            ("historyLimit", "history_limit"),
            ("waveTimeoutSeconds", "wave_timeout_seconds"),
        ],
        &["automated", "fuse", "syncOptions", "retry"],
    )?;
    if let Some(retry) = policy.get("retry") {
        let mut retry = renamed(
            retry,
            "spec.syncPolicy.retry",
            &[("limit", "limit"), ("backoff", "backoff")],
        )?;
        if let Some(backoff) = retry.get("backoff") {
            let backoff = renamed(
                backoff,
                "spec.syncPolicy.retry.backoff",
                &[
                    ("duration", "duration"),
                    ("factor", "factor"),
                    ("maxDuration", "max_duration"),
                ],
            )?;
            retry.insert("backoff".into(), Value::Object(backoff));
        }
        out.insert("retry".into(), Value::Object(retry));
    }
    if let Some(options) = policy.get("syncOptions") {
        for (key, value) in sync_options(options)? {
            out.insert(key.into(), json!(value));
        }
    }
    if let Some(automated) = policy.get("automated") {
        let flags = renamed(
            automated,
            "spec.syncPolicy.automated",
            &[("prune", "prune"), ("selfHeal", "self_heal")],
        )?;
        out.insert("automated".into(), json!(true));
        if flags.get("prune") == Some(&json!(true)) {
            out.insert("prune".into(), json!(true));
        }
        if let Some(heal) = flags.get("self_heal") {
            out.insert("self_heal".into(), heal.clone());
        }
    }
    if let Some(fuse) = policy.get("fuse") {
        let fuse = renamed(
            fuse,
            "spec.syncPolicy.fuse",
            &[
                ("maxDeletions", "max_deletions"),
                ("maxRatio", "max_ratio"),
                ("neverPrune", "never_prune"),
            ],
        )?;
        out.insert("fuse".into(), Value::Object(fuse));
    }
    Ok(Value::Object(out))
}

/// Argo CD's `spec.syncPolicy.syncOptions` (`Name=true|false` strings) as app sync settings. `ServerSideApply=true`
/// is accepted and changes nothing (Weft always applies server-side); an option Weft has no setting for is refused
/// naming the ones it knows.
fn sync_options(options: &Value) -> Result<Vec<(&'static str, bool)>, FieldError> {
    let items = options.as_array().ok_or(FieldError::SyncOptionsNotAList)?;
    let mut settings = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let at = format!("spec.syncPolicy.syncOptions[{index}]");
        let Some(text) = item.as_str() else {
            return Err(FieldError::SyncOptionNotAString { at });
        };
        settings
            .extend(parse_sync_option(text).map_err(|error| FieldError::SyncOption { at, error })?);
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tenancy::OrgSpec;

    fn tenancy() -> Tenancy {
        Tenancy::new(vec![OrgSpec {
            clusters: vec![],
            cluster_kinds: vec![],
            name: "shop".into(),
            namespaces: vec!["shop-apps".into()],
            destinations: vec!["shop-*".into()],
            source_repos: vec!["https://git.example.com/shop/*".into()],
        }])
    }

    fn application(spec: Value) -> Value {
        json!({
            "apiVersion": "weft.dev/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "web", "namespace": "shop-apps", "generation": 3},
            "spec": spec,
        })
    }

    fn web() -> Value {
        json!({
            "type": "helm",
            "env": "dev",
            "source": {"repoURL": "https://git.example.com/shop/web.git", "path": "chart", "targetRevision": "v2"},
            "parameters": {"replicaCount": 2, "image.tag": "1.4.2"},
            "destination": {"namespace": "shop-web"},
            "syncPolicy": {
                "automated": {"prune": true, "selfHeal": true},
                "createNamespace": true,
                "fuse": {"maxDeletions": 5, "maxRatio": 0.5}
            },
            "ignoreDifferences": [{"kind": "Deployment", "jsonPointers": ["/spec/replicas"]}]
        })
    }

    #[test]
    fn an_application_opts_in_to_lookup_with_spec_lookup_and_sees_its_orgs_destinations() {
        let plain = app_of(&application(web()), &tenancy(), &ApiAppRules::default()).unwrap();
        assert!(!plain.lookup);
        let mut spec = web();
        spec["lookup"] = json!(true);
        let app = app_of(&application(spec), &tenancy(), &ApiAppRules::default()).unwrap();
        assert!(app.lookup);
        let scope = weft_app::LookupScope::of(&app);
        assert!(scope.allows("shop-web") && scope.allows("shop-db"));
        assert!(!scope.allows("bank") && !scope.allows("shop"));
        let mut wrong = web();
        wrong["lookup"] = json!("yes");
        assert!(app_of(&application(wrong), &tenancy(), &ApiAppRules::default()).is_err());
    }

    #[test]
    fn argo_cd_sync_options_and_managed_fields_rules_read_as_the_app_s_settings() {
        let mut spec = web();
        spec["syncPolicy"]["syncOptions"] = json!([
            "RespectIgnoreDifferences=true",
            "ServerSideApply=true",
            "Force=true",
            "CreateNamespace=false"
        ]);
        spec["ignoreDifferences"] = json!([
            {"group": "apps", "kind": "Deployment", "managedFieldsManagers": ["hpa-controller"]}
        ]);
        let app = app_of(
            &application(spec.clone()),
            &tenancy(),
            &ApiAppRules::default(),
        )
        .unwrap();
        assert!(app.sync.respect_ignore_differences && app.sync.force);
        assert!(!app.sync.create_namespace);
        assert_eq!(
            app.ignore[0].managed_fields_managers,
            vec!["hpa-controller"]
        );

        let refused = |spec: Value| {
            app_of(&application(spec), &tenancy(), &ApiAppRules::default())
                .unwrap_err()
                .to_string()
        };
        let mut unknown = spec.clone();
        unknown["syncPolicy"]["syncOptions"] = json!(["PruneLast=true"]);
        let message = refused(unknown);
        assert!(
            message.contains("\"PruneLast\"") && message.contains("RespectIgnoreDifferences"),
            "{message}"
        );
        let mut jq = spec;
        jq["ignoreDifferences"] =
            json!([{"kind": "Deployment", "jqPathExpressions": [".spec.replicas"]}]);
        let message = refused(jq);
        assert!(message.contains("jq_path_expressions"), "{message}");
    }

    #[test]
    fn an_application_reads_as_the_app_it_declares_with_its_namespace_org() {
        let app = app_of(&application(web()), &tenancy(), &ApiAppRules::default()).unwrap();
        assert_eq!(app.name, "web");
        assert_eq!(app.org.as_deref(), Some("shop"));
        assert_eq!(app.app_type, "helm");
        assert_eq!(app.namespace, "shop-web");
        assert_eq!(
            app.source.repo.as_deref(),
            Some("https://git.example.com/shop/web.git")
        );
        assert_eq!(app.source.path, "chart");
        assert_eq!(app.source.reference, "v2");
        assert!(app.sync.automated && app.sync.self_heal && app.sync.prune);
        assert!(app.sync.create_namespace);
        assert_eq!(app.sync.fuse.max_deletions, 5);
        assert_eq!(app.parameters.len(), 2);
        assert_eq!(app.ignore.len(), 1);
        assert_eq!(app.ignore[0].json_pointers, vec!["/spec/replicas"]);
    }

    #[test]
    fn a_field_an_application_cannot_have_is_refused_as_an_invalid_spec_naming_its_path() {
        let refused = |spec: Value| {
            app_of(&application(spec), &tenancy(), &ApiAppRules::default()).unwrap_err()
        };
        let mut spec = web();
        spec["destination"]["project"] = json!("default");
        let refusal = refused(spec);
        assert_eq!(refusal.reason(), "InvalidSpec");
        assert_eq!(
            refusal.to_string(),
            "spec.destination.project: not a field of an Application (known: namespace, cluster, name, server)"
        );
        let mut spec = web();
        spec["syncPolicy"] = json!({"retry": {"backoff": "5s"}});
        assert_eq!(
            refused(spec).to_string(),
            "spec.syncPolicy.retry.backoff: expected an object"
        );
        let mut spec = web();
        spec["syncPolicy"] = json!({"syncOptions": ["CreateNamespace=true", 3]});
        assert_eq!(
            refused(spec).to_string(),
            "spec.syncPolicy.syncOptions[1]: expected a Name=true|false string"
        );
    }

    #[test]
    fn an_application_cannot_claim_an_org_a_destination_or_a_source_its_namespace_lacks() {
        // An org field in the spec is not a field at all.
        let mut spec = web();
        spec["org"] = json!("bank");
        let refusal = app_of(&application(spec), &tenancy(), &ApiAppRules::default()).unwrap_err();
        assert_eq!(refusal.reason(), "InvalidSpec");
        assert!(refusal.to_string().contains("spec.org"), "{refusal}");

        let mut spec = web();
        spec["destination"]["namespace"] = json!("kube-system");
        let refusal = app_of(&application(spec), &tenancy(), &ApiAppRules::default()).unwrap_err();
        assert_eq!(refusal.reason(), "DestinationNotAllowed");

        let mut spec = web();
        spec["source"]["repoURL"] = json!("https://git.example.com/bank/vault.git");
        let refusal = app_of(&application(spec), &tenancy(), &ApiAppRules::default()).unwrap_err();
        assert_eq!(refusal.reason(), "SourceNotAllowed");

        let mut elsewhere = application(web());
        elsewhere["metadata"]["namespace"] = json!("default");
        let refusal = app_of(&elsewhere, &tenancy(), &ApiAppRules::default()).unwrap_err();
        assert_eq!(refusal.reason(), "NamespaceNotMapped");
    }

    #[test]
    fn an_application_may_not_name_the_servers_own_files_or_environment() {
        // What an operator's weft.toml app may name (a directory, a key file, an environment variable) an
        // Application may not: those fields do not exist for it, and a directory source is refused.
        for (field, value) in [
            ("sshKey", json!("/root/.ssh/id_ed25519")),
            ("passwordEnv", json!("AWS_SECRET_ACCESS_KEY")),
            ("username", json!("root")),
        ] {
            let mut spec = web();
            spec["source"][field] = value;
            let refusal =
                app_of(&application(spec), &tenancy(), &ApiAppRules::default()).unwrap_err();
            assert!(refusal.to_string().contains(field), "{refusal}");
        }
        let mut spec = web();
        spec["source"]["repoURL"] = json!("file:///etc");
        let tenancy = Tenancy::new(vec![OrgSpec {
            source_repos: vec!["*".into()],
            ..tenancy().org_of("shop-apps").unwrap().clone()
        }]);
        let refusal = app_of(&application(spec), &tenancy, &ApiAppRules::default()).unwrap_err();
        assert_eq!(refusal.reason(), "InvalidSpec");
        assert!(refusal.to_string().contains("file://"), "{refusal}");
    }

    #[test]
    fn a_destination_cluster_this_server_does_not_manage_is_refused() {
        let mut spec = web();
        spec["destination"]["cluster"] = json!("production-eu");
        let refusal = app_of(&application(spec), &tenancy(), &ApiAppRules::default()).unwrap_err();
        assert!(refusal.to_string().contains("production-eu"), "{refusal}");
        let mut spec = web();
        spec["destination"]["cluster"] = json!("in-cluster");
        assert!(app_of(&application(spec), &tenancy(), &ApiAppRules::default()).is_ok());
    }

    #[test]
    fn argo_cd_destinations_by_name_or_by_the_in_cluster_address_are_read_and_any_other_address_is_refused()
     {
        let clusters = vec!["staging".to_string(), "production".to_string()];
        let mut org = tenancy().org_of("shop-apps").unwrap().clone();
        org.clusters = vec!["*".into()];
        let open = Tenancy::new(vec![org]).with_clusters(clusters);
        let read = |destination: Value| {
            let mut spec = web();
            spec["destination"] = destination;
            app_of(&application(spec), &open, &ApiAppRules::default())
        };
        // Argo CD's name is the cluster's name; in-cluster and the in-cluster address are the default cluster.
        let by_name = read(json!({"name": "production", "namespace": "shop-web"})).unwrap();
        assert_eq!(by_name.cluster.as_deref(), Some("production"));
        for destination in [
            json!({"name": "in-cluster", "namespace": "shop-web"}),
            json!({"server": "https://kubernetes.default.svc", "namespace": "shop-web"}),
            json!({"server": "https://kubernetes.default.svc/", "namespace": "shop-web"}),
        ] {
            let app = read(destination.clone()).unwrap();
            assert_eq!(app.cluster, None, "{destination}");
            assert_eq!(app.namespace, "shop-web");
        }
        // Weft names clusters: another address is refused, saying how to name it, never sent to the default one.
        let refusal =
            read(json!({"server": "https://10.0.0.5:6443", "namespace": "shop-web"})).unwrap_err();
        assert_eq!(refusal.reason(), "InvalidSpec");
        assert_eq!(
            refusal.to_string(),
            "spec.destination.server: \"https://10.0.0.5:6443\" is not an address Weft knows: Weft names its \
             clusters, so name it with spec.destination.name (it manages: staging, production; in-cluster is staging)"
        );
        let refusal = read(json!({"name": "production-eu", "namespace": "shop-web"})).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "spec.destination.name: \"production-eu\" is not a cluster this server manages (it manages: staging, \
             production; in-cluster is staging)"
        );
        // One cluster, named once: Argo CD refuses name with server, and Weft any two of the three.
        let refusal = read(json!({
            "name": "production", "server": "https://kubernetes.default.svc", "namespace": "shop-web"
        }))
        .unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "spec.destination: names its cluster twice (name, server); give one of cluster, name and server"
        );
        assert!(
            read(json!({"cluster": "production", "name": "production", "namespace": "shop-web"}))
                .is_err()
        );
    }

    #[test]
    fn a_destination_cluster_is_one_the_server_manages_and_the_org_may_use() {
        let clusters = vec!["staging".to_string(), "production".to_string()];
        let mut spec = web();
        spec["destination"]["cluster"] = json!("production");
        let plain = tenancy().with_clusters(clusters.clone());
        let refusal =
            app_of(&application(spec.clone()), &plain, &ApiAppRules::default()).unwrap_err();
        assert_eq!(refusal.reason(), "DestinationNotAllowed");
        let mut org = tenancy().org_of("shop-apps").unwrap().clone();
        org.clusters = vec!["*".into()];
        let open = Tenancy::new(vec![org]).with_clusters(clusters);
        let app = app_of(&application(spec), &open, &ApiAppRules::default()).unwrap();
        assert_eq!(app.cluster.as_deref(), Some("production"));
        // The default cluster, by its name or as in-cluster, is no cluster named.
        for name in ["staging", "in-cluster"] {
            let mut spec = web();
            spec["destination"]["cluster"] = json!(name);
            let app = app_of(&application(spec), &open, &ApiAppRules::default()).unwrap();
            assert_eq!(app.cluster, None, "{name}");
        }
    }

    #[test]
    fn a_bad_value_is_refused_with_its_field_named() {
        let mut spec = web();
        spec["syncPolicy"]["fuse"]["maxRatio"] = json!("half");
        let refusal = app_of(&application(spec), &tenancy(), &ApiAppRules::default()).unwrap_err();
        assert_eq!(refusal.reason(), "InvalidSpec");
        let mut spec = web();
        spec["type"] = json!("");
        assert!(app_of(&application(spec), &tenancy(), &ApiAppRules::default()).is_err());
    }

    #[test]
    fn argo_cd_s_retry_policy_reads_as_the_app_s_with_go_durations() {
        let mut spec = web();
        spec["syncPolicy"]["retry"] =
            json!({"limit": 3, "backoff": {"duration": "10s", "factor": 3, "maxDuration": "2m"}});
        let app = app_of(
            &application(spec.clone()),
            &tenancy(),
            &ApiAppRules::default(),
        )
        .unwrap();
        assert_eq!(app.sync.retry.limit, 3);
        assert_eq!(app.sync.retry.delay(1), std::time::Duration::from_secs(10));
        assert_eq!(app.sync.retry.delay(3), std::time::Duration::from_secs(90));
        assert_eq!(app.sync.retry.delay(4), std::time::Duration::from_secs(120));
        let refused = |spec: Value| {
            app_of(&application(spec), &tenancy(), &ApiAppRules::default())
                .unwrap_err()
                .to_string()
        };
        let mut typo = spec.clone();
        typo["syncPolicy"]["retry"]["backoff"]["maxDurration"] = json!("1m");
        assert!(refused(typo).contains("maxDurration"));
        let mut bad = spec;
        bad["syncPolicy"]["retry"]["backoff"]["duration"] = json!("ten seconds");
        assert!(refused(bad).contains("not a duration"));
    }
}
