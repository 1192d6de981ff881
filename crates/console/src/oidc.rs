//! Single sign-on through an OpenID provider: the authorization code flow with PKCE (S256), a `state` bound to the
//! browser that started it by a cookie of its own, and a `nonce` the ID token must carry. The ID token becomes the
//! session's credential only once the API accepts it: its signature, issuer, audience and expiry are checked where
//! every bearer token is, with no second validator here.
//!
//! Starting a sign-in needs no credential, so starts are bounded per client address (an IPv6 address by its /64):
//! a rate (a burst, then one a second) and a number waiting at once, past which that address's own oldest is
//! forgotten. Past the global bound a start is refused; no address's flood can forget another's sign-in.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;
use weft_core::rate_limit::{RateLimitConfig, RateLimiter};

use crate::session::random_token;

/// How long a started sign-in may take at the provider.
pub const SIGN_IN_WINDOW: Duration = Duration::from_secs(600);
/// The most sign-ins waiting for their callback; past it a start is refused (none is forgotten for it).
pub const MAX_PENDING: usize = 10_000;
/// The most sign-ins one client address may have waiting; past it that address's own oldest is forgotten.
pub const MAX_PENDING_PER_CLIENT: usize = 16;
/// Sign-in starts per client address: a burst of 20, then one a second.
pub const STARTS_PER_CLIENT: RateLimitConfig = RateLimitConfig {
    requests_per_second: 1,
    burst: 20,
};
/// What a start refused because too many sign-ins are under way is told to wait.
pub const BUSY_RETRY_AFTER: Duration = Duration::from_secs(30);
/// The cookie that binds a started sign-in to its browser.
pub const BINDING_COOKIE: &str = "weft_oidc";

/// One OpenID provider the console offers sign-in with (the operator's configuration).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OidcProvider {
    /// What the button says.
    pub name: String,
    /// The issuer (its discovery document is at `{issuer}/.well-known/openid-configuration`).
    pub issuer: String,
    /// The client id.
    pub client_id: String,
    /// The client secret of a confidential client.
    pub client_secret: Option<String>,
    /// The registered callback; by default made from the request's host.
    pub redirect_url: Option<String>,
    /// The scopes asked for.
    pub scopes: Vec<String>,
    /// The authorization endpoint, when not discovered.
    pub authorization_endpoint: Option<String>,
    /// The token endpoint, when not discovered.
    pub token_endpoint: Option<String>,
}

/// What signing in through a provider failed with.
#[derive(Debug, thiserror::Error)]
pub enum OidcError {
    /// No provider of that number.
    #[error("no such sign-in provider")]
    NoProvider,
    /// The provider's discovery document or token endpoint could not be reached or read.
    #[error("the sign-in provider cannot be reached: {0}")]
    Provider(String),
    /// The callback names no sign-in started from this browser (expired, replayed, or started elsewhere).
    #[error("this sign-in expired or was not started in this browser; start again")]
    UnknownState,
    /// The provider said no.
    #[error("the sign-in provider refused: {0}")]
    Refused(String),
    /// The ID token is not the one this sign-in asked for.
    #[error("the sign-in provider's answer is not valid: {0}")]
    BadToken(String),
    /// This client address started sign-ins faster than the rate allows; it may start one after the wait.
    #[error("too many sign-ins started from your address; try again in {} s", .0.as_secs().max(1))]
    TooManyStarts(Duration),
    /// As many sign-ins as are held are under way.
    #[error("too many sign-ins are under way; try again in a moment")]
    Busy,
}

/// A sign-in waiting for its callback.
#[derive(Debug)]
struct Pending {
    provider: usize,
    verifier: String,
    nonce: String,
    binding: [u8; 32],
    next: String,
    redirect_uri: String,
    started: Instant,
    /// The client address that started it ([`client_key`]).
    client: String,
    /// Its place in the order of starts (which is older when two started at the same instant).
    seq: u64,
}

/// Where to send the browser to start a sign-in, and the cookie that binds it.
#[derive(Debug)]
pub struct Started {
    /// The provider's authorization URL.
    pub location: String,
    /// The binding cookie's value.
    pub binding: String,
}

/// A finished sign-in: the ID token and where the user was going.
#[derive(Debug)]
pub struct Finished {
    /// The ID token.
    pub id_token: String,
    /// Where to go now.
    pub next: String,
}

/// The providers' endpoints.
#[derive(Debug, Clone)]
struct Endpoints {
    authorization: String,
    token: String,
}

/// The providers, their discovered endpoints and the sign-ins under way.
#[derive(Debug)]
pub struct Oidc {
    providers: Vec<OidcProvider>,
    endpoints: Mutex<HashMap<usize, Endpoints>>,
    pending: Mutex<HashMap<String, Pending>>,
    /// The next start's [`Pending::seq`].
    next_seq: std::sync::atomic::AtomicU64,
    /// The most sign-ins waiting, in all and per client address.
    max_pending: usize,
    max_pending_per_client: usize,
    /// Starts per client address.
    starts: RateLimiter,
    http: reqwest::Client,
}

/// The key a client address is bounded by: an IPv4 address (an IPv4-mapped IPv6 one too), an IPv6 address's /64
/// (what one host is given), or `unknown` when the listener did not record it.
pub fn client_key(client: Option<IpAddr>) -> String {
    match client.map(|ip| ip.to_canonical()) {
        Some(IpAddr::V4(v4)) => v4.to_string(),
        Some(IpAddr::V6(v6)) => {
            let [a, b, c, d, ..] = v6.segments();
            format!("{a:x}:{b:x}:{c:x}:{d:x}::/64")
        }
        None => "unknown".to_string(),
    }
}

/// `base64url(sha256(verifier))`: the PKCE S256 challenge.
pub fn challenge_of(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// The claims of a JWT, read without checking its signature (the API checks it); `None` when it is not a JWT.
pub fn unverified_claims(jwt: &str) -> Option<serde_json::Value> {
    let payload = jwt.split('.').nth(1)?;
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?).ok()
}

impl Oidc {
    /// The console's providers, with sign-in starts bounded by [`MAX_PENDING`], [`MAX_PENDING_PER_CLIENT`] and
    /// [`STARTS_PER_CLIENT`].
    pub fn new(providers: Vec<OidcProvider>) -> Self {
        Self::bounded(
            providers,
            MAX_PENDING,
            MAX_PENDING_PER_CLIENT,
            &STARTS_PER_CLIENT,
        )
    }

    /// The console's providers, with sign-in starts bounded as given.
    fn bounded(
        providers: Vec<OidcProvider>,
        max_pending: usize,
        max_pending_per_client: usize,
        starts: &RateLimitConfig,
    ) -> Self {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(15))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Oidc {
            providers,
            endpoints: Mutex::default(),
            pending: Mutex::default(),
            next_seq: std::sync::atomic::AtomicU64::new(0),
            max_pending: max_pending.max(1),
            max_pending_per_client: max_pending_per_client.max(1),
            starts: RateLimiter::new(starts),
            http,
        }
    }

    /// The providers, in order (their numbers are the sign-in routes').
    pub fn providers(&self) -> &[OidcProvider] {
        &self.providers
    }

    async fn endpoints(&self, index: usize) -> Result<Endpoints, OidcError> {
        let provider = self.providers.get(index).ok_or(OidcError::NoProvider)?;
        if let (Some(authorization), Some(token)) =
            (&provider.authorization_endpoint, &provider.token_endpoint)
        {
            return Ok(Endpoints {
                authorization: authorization.clone(),
                token: token.clone(),
            });
        }
        if let Some(known) = self
            .endpoints
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&index)
        {
            return Ok(known.clone());
        }
        #[derive(Deserialize)]
        struct Discovery {
            issuer: String,
            authorization_endpoint: String,
            token_endpoint: String,
        }
        let url = format!(
            "{}/.well-known/openid-configuration",
            provider.issuer.trim_end_matches('/')
        );
        let discovery: Discovery = self
            .http
            .get(&url)
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| OidcError::Provider(format!("{url}: {e}")))?
            .json()
            .await
            .map_err(|e| OidcError::Provider(format!("{url}: {e}")))?;
        if discovery.issuer != provider.issuer {
            return Err(OidcError::Provider(format!(
                "{url} names issuer {:?}, not {:?}",
                discovery.issuer, provider.issuer
            )));
        }
        let endpoints = Endpoints {
            authorization: provider
                .authorization_endpoint
                .clone()
                .unwrap_or(discovery.authorization_endpoint),
            token: provider
                .token_endpoint
                .clone()
                .unwrap_or(discovery.token_endpoint),
        };
        self.endpoints
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(index, endpoints.clone());
        Ok(endpoints)
    }

    /// Starts a sign-in with provider `index` for the browser at `client`: where to send the browser, with a fresh
    /// state, nonce and PKCE verifier kept here; `callback` is the console's callback URL made from the request
    /// (used when the provider names none). Refused past the rate of starts for `client`'s address, and while as
    /// many sign-ins as are held are under way; past the number one address may have waiting, its own oldest is
    /// forgotten.
    pub async fn start(
        &self,
        index: usize,
        client: Option<IpAddr>,
        next: String,
        callback: String,
        now: Instant,
    ) -> Result<Started, OidcError> {
        let client = client_key(client);
        self.starts
            .check(&client, now)
            .map_err(OidcError::TooManyStarts)?;
        let provider = self.providers.get(index).ok_or(OidcError::NoProvider)?;
        let endpoints = self.endpoints(index).await?;
        let (state, nonce, verifier, binding) = (
            random_token(),
            random_token(),
            random_token(),
            random_token(),
        );
        let redirect_uri = provider.redirect_url.clone().unwrap_or(callback);
        let query = serde_urlencoded::to_string([
            ("response_type", "code"),
            ("client_id", provider.client_id.as_str()),
            ("redirect_uri", redirect_uri.as_str()),
            ("scope", provider.scopes.join(" ").as_str()),
            ("state", state.as_str()),
            ("nonce", nonce.as_str()),
            ("code_challenge", challenge_of(&verifier).as_str()),
            ("code_challenge_method", "S256"),
        ])
        .map_err(|e| OidcError::Provider(e.to_string()))?;
        let separator = if endpoints.authorization.contains('?') {
            '&'
        } else {
            '?'
        };
        let location = format!("{}{separator}{query}", endpoints.authorization);
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.retain(|_, p| now.saturating_duration_since(p.started) < SIGN_IN_WINDOW);
        let own = pending.values().filter(|p| p.client == client).count();
        if own >= self.max_pending_per_client {
            if let Some(oldest) = pending
                .iter()
                .filter(|(_, p)| p.client == client)
                .min_by_key(|(_, p)| (p.started, p.seq))
                .map(|(k, _)| k.clone())
            {
                pending.remove(&oldest);
            }
        } else if pending.len() >= self.max_pending {
            return Err(OidcError::Busy);
        }
        pending.insert(
            state,
            Pending {
                provider: index,
                verifier,
                nonce,
                binding: Sha256::digest(binding.as_bytes()).into(),
                next,
                redirect_uri,
                started: now,
                client,
                seq: self
                    .next_seq
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            },
        );
        Ok(Started { location, binding })
    }

    /// Finishes the sign-in `state` names, in the browser that holds `binding`: exchanges `code` (with the PKCE
    /// verifier) for an ID token and checks that it carries this sign-in's nonce. The state is spent either way.
    pub async fn finish(
        &self,
        state: &str,
        binding: Option<&str>,
        code: Result<&str, String>,
        now: Instant,
    ) -> Result<Finished, OidcError> {
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(state)
            .ok_or(OidcError::UnknownState)?;
        let bound = binding.is_some_and(|binding| {
            let hash: [u8; 32] = Sha256::digest(binding.as_bytes()).into();
            bool::from(hash.ct_eq(&pending.binding))
        });
        if !bound || now.saturating_duration_since(pending.started) >= SIGN_IN_WINDOW {
            return Err(OidcError::UnknownState);
        }
        let code = code.map_err(OidcError::Refused)?;
        let provider = &self.providers[pending.provider];
        let endpoints = self.endpoints(pending.provider).await?;
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", pending.redirect_uri.as_str()),
            ("client_id", provider.client_id.as_str()),
            ("code_verifier", pending.verifier.as_str()),
        ];
        if let Some(secret) = &provider.client_secret {
            form.push(("client_secret", secret.as_str()));
        }
        #[derive(Deserialize)]
        struct TokenAnswer {
            id_token: Option<String>,
            error: Option<String>,
            error_description: Option<String>,
        }
        let response = self
            .http
            .post(&endpoints.token)
            .form(&form)
            .send()
            .await
            .map_err(|e| OidcError::Provider(format!("{}: {e}", endpoints.token)))?;
        let status = response.status();
        let answer: TokenAnswer = response
            .json()
            .await
            .map_err(|e| OidcError::Provider(format!("{}: {e}", endpoints.token)))?;
        let id_token = match (answer.id_token, answer.error) {
            (Some(token), None) if status.is_success() => token,
            (_, Some(error)) => {
                return Err(OidcError::Refused(match answer.error_description {
                    Some(description) => format!("{error}: {description}"),
                    None => error,
                }));
            }
            _ => {
                return Err(OidcError::BadToken(format!(
                    "the token endpoint answered {status} without an ID token"
                )));
            }
        };
        let claims = unverified_claims(&id_token)
            .ok_or_else(|| OidcError::BadToken("the ID token is not a JWT".into()))?;
        let nonce_matches = claims["nonce"].as_str().is_some_and(|nonce| {
            nonce.len() == pending.nonce.len()
                && bool::from(nonce.as_bytes().ct_eq(pending.nonce.as_bytes()))
        });
        if !nonce_matches {
            return Err(OidcError::BadToken(
                "the ID token does not carry this sign-in's nonce".into(),
            ));
        }
        Ok(Finished {
            id_token,
            next: pending.next,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pkce_challenge_is_the_s256_of_the_verifier() {
        // RFC 7636, appendix B.
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn claims_are_read_from_a_jwts_payload() {
        let payload = URL_SAFE_NO_PAD.encode(br#"{"nonce":"n-1","sub":"ada"}"#);
        let claims = unverified_claims(&format!("e30.{payload}.sig")).unwrap();
        assert_eq!(claims["nonce"], "n-1");
        assert!(unverified_claims("not a jwt").is_none());
    }

    fn provider() -> OidcProvider {
        OidcProvider {
            name: "Test".into(),
            issuer: "https://idp.test".into(),
            client_id: "weft".into(),
            client_secret: None,
            redirect_url: None,
            scopes: vec!["openid".into(), "groups".into()],
            authorization_endpoint: Some("https://idp.test/authorize".into()),
            token_endpoint: Some("http://127.0.0.1:9/token".into()),
        }
    }

    /// Starts a sign-in: its state and binding.
    async fn start_one(oidc: &Oidc, now: Instant) -> (String, String) {
        start_from(oidc, None, now).await.unwrap()
    }

    /// Starts a sign-in from `client`: its state and binding.
    async fn start_from(
        oidc: &Oidc,
        client: Option<IpAddr>,
        now: Instant,
    ) -> Result<(String, String), OidcError> {
        let started = oidc
            .start(
                0,
                client,
                "/apps".into(),
                "http://weft.test/sign-in/oidc/callback".into(),
                now,
            )
            .await?;
        let state = started
            .location
            .split('&')
            .find_map(|kv| kv.strip_prefix("state="))
            .unwrap()
            .to_string();
        Ok((state, started.binding))
    }

    fn is_pending(oidc: &Oidc, state: &str) -> bool {
        oidc.pending.lock().unwrap().contains_key(state)
    }

    #[tokio::test]
    async fn a_flood_of_starts_from_one_address_is_refused_and_forgets_no_one_elses_sign_in() {
        let oidc = Oidc::bounded(
            vec![provider()],
            8,
            3,
            &RateLimitConfig {
                requests_per_second: 1,
                burst: 5,
            },
        );
        let now = Instant::now();
        let victim: IpAddr = "192.0.2.1".parse().unwrap();
        let attacker: IpAddr = "198.51.100.7".parse().unwrap();
        let (victims, _) = start_from(&oidc, Some(victim), now).await.unwrap();
        // The attacker's burst, then a refusal saying when to come back.
        let mut floods = Vec::new();
        for _ in 0..5 {
            floods.push(start_from(&oidc, Some(attacker), now).await.unwrap().0);
        }
        let refused = start_from(&oidc, Some(attacker), now).await;
        assert!(
            matches!(refused, Err(OidcError::TooManyStarts(wait)) if wait <= Duration::from_secs(1)),
            "{refused:?}"
        );
        // Only the attacker's own three newest wait: its flood forgot its own oldest, not the victim's.
        assert!(floods[..2].iter().all(|state| !is_pending(&oidc, state)));
        assert!(floods[2..].iter().all(|state| is_pending(&oidc, state)));
        assert!(is_pending(&oidc, &victims));
        // Many addresses filling the table are refused past it; still no one's sign-in is forgotten.
        let mut others = 0;
        for host in 1..=20u8 {
            match start_from(&oidc, Some(IpAddr::from([10, 0, 0, host])), now).await {
                Ok(_) => others += 1,
                Err(OidcError::Busy) => {}
                Err(other) => panic!("{other:?}"),
            }
        }
        assert_eq!(others, 8 - 4);
        assert!(is_pending(&oidc, &victims));
        assert!(floods[2..].iter().all(|state| is_pending(&oidc, state)));
        // A second later the attacker may start one more, which again forgets only its own oldest.
        let later = now + Duration::from_secs(1);
        let (again, _) = start_from(&oidc, Some(attacker), later).await.unwrap();
        assert!(is_pending(&oidc, &again) && !is_pending(&oidc, &floods[2]));
        assert!(is_pending(&oidc, &victims));
        // Expired sign-ins make room again.
        let expired = now + SIGN_IN_WINDOW + Duration::from_secs(60);
        assert!(start_from(&oidc, Some(victim), expired).await.is_ok());
    }

    #[test]
    fn an_ipv6_client_is_bounded_by_its_64_and_a_mapped_ipv4_one_as_ipv4() {
        let key = |text: &str| client_key(Some(text.parse().unwrap()));
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:192.0.2.1"), "192.0.2.1");
        assert_eq!(client_key(None), "unknown");
    }

    #[tokio::test]
    async fn a_sign_in_asks_for_a_code_with_pkce_and_its_state_works_once_and_only_in_its_browser()
    {
        let oidc = Oidc::new(vec![provider()]);
        let now = Instant::now();
        let started = oidc
            .start(
                0,
                None,
                "/apps/shop".into(),
                "http://weft.test/sign-in/oidc/callback".into(),
                now,
            )
            .await
            .unwrap();
        let url = started.location;
        assert!(
            url.starts_with("https://idp.test/authorize?response_type=code&client_id=weft&"),
            "{url}"
        );
        assert!(url.contains("redirect_uri=http%3A%2F%2Fweft.test%2Fsign-in%2Foidc%2Fcallback"));
        assert!(url.contains("scope=openid+groups") && url.contains("code_challenge_method=S256"));
        let state = url
            .split('&')
            .find_map(|kv| kv.strip_prefix("state="))
            .unwrap()
            .to_string();
        // Another browser (no or another binding cookie): refused, and the state is spent.
        let other = oidc.finish(&state, Some("not-it"), Ok("code"), now).await;
        assert!(matches!(other, Err(OidcError::UnknownState)), "{other:?}");
        let again = oidc
            .finish(&state, Some(&started.binding), Ok("code"), now)
            .await;
        assert!(
            matches!(again, Err(OidcError::UnknownState)),
            "spent: {again:?}"
        );

        // A refusal at the provider is reported as such; an expired sign-in is unknown.
        let (state, binding) = start_one(&oidc, now).await;
        let refused = oidc
            .finish(&state, Some(&binding), Err("access_denied".into()), now)
            .await;
        assert!(matches!(refused, Err(OidcError::Refused(_))), "{refused:?}");
        let (state, binding) = start_one(&oidc, now).await;
        let late = oidc
            .finish(&state, Some(&binding), Ok("code"), now + SIGN_IN_WINDOW)
            .await;
        assert!(matches!(late, Err(OidcError::UnknownState)), "{late:?}");
        assert!(matches!(
            oidc.start(1, None, "/".into(), String::new(), now).await,
            Err(OidcError::NoProvider)
        ));
    }
}
