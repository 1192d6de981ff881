//! Fetching charts: the HTTP side of [`super::index`] and [`super::oci`], with the operator's credentials, bounded
//! answers, and the digest cache in front. Every request, redirects and token services included, goes through the
//! [`OutboundGuard`]: HTTPS unless the operator lists a host for plain HTTP, nothing on the server's own network
//! unless listed; a redirect is followed only where the guard would have let the first request go.

use std::time::Duration;

use super::index::{entries, pick, resolve_url};
use super::oci::{self, Auth, Reference};
use super::{ChartCache, ChartError, FetchedChart, Wanted, digest_of};
use crate::CredentialSet;
use crate::outbound::{OutboundGuard, Refusal, Refused, SourceRules};

/// The largest repository index read (public indexes run to tens of MiB).
const MAX_INDEX_BYTES: u64 = 128 * 1024 * 1024;
/// The largest chart archive fetched.
const MAX_CHART_BYTES: u64 = 32 * 1024 * 1024;
/// The largest manifest, tag list or token answer read.
const MAX_SMALL_BYTES: u64 = 4 * 1024 * 1024;

/// The chart repositories the server reaches.
#[derive(Clone)]
pub struct ChartRepositories {
    cache: ChartCache,
    credentials: CredentialSet,
    guard: OutboundGuard,
    agent: ureq::Agent,
}

impl std::fmt::Debug for ChartRepositories {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChartRepositories")
            .field("cache", &self.cache)
            .field("guard", &self.guard)
            .finish_non_exhaustive()
    }
}

struct Answer {
    status: u16,
    challenge: Option<String>,
    body: Vec<u8>,
}

impl ChartRepositories {
    /// Repositories reached with `credentials` through `guard` (a list of plain-HTTP `host[:port]` is a guard listing
    /// those alone), caching archives in `cache`.
    pub fn new(
        cache: ChartCache,
        credentials: CredentialSet,
        guard: impl Into<OutboundGuard>,
    ) -> Self {
        let guard = guard.into();
        // Redirects are followed (archives often live behind one), each through the guard; the login is never
        // sent on.
        let agent = guard.agent(
            ureq::Agent::config_builder()
                .timeout_global(Some(Duration::from_secs(300)))
                .http_status_as_error(false)
                .max_redirects(5)
                .user_agent("weft"),
        );
        ChartRepositories {
            cache,
            credentials,
            guard,
            agent,
        }
    }

    /// Fetches `wanted` for an app of `org` (`None` for the operator's own apps).
    pub fn fetch(&self, wanted: &Wanted, org: Option<&str>) -> Result<FetchedChart, ChartError> {
        let auth = Auth::login(self.credentials.for_url(&wanted.repository, org)?);
        if wanted.repository.starts_with("oci://") {
            self.fetch_oci(wanted, &auth)
        } else {
            self.fetch_classic(wanted, &auth, org)
        }
    }

    /// Fetches `wanted` as [`ChartRepositories::fetch`] does, once `rules` admit its repository (a dependency a
    /// tenant's chart names is held to the repositories its org may name).
    pub fn fetch_admitted(
        &self,
        wanted: &Wanted,
        org: Option<&str>,
        rules: &dyn SourceRules,
    ) -> Result<FetchedChart, ChartError> {
        rules
            .admit(&wanted.repository)
            .map_err(|reason| ChartError::NotAdmitted {
                repository: wanted.repository.clone(),
                name: wanted.name.clone(),
                reason,
            })?;
        self.fetch(wanted, org)
    }

    /// The guard's refusal of `url` (on behalf of `repository`) as the error a tenant sees.
    fn refused(repository: &str, mut refusal: Refusal, url: &str) -> ChartError {
        if url_host(url) != url_host(repository) {
            refusal.elsewhere = true;
        }
        ChartError::Refused(Refused {
            what: format!("chart repository {repository}"),
            refusal,
        })
    }

    /// Checks a classic repository's (or a download's, or a token service's) URL before anything is sent: HTTPS,
    /// or HTTP to a listed host. The addresses are the agent's to check, as it connects.
    fn checked_url(&self, repository: &str, url: &str) -> Result<(), ChartError> {
        self.guard
            .check_url(url)
            .map_err(|refusal| Self::refused(repository, refusal, url))
    }

    fn get(
        &self,
        repository: &str,
        url: &str,
        accept: &str,
        auth: &Auth,
        limit: u64,
    ) -> Result<Answer, ChartError> {
        let mut request = self.agent.get(url).header("Accept", accept);
        if let Some(header) = auth.header() {
            request = request.header("Authorization", header);
        }
        let unreachable = |message: String| ChartError::Unreachable {
            url: url.to_string(),
            message,
        };
        let mut response =
            request
                .call()
                .map_err(|e| match OutboundGuard::refusal_of(&e, url) {
                    Some(refusal) => Self::refused(repository, refusal, url),
                    None => unreachable(e.to_string()),
                })?;
        let status = response.status().as_u16();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        let body = if (200..300).contains(&status) {
            response
                .body_mut()
                .with_config()
                .limit(limit)
                .read_to_vec()
                .map_err(|e| unreachable(format!("reading the answer: {e}")))?
        } else {
            Vec::new()
        };
        Ok(Answer {
            status,
            challenge,
            body,
        })
    }

    fn ok(answer: Answer, url: &str) -> Result<Vec<u8>, ChartError> {
        match answer.status {
            200..=299 => Ok(answer.body),
            401 | 403 => Err(ChartError::Unreachable {
                url: url.to_string(),
                message: format!(
                    "HTTP {}: the repository refused the request (a [[credential]] whose url covers it supplies \
                     the login)",
                    answer.status
                ),
            }),
            status => Err(ChartError::Unreachable {
                url: url.to_string(),
                message: format!("HTTP {status}"),
            }),
        }
    }

    fn fetch_classic(
        &self,
        wanted: &Wanted,
        auth: &Auth,
        org: Option<&str>,
    ) -> Result<FetchedChart, ChartError> {
        let repository = wanted.repository.trim_end_matches('/');
        self.checked_url(repository, repository)?;
        let index_url = format!("{repository}/index.yaml");
        let index = Self::ok(
            self.get(
                repository,
                &index_url,
                "application/yaml, */*",
                auth,
                MAX_INDEX_BYTES,
            )?,
            &index_url,
        )?;
        let text = String::from_utf8_lossy(&index);
        let found = entries(&text, &index_url, &wanted.name)?;
        if found.is_empty() {
            return Err(ChartError::NoChart {
                repository: repository.to_string(),
                name: wanted.name.clone(),
            });
        }
        let version = pick(found.iter().map(|e| e.version.as_str()), &wanted.version)
            .ok_or_else(|| no_version(wanted, found.iter().map(|e| e.version.clone())))?
            .to_string();
        let entry = found
            .iter()
            .find(|e| e.version == version)
            .unwrap_or_else(|| unreachable!("the version was picked from these entries"));
        let published = entry.digest.as_ref().map(|d| {
            format!(
                "sha256:{}",
                d.trim_start_matches("sha256:").to_ascii_lowercase()
            )
        });
        if let Some(digest) = &published
            && let Some(archive) = self.cache.get(digest)
        {
            return Ok(self.fetched(wanted, version, digest.clone(), archive));
        }
        let relative = entry.urls.first().ok_or_else(|| ChartError::Invalid {
            url: index_url.clone(),
            message: format!("{} {version} lists no download URL", wanted.name),
        })?;
        let url = resolve_url(repository, relative);
        self.checked_url(repository, &url)?;
        // Credentials go only where the credential's prefix covers.
        let download_auth = if self.credentials.for_url(&url, org).ok().flatten().is_some() {
            auth.clone()
        } else {
            Auth::None
        };
        let archive = Self::ok(
            self.get(
                repository,
                &url,
                "application/gzip, */*",
                &download_auth,
                MAX_CHART_BYTES,
            )?,
            &url,
        )?;
        let actual = digest_of(&archive);
        if let Some(expected) = &published
            && *expected != actual
        {
            return Err(ChartError::DigestMismatch {
                url,
                expected: expected.clone(),
                actual,
            });
        }
        let digest = self.cache.put(&archive)?;
        Ok(self.fetched(wanted, version, digest, archive))
    }

    fn fetched(
        &self,
        wanted: &Wanted,
        version: String,
        digest: String,
        archive: Vec<u8>,
    ) -> FetchedChart {
        FetchedChart {
            name: wanted.name.clone(),
            version,
            digest,
            archive,
        }
    }

    /// A registry GET, answering the registry's authentication challenge once.
    fn registry_get(
        &self,
        reference: &Reference,
        url: &str,
        accept: &str,
        auth: &Auth,
        limit: u64,
    ) -> Result<Vec<u8>, ChartError> {
        let answer = self.get(&reference.url, url, accept, &Auth::None, limit)?;
        if answer.status != 401 {
            return Self::ok(answer, url);
        }
        let challenge = answer.challenge.as_deref().and_then(oci::challenge);
        let retry = match challenge {
            Some(c) if c.scheme.eq_ignore_ascii_case("bearer") && !c.realm.is_empty() => {
                Auth::Bearer(self.token(reference, &c, auth)?)
            }
            Some(c) if c.scheme.eq_ignore_ascii_case("basic") => auth.clone(),
            _ => return Self::ok(answer, url),
        };
        Self::ok(self.get(&reference.url, url, accept, &retry, limit)?, url)
    }

    /// A registry token from the challenge's realm (with the credential's login when there is one).
    fn token(
        &self,
        reference: &Reference,
        challenge: &oci::Challenge,
        auth: &Auth,
    ) -> Result<String, ChartError> {
        let url = oci::token_url(challenge, &reference.repository);
        self.checked_url(&reference.url, &url)?;
        let body = Self::ok(
            self.get(
                &reference.url,
                &url,
                "application/json",
                auth,
                MAX_SMALL_BYTES,
            )?,
            &challenge.realm,
        )?;
        oci::token_of(&body).map_err(|message| ChartError::Invalid {
            url: challenge.realm.clone(),
            message,
        })
    }

    fn fetch_oci(&self, wanted: &Wanted, auth: &Auth) -> Result<FetchedChart, ChartError> {
        let reference = Reference::parse(&wanted.repository, &wanted.name)?;
        let scheme = self.guard.scheme_for(&reference.registry);
        let exact = weft_sdk::semver::Version::parse(&wanted.version).is_some()
            && !wanted
                .version
                .contains(['^', '~', '*', 'x', 'X', '>', '<', '=', ' ', '|', ','])
            && wanted.version.matches('.').count() == 2;
        let version = if exact {
            wanted.version.trim_start_matches('v').to_string()
        } else {
            let url = reference.endpoint(scheme, "tags/list");
            let body =
                self.registry_get(&reference, &url, "application/json", auth, MAX_SMALL_BYTES)?;
            let tags: Vec<String> = oci::tags(&String::from_utf8_lossy(&body), &url)?
                .iter()
                .map(|t| oci::version_of_tag(t))
                .collect();
            pick(tags.iter().map(String::as_str), &wanted.version)
                .ok_or_else(|| no_version(wanted, tags.iter().cloned()))?
                .to_string()
        };
        let url = reference.endpoint(scheme, &format!("manifests/{}", oci::tag(&version)));
        let manifest =
            self.registry_get(&reference, &url, oci::MANIFEST_TYPES, auth, MAX_SMALL_BYTES)?;
        let digest = oci::chart_layer(&String::from_utf8_lossy(&manifest), &url)?;
        if let Some(archive) = self.cache.get(&digest) {
            return Ok(self.fetched(wanted, version, digest, archive));
        }
        let url = reference.endpoint(scheme, &format!("blobs/{digest}"));
        let archive = self.registry_get(
            &reference,
            &url,
            "application/octet-stream",
            auth,
            MAX_CHART_BYTES,
        )?;
        let actual = digest_of(&archive);
        if actual != digest {
            return Err(ChartError::DigestMismatch {
                url,
                expected: digest,
                actual,
            });
        }
        self.cache.put(&archive)?;
        Ok(self.fetched(wanted, version, digest, archive))
    }
}

/// The `host[:port]` of a URL (`oci://`, `https://`...), lowercase, for telling a redirect or a download elsewhere
/// from the repository's own host.
fn url_host(url: &str) -> Option<(String, Option<u16>)> {
    crate::outbound::url_parts(url).map(|(_, host, port)| (host.to_ascii_lowercase(), port))
}

fn no_version(wanted: &Wanted, versions: impl Iterator<Item = String>) -> ChartError {
    let mut available: Vec<String> = versions.collect();
    available.sort_by(|a, b| {
        match (
            weft_sdk::semver::Version::parse(a),
            weft_sdk::semver::Version::parse(b),
        ) {
            (Some(a), Some(b)) => b.compare(&a),
            _ => b.cmp(a),
        }
    });
    available.truncate(8);
    ChartError::NoVersion {
        repository: wanted.repository.clone(),
        name: wanted.name.clone(),
        constraint: wanted.version.clone(),
        available: if available.is_empty() {
            "none".into()
        } else {
            available.join(", ")
        },
    }
}
