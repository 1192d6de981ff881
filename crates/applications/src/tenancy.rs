//! The operator's map of namespaces to orgs (`[[org]]`) and what each org's Application resources may name:
//! destination namespaces and source repositories, as Argo CD's AppProject allow-lists. Pure: no I/O.

use serde::{Deserialize, Serialize};

/// `[[org]]`: an org, the namespaces whose Application resources are its apps, and what those may name.
///
/// Nothing an Application says about itself chooses its org: the namespace it lives in does. An org that lists
/// no destinations or no source repositories allows none (fail closed); `"*"` allows any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrgSpec {
    /// The org's name, as tokens and OIDC groups name it.
    pub name: String,
    /// Namespaces whose Application resources belong to this org (each namespace to at most one org).
    #[serde(default)]
    pub namespaces: Vec<String>,
    /// Destination namespaces its Applications may deploy to: a name, a prefix ending in `*`, or `*`.
    #[serde(default)]
    pub destinations: Vec<String>,
    /// Destination clusters its Applications may deploy to: a name, a prefix ending in `*`, or `*` (default: only
    /// the first configured cluster, the management cluster).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clusters: Vec<String>,
    /// Repositories its Applications may take sources from: a URL, a prefix ending in `*`, or `*`.
    #[serde(default)]
    pub source_repos: Vec<String>,
    /// Cluster-scoped kinds its Applications may declare, `group/Kind` (`Kind` for the core group), a prefix ending
    /// in `*`, or `*` (default: none; Argo CD's cluster resource allow-list).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_kinds: Vec<String>,
}

/// `[applications]`: whether Weft serves apps declared as `applications.weft.dev` resources.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ApplicationsConfig {
    /// Watch Application resources in the namespaces of the `[[org]]` entries and run them as apps.
    pub enabled: bool,
    /// Install (create or update) the `applications.weft.dev` definition at start.
    pub install_crd: bool,
}

use weft_app::{allowed_by, unclear_repo_url};

/// The orgs, looked up by namespace, and the clusters Applications may name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tenancy {
    orgs: Vec<OrgSpec>,
    /// The configured clusters' names, the default (management) cluster first.
    clusters: Vec<String>,
}

/// Why an Application may not be run as its namespace's org.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TenancyError {
    /// No `[[org]]` lists the Application's namespace.
    #[error(
        "namespace {namespace} belongs to no org: the operator maps namespaces to orgs ([[org]] namespaces)"
    )]
    NamespaceNotMapped {
        /// The Application's namespace.
        namespace: String,
    },
    /// The destination cluster is not on the org's list.
    #[error("org {org} may not deploy to cluster {cluster} (allowed: {})", list(.allowed))]
    ClusterNotAllowed {
        /// The org.
        org: String,
        /// The cluster asked for.
        cluster: String,
        /// The org's clusters.
        allowed: Vec<String>,
    },
    /// The destination namespace is not on the org's list.
    #[error("org {org} may not deploy to namespace {destination} (allowed: {})", list(.allowed))]
    DestinationNotAllowed {
        /// The org.
        org: String,
        /// The destination namespace asked for.
        destination: String,
        /// The org's destinations.
        allowed: Vec<String>,
    },
    /// The source repository's URL is not plain enough to be matched against a list.
    #[error("repository {repo:?} is refused: {reason}")]
    UnclearSource {
        /// The repository asked for.
        repo: String,
        /// What is unclear about it.
        reason: &'static str,
    },
    /// The source repository is not on the org's list.
    #[error("org {org} may not take sources from {repo} (allowed: {})", list(.allowed))]
    SourceNotAllowed {
        /// The org.
        org: String,
        /// The repository asked for.
        repo: String,
        /// The org's repositories.
        allowed: Vec<String>,
    },
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

impl Tenancy {
    /// The orgs of the configuration, with one cluster (named `default`).
    pub fn new(orgs: Vec<OrgSpec>) -> Tenancy {
        Tenancy {
            orgs,
            clusters: vec![weft_app::DEFAULT_CLUSTER.to_string()],
        }
    }

    /// With the configured clusters' names, the default (management) cluster first.
    pub fn with_clusters(mut self, clusters: Vec<String>) -> Tenancy {
        if !clusters.is_empty() {
            self.clusters = clusters;
        }
        self
    }

    /// The configured clusters' names, the default first.
    pub fn clusters(&self) -> &[String] {
        &self.clusters
    }

    /// The default destination (and management) cluster.
    pub fn default_cluster(&self) -> &str {
        &self.clusters[0]
    }

    /// Every namespace some org owns: where Application resources are watched.
    pub fn namespaces(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .orgs
            .iter()
            .flat_map(|org| org.namespaces.iter().cloned())
            .collect();
        all.sort();
        all.dedup();
        all
    }

    /// The org owning `namespace`.
    pub fn org_of(&self, namespace: &str) -> Result<&OrgSpec, TenancyError> {
        self.orgs
            .iter()
            .find(|org| org.namespaces.iter().any(|n| n == namespace))
            .ok_or_else(|| TenancyError::NamespaceNotMapped {
                namespace: namespace.to_string(),
            })
    }

    /// Checks that an Application in `namespace` may deploy to namespace `destination` of `cluster` from the
    /// repositories `repos`; its org's name.
    pub fn admit(
        &self,
        namespace: &str,
        cluster: &str,
        destination: &str,
        repos: &[&str],
    ) -> Result<String, TenancyError> {
        let org = self.org_of(namespace)?;
        if !self.allows_cluster(org, cluster) {
            return Err(TenancyError::ClusterNotAllowed {
                org: org.name.clone(),
                cluster: cluster.to_string(),
                allowed: if org.clusters.is_empty() {
                    vec![self.default_cluster().to_string()]
                } else {
                    org.clusters.clone()
                },
            });
        }
        if !org.destinations.iter().any(|d| allowed_by(d, destination)) {
            return Err(TenancyError::DestinationNotAllowed {
                org: org.name.clone(),
                destination: destination.to_string(),
                allowed: org.destinations.clone(),
            });
        }
        self.admit_sources(namespace, repos)
    }

    /// Whether `org`'s Applications may deploy to `cluster` (its list, or the default cluster alone without one).
    pub fn allows_cluster(&self, org: &OrgSpec, cluster: &str) -> bool {
        if org.clusters.is_empty() {
            cluster == self.default_cluster()
        } else {
            org.clusters.iter().any(|c| allowed_by(c, cluster))
        }
    }

    /// Checks that resources in `namespace` may take sources from the repositories `repos` (plain URLs on the
    /// org's list); its org's name.
    pub fn admit_sources(&self, namespace: &str, repos: &[&str]) -> Result<String, TenancyError> {
        let org = self.org_of(namespace)?;
        for repo in repos {
            if let Some(reason) = unclear_repo_url(repo) {
                return Err(TenancyError::UnclearSource {
                    repo: repo.to_string(),
                    reason,
                });
            }
            if !org.source_repos.iter().any(|r| allowed_by(r, repo)) {
                return Err(TenancyError::SourceNotAllowed {
                    org: org.name.clone(),
                    repo: repo.to_string(),
                    allowed: org.source_repos.clone(),
                });
            }
        }
        Ok(org.name.clone())
    }

    /// Checks the orgs themselves: names present and unique, each namespace owned by one org, patterns with `*`
    /// only at the end. The error names the entry (`org[1].namespaces`) and what is wrong.
    pub fn validate(orgs: &[OrgSpec]) -> Result<(), (String, String)> {
        let mut names = std::collections::BTreeSet::new();
        let mut owners = std::collections::BTreeMap::new();
        for (index, org) in orgs.iter().enumerate() {
            if org.name.trim().is_empty() {
                return Err((format!("org[{index}].name"), "must not be empty".into()));
            }
            if !names.insert(org.name.as_str()) {
                return Err((
                    format!("org[{index}].name"),
                    format!("{:?} is defined twice", org.name),
                ));
            }
            for namespace in &org.namespaces {
                if let Some(other) = owners.insert(namespace.as_str(), org.name.as_str()) {
                    return Err((
                        format!("org[{index}].namespaces"),
                        format!("namespace {namespace:?} is already org {other:?}'s"),
                    ));
                }
            }
            for (key, patterns) in [
                ("destinations", &org.destinations),
                ("clusters", &org.clusters),
                ("cluster_kinds", &org.cluster_kinds),
                ("source_repos", &org.source_repos),
            ] {
                if let Some(bad) = patterns
                    .iter()
                    .find(|p| p.is_empty() || p.trim_end_matches('*').contains('*'))
                {
                    return Err((
                        format!("org[{index}].{key}"),
                        format!("{bad:?}: a name, a prefix ending in *, or *"),
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shop() -> OrgSpec {
        OrgSpec {
            name: "shop".into(),
            namespaces: vec!["shop-apps".into()],
            destinations: vec!["shop-*".into()],
            source_repos: vec!["https://git.example.com/shop/*".into()],
            clusters: vec![],
            cluster_kinds: vec![],
        }
    }

    #[test]
    fn an_org_deploys_to_the_default_cluster_unless_it_lists_others() {
        let repos = ["https://git.example.com/shop/web.git"];
        let tenancy =
            Tenancy::new(vec![shop()]).with_clusters(vec!["staging".into(), "production".into()]);
        assert_eq!(
            tenancy.admit("shop-apps", "staging", "shop-web", &repos),
            Ok("shop".into())
        );
        let error = tenancy
            .admit("shop-apps", "production", "shop-web", &repos)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "org shop may not deploy to cluster production (allowed: staging)"
        );
        let mut org = shop();
        org.clusters = vec!["prod*".into()];
        let tenancy =
            Tenancy::new(vec![org]).with_clusters(vec!["staging".into(), "production".into()]);
        assert!(
            tenancy
                .admit("shop-apps", "production", "shop-web", &repos)
                .is_ok()
        );
        assert!(matches!(
            tenancy.admit("shop-apps", "staging", "shop-web", &repos),
            Err(TenancyError::ClusterNotAllowed { .. })
        ));
    }

    #[test]
    fn an_application_gets_the_org_of_its_namespace_within_the_org_allow_lists() {
        let tenancy = Tenancy::new(vec![shop()]);
        assert_eq!(
            tenancy.admit(
                "shop-apps",
                "default",
                "shop-web",
                &["https://git.example.com/shop/web.git"]
            ),
            Ok("shop".into())
        );
        assert!(matches!(
            tenancy.admit(
                "shop-apps",
                "default",
                "kube-system",
                &["https://git.example.com/shop/web.git"]
            ),
            Err(TenancyError::DestinationNotAllowed { .. })
        ));
        assert!(matches!(
            tenancy.admit(
                "shop-apps",
                "default",
                "shop-web",
                &["https://git.example.com/bank/vault.git"]
            ),
            Err(TenancyError::SourceNotAllowed { .. })
        ));
        assert_eq!(
            tenancy.admit("elsewhere", "default", "shop-web", &[]),
            Err(TenancyError::NamespaceNotMapped {
                namespace: "elsewhere".into()
            })
        );
    }

    #[test]
    fn an_org_that_lists_nothing_allows_nothing() {
        let mut org = shop();
        org.destinations.clear();
        org.source_repos.clear();
        let tenancy = Tenancy::new(vec![org]);
        let error = tenancy
            .admit("shop-apps", "default", "shop-web", &[])
            .unwrap_err();
        assert!(error.to_string().contains("allowed: none"), "{error}");
    }

    #[test]
    fn a_star_allows_anything_and_a_prefix_only_what_starts_with_it() {
        assert!(allowed_by("*", "anything"));
        assert!(allowed_by("shop-*", "shop-web"));
        assert!(!allowed_by("shop-*", "shopping"));
        assert!(allowed_by("shop", "shop"));
        assert!(!allowed_by("shop", "shop-web"));
    }

    #[test]
    fn a_repository_url_that_climbs_escapes_or_carries_credentials_is_refused_before_matching() {
        let tenancy = Tenancy::new(vec![shop()]);
        for repo in [
            "https://git.example.com/shop/../bank/vault.git",
            "https://git.example.com/shop/%2e%2e/bank/vault.git",
            "https://git.example.com/shop/./x.git",
            "https://git.example.com/shop/web.git?ref=../../bank",
            "https://git.example.com/shop/web.git#frag",
            "https://user:pw@git.example.com/shop/web.git",
            "https://git.example.com/shop\\..\\bank",
        ] {
            assert!(
                matches!(
                    tenancy.admit("shop-apps", "default", "shop-web", &[repo]),
                    Err(TenancyError::UnclearSource { .. })
                ),
                "{repo}"
            );
        }
        assert!(unclear_repo_url("git@github.com:shop/web.git").is_none());
        assert!(unclear_repo_url("https://git.example.com/shop/web.git").is_none());
    }

    #[test]
    fn orgs_that_share_a_namespace_or_a_name_are_refused() {
        let mut other = shop();
        other.name = "bank".into();
        let error = Tenancy::validate(&[shop(), other]).unwrap_err();
        assert_eq!(error.0, "org[1].namespaces");
        assert!(error.1.contains("already org \"shop\"'s"), "{}", error.1);
        let error = Tenancy::validate(&[shop(), shop()]).unwrap_err();
        assert_eq!(error.0, "org[1].name");
        let mut bad = shop();
        bad.destinations = vec!["sh*op".into()];
        assert_eq!(
            Tenancy::validate(&[bad]).unwrap_err().0,
            "org[0].destinations"
        );
    }
}
