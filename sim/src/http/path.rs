//! Parsing request paths into what they address: discovery documents or a resource, object and subresource.

/// What a request path addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiPath {
    /// `/version`.
    Version,
    /// `/healthz`, `/livez`, `/readyz`.
    Health,
    /// `/api`: the core group's versions.
    CoreVersions,
    /// `/apis`: every other group.
    Groups,
    /// `/api/v1` or `/apis/GROUP/VERSION`: the resources of a group version.
    GroupVersion {
        /// The group, empty for the core group.
        group: String,
        /// The version.
        version: String,
    },
    /// `/apis/GROUP`: one group and its versions.
    Group {
        /// The group.
        group: String,
    },
    /// `/openapi/v3`: the index of OpenAPI documents.
    OpenApiIndex,
    /// `/openapi/v3/api/v1` or `/openapi/v3/apis/GROUP/VERSION`.
    OpenApiDocument {
        /// The group, empty for the core group.
        group: String,
        /// The version.
        version: String,
    },
    /// A resource collection, object or subresource.
    Resource(ResourcePath),
    /// Anything else.
    Unknown,
}

/// The parts of a resource path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcePath {
    /// The group, empty for the core group.
    pub group: String,
    /// The version.
    pub version: String,
    /// The namespace segment, when the path has one.
    pub namespace: Option<String>,
    /// The plural resource name.
    pub plural: String,
    /// The object's name, when the path names one.
    pub name: Option<String>,
    /// The subresource (`status`, `scale`, `log`), when the path has one.
    pub subresource: Option<String>,
}

/// Parses a request path.
pub fn parse_path(path: &str) -> ApiPath {
    let segments: Vec<&str> = path
        .trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    match segments.as_slice() {
        ["version"] => ApiPath::Version,
        ["healthz" | "livez" | "readyz", ..] => ApiPath::Health,
        ["api"] => ApiPath::CoreVersions,
        ["openapi", "v3"] => ApiPath::OpenApiIndex,
        ["openapi", "v3", "api", version] => ApiPath::OpenApiDocument {
            group: String::new(),
            version: (*version).to_owned(),
        },
        ["openapi", "v3", "apis", group, version] => ApiPath::OpenApiDocument {
            group: (*group).to_owned(),
            version: (*version).to_owned(),
        },
        ["apis"] => ApiPath::Groups,
        ["apis", group] => ApiPath::Group {
            group: (*group).to_owned(),
        },
        ["api", version] => ApiPath::GroupVersion {
            group: String::new(),
            version: (*version).to_owned(),
        },
        ["apis", group, version] => ApiPath::GroupVersion {
            group: (*group).to_owned(),
            version: (*version).to_owned(),
        },
        ["api", version, rest @ ..] => resource_path("", version, rest),
        ["apis", group, version, rest @ ..] => resource_path(group, version, rest),
        _ => ApiPath::Unknown,
    }
}

fn resource_path(group: &str, version: &str, rest: &[&str]) -> ApiPath {
    let build =
        |namespace: Option<&str>, plural: &str, name: Option<&str>, subresource: Option<&str>| {
            ApiPath::Resource(ResourcePath {
                group: group.to_owned(),
                version: version.to_owned(),
                namespace: namespace.map(str::to_owned),
                plural: plural.to_owned(),
                name: name.map(str::to_owned),
                subresource: subresource.map(str::to_owned),
            })
        };
    match rest {
        // Namespaces themselves, and their status/finalize subresources.
        ["namespaces"] => build(None, "namespaces", None, None),
        ["namespaces", name] => build(None, "namespaces", Some(name), None),
        ["namespaces", name, sub @ ("status" | "finalize")] => {
            build(None, "namespaces", Some(name), Some(sub))
        }
        ["namespaces", namespace, plural] => build(Some(namespace), plural, None, None),
        ["namespaces", namespace, plural, name] => build(Some(namespace), plural, Some(name), None),
        ["namespaces", namespace, plural, name, sub] => {
            build(Some(namespace), plural, Some(name), Some(sub))
        }
        [plural] => build(None, plural, None, None),
        [plural, name] => build(None, plural, Some(name), None),
        [plural, name, sub] => build(None, plural, Some(name), Some(sub)),
        _ => ApiPath::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(path: &str) -> ResourcePath {
        match parse_path(path) {
            ApiPath::Resource(resource) => resource,
            other => panic!("{path} parsed as {other:?}"),
        }
    }

    #[test]
    fn discovery_paths() {
        assert_eq!(parse_path("/version"), ApiPath::Version);
        assert_eq!(parse_path("/api"), ApiPath::CoreVersions);
        assert_eq!(parse_path("/apis/"), ApiPath::Groups);
        assert_eq!(
            parse_path("/apis/apps/v1"),
            ApiPath::GroupVersion {
                group: "apps".into(),
                version: "v1".into()
            }
        );
        assert_eq!(parse_path("/openapi/v2"), ApiPath::Unknown);
    }

    #[test]
    fn namespaced_and_cluster_resources() {
        let pods = resource("/api/v1/namespaces/default/pods/web-1/log");
        assert_eq!(pods.namespace.as_deref(), Some("default"));
        assert_eq!(pods.plural, "pods");
        assert_eq!(pods.name.as_deref(), Some("web-1"));
        assert_eq!(pods.subresource.as_deref(), Some("log"));

        let namespace = resource("/api/v1/namespaces/default");
        assert_eq!(
            (namespace.plural.as_str(), namespace.name.as_deref()),
            ("namespaces", Some("default"))
        );
        assert_eq!(
            resource("/api/v1/namespaces/default/status")
                .subresource
                .as_deref(),
            Some("status")
        );

        let all_deployments = resource("/apis/apps/v1/deployments");
        assert_eq!(
            (all_deployments.namespace, all_deployments.name),
            (None, None)
        );

        let crd = resource(
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com/status",
        );
        assert_eq!(crd.name.as_deref(), Some("widgets.example.com"));
        assert_eq!(crd.subresource.as_deref(), Some("status"));
    }
}
