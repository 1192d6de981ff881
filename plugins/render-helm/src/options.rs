//! The renderer's options, read from the request's parameters (the keys are documented in the crate docs).

use crate::chart::objects::KubeVersion;
use crate::chart::strvals::{self, Typing};
use crate::chart::values::merge_maps;
use crate::template::{Map, Value};
use crate::yaml::{json_numbers, parse_document};

/// The default step budget: far above what real charts use (a 200-object chart takes well under a million).
pub const DEFAULT_MAX_STEPS: u64 = 20_000_000;

/// The Kubernetes version `.Capabilities` reports by default: the one Helm's library reports offline.
pub const DEFAULT_KUBE_VERSION: &str = "v1.36.0";

/// The API versions `.Capabilities.APIVersions` holds by default, as Helm's library reports them offline.
pub const DEFAULT_API_VERSIONS: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha2",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

/// Options from the parameters.
#[derive(Debug, Clone)]
pub struct Options {
    /// The step budget (`max-steps`).
    pub max_steps: u64,
    /// `.Capabilities.KubeVersion` (`kube-version`).
    pub kube_version: KubeVersion,
    /// `.Capabilities.APIVersions` (defaults plus `api-versions`).
    pub api_versions: Vec<String>,
    /// `--set`-style assignments, in Helm's order of application.
    pub assignments: Vec<(Typing, String)>,
    /// Leave `crds/` out (`skip-crds`, Argo CD's `skipCrds`); by default they are rendered before the templates,
    /// as `helm template --include-crds`.
    pub skip_crds: bool,
    /// Whether `kube-version` was given (it then wins over the cluster's version).
    pub kube_version_set: bool,
}

fn typing_of(key: &str) -> Option<(Typing, Option<&str>)> {
    for (prefix, typing) in [
        ("set-string", Typing::Strings),
        ("set-json", Typing::Json),
        ("set", Typing::Typed),
    ] {
        if key == prefix {
            return Some((typing, None));
        }
        if let Some(path) = key
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('.'))
        {
            return Some((typing, Some(path)));
        }
    }
    None
}

impl Options {
    /// Adds what the destination cluster serves, when the render is for one: its version (unless `kube-version`
    /// was set) and its API versions (added to the defaults, as `helm template --api-versions` adds them).
    pub fn for_cluster(
        mut self,
        cluster: Option<&weft_sdk::ClusterFacts>,
    ) -> Result<Options, String> {
        let Some(cluster) = cluster else {
            return Ok(self);
        };
        if !self.kube_version_set && !cluster.kube_version.is_empty() {
            self.kube_version = KubeVersion::parse(&cluster.kube_version)
                .map_err(|e| format!("the cluster's version {:?}: {e}", cluster.kube_version))?;
        }
        for version in &cluster.api_versions {
            if !self.api_versions.contains(version) {
                self.api_versions.push(version.clone());
            }
        }
        Ok(self)
    }

    /// Reads the parameters; an unknown key or a bad value is an error naming it.
    pub fn from_parameters(parameters: &[(String, String)]) -> Result<Options, String> {
        let mut options = Options {
            max_steps: DEFAULT_MAX_STEPS,
            kube_version: KubeVersion::parse(DEFAULT_KUBE_VERSION)?,
            api_versions: DEFAULT_API_VERSIONS.iter().map(|s| s.to_string()).collect(),
            assignments: Vec::new(),
            skip_crds: false,
            kube_version_set: false,
        };
        let mut by_typing: [Vec<String>; 3] = Default::default();
        for (key, value) in parameters {
            match key.as_str() {
                "max-steps" => {
                    options.max_steps = value.parse().map_err(|_| {
                        format!("parameter max-steps: {value:?} is not a whole number")
                    })?;
                }
                "kube-version" => {
                    options.kube_version = KubeVersion::parse(value)?;
                    options.kube_version_set = true;
                }
                "skip-crds" => {
                    options.skip_crds = match value.as_str() {
                        "true" => true,
                        "false" => false,
                        _ => {
                            return Err(format!(
                                "parameter skip-crds: {value:?} is neither true nor false"
                            ));
                        }
                    }
                }
                "api-versions" => options.api_versions.extend(
                    value
                        .split(',')
                        .map(str::trim)
                        .filter(|v| !v.is_empty())
                        .map(String::from),
                ),
                other => {
                    let (typing, path) = typing_of(other).ok_or_else(|| {
                        format!(
                            "unknown parameter {other:?} (the Helm renderer takes set, set.PATH, set-string, \
                             set-string.PATH, set-json, set-json.PATH, kube-version, api-versions, skip-crds, max-steps)"
                        )
                    })?;
                    let expression = match path {
                        Some(path) => format!("{}={value}", path.replace(',', "\\,")),
                        None => value.clone(),
                    };
                    let slot = match typing {
                        Typing::Json => 0,
                        Typing::Typed => 1,
                        Typing::Strings => 2,
                    };
                    by_typing[slot].push(expression);
                }
            }
        }
        // Helm applies --set-json, then --set, then --set-string.
        for (slot, typing) in [Typing::Json, Typing::Typed, Typing::Strings]
            .into_iter()
            .enumerate()
        {
            for expression in by_typing[slot].drain(..) {
                options.assignments.push((typing, expression));
            }
        }
        Ok(options)
    }
}

/// The user's values: the value documents merged in order, then the `--set` assignments.
pub fn user_values(documents: &[String], options: &Options) -> Result<Map, String> {
    let mut values = Map::new();
    for (i, document) in documents.iter().enumerate() {
        let parsed = parse_document(document)
            .map_err(|e| format!("values document {}: line {}: {}", i + 1, e.line, e.message))?;
        match json_numbers(parsed) {
            Value::Map(map) => merge_maps(&mut values, &map.borrow()),
            Value::Nil => {}
            _ => return Err(format!("values document {} is not a mapping", i + 1)),
        }
    }
    for (typing, expression) in &options.assignments {
        strvals::apply(&mut values, expression, *typing)
            .map_err(|e| format!("parameter set: {e}"))?;
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn reads_parameters_and_orders_assignments() {
        let options = Options::from_parameters(&params(&[
            ("set-string", "a=1"),
            ("set", "b=2,c=3"),
            ("set.image.tag", "1.2"),
            ("set-json", r#"d={"x":1}"#),
            ("kube-version", "1.29.0"),
            ("api-versions", "example.com/v1, other/v2"),
            ("max-steps", "500"),
        ]))
        .unwrap();
        assert_eq!(options.max_steps, 500);
        assert_eq!(options.assignments[0].0, Typing::Json);
        assert_eq!(
            options.assignments.last().map(|a| a.0),
            Some(Typing::Strings)
        );
        assert!(options.api_versions.contains(&"other/v2".to_string()));
        let values = Value::map(
            user_values(&["b: 0\ne: {f: 1}".into(), "e: {g: 2}".into()], &options).unwrap(),
        );
        assert_eq!(values.get("b"), Some(Value::Int(2)));
        assert_eq!(values.get("a"), Some(Value::string("1")));
        assert_eq!(
            values.get("image").and_then(|i| i.get("tag")),
            Some(Value::string("1.2"))
        );
        assert_eq!(
            values.get("e").and_then(|e| e.get("f")),
            Some(Value::Float(1.0))
        );
        assert!(
            Options::from_parameters(&params(&[("bogus", "1")]))
                .unwrap_err()
                .contains("unknown parameter")
        );
        assert!(Options::from_parameters(&params(&[("max-steps", "lots")])).is_err());
    }

    #[test]
    fn the_clusters_version_applies_unless_set_and_its_apis_add_to_the_defaults() {
        let cluster = weft_sdk::ClusterFacts {
            kube_version: "v1.31.4-gke.1200".into(),
            api_versions: vec!["example.com/v1".into(), "example.com/v1/Widget".into()],
        };
        let options = Options::from_parameters(&[])
            .unwrap()
            .for_cluster(Some(&cluster))
            .unwrap();
        assert_eq!(options.kube_version.version(), "v1.31.4-gke.1200");
        assert!(
            options
                .api_versions
                .contains(&"example.com/v1/Widget".to_string())
        );
        assert!(options.api_versions.contains(&"apps/v1".to_string()));
        let pinned = Options::from_parameters(&params(&[("kube-version", "1.29.0")]))
            .unwrap()
            .for_cluster(Some(&cluster))
            .unwrap();
        assert_eq!(pinned.kube_version.version(), "v1.29.0");
        let none = Options::from_parameters(&[])
            .unwrap()
            .for_cluster(None)
            .unwrap();
        assert_eq!(none.kube_version.version(), DEFAULT_KUBE_VERSION);
    }
}
