//! What `weft app create` and `weft app set` send: an app definition made from Argo CD-style flags
//! (`--repo`, `--path`, `--revision`, `--dest-namespace`, `-p key=value`, `--sync-policy automated`, ...), and the
//! same flags laid over a definition the server holds. Pure: flags and JSON in, JSON out; no I/O.

use serde_json::{Map, Value, json};
use weft_sync::sync_options::parse_sync_option;

/// The flags that describe an app, shared by `weft app create` (which needs some of them) and `weft app set`
/// (which changes only those given).
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct AppFields {
    /// The git repository: `https://`, `ssh://` or `git@host:path` (`file://` where the server allows it).
    #[arg(long = "repo", value_name = "URL")]
    pub(crate) repo: Option<String>,
    /// The app's directory inside the repository (default `.`).
    #[arg(long, value_name = "PATH")]
    pub(crate) path: Option<String>,
    /// The branch, tag or commit to follow (default `HEAD`); for a chart from a chart repository, its version or
    /// version range (default: the newest), as Argo CD's `--revision` with `--helm-chart`.
    #[arg(long, value_name = "REF")]
    pub(crate) revision: Option<String>,
    /// A chart from the chart repository `--repo` (`https://` with an `index.yaml`, or `oci://`) instead of a
    /// directory in git.
    #[arg(long = "helm-chart", value_name = "CHART")]
    pub(crate) helm_chart: Option<String>,
    /// The app type, which picks the renderer: `yaml`, `helm`, `kustomize`, `jsonnet` (or a plugin's type).
    #[arg(long = "type", value_name = "TYPE")]
    pub(crate) app_type: Option<String>,
    /// The destination namespace: namespaced objects without one go there.
    #[arg(long = "dest-namespace", value_name = "NS")]
    pub(crate) dest_namespace: Option<String>,
    /// The destination cluster, by its configured name (default: the server's first).
    #[arg(
        long = "dest-cluster",
        visible_alias = "dest-name",
        value_name = "CLUSTER"
    )]
    pub(crate) dest_cluster: Option<String>,
    /// The org (tenant) that owns the app (Argo CD's project).
    #[arg(long, visible_alias = "project", value_name = "ORG")]
    pub(crate) org: Option<String>,
    /// The environment the fleet list shows: `main`, `test` or `dev`.
    #[arg(long, value_name = "ENV", value_parser = ["main", "test", "dev"])]
    pub(crate) env: Option<String>,
    /// `automated` syncs whenever the app is out of sync; `none` only when asked.
    #[arg(long = "sync-policy", value_enum, value_name = "POLICY")]
    pub(crate) sync_policy: Option<SyncPolicyFlag>,
    /// Revert drift in the cluster (with `--sync-policy automated`); `--self-heal=false` turns it off.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub(crate) self_heal: Option<bool>,
    /// Delete objects no longer rendered (within the prune fuse); `--auto-prune=false` turns it off.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub(crate) auto_prune: Option<bool>,
    /// A sync option, as Argo CD spells it: `CreateNamespace=true`, `Replace=true`, `Force=true`,
    /// `RespectIgnoreDifferences=true` (or `=false`); repeatable.
    #[arg(long = "sync-option", value_name = "OPTION=BOOL")]
    pub(crate) sync_options: Vec<String>,
    /// A renderer parameter `key=value` (Helm: `set.image.tag=v2`; Jsonnet: `extVar.env=prod`); repeatable, and a
    /// key given twice is a list.
    #[arg(short = 'p', long = "parameter", value_name = "KEY=VALUE")]
    pub(crate) parameters: Vec<String>,
    /// A Helm values file in the app's repository, merged after the chart's own, in order; repeatable.
    #[arg(long = "values-file", visible_alias = "values", value_name = "FILE")]
    pub(crate) value_files: Vec<String>,
    /// The Helm release name (default: the app's name).
    #[arg(long = "release-name", value_name = "NAME")]
    pub(crate) release: Option<String>,
    /// The operator's credential (`[[credential]]` in weft.toml) the repository is fetched with, by name.
    #[arg(long, value_name = "NAME")]
    pub(crate) credential: Option<String>,
}

/// `--sync-policy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SyncPolicyFlag {
    /// Sync whenever the app is out of sync.
    #[value(alias = "auto")]
    Automated,
    /// Sync only when asked.
    #[value(alias = "manual")]
    None,
}

/// Flags that do not make an app definition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FieldError {
    /// `weft app create` without a field the server needs.
    #[error("`weft app create` needs {missing}")]
    Missing {
        /// The flags missing, joined.
        missing: String,
    },
    /// A `-p` that is not `key=value`.
    #[error("-p {given:?}: a parameter is KEY=VALUE")]
    Parameter {
        /// What was given.
        given: String,
    },
    /// A `--sync-option` that is not one Weft has.
    #[error(
        "--sync-option {given:?}: Weft's sync options are CreateNamespace, Replace, Force and \
         RespectIgnoreDifferences, each =true or =false (it always applies server-side, with force)"
    )]
    SyncOption {
        /// What was given.
        given: String,
    },
    /// The server's definition is not an object (a server of another version).
    #[error("the server's definition of app {app} is not an object")]
    NotAnObject {
        /// The app.
        app: String,
    },
}

/// The definition `weft app create NAME` sends: `--repo`, `--type` and `--dest-namespace` are needed; the rest
/// takes the server's defaults when not given.
pub(crate) fn new_app(name: &str, fields: &AppFields) -> Result<Value, FieldError> {
    let missing: Vec<&str> = [
        ("--repo URL", fields.repo.is_none()),
        ("--type TYPE", fields.app_type.is_none()),
        ("--dest-namespace NS", fields.dest_namespace.is_none()),
    ]
    .into_iter()
    .filter_map(|(flag, absent)| absent.then_some(flag))
    .collect();
    if !missing.is_empty() {
        return Err(FieldError::Missing {
            missing: missing.join(", "),
        });
    }
    let mut app = json!({"name": name, "source": {}});
    apply(&mut app, fields)?;
    Ok(app)
}

/// Lays the flags given over an app's definition as the server holds it, leaving everything else as it is.
pub(crate) fn changed_app(
    name: &str,
    mut current: Value,
    fields: &AppFields,
) -> Result<Value, FieldError> {
    if !current.is_object() {
        return Err(FieldError::NotAnObject {
            app: name.to_string(),
        });
    }
    apply(&mut current, fields)?;
    Ok(current)
}

/// Whether any flag that changes a definition was given (`weft app set NAME` alone changes nothing).
pub(crate) fn changes_anything(fields: &AppFields) -> bool {
    let AppFields {
        repo,
        path,
        revision,
        helm_chart,
        app_type,
        dest_namespace,
        dest_cluster,
        org,
        env,
        sync_policy,
        self_heal,
        auto_prune,
        sync_options,
        parameters,
        value_files,
        release,
        credential,
    } = fields;
    [
        repo,
        path,
        revision,
        helm_chart,
        app_type,
        dest_namespace,
        dest_cluster,
        org,
        env,
        release,
        credential,
    ]
    .iter()
    .any(|field| field.is_some())
        || sync_policy.is_some()
        || self_heal.is_some()
        || auto_prune.is_some()
        || !sync_options.is_empty()
        || !parameters.is_empty()
        || !value_files.is_empty()
}

fn apply(app: &mut Value, fields: &AppFields) -> Result<(), FieldError> {
    let parameters = parameters(&fields.parameters)?;
    let sync_options = fields
        .sync_options
        .iter()
        .map(|option| sync_option(option))
        .collect::<Result<Vec<_>, _>>()?;
    let object = object_at(app);
    set_text(object, "type", &fields.app_type);
    set_text(object, "namespace", &fields.dest_namespace);
    set_text(object, "cluster", &fields.dest_cluster);
    set_text(object, "org", &fields.org);
    set_text(object, "env", &fields.env);
    set_text(object, "release", &fields.release);
    if !fields.value_files.is_empty() {
        object.insert("value_files".into(), json!(fields.value_files));
    }
    if !parameters.is_empty() {
        let held = object_at_key(object, "parameters");
        for (key, value) in parameters {
            held.insert(key, value);
        }
    }
    let source = object_at_key(object, "source");
    set_text(source, "repo", &fields.repo);
    set_text(source, "path", &fields.path);
    set_text(source, "chart", &fields.helm_chart);
    // A chart repository's source has a version where git's has a ref.
    let revision_key = if source.contains_key("chart") {
        "version"
    } else {
        "ref"
    };
    set_text(source, revision_key, &fields.revision);
    set_text(source, "credential", &fields.credential);
    let sync = object_at_key(object, "sync");
    if let Some(policy) = fields.sync_policy {
        sync.insert(
            "automated".into(),
            json!(policy == SyncPolicyFlag::Automated),
        );
    }
    if let Some(on) = fields.self_heal {
        sync.insert("self_heal".into(), json!(on));
    }
    if let Some(on) = fields.auto_prune {
        sync.insert("prune".into(), json!(on));
    }
    for (key, on) in sync_options.into_iter().flatten() {
        sync.insert(key.into(), json!(on));
    }
    Ok(())
}

/// `-p` flags as the definition's parameters: a key given once is a string, given more than once a list.
fn parameters(given: &[String]) -> Result<Vec<(String, Value)>, FieldError> {
    let mut out: Vec<(String, Value)> = Vec::new();
    for flag in given {
        let Some((key, value)) = flag
            .split_once('=')
            .filter(|(key, _)| !key.trim().is_empty())
        else {
            return Err(FieldError::Parameter {
                given: flag.clone(),
            });
        };
        match out.iter_mut().find(|(held, _)| held == key) {
            Some((_, Value::Array(items))) => items.push(json!(value)),
            Some((_, one)) => *one = json!([one.take(), value]),
            None => out.push((key.to_string(), json!(value))),
        }
    }
    Ok(out)
}

/// A sync option as the definition's `sync` key and value (`None` for one that changes nothing), read as an
/// Application's are ([`parse_sync_option`]).
fn sync_option(given: &str) -> Result<Option<(&'static str, bool)>, FieldError> {
    parse_sync_option(given).map_err(|_| FieldError::SyncOption {
        given: given.to_string(),
    })
}

fn set_text(object: &mut Map<String, Value>, key: &str, value: &Option<String>) {
    if let Some(value) = value {
        object.insert(key.to_string(), json!(value));
    }
}

/// The object at `value` (made one when it is not).
fn object_at(value: &mut Value) -> &mut Map<String, Value> {
    if !value.is_object() {
        *value = Value::Object(Map::new());
    }
    value
        .as_object_mut()
        .expect("the value was made an object above")
}

/// The object under `key` (made one when absent or not an object).
fn object_at_key<'a>(object: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    object_at(
        object
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Map::new())),
    )
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Flags {
        #[command(flatten)]
        fields: AppFields,
    }

    fn fields(args: &[&str]) -> AppFields {
        Flags::try_parse_from(std::iter::once("weft").chain(args.iter().copied()))
            .unwrap()
            .fields
    }

    #[test]
    fn create_flags_make_the_definition_the_api_takes() {
        let app = new_app(
            "guestbook",
            &fields(&[
                "--repo",
                "https://git.example/apps.git",
                "--path",
                "guestbook",
                "--revision",
                "v2",
                "--type",
                "helm",
                "--dest-namespace",
                "guestbook",
                "--dest-cluster",
                "production",
                "--org",
                "demo",
                "--sync-policy",
                "automated",
                "--self-heal",
                "--auto-prune",
                "--sync-option",
                "CreateNamespace=true",
                "-p",
                "set.image.tag=v2",
                "-p",
                "set.replicas=3",
                "--values-file",
                "values-prod.yaml",
            ]),
        )
        .unwrap();
        assert_eq!(
            app,
            json!({
                "name": "guestbook",
                "type": "helm",
                "namespace": "guestbook",
                "cluster": "production",
                "org": "demo",
                "value_files": ["values-prod.yaml"],
                "parameters": {"set.image.tag": "v2", "set.replicas": "3"},
                "source": {"repo": "https://git.example/apps.git", "path": "guestbook", "ref": "v2"},
                "sync": {"automated": true, "self_heal": true, "prune": true, "create_namespace": true},
            })
        );
        // The definition is one the engine reads.
        let parsed: weft_app::AppSpec = serde_json::from_value(app).unwrap();
        assert!(parsed.sync.automated && parsed.sync.self_heal && parsed.sync.create_namespace);
        assert_eq!(parsed.source.reference, "v2");
    }

    #[test]
    fn a_chart_from_a_chart_repository_takes_the_revision_as_its_version() {
        let app = new_app(
            "redis",
            &fields(&[
                "--repo",
                "https://charts.example",
                "--helm-chart",
                "redis",
                "--revision",
                "^18.0.0",
                "--type",
                "helm",
                "--dest-namespace",
                "redis",
            ]),
        )
        .unwrap();
        assert_eq!(
            app["source"],
            json!({"repo": "https://charts.example", "chart": "redis", "version": "^18.0.0"})
        );
        let parsed: weft_app::AppSpec = serde_json::from_value(app.clone()).unwrap();
        parsed.validate().unwrap();
        // A later set of the revision changes the chart's version, not a git ref.
        let changed = changed_app("redis", app, &fields(&["--revision", "18.1.0"])).unwrap();
        assert_eq!(changed["source"]["version"], "18.1.0");
        assert!(changed["source"].get("ref").is_none(), "{changed}");
    }

    #[test]
    fn create_names_every_flag_it_still_needs() {
        assert_eq!(
            new_app("a", &fields(&["--type", "yaml"]))
                .unwrap_err()
                .to_string(),
            "`weft app create` needs --repo URL, --dest-namespace NS"
        );
    }

    #[test]
    fn a_parameter_given_twice_is_a_list_and_one_without_a_key_is_refused() {
        let app = new_app(
            "a",
            &fields(&[
                "--repo",
                "r",
                "--type",
                "helm",
                "--dest-namespace",
                "n",
                "-p",
                "set=a=1",
                "-p",
                "set=b=2",
                "-p",
                "set=c=3",
            ]),
        )
        .unwrap();
        assert_eq!(app["parameters"]["set"], json!(["a=1", "b=2", "c=3"]));
        let refused = new_app(
            "a",
            &fields(&[
                "--repo",
                "r",
                "--type",
                "yaml",
                "--dest-namespace",
                "n",
                "-p",
                "=x",
            ]),
        );
        assert_eq!(
            refused.unwrap_err(),
            FieldError::Parameter { given: "=x".into() }
        );
    }

    #[test]
    fn set_changes_only_the_fields_given_and_keeps_the_rest() {
        let held = json!({
            "name": "shop", "type": "yaml", "namespace": "shop", "org": "demo",
            "source": {"repo": "https://git.example/shop.git", "path": "shop", "ref": "main"},
            "parameters": {"recurse": true},
            "sync": {"automated": true, "self_heal": true, "prune": true, "history_limit": 10},
            "ignore": [{"kind": "Deployment"}],
        });
        let changed = changed_app(
            "shop",
            held.clone(),
            &fields(&[
                "--revision",
                "v3",
                "--self-heal=false",
                "--sync-policy",
                "none",
                "-p",
                "extVar.env=prod",
            ]),
        )
        .unwrap();
        let mut expected = held;
        expected["source"]["ref"] = json!("v3");
        expected["sync"]["self_heal"] = json!(false);
        expected["sync"]["automated"] = json!(false);
        expected["parameters"]["extVar.env"] = json!("prod");
        assert_eq!(changed, expected);
        assert!(!changes_anything(&fields(&[])));
        assert!(changes_anything(&fields(&["--auto-prune=false"])));
    }

    #[test]
    fn sync_options_are_weft_s_and_anything_else_is_named() {
        let app = new_app(
            "a",
            &fields(&[
                "--repo",
                "r",
                "--type",
                "yaml",
                "--dest-namespace",
                "n",
                "--sync-option",
                "Replace=true",
                "--sync-option",
                "RespectIgnoreDifferences=false",
            ]),
        )
        .unwrap();
        assert_eq!(
            app["sync"],
            json!({"replace": true, "respect_ignore_differences": false})
        );
        for bad in ["PruneLast=true", "CreateNamespace", "Force=yes"] {
            let error = new_app(
                "a",
                &fields(&[
                    "--repo",
                    "r",
                    "--type",
                    "yaml",
                    "--dest-namespace",
                    "n",
                    "--sync-option",
                    bad,
                ]),
            )
            .unwrap_err();
            assert_eq!(error, FieldError::SyncOption { given: bad.into() });
        }
    }
}
