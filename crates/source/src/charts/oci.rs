//! OCI registries as Helm stores charts in them: `oci://host/path` plus the chart's name is the repository, the
//! version is the tag (`+` written `_`), the chart is the manifest's one layer of Helm's chart media type, fetched
//! by its digest. Tags are listed when the version is a range. Registries that want a token get one from the realm
//! their `WWW-Authenticate` names; that authentication (challenge, token, login) is shared with the image
//! resolver ([`crate::images`]).

use serde::Deserialize;

use super::ChartError;
use crate::Credentials;

/// Helm's media type for a chart's archive layer.
pub const CHART_LAYER: &str = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";
/// The manifest media types asked for.
pub const MANIFEST_TYPES: &str = "application/vnd.oci.image.manifest.v1+json";

/// A chart's place in a registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The repository as the app named it (`oci://host/path`).
    pub url: String,
    /// `host[:port]`.
    pub registry: String,
    /// The repository path in the registry (`charts/worker`).
    pub repository: String,
}

impl Reference {
    /// The place of chart `name` under `oci://host/path`.
    pub fn parse(url: &str, name: &str) -> Result<Reference, ChartError> {
        let unsupported = || ChartError::UnsupportedUrl(url.to_string());
        let rest = url.strip_prefix("oci://").ok_or_else(unsupported)?;
        let rest = rest.trim_end_matches('/');
        let (registry, path) = match rest.split_once('/') {
            Some((registry, path)) => (registry, path),
            None => (rest, ""),
        };
        let valid = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-._:/".contains(c))
                && !s.contains("..")
        };
        if !valid(registry) || registry.starts_with('-') || !(path.is_empty() || valid(path)) {
            return Err(unsupported());
        }
        if !valid(name) || name.contains('/') || name.contains(':') {
            return Err(ChartError::Manifest {
                file: "Chart.yaml".into(),
                message: format!("{name:?} is not a chart name"),
            });
        }
        let repository = if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}/{name}")
        };
        Ok(Reference {
            url: url.to_string(),
            registry: registry.to_string(),
            repository,
        })
    }

    /// `base/v2/<repository>/<what>` for `scheme` (`https` or `http`).
    pub fn endpoint(&self, scheme: &str, what: &str) -> String {
        format!("{scheme}://{}/v2/{}/{what}", self.registry, self.repository)
    }
}

/// A version as an OCI tag (`+` is not allowed in tags; Helm writes `_`).
pub fn tag(version: &str) -> String {
    version.replace('+', "_")
}

/// A tag back as a version.
pub fn version_of_tag(tag: &str) -> String {
    tag.replace('_', "+")
}

#[derive(Debug, Deserialize)]
struct Descriptor {
    #[serde(rename = "mediaType", default)]
    media_type: String,
    digest: String,
}

#[derive(Debug, Deserialize)]
struct Manifest {
    #[serde(default)]
    layers: Vec<Descriptor>,
}

/// The digest of the chart layer in a manifest.
pub fn chart_layer(manifest: &str, url: &str) -> Result<String, ChartError> {
    let invalid = |message: String| ChartError::Invalid {
        url: url.to_string(),
        message,
    };
    let manifest: Manifest =
        serde_json::from_str(manifest).map_err(|e| invalid(format!("not an OCI manifest: {e}")))?;
    let layer = manifest
        .layers
        .iter()
        .find(|l| l.media_type == CHART_LAYER)
        .ok_or_else(|| {
            invalid(format!(
                "the manifest has no layer of type {CHART_LAYER}: not a Helm chart"
            ))
        })?;
    if !layer.digest.starts_with("sha256:") || layer.digest.len() != 71 {
        return Err(invalid(format!(
            "layer digest {:?} is not a sha256 digest",
            layer.digest
        )));
    }
    Ok(layer.digest.clone())
}

#[derive(Debug, Deserialize)]
struct Tags {
    #[serde(default)]
    tags: Option<Vec<String>>,
}

/// The tags of a `tags/list` answer.
pub fn tags(text: &str, url: &str) -> Result<Vec<String>, ChartError> {
    let tags: Tags = serde_json::from_str(text).map_err(|e| ChartError::Invalid {
        url: url.to_string(),
        message: format!("not a tag list: {e}"),
    })?;
    Ok(tags.tags.unwrap_or_default())
}

/// A `WWW-Authenticate: Bearer realm=...,service=...,scope=...` challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// `Bearer` or `Basic`.
    pub scheme: String,
    /// The token endpoint (Bearer).
    pub realm: String,
    /// The service parameter.
    pub service: Option<String>,
    /// The scope parameter.
    pub scope: Option<String>,
}

/// Reads a `WWW-Authenticate` header.
pub fn challenge(header: &str) -> Option<Challenge> {
    let (scheme, params) = header.trim().split_once(' ').unwrap_or((header.trim(), ""));
    let mut challenge = Challenge {
        scheme: scheme.to_string(),
        realm: String::new(),
        service: None,
        scope: None,
    };
    let mut rest = params.trim();
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        let key = key.trim().trim_start_matches(',').trim();
        let (value, remaining) = match after.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"')?;
                (&quoted[..end], &quoted[end + 1..])
            }
            None => match after.find(',') {
                Some(end) => (&after[..end], &after[end..]),
                None => (after, ""),
            },
        };
        match key {
            "realm" => challenge.realm = value.to_string(),
            "service" => challenge.service = Some(value.to_string()),
            "scope" => challenge.scope = Some(value.to_string()),
            _ => {}
        }
        rest = remaining.trim_start_matches(',').trim();
    }
    Some(challenge)
}

/// How a registry request authenticates: shared by the chart repositories and the image resolver.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Auth {
    /// Anonymously.
    None,
    /// HTTP Basic, with the operator's user and password.
    Basic(String, String),
    /// A token the registry's realm issued.
    Bearer(String),
}

impl Auth {
    /// The login an operator's credential gives a registry (an SSH key gives none).
    pub(crate) fn login(credentials: Option<Credentials>) -> Auth {
        match credentials {
            Some(Credentials::Basic { username, password }) => Auth::Basic(username, password),
            _ => Auth::None,
        }
    }

    /// The `Authorization` header's value, when there is one.
    pub(crate) fn header(&self) -> Option<String> {
        match self {
            Auth::None => None,
            Auth::Basic(user, password) => {
                use base64::Engine;
                let token =
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
                Some(format!("Basic {token}"))
            }
            Auth::Bearer(token) => Some(format!("Bearer {token}")),
        }
    }
}

/// Where a Bearer challenge's token is asked for: the realm with the challenge's scope (else pull access to
/// `repository`) and service.
pub(crate) fn token_url(challenge: &Challenge, repository: &str) -> String {
    let scope = challenge
        .scope
        .clone()
        .unwrap_or_else(|| format!("repository:{repository}:pull"));
    let separator = if challenge.realm.contains('?') {
        '&'
    } else {
        '?'
    };
    let mut url = format!("{}{separator}scope={}", challenge.realm, encode(&scope));
    if let Some(service) = &challenge.service {
        url.push_str(&format!("&service={}", encode(service)));
    }
    url
}

/// The token in a realm's answer (`token`, or OAuth's `access_token`), or what is wrong with the answer.
pub(crate) fn token_of(body: &[u8]) -> Result<String, String> {
    let answer: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("not a token answer: {e}"))?;
    answer["token"]
        .as_str()
        .or_else(|| answer["access_token"].as_str())
        .filter(|token| !token.is_empty())
        .map(String::from)
        .ok_or_else(|| "the answer holds no token".to_string())
}

/// Percent-encodes a query value.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_tags_and_manifests_read_as_helm_writes_them() {
        let reference =
            Reference::parse("oci://registry.example.com:5000/charts/", "worker").unwrap();
        assert_eq!(reference.registry, "registry.example.com:5000");
        assert_eq!(reference.repository, "charts/worker");
        assert_eq!(
            reference.endpoint("https", "manifests/2.0.1"),
            "https://registry.example.com:5000/v2/charts/worker/manifests/2.0.1"
        );
        assert!(Reference::parse("https://x/y", "w").is_err());
        assert!(Reference::parse("oci://-x/y", "w").is_err());
        assert!(Reference::parse("oci://x/y", "../w").is_err());
        assert_eq!(tag("1.0.0+build.1"), "1.0.0_build.1");
        assert_eq!(version_of_tag("1.0.0_build.1"), "1.0.0+build.1");
        let digest = format!("sha256:{}", "a".repeat(64));
        let manifest = format!(
            r#"{{"schemaVersion":2,"config":{{"mediaType":"application/vnd.cncf.helm.config.v1+json","digest":"sha256:00"}},
               "layers":[{{"mediaType":"{CHART_LAYER}","digest":"{digest}","size":10}}]}}"#
        );
        assert_eq!(chart_layer(&manifest, "u").unwrap(), digest);
        let image = r#"{"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:0"}]}"#;
        assert!(
            chart_layer(image, "u")
                .unwrap_err()
                .to_string()
                .contains("not a Helm chart")
        );
        assert_eq!(
            tags(r#"{"name":"w","tags":["1.0.0","2.0.1"]}"#, "u").unwrap(),
            ["1.0.0", "2.0.1"]
        );
    }

    #[test]
    fn bearer_challenges_are_read() {
        let found = challenge(
            r#"Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:charts/worker:pull""#,
        )
        .unwrap();
        assert_eq!(found.scheme, "Bearer");
        assert_eq!(found.realm, "https://auth.example.com/token");
        assert_eq!(found.service.as_deref(), Some("registry.example.com"));
        assert_eq!(
            found.scope.as_deref(),
            Some("repository:charts/worker:pull")
        );
        assert_eq!(
            challenge(r#"Basic realm="Registry""#).unwrap().scheme,
            "Basic"
        );
    }

    #[test]
    fn tokens_are_asked_of_the_realm_with_the_scope_and_read_from_either_field() {
        let mut bearer =
            challenge(r#"Bearer realm="https://auth.example/token",service="reg x""#).unwrap();
        assert_eq!(
            token_url(&bearer, "shop/web"),
            "https://auth.example/token?scope=repository%3Ashop%2Fweb%3Apull&service=reg%20x"
        );
        bearer.realm = "https://auth.example/token?v=2".into();
        bearer.scope = Some("repository:a:pull".into());
        bearer.service = None;
        assert_eq!(
            token_url(&bearer, "ignored"),
            "https://auth.example/token?v=2&scope=repository%3Aa%3Apull"
        );
        assert_eq!(token_of(br#"{"token":"t1"}"#).unwrap(), "t1");
        assert_eq!(token_of(br#"{"access_token":"t2"}"#).unwrap(), "t2");
        assert!(token_of(br#"{"token":""}"#).is_err());
        assert!(token_of(b"<html>").is_err());
    }
}
