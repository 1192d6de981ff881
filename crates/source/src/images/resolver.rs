//! Tags resolved to digests through a registry's OCI distribution API: `HEAD /v2/<repository>/manifests/<tag>`
//! (a `GET` when the `HEAD` gives no `Docker-Content-Digest`), anonymously first, then answering the registry's
//! `WWW-Authenticate` challenge — a Bearer token from its realm, or Basic — with the operator's credential for
//! `oci://<registry>/<repository>`. An index or manifest list resolves to its own digest, never a platform's.
//! Answers are cached for a while ([`super::cache`]). Every request goes through the [`OutboundGuard`]: HTTPS unless
//! the operator lists the host for plain HTTP, nothing on the server's own network unless listed, no redirect.
//!
//! Credentials are looked up with [`CredentialSet::for_url`] for `oci://<registry>/<repository>`, the registry
//! normalised (`docker.io` for Docker Hub, whichever way the reference wrote it) and the repository in full
//! (`library/nginx`): the credential whose `url` prefix covers that at a path boundary most closely, among those
//! the app's org may use, so `oci://registry.example/` covers every repository there and
//! `oci://registry.example/shop/` only those under `shop/` (the same credentials serve Helm charts from the same
//! registry). Its login is sent to the registry (Basic challenge) or to the token realm the registry names
//! (Bearer challenge), and never on a redirect.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::cache::{Clock, DigestCache, Entry, Key};
use super::reference::DEFAULT_TAG;
use super::{ImageError, ImageReference, Resolved};
use crate::CredentialSet;
use crate::charts::digest_of;
use crate::charts::oci::{self, Auth};
use crate::outbound::{OutboundGuard, Refused};

/// How long a resolved digest is kept unless the resolver is told otherwise.
pub const DEFAULT_TTL: Duration = Duration::from_secs(60);
/// The largest manifest read (the distribution spec's minimum a registry must accept).
pub const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;
/// The largest token answer read.
const MAX_TOKEN_BYTES: u64 = 1024 * 1024;
/// How long one request may take, connection to last byte.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The manifest media types asked for: OCI index and manifest, Docker manifest list and manifest (v2).
pub const MANIFEST_TYPES: &str = "application/vnd.oci.image.index.v1+json, \
     application/vnd.oci.image.manifest.v1+json, \
     application/vnd.docker.distribution.manifest.list.v2+json, \
     application/vnd.docker.distribution.manifest.v2+json";

/// Resolves image references to digests; cheap to clone, shared across threads (one cache behind an `Arc`).
#[derive(Clone)]
pub struct ImageResolver {
    inner: Arc<Inner>,
}

struct Inner {
    credentials: CredentialSet,
    guard: OutboundGuard,
    agent: ureq::Agent,
    cache: DigestCache,
}

impl std::fmt::Debug for ImageResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageResolver")
            .field("guard", &self.inner.guard)
            .field("ttl", &self.inner.cache.ttl())
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Head,
    Get,
}

/// A registry's answer, as far as it is read.
struct Answer {
    status: u16,
    challenge: Option<String>,
    digest: Option<String>,
    media_type: Option<String>,
    body: Vec<u8>,
}

/// One resolution: the reference, its credential's login, and how requests authenticate so far.
struct Session<'a> {
    reference: &'a ImageReference,
    tagged: String,
    credential_url: String,
    login: Auth,
    auth: Auth,
}

impl Session<'_> {
    fn unauthorized(&self, status: u16) -> ImageError {
        ImageError::Unauthorized {
            reference: self.tagged.clone(),
            status,
            with_credential: self.login != Auth::None,
            credential_url: self.credential_url.clone(),
        }
    }

    fn unreachable(&self, url: &str, message: String) -> ImageError {
        ImageError::Unreachable {
            reference: self.tagged.clone(),
            url: url.to_string(),
            message,
        }
    }

    fn refused(&self, refusal: crate::outbound::Refusal) -> ImageError {
        ImageError::Refused(Refused {
            what: format!("image {}", self.tagged),
            refusal,
        })
    }

    /// A request that failed: the guard's refusal, else unreachable.
    fn call_failed(&self, url: &str, error: &ureq::Error) -> ImageError {
        let registry = format!("https://{}/", self.reference.api_host());
        match OutboundGuard::refusal_of(error, &registry) {
            Some(refusal) => self.refused(refusal),
            None => self.unreachable(url, error.to_string()),
        }
    }

    fn bad_answer(&self, url: &str, message: String) -> ImageError {
        ImageError::BadAnswer {
            reference: self.tagged.clone(),
            url: url.to_string(),
            message,
        }
    }

    /// An answer that is neither success, absence nor refusal.
    fn failed(&self, url: &str, status: u16) -> ImageError {
        if status == 429 || (500..600).contains(&status) {
            self.unreachable(
                url,
                format!("HTTP {status}: the registry cannot answer now"),
            )
        } else {
            self.bad_answer(url, format!("unexpected HTTP {status}"))
        }
    }
}

/// The cache's key of a tag for an app of `org` (one org never reads what another's credentials got).
fn cache_key(reference: &ImageReference, org: Option<&str>) -> Key {
    Key {
        registry: reference.registry().to_string(),
        repository: reference.repository().to_string(),
        tag: reference.tag().unwrap_or(DEFAULT_TAG).to_string(),
        org: org.map(String::from),
    }
}

impl ImageResolver {
    /// A resolver sending the operator's `credentials` to the registries they cover, reaching registries through
    /// `guard` (a list of plain-HTTP `host[:port]` is a guard listing those alone), and keeping answers for `ttl`
    /// ([`DEFAULT_TTL`] is the usual).
    pub fn new(credentials: CredentialSet, guard: impl Into<OutboundGuard>, ttl: Duration) -> Self {
        Self::with_clock(credentials, guard, ttl, Arc::new(Instant::now))
    }

    /// [`ImageResolver::new`] with the cache's time from `clock`.
    pub fn with_clock(
        credentials: CredentialSet,
        guard: impl Into<OutboundGuard>,
        ttl: Duration,
        clock: Clock,
    ) -> Self {
        let guard = guard.into();
        let agent = guard.agent(
            ureq::Agent::config_builder()
                .timeout_global(Some(REQUEST_TIMEOUT))
                .http_status_as_error(false)
                // A registry's manifest answers are not redirected; a redirect could send the request (and the next
                // one's login) anywhere, so none is followed.
                .max_redirects(0)
                .user_agent("weft"),
        );
        ImageResolver {
            inner: Arc::new(Inner {
                credentials,
                guard,
                agent,
                cache: DigestCache::new(ttl, clock),
            }),
        }
    }

    /// How long a resolved digest is kept.
    pub fn ttl(&self) -> Duration {
        self.inner.cache.ttl()
    }

    /// The digest `reference` names for an app of `org` (`None` for the operator's own apps): the digest written in
    /// it, as is and without a request; else the cached answer for its registry, repository, tag and `org` while it
    /// is fresh; else the registry's answer, then cached.
    pub fn resolve(
        &self,
        reference: &ImageReference,
        org: Option<&str>,
    ) -> Result<Resolved, ImageError> {
        self.resolve_with(reference, org, true)
    }

    /// The registry's answer now, past the cache, which then holds it (a sync asked to resolve again, so what the
    /// next lookups see is what it deployed); a digest written in the reference is still returned without a
    /// request.
    pub fn resolve_fresh(
        &self,
        reference: &ImageReference,
        org: Option<&str>,
    ) -> Result<Resolved, ImageError> {
        self.resolve_with(reference, org, false)
    }

    /// A written digest as is; else the cache's answer when `from_cache` and fresh; else the registry's, cached.
    fn resolve_with(
        &self,
        reference: &ImageReference,
        org: Option<&str>,
        from_cache: bool,
    ) -> Result<Resolved, ImageError> {
        if let Some(resolved) = self.written(reference) {
            return Ok(resolved);
        }
        let key = cache_key(reference, org);
        if from_cache && let Some(entry) = self.inner.cache.get(&key) {
            return Ok(resolved(reference, entry, true));
        }
        let entry = self.ask_registry(reference, org)?;
        self.inner.cache.put(key, entry.clone());
        Ok(resolved(reference, entry, false))
    }

    fn written(&self, reference: &ImageReference) -> Option<Resolved> {
        let digest = reference.digest()?;
        Some(Resolved {
            digest: digest.to_string(),
            pinned: reference.pinned(digest),
            media_type: None,
            resolved_at: self.inner.cache.now(),
            cached: false,
        })
    }

    fn plain_http(&self, reference: &ImageReference) -> bool {
        self.inner.guard.is_plain_http(reference.api_host())
            || self.inner.guard.is_plain_http(reference.registry())
    }

    fn ask_registry(
        &self,
        reference: &ImageReference,
        org: Option<&str>,
    ) -> Result<Entry, ImageError> {
        let scheme = if self.plain_http(reference) {
            "http"
        } else {
            "https"
        };
        let url = format!(
            "{scheme}://{}/v2/{}/manifests/{}",
            reference.api_host(),
            reference.repository(),
            reference.tag().unwrap_or(DEFAULT_TAG)
        );
        let credential_url = format!("oci://{}/{}", reference.registry(), reference.repository());
        let login = Auth::login(self.inner.credentials.for_url(&credential_url, org)?);
        let mut session = Session {
            reference,
            tagged: reference.tagged(),
            credential_url,
            login,
            auth: Auth::None,
        };
        let head = self.ask(&mut session, Method::Head, &url)?;
        let answer = match head.status {
            200..=299 if head.digest.is_some() => head,
            401 | 403 | 404 => head,
            _ => self.ask(&mut session, Method::Get, &url)?,
        };
        let digest = judge(&session, &url, &answer)?;
        Ok(Entry {
            digest,
            media_type: answer.media_type,
            resolved_at: self.inner.cache.now(),
        })
    }

    /// A manifest request, answering the registry's challenge once when it asks for authentication.
    fn ask(&self, session: &mut Session, method: Method, url: &str) -> Result<Answer, ImageError> {
        let answer = self.send(
            session,
            method,
            url,
            &session.auth,
            MANIFEST_TYPES,
            MAX_MANIFEST_BYTES,
        )?;
        if answer.status != 401 || session.auth != Auth::None {
            return Ok(answer);
        }
        let challenge = answer.challenge.as_deref().and_then(oci::challenge);
        session.auth = match challenge {
            Some(c) if c.scheme.eq_ignore_ascii_case("bearer") && !c.realm.is_empty() => {
                Auth::Bearer(self.token(session, &c)?)
            }
            Some(c) if c.scheme.eq_ignore_ascii_case("basic") && session.login != Auth::None => {
                session.login.clone()
            }
            _ => return Err(session.unauthorized(answer.status)),
        };
        self.send(
            session,
            method,
            url,
            &session.auth,
            MANIFEST_TYPES,
            MAX_MANIFEST_BYTES,
        )
    }

    /// A token from the challenge's realm, asked for with the credential's login when there is one.
    fn token(&self, session: &Session, challenge: &oci::Challenge) -> Result<String, ImageError> {
        let realm = &challenge.realm;
        let url = oci::token_url(challenge, session.reference.repository());
        // Checked before the login is attached: HTTPS, or plain HTTP to a listed host (the addresses when the
        // connection is made).
        self.inner.guard.check_url(&url).map_err(|mut refusal| {
            refusal.elsewhere = true;
            session.refused(refusal)
        })?;
        let answer = self.send(
            session,
            Method::Get,
            &url,
            &session.login,
            "application/json",
            MAX_TOKEN_BYTES,
        )?;
        match answer.status {
            200..=299 => oci::token_of(&answer.body).map_err(|m| session.bad_answer(realm, m)),
            401 | 403 => Err(session.unauthorized(answer.status)),
            status => Err(session.failed(realm, status)),
        }
    }

    fn send(
        &self,
        session: &Session,
        method: Method,
        url: &str,
        auth: &Auth,
        accept: &str,
        limit: u64,
    ) -> Result<Answer, ImageError> {
        let request = match method {
            Method::Head => self.inner.agent.head(url),
            Method::Get => self.inner.agent.get(url),
        }
        .header("Accept", accept);
        let request = match auth.header() {
            Some(header) => request.header("Authorization", header),
            None => request,
        };
        let mut response = request.call().map_err(|e| session.call_failed(url, &e))?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.trim().to_string())
        };
        let challenge = header("www-authenticate");
        let digest = header("docker-content-digest");
        let media_type = header("content-type")
            .and_then(|v| v.split(';').next().map(|t| t.trim().to_string()))
            .filter(|t| !t.is_empty());
        let body = if method == Method::Get && (200..300).contains(&status) {
            response
                .body_mut()
                .with_config()
                .limit(limit)
                .read_to_vec()
                .map_err(|e| match e {
                    ureq::Error::BodyExceedsLimit(_) => session.bad_answer(
                        url,
                        format!("the answer is larger than {} MiB", limit / (1024 * 1024)),
                    ),
                    other => session.unreachable(url, format!("reading the answer: {other}")),
                })?
        } else {
            Vec::new()
        };
        Ok(Answer {
            status,
            challenge,
            digest,
            media_type,
            body,
        })
    }
}

fn resolved(reference: &ImageReference, entry: Entry, cached: bool) -> Resolved {
    Resolved {
        pinned: reference.pinned(&entry.digest),
        digest: entry.digest,
        media_type: entry.media_type,
        resolved_at: entry.resolved_at,
        cached,
    }
}

/// The digest a manifest answer gives: its `Docker-Content-Digest` (checked against the body when there is one),
/// else the sha256 of the body.
fn judge(session: &Session, url: &str, answer: &Answer) -> Result<String, ImageError> {
    match answer.status {
        200..=299 => {}
        404 => {
            return Err(ImageError::NotFound {
                reference: session.tagged.clone(),
            });
        }
        401 | 403 => return Err(session.unauthorized(answer.status)),
        status => return Err(session.failed(url, status)),
    }
    let of_body = (!answer.body.is_empty()).then(|| digest_of(&answer.body));
    match (&answer.digest, of_body) {
        (Some(digest), _) if !is_sha256(digest) => Err(session.bad_answer(
            url,
            format!("the registry gives the digest {digest:?}, not a sha256 digest"),
        )),
        (Some(digest), Some(actual)) if *digest != actual => Err(session.bad_answer(
            url,
            format!("the registry gives the digest {digest}, but the manifest's is {actual}"),
        )),
        (Some(digest), _) => Ok(digest.clone()),
        (None, Some(actual)) => Ok(actual),
        (None, None) => Err(session.bad_answer(
            url,
            "the registry gives neither a Docker-Content-Digest nor a manifest".into(),
        )),
    }
}

/// Whether `digest` is `sha256:` and 64 lowercase hex digits.
fn is_sha256(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

#[cfg(test)]
mod tests {
    use super::super::cache::ManualClock;
    use super::super::fake_registry::{FakeRegistry, Reply};
    use super::*;
    use crate::CredentialSpec;

    fn digest(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    fn reference(registry: &FakeRegistry, rest: &str) -> ImageReference {
        ImageReference::parse(&format!("{}/{rest}", registry.address()))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn resolver(registry: &FakeRegistry, clock: &ManualClock) -> ImageResolver {
        ImageResolver::with_clock(
            CredentialSet::default(),
            vec![registry.address().to_string()],
            DEFAULT_TTL,
            clock.clock(),
        )
    }

    /// A credential for `prefix` whose password is in a file under `dir`.
    fn credential(
        dir: &std::path::Path,
        name: &str,
        prefix: &str,
        orgs: &[&str],
    ) -> CredentialSpec {
        let file = dir.join(name);
        std::fs::write(&file, format!("{name}-secret\n")).unwrap_or_else(|e| panic!("{e}"));
        CredentialSpec {
            name: name.into(),
            url: prefix.into(),
            username: Some(name.into()),
            password_env: None,
            password_file: Some(file),
            ssh_key: None,
            orgs: orgs.iter().map(|o| o.to_string()).collect(),
        }
    }

    fn basic(user: &str) -> String {
        use base64::Engine;
        let token =
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{user}-secret"));
        format!("Basic {token}")
    }

    #[test]
    fn the_resolver_is_shared_across_threads() {
        fn shared<T: Clone + Send + Sync + 'static>() {}
        shared::<ImageResolver>();
    }

    #[test]
    fn a_tag_resolves_to_the_digest_the_registry_gives_and_is_cached_for_its_lifetime() {
        let registry = FakeRegistry::start(|_| {
            Reply::ok()
                .header("Docker-Content-Digest", &digest('a'))
                .header("Content-Type", "application/vnd.oci.image.index.v1+json")
        });
        let clock = ManualClock::new();
        let resolver = resolver(&registry, &clock);
        let web = reference(&registry, "shop/web:1.4.2");
        let first = resolver
            .resolve(&web, None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(first.digest, digest('a'));
        assert_eq!(first.pinned, format!("{web}@{}", digest('a')));
        assert_eq!(
            first.media_type.as_deref(),
            Some("application/vnd.oci.image.index.v1+json")
        );
        assert!(!first.cached);
        assert_eq!(registry.requests(), ["HEAD /v2/shop/web/manifests/1.4.2"]);
        let accept = registry.received()[0]
            .header("accept")
            .unwrap_or_default()
            .to_string();
        for wanted in [
            "application/vnd.oci.image.index.v1+json",
            "application/vnd.oci.image.manifest.v1+json",
            "application/vnd.docker.distribution.manifest.list.v2+json",
            "application/vnd.docker.distribution.manifest.v2+json",
        ] {
            assert!(accept.contains(wanted), "{accept}");
        }

        clock.advance(Duration::from_secs(59));
        let again = resolver
            .resolve(&web, None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(again.cached);
        assert_eq!(again.resolved_at, first.resolved_at);
        assert_eq!(registry.requests().len(), 1, "answered from the cache");
        resolver
            .resolve_fresh(&web, None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            registry.requests().len(),
            2,
            "resolve_fresh asks the registry"
        );
        assert!(
            resolver
                .resolve(&web, None)
                .unwrap_or_else(|e| panic!("{e}"))
                .cached
        );
        assert_eq!(registry.requests().len(), 2);

        // The fresh answer was taken at 59 s and lives its own 60 s.
        clock.advance(Duration::from_secs(60));
        let expired = resolver
            .resolve(&web, None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!expired.cached);
        assert_eq!(
            registry.requests().len(),
            3,
            "asked again once the answer expired"
        );
    }

    #[test]
    fn a_reference_with_a_digest_is_returned_without_a_request() {
        let clock = ManualClock::new();
        // Nothing listens there: any request would fail.
        let resolver = ImageResolver::with_clock(
            CredentialSet::default(),
            vec!["127.0.0.1:9".into()],
            DEFAULT_TTL,
            clock.clock(),
        );
        let written = format!("127.0.0.1:9/shop/web:1.4.2@{}", digest('b'));
        let reference = ImageReference::parse(&written).unwrap_or_else(|e| panic!("{e}"));
        for resolved in [
            resolver.resolve(&reference, None),
            resolver.resolve_fresh(&reference, Some("acme")),
        ] {
            let resolved = resolved.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(resolved.digest, digest('b'));
            assert_eq!(resolved.pinned, written);
        }
        let tagged =
            ImageReference::parse("127.0.0.1:9/shop/web:1.4.2").unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            resolver.resolve(&tagged, None),
            Err(ImageError::Unreachable { .. })
        ));
    }

    #[test]
    fn without_a_digest_header_the_manifest_is_fetched_and_hashed() {
        let manifest = br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#;
        let registry = FakeRegistry::start(move |request| match request.method.as_str() {
            "HEAD" => Reply::ok(),
            _ => Reply::ok()
                .header(
                    "Content-Type",
                    "application/vnd.oci.image.index.v1+json; charset=utf-8",
                )
                .body(manifest.to_vec()),
        });
        let clock = ManualClock::new();
        let resolved = resolver(&registry, &clock)
            .resolve(&reference(&registry, "shop/web"), None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(resolved.digest, digest_of(manifest));
        assert_eq!(
            resolved.media_type.as_deref(),
            Some("application/vnd.oci.image.index.v1+json")
        );
        assert_eq!(
            registry.requests(),
            [
                "HEAD /v2/shop/web/manifests/latest",
                "GET /v2/shop/web/manifests/latest"
            ]
        );
    }

    #[test]
    fn a_bearer_challenge_is_answered_with_a_token_asked_for_with_the_operators_login() {
        let registry = FakeRegistry::start(|request| {
            let realm = format!("http://{}/token", request.host);
            if request.path.starts_with("/token") {
                return if request.header("authorization") == Some(basic("shop").as_str()) {
                    Reply::ok().body(br#"{"access_token":"t0k3n"}"#.to_vec())
                } else {
                    Reply::status(401)
                };
            }
            if request.header("authorization") == Some("Bearer t0k3n") {
                Reply::ok().header("Docker-Content-Digest", &digest('c'))
            } else {
                Reply::status(401).header(
                    "WWW-Authenticate",
                    &format!(
                        r#"Bearer realm="{realm}",service="fake",scope="repository:shop/web:pull""#
                    ),
                )
            }
        });
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let prefix = format!("oci://{}/shop/", registry.address());
        let credentials =
            CredentialSet::new(vec![credential(dir.path(), "shop", &prefix, &["acme"])]);
        let clock = ManualClock::new();
        let resolver = ImageResolver::with_clock(
            credentials,
            vec![registry.address().to_string()],
            DEFAULT_TTL,
            clock.clock(),
        );
        let web = reference(&registry, "shop/web:2");
        let resolved = resolver
            .resolve(&web, Some("acme"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(resolved.digest, digest('c'));
        assert_eq!(
            registry.requests(),
            [
                "HEAD /v2/shop/web/manifests/2",
                "GET /token?scope=repository%3Ashop%2Fweb%3Apull&service=fake",
                "HEAD /v2/shop/web/manifests/2",
            ]
        );
        // Another org may not use the credential: the realm refuses the anonymous request, and the cached answer
        // of acme's is not given to it.
        let refused = resolver.resolve(&web, Some("globex")).expect_err("refused");
        assert_eq!(
            refused,
            ImageError::Unauthorized {
                reference: web.to_string(),
                status: 401,
                with_credential: false,
                credential_url: format!("oci://{}/shop/web", registry.address()),
            }
        );
        assert!(
            refused
                .to_string()
                .contains("a [[credential]] whose url covers oci://"),
            "{refused}"
        );
    }

    #[test]
    fn a_basic_challenge_gets_the_login_and_without_one_is_unauthorized() {
        let registry = FakeRegistry::start(|request| {
            if request.header("authorization") == Some(basic("ops").as_str()) {
                Reply::ok().header("Docker-Content-Digest", &digest('d'))
            } else {
                Reply::status(401).header("WWW-Authenticate", r#"Basic realm="registry""#)
            }
        });
        let clock = ManualClock::new();
        let web = reference(&registry, "shop/web:1");
        let anonymous = resolver(&registry, &clock)
            .resolve(&web, None)
            .expect_err("refused");
        assert!(matches!(
            anonymous,
            ImageError::Unauthorized {
                with_credential: false,
                status: 401,
                ..
            }
        ));
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let prefix = format!("oci://{}", registry.address());
        let with_login = ImageResolver::with_clock(
            CredentialSet::new(vec![credential(dir.path(), "ops", &prefix, &[])]),
            vec![registry.address().to_string()],
            DEFAULT_TTL,
            clock.clock(),
        );
        let resolved = with_login
            .resolve(&web, None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(resolved.digest, digest('d'));
    }

    #[test]
    fn a_realm_over_plain_http_to_an_unlisted_host_gets_no_login() {
        let registry = FakeRegistry::start(|_| {
            Reply::status(401).header(
                "WWW-Authenticate",
                r#"Bearer realm="http://auth.example/token",service="x""#,
            )
        });
        let clock = ManualClock::new();
        let error = resolver(&registry, &clock)
            .resolve(&reference(&registry, "shop/web:1"), None)
            .expect_err("refused");
        assert!(
            matches!(&error, ImageError::Refused(refused)
                if refused.refusal.reason == crate::outbound::Reason::PlainHttp && refused.refusal.elsewhere),
            "{error}"
        );
        assert!(
            !error.to_string().contains("auth.example"),
            "the host sent to is not named: {error}"
        );
        assert_eq!(registry.requests().len(), 1, "nothing is sent to the realm");
    }

    #[test]
    fn a_registry_or_token_service_on_the_servers_own_network_is_refused_unless_listed() {
        let clock = ManualClock::new();
        let strict = ImageResolver::with_clock(
            CredentialSet::default(),
            Vec::new(),
            DEFAULT_TTL,
            clock.clock(),
        );
        for image in [
            "127.0.0.1:5000/shop/web:1",
            "2130706433:5000/shop/web:1",
            "[::1]:5000/shop/web:1",
            "169.254.169.254/latest:meta",
            "localhost/x:1",
        ] {
            let reference = ImageReference::parse(image).unwrap_or_else(|e| panic!("{e}"));
            let error = strict.resolve(&reference, None).expect_err(image);
            assert!(
                matches!(&error, ImageError::Refused(r) if r.refusal.reason == crate::outbound::Reason::OwnNetwork),
                "{image}: {error}"
            );
            assert!(
                error.to_string().contains("[outbound] allowed_hosts"),
                "{error}"
            );
        }
        // A listed registry whose token service is on the server's network, over HTTPS: refused, no login sent.
        let registry = FakeRegistry::start(|_| {
            Reply::status(401).header(
                "WWW-Authenticate",
                r#"Bearer realm="https://169.254.169.254/token",service="x""#,
            )
        });
        let error = resolver(&registry, &clock)
            .resolve(&reference(&registry, "shop/web:1"), None)
            .expect_err("refused");
        assert!(
            matches!(&error, ImageError::Refused(r)
                if r.refusal.reason == crate::outbound::Reason::OwnNetwork && r.refusal.elsewhere),
            "{error}"
        );
        assert_eq!(registry.requests().len(), 1);
    }

    #[test]
    fn missing_tags_refusals_failures_and_bad_digests_are_told_apart() {
        let big = vec![b'x'; MAX_MANIFEST_BYTES as usize + 1];
        let registry = FakeRegistry::start(move |request| match request.path.as_str() {
            "/v2/shop/web/manifests/gone" => Reply::status(404),
            "/v2/shop/web/manifests/forbidden" => Reply::status(403),
            "/v2/shop/web/manifests/broken" => Reply::status(500),
            "/v2/shop/web/manifests/teapot" => Reply::status(418),
            "/v2/shop/web/manifests/sha512" => Reply::ok().header(
                "Docker-Content-Digest",
                &format!("sha512:{}", "a".repeat(128)),
            ),
            "/v2/shop/web/manifests/lying" if request.method == "GET" => Reply::ok()
                .header("Docker-Content-Digest", &digest('e'))
                .body(b"{}".to_vec()),
            "/v2/shop/web/manifests/huge" if request.method == "GET" => {
                Reply::ok().body(big.clone())
            }
            _ => Reply::ok(),
        });
        let clock = ManualClock::new();
        let resolver = resolver(&registry, &clock);
        let resolve = |tag: &str| {
            resolver
                .resolve(&reference(&registry, &format!("shop/web:{tag}")), None)
                .expect_err(tag)
        };
        let gone = resolve("gone");
        assert_eq!(
            gone.to_string(),
            format!("{}/shop/web:gone: no such tag", registry.address())
        );
        assert!(matches!(
            resolve("forbidden"),
            ImageError::Unauthorized { status: 403, .. }
        ));
        assert!(
            matches!(resolve("broken"), ImageError::Unreachable { message, .. } if message.contains("HTTP 500"))
        );
        assert!(
            matches!(resolve("teapot"), ImageError::BadAnswer { message, .. } if message.contains("HTTP 418"))
        );
        assert!(
            matches!(resolve("sha512"), ImageError::BadAnswer { message, .. } if message.contains("not a sha256 digest"))
        );
        assert!(
            matches!(resolve("lying"), ImageError::BadAnswer { message, .. } if message.contains("but the manifest's is"))
        );
        assert!(
            matches!(resolve("huge"), ImageError::BadAnswer { message, .. } if message.contains("larger than 4 MiB"))
        );
        assert!(
            matches!(resolve("empty"), ImageError::BadAnswer { message, .. } if message.contains("neither"))
        );
    }

    #[test]
    fn docker_hub_images_are_asked_of_its_api_host_with_the_docker_io_credential() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let hub = CredentialSet::new(vec![credential(dir.path(), "hub", "oci://docker.io/", &[])]);
        let nginx = ImageReference::parse("nginx").unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            hub.for_url(
                &format!("oci://{}/{}", nginx.registry(), nginx.repository()),
                None
            ),
            Ok(Some(_))
        ));
        assert_eq!(nginx.api_host(), "registry-1.docker.io");
    }
}
