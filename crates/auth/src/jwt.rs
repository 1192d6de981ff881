//! JWTs from configured OIDC issuers: keys loaded once at startup, each token checked against the one key its
//! issuer and `kid` select, with that key's algorithm — never the algorithm a token claims for itself.
//!
//! A token is accepted only when its signature verifies, its `iss` is exactly a configured issuer, its `aud`
//! holds that issuer's audience, `exp` is present and not past (30 s leeway) and `nbf`, if present, is not in the
//! future. Anything unreadable denies.

use std::path::Path;
use std::str::FromStr;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyOperations, PublicKeyUse,
};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::config::{KeyConfig, OidcIssuerConfig};
use super::error::{AuthError, Denied};
use super::principal::Principal;
use super::principal::Role;

/// Clock skew allowed on `exp` and `nbf`, in seconds.
pub const LEEWAY_SECONDS: u64 = 30;
/// The shortest shared secret accepted for HS256/384/512, in bytes.
pub const MIN_SECRET_BYTES: usize = 32;

/// The JWT validator: every configured issuer with its keys.
#[derive(Debug, Default)]
pub struct JwtValidator {
    issuers: Vec<Issuer>,
}

/// One issuer, ready to check tokens.
#[derive(Debug)]
struct Issuer {
    issuer: String,
    audience: String,
    keys: Vec<VerificationKey>,
    org_claim: String,
    admin_claim: String,
    admin_value: Option<String>,
    groups_claim: String,
    /// `(group, org, role)`: checked at startup.
    roles: Vec<(String, String, Role)>,
}

/// A key and the one algorithm it verifies.
#[derive(Debug)]
struct VerificationKey {
    kid: Option<String>,
    algorithm: Algorithm,
    key: DecodingKey,
}

impl JwtValidator {
    /// Loads every issuer's keys: PEM and JWKS files from disk, shared secrets through `env` (the process
    /// environment in production). A file or variable that is missing, or a key that is unusable, is an error
    /// naming it.
    pub fn from_config(
        oidc: &[OidcIssuerConfig],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<JwtValidator, AuthError> {
        let issuers = oidc
            .iter()
            .map(|config| Issuer::load(config, env))
            .collect::<Result<_, _>>()?;
        Ok(JwtValidator { issuers })
    }

    /// Whether any issuer is configured.
    pub fn is_empty(&self) -> bool {
        self.issuers.is_empty()
    }

    /// The principal a JWT proves, or why it proves nothing.
    pub fn validate(&self, token: &str) -> Result<Principal, Denied> {
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(_signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Denied::new("JWT does not have three parts"));
        };
        let header = decode_json_object(header)
            .ok_or_else(|| Denied::new("JWT header is not base64url JSON"))?;
        let algorithm = match header.get("alg") {
            Some(Value::String(alg)) if alg.eq_ignore_ascii_case("none") => {
                return Err(Denied::new("JWT alg \"none\" is never accepted"));
            }
            Some(Value::String(alg)) => alg.clone(),
            _ => return Err(Denied::new("JWT header has no alg")),
        };
        let kid = match header.get("kid") {
            None => None,
            Some(Value::String(kid)) => Some(kid.as_str()),
            Some(_) => return Err(Denied::new("JWT kid is not a string")),
        };
        // The unverified claims only choose the issuer; everything is checked again after verification.
        let unverified = decode_json_object(payload)
            .ok_or_else(|| Denied::new("JWT payload is not base64url JSON"))?;
        let Some(Value::String(iss)) = unverified.get("iss") else {
            return Err(Denied::new("JWT has no string iss claim"));
        };
        let issuer = self
            .issuers
            .iter()
            .find(|i| i.issuer == *iss)
            .ok_or_else(|| Denied::new(format!("JWT issuer {iss:?} is not configured")))?;
        let key = issuer.select_key(kid)?;
        if Algorithm::from_str(&algorithm).ok() != Some(key.algorithm) {
            return Err(Denied::new(format!(
                "JWT alg {algorithm:?} is not {:?}, the algorithm of issuer {:?}'s key {:?}",
                key.algorithm,
                issuer.issuer,
                key.kid.as_deref().unwrap_or("(none)")
            )));
        }
        let claims = issuer.verify(token, key)?;
        issuer.principal(&claims)
    }
}

impl Issuer {
    /// An issuer with its keys loaded.
    fn load(
        config: &OidcIssuerConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Issuer, AuthError> {
        let mut keys = Vec::new();
        if let Some(path) = &config.jwks_file {
            keys.extend(load_jwks(&config.issuer, path)?);
        }
        for key in &config.keys {
            keys.push(load_configured_key(&config.issuer, key, env)?);
        }
        for (index, key) in keys.iter().enumerate() {
            if let Some(kid) = &key.kid
                && keys[..index].iter().any(|k| k.kid.as_ref() == Some(kid))
            {
                return Err(AuthError::DuplicateKid {
                    issuer: config.issuer.clone(),
                    kid: kid.clone(),
                });
            }
        }
        if keys.is_empty() {
            return Err(AuthError::NoKeys {
                issuer: config.issuer.clone(),
            });
        }
        Ok(Issuer {
            issuer: config.issuer.clone(),
            audience: config.audience.clone(),
            keys,
            org_claim: config.org_claim.clone(),
            admin_claim: config.admin_claim.clone(),
            admin_value: config.admin_value.clone(),
            groups_claim: config.groups_claim.clone(),
            roles: config
                .roles
                .iter()
                .filter_map(|grant| Some((grant.group.clone(), grant.org.clone(), grant.role()?)))
                .collect(),
        })
    }

    /// The key a token's `kid` names; a token without one only when the issuer has exactly one key.
    fn select_key(&self, kid: Option<&str>) -> Result<&VerificationKey, Denied> {
        match kid {
            Some(kid) => self
                .keys
                .iter()
                .find(|k| k.kid.as_deref() == Some(kid))
                .ok_or_else(|| Denied::new(format!("issuer {:?} has no key {kid:?}", self.issuer))),
            None => match self.keys.as_slice() {
                [only] => Ok(only),
                _ => Err(Denied::new(format!(
                    "JWT has no kid and issuer {:?} has {} keys",
                    self.issuer,
                    self.keys.len()
                ))),
            },
        }
    }

    /// The verified claims: signature, `exp`, `nbf`, `iss` and `aud` checked.
    fn verify(&self, token: &str, key: &VerificationKey) -> Result<Map<String, Value>, Denied> {
        let mut validation = Validation::new(key.algorithm);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.validate_aud = true;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        let claims = jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation)
            .map_err(|error| Denied::new(rejection(error.kind(), &self.issuer)))?
            .claims;
        // The library also accepts an array of issuers holding ours; a principal needs exactly one.
        if claims.get("iss") != Some(&Value::String(self.issuer.clone())) {
            return Err(Denied::new("JWT iss is not exactly the configured issuer"));
        }
        Ok(claims)
    }

    /// Who verified claims name: an admin when the admin claim holds the admin value, else a member of one org:
    /// a viewer of the org claim's org, raised to the highest role the caller's groups grant there. Groups (and an
    /// org claim) naming more than one org deny, as does naming none.
    fn principal(&self, claims: &Map<String, Value>) -> Result<Principal, Denied> {
        // `sub` is unique only within its issuer: the subject names both, so a JWT can never share a subject (or a
        // rate-limit bucket) with another issuer's user or with a Weft token (`token:ID`).
        let (subject, sub) = match claims.get("sub") {
            Some(Value::String(sub)) if !sub.is_empty() => (jwt_subject(sub, &self.issuer), sub),
            _ => return Err(Denied::new("JWT has no string sub claim")),
        };
        let actor = jwt_actor(claims, sub);
        if let Some(admin_value) = &self.admin_value
            && claim_holds(claims.get(&self.admin_claim), admin_value)
        {
            return Ok(Principal::admin(subject).with_actor(actor));
        }
        let mut grants: Vec<(&str, Role)> = Vec::new();
        match claims.get(&self.org_claim) {
            Some(Value::String(org)) => grants.push((org, Role::Viewer)),
            Some(_) => {
                return Err(Denied::new(format!(
                    "JWT claim {:?} is not a string",
                    self.org_claim
                )));
            }
            None => {}
        }
        for (group, org, role) in &self.roles {
            if claim_holds(claims.get(&self.groups_claim), group) {
                grants.push((org, *role));
            }
        }
        let Some(&(org, _)) = grants.first() else {
            return Err(Denied::new(format!(
                "JWT has no {:?} claim, no group with a role and is not an admin",
                self.org_claim
            )));
        };
        if let Some((other, _)) = grants.iter().find(|(o, _)| *o != org) {
            return Err(Denied::new(format!(
                "JWT names more than one org ({org:?} and {other:?}): a caller acts in one org"
            )));
        }
        let role = grants
            .iter()
            .map(|(_, role)| *role)
            .max()
            .unwrap_or(Role::Viewer);
        Principal::with_role(subject, org, role)
            .map(|principal| principal.with_actor(actor))
            .map_err(|e| Denied::new(format!("JWT claim {:?}: {e}", self.org_claim)))
    }
}

/// Who a JWT's caller is for people: its `preferred_username`, else its `email`, else its `sub`.
fn jwt_actor(claims: &Map<String, Value>, sub: &str) -> String {
    ["preferred_username", "email"]
        .iter()
        .find_map(|claim| match claims.get(*claim) {
            Some(Value::String(value))
                if !value.is_empty() && !value.chars().any(char::is_control) =>
            {
                Some(value.chars().take(256).collect())
            }
            _ => None,
        })
        .unwrap_or_else(|| sub.chars().take(256).collect())
}

/// The subject of a JWT's principal: its `sub` at its issuer (`alice@https://idp.example`).
pub(crate) fn jwt_subject(sub: &str, issuer: &str) -> String {
    format!("{sub}@{issuer}")
}

/// Whether a claim is `value` or an array holding it.
fn claim_holds(claim: Option<&Value>, value: &str) -> bool {
    match claim {
        Some(Value::String(s)) => s == value,
        Some(Value::Array(items)) => items.iter().any(|item| item.as_str() == Some(value)),
        _ => false,
    }
}

/// A base64url JSON object, if it is one.
fn decode_json_object(part: &str) -> Option<Map<String, Value>> {
    let bytes = URL_SAFE_NO_PAD.decode(part).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// Why the library refused a token, for the log.
fn rejection(kind: &ErrorKind, issuer: &str) -> String {
    match kind {
        ErrorKind::ExpiredSignature => "JWT has expired".to_string(),
        ErrorKind::ImmatureSignature => "JWT is not valid yet (nbf)".to_string(),
        ErrorKind::InvalidSignature => {
            format!("JWT signature does not verify with issuer {issuer:?}'s key")
        }
        ErrorKind::InvalidAudience => "JWT aud does not hold the configured audience".to_string(),
        ErrorKind::InvalidIssuer => format!("JWT iss is not {issuer:?}"),
        ErrorKind::InvalidAlgorithm => "JWT alg does not match the key".to_string(),
        ErrorKind::MissingRequiredClaim(claim) => format!("JWT has no {claim} claim"),
        ErrorKind::InvalidClaimFormat(claim) => format!("JWT claim {claim} is malformed"),
        other => format!("JWT rejected: {other:?}"),
    }
}

/// A key from `keys = [...]`: a PEM public key file, or a shared secret from the environment.
fn load_configured_key(
    issuer: &str,
    config: &KeyConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<VerificationKey, AuthError> {
    let invalid = |message: String| AuthError::InvalidKey {
        issuer: issuer.to_string(),
        kid: config.kid.clone(),
        message,
    };
    let key = match config.algorithm.family() {
        AlgorithmFamily::Hmac => {
            let (Some(variable), None) = (&config.secret_env, &config.public_key_pem_file) else {
                return Err(invalid(
                    "HMAC keys take their secret from secret_env, and no public_key_pem_file"
                        .into(),
                ));
            };
            let secret = env(variable).ok_or_else(|| AuthError::MissingSecret {
                issuer: issuer.to_string(),
                kid: config.kid.clone(),
                variable: variable.clone(),
            })?;
            if secret.len() < MIN_SECRET_BYTES {
                return Err(invalid(format!(
                    "the secret in {variable} is {} bytes; at least {MIN_SECRET_BYTES} are needed",
                    secret.len()
                )));
            }
            DecodingKey::from_secret(secret.as_bytes()).map_err(|e| invalid(e.to_string()))?
        }
        family @ (AlgorithmFamily::Rsa | AlgorithmFamily::Ec | AlgorithmFamily::Ed) => {
            let (None, Some(path)) = (&config.secret_env, &config.public_key_pem_file) else {
                return Err(invalid(
                    "public-key algorithms need a public_key_pem_file, and no secret_env".into(),
                ));
            };
            let pem = std::fs::read(path).map_err(|source| AuthError::KeyFile {
                path: path.clone(),
                source,
            })?;
            if pem
                .windows(b"PRIVATE KEY".len())
                .any(|w| w == b"PRIVATE KEY")
            {
                return Err(invalid(format!(
                    "{} holds a private key; configure the public key",
                    path.display()
                )));
            }
            let parsed = match family {
                AlgorithmFamily::Rsa => DecodingKey::from_rsa_pem(&pem),
                AlgorithmFamily::Ec => DecodingKey::from_ec_pem(&pem),
                _ => DecodingKey::from_ed_pem(&pem),
            };
            parsed.map_err(|e| {
                invalid(format!(
                    "{} is not a {:?} public key in PEM: {e}",
                    path.display(),
                    config.algorithm
                ))
            })?
        }
    };
    Ok(VerificationKey {
        kid: Some(config.kid.clone()),
        algorithm: config.algorithm,
        key,
    })
}

/// The signing keys of a JWKS file. Encryption keys and key types Weft cannot verify with are skipped;
/// symmetric (`oct`) keys are refused, since a secret belongs in `secret_env`, not in a file of public keys.
fn load_jwks(issuer: &str, path: &Path) -> Result<Vec<VerificationKey>, AuthError> {
    let jwks_error = |message: String| AuthError::Jwks {
        path: path.to_path_buf(),
        message,
    };
    let text = std::fs::read(path).map_err(|source| AuthError::KeyFile {
        path: path.to_path_buf(),
        source,
    })?;
    let set: JwkSet = serde_json::from_slice(&text).map_err(|e| jwks_error(e.to_string()))?;
    let mut keys = Vec::new();
    for jwk in &set.keys {
        let kid = jwk.common.key_id.clone();
        let kid_name = kid.as_deref().unwrap_or("(none)");
        if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)) {
            return Err(jwks_error(format!(
                "key {kid_name:?} is a symmetric (oct) key; configure shared secrets with secret_env"
            )));
        }
        if !is_for_signatures(jwk) {
            tracing::debug!(
                issuer,
                kid = kid_name,
                "skipping a JWKS key not meant for signatures"
            );
            continue;
        }
        let Some(algorithm) = jwk_algorithm(jwk) else {
            tracing::warn!(issuer, kid = kid_name, path = %path.display(), "skipping a JWKS key with an algorithm Weft cannot verify");
            continue;
        };
        let key = DecodingKey::from_jwk(jwk).map_err(|e| AuthError::InvalidKey {
            issuer: issuer.to_string(),
            kid: kid_name.to_string(),
            message: format!("{}: {e}", path.display()),
        })?;
        if key.family() != algorithm.family() {
            return Err(AuthError::InvalidKey {
                issuer: issuer.to_string(),
                kid: kid_name.to_string(),
                message: format!(
                    "{}: alg {algorithm:?} does not fit the key type",
                    path.display()
                ),
            });
        }
        keys.push(VerificationKey {
            kid,
            algorithm,
            key,
        });
    }
    Ok(keys)
}

/// Whether a JWK may verify signatures (`use` is `sig` or absent, `key_ops` holds `verify` or is absent).
fn is_for_signatures(jwk: &Jwk) -> bool {
    let use_ok = matches!(
        jwk.common.public_key_use,
        None | Some(PublicKeyUse::Signature)
    );
    let ops_ok = jwk
        .common
        .key_operations
        .as_ref()
        .is_none_or(|ops| ops.contains(&KeyOperations::Verify));
    use_ok && ops_ok
}

/// The algorithm a JWK verifies: its `alg`, else the one its key type allows unambiguously — ES256 or ES384 by
/// curve, EdDSA for Ed25519, and RS256 for RSA (the algorithm every OIDC provider must support).
fn jwk_algorithm(jwk: &Jwk) -> Option<Algorithm> {
    if let Some(alg) = jwk.common.key_algorithm {
        return Algorithm::try_from(alg).ok();
    }
    match &jwk.algorithm {
        AlgorithmParameters::EllipticCurve(params) => match params.curve {
            EllipticCurve::P256 => Some(Algorithm::ES256),
            EllipticCurve::P384 => Some(Algorithm::ES384),
            _ => None,
        },
        AlgorithmParameters::OctetKeyPair(params) => {
            (params.curve == EllipticCurve::Ed25519).then_some(Algorithm::EdDSA)
        }
        AlgorithmParameters::RSA(_) => Some(Algorithm::RS256),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! Tokens signed here with HS256 (secret from an injected environment), and with the RS256 and ES256 test
    //! key pairs under `testdata/`.

    use std::path::PathBuf;

    use jsonwebtoken::{EncodingKey, Header, encode, get_current_timestamp};
    use serde_json::json;

    use super::*;

    pub(crate) const ISSUER: &str = "https://id.example.com";

    /// The subject of the tests' user `alice` at [`ISSUER`].
    fn alice() -> String {
        jwt_subject("alice", ISSUER)
    }

    #[test]
    fn a_jwt_subject_names_its_issuer_so_it_never_matches_a_token_or_another_issuer() {
        assert_eq!(alice(), "alice@https://id.example.com");
        assert_ne!(jwt_subject("token:tok_abc", ISSUER), "token:tok_abc");
        assert_ne!(
            jwt_subject("alice", ISSUER),
            jwt_subject("alice", "https://other.example.com")
        );
    }

    pub(crate) const SECRET: &str = "0123456789abcdef0123456789abcdef-test-secret";

    pub(crate) fn testdata(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/testdata")
            .join(name)
    }

    pub(crate) fn env(name: &str) -> Option<String> {
        (name == "WEFT_JWT_SECRET").then(|| SECRET.to_string())
    }

    /// An issuer with an HS256 key `h1`, the RS256 key `r1` and the ES256 key `e1` from `testdata/`.
    pub(crate) fn issuer_config() -> OidcIssuerConfig {
        OidcIssuerConfig {
            issuer: ISSUER.to_string(),
            audience: "weft".to_string(),
            jwks_file: None,
            keys: vec![
                KeyConfig {
                    kid: "h1".into(),
                    algorithm: Algorithm::HS256,
                    public_key_pem_file: None,
                    secret_env: Some("WEFT_JWT_SECRET".into()),
                },
                KeyConfig {
                    kid: "r1".into(),
                    algorithm: Algorithm::RS256,
                    public_key_pem_file: Some(testdata("rsa_public.pem")),
                    secret_env: None,
                },
                KeyConfig {
                    kid: "e1".into(),
                    algorithm: Algorithm::ES256,
                    public_key_pem_file: Some(testdata("ec_public.pem")),
                    secret_env: None,
                },
            ],
            org_claim: "org".into(),
            admin_claim: "groups".into(),
            admin_value: Some("weft-admins".into()),
            groups_claim: "groups".into(),
            roles: Vec::new(),
            console: None,
        }
    }

    fn validator(configs: &[OidcIssuerConfig]) -> JwtValidator {
        JwtValidator::from_config(configs, &env).unwrap()
    }

    /// Claims valid for the test issuer for ten minutes.
    pub(crate) fn claims() -> Value {
        let now = get_current_timestamp();
        json!({"iss": ISSUER, "aud": "weft", "sub": "alice", "org": "acme", "iat": now, "exp": now + 600})
    }

    pub(crate) fn with(mut claims: Value, key: &str, value: Value) -> Value {
        claims[key] = value;
        claims
    }

    pub(crate) fn without(mut claims: Value, key: &str) -> Value {
        claims.as_object_mut().unwrap().remove(key);
        claims
    }

    pub(crate) fn hs256(kid: Option<&str>, claims: &Value, secret: &[u8]) -> String {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = kid.map(String::from);
        encode(&header, claims, &EncodingKey::from_secret(secret).unwrap()).unwrap()
    }

    fn rs256(kid: &str, claims: &Value) -> String {
        let pem = std::fs::read(testdata("rsa_private.pem")).unwrap();
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(kid.into());
        encode(&header, claims, &EncodingKey::from_rsa_pem(&pem).unwrap()).unwrap()
    }

    fn es256(kid: &str, claims: &Value) -> String {
        let pem = std::fs::read(testdata("ec_private.pem")).unwrap();
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(kid.into());
        encode(&header, claims, &EncodingKey::from_ec_pem(&pem).unwrap()).unwrap()
    }

    /// A token with a hand-made header and payload and the given signature part.
    fn raw(header: &Value, claims: &Value, signature: &str) -> String {
        let part = |v: &Value| URL_SAFE_NO_PAD.encode(serde_json::to_vec(v).unwrap());
        format!("{}.{}.{signature}", part(header), part(claims))
    }

    fn denied(result: Result<Principal, Denied>, reason_part: &str) {
        match result {
            Err(denied) => assert!(
                denied.reason.contains(reason_part),
                "reason {:?} should mention {reason_part:?}",
                denied.reason
            ),
            Ok(principal) => {
                panic!("let in as {principal:?}; expected a denial for {reason_part:?}")
            }
        }
    }

    #[test]
    fn a_valid_hs256_token_makes_a_member_of_its_org() {
        let jwt = validator(&[issuer_config()]);
        let token = hs256(Some("h1"), &claims(), SECRET.as_bytes());
        assert_eq!(
            jwt.validate(&token).unwrap(),
            Principal::member(alice(), "acme")
                .unwrap()
                .with_actor("alice")
        );
    }

    #[test]
    fn asymmetric_keys_verify_rs256_and_es256() {
        let jwt = validator(&[issuer_config()]);
        let member = Principal::member(alice(), "acme")
            .unwrap()
            .with_actor("alice");
        assert_eq!(jwt.validate(&rs256("r1", &claims())).unwrap(), member);
        assert_eq!(jwt.validate(&es256("e1", &claims())).unwrap(), member);
        // The right algorithm with another key's kid does not verify.
        denied(jwt.validate(&rs256("e1", &claims())), "RS256");
        let tampered = {
            let token = rs256("r1", &claims());
            let mut parts: Vec<&str> = token.split('.').collect();
            let payload = URL_SAFE_NO_PAD
                .encode(serde_json::to_vec(&with(claims(), "org", json!("evil"))).unwrap());
            parts[1] = &payload;
            parts.join(".")
        };
        denied(jwt.validate(&tampered), "signature");
    }

    #[test]
    fn keys_from_a_jwks_file_verify_and_encryption_keys_are_skipped() {
        let config = OidcIssuerConfig {
            jwks_file: Some(testdata("jwks.json")),
            keys: Vec::new(),
            ..issuer_config()
        };
        let jwt = validator(&[config]);
        assert_eq!(
            jwt.issuers[0].keys.len(),
            2,
            "rsa-enc is for encryption only"
        );
        let member = Principal::member(alice(), "acme")
            .unwrap()
            .with_actor("alice");
        assert_eq!(jwt.validate(&rs256("rsa1", &claims())).unwrap(), member);
        assert_eq!(jwt.validate(&es256("ec1", &claims())).unwrap(), member);
        denied(
            jwt.validate(&rs256("rsa-enc", &claims())),
            "no key \"rsa-enc\"",
        );
    }

    #[test]
    fn admins_come_from_the_admin_claim_as_array_or_string() {
        let jwt = validator(&[issuer_config()]);
        for groups in [json!(["dev", "weft-admins"]), json!("weft-admins")] {
            let token = hs256(
                Some("h1"),
                &without(with(claims(), "groups", groups), "org"),
                SECRET.as_bytes(),
            );
            assert_eq!(
                jwt.validate(&token).unwrap(),
                Principal::admin(alice()).with_actor("alice")
            );
        }
        // Not holding the value (or holding it in the wrong shape) leaves a member of the org.
        for groups in [
            json!(["dev"]),
            json!({"weft-admins": true}),
            json!(["weft-admins-not"]),
        ] {
            let token = hs256(
                Some("h1"),
                &with(claims(), "groups", groups),
                SECRET.as_bytes(),
            );
            assert_eq!(
                jwt.validate(&token).unwrap(),
                Principal::member(alice(), "acme")
                    .unwrap()
                    .with_actor("alice")
            );
        }
        // Without an admin_value nobody is an admin through the issuer.
        let jwt = validator(&[OidcIssuerConfig {
            admin_value: None,
            ..issuer_config()
        }]);
        let token = hs256(
            Some("h1"),
            &with(claims(), "groups", json!(["weft-admins"])),
            SECRET.as_bytes(),
        );
        assert_eq!(
            jwt.validate(&token).unwrap(),
            Principal::member(alice(), "acme")
                .unwrap()
                .with_actor("alice")
        );
    }

    #[test]
    fn groups_grant_org_roles_the_highest_winning_and_two_orgs_denying() {
        let grant = |group: &str, org: &str, role: &str| super::super::config::GroupRole {
            group: group.into(),
            org: org.into(),
            role: role.into(),
        };
        let jwt = validator(&[OidcIssuerConfig {
            roles: vec![
                grant("shop-deployers", "shop", "deployer"),
                grant("shop-admins", "shop", "org-admin"),
                grant("bank-viewers", "bank", "viewer"),
            ],
            ..issuer_config()
        }]);
        let token = |claims: Value| hs256(Some("h1"), &claims, SECRET.as_bytes());
        let alice_in = |org: &str, role: Role| {
            Principal::with_role(alice(), org, role)
                .unwrap()
                .with_actor("alice@idp")
        };
        let named = with(
            without(claims(), "org"),
            "preferred_username",
            json!("alice@idp"),
        );
        assert_eq!(
            jwt.validate(&token(with(
                named.clone(),
                "groups",
                json!(["shop-deployers"])
            )))
            .unwrap(),
            alice_in("shop", Role::Deployer)
        );
        assert_eq!(
            jwt.validate(&token(with(
                named.clone(),
                "groups",
                json!(["shop-deployers", "shop-admins"])
            )))
            .unwrap(),
            alice_in("shop", Role::OrgAdmin)
        );
        // The org claim's viewer is raised by a group of the same org...
        assert_eq!(
            jwt.validate(&token(with(
                with(named.clone(), "org", json!("shop")),
                "groups",
                json!("shop-deployers")
            )))
            .unwrap(),
            alice_in("shop", Role::Deployer)
        );
        // ...and groups of two orgs, or an org claim and a group of another org, deny.
        denied(
            jwt.validate(&token(with(
                named.clone(),
                "groups",
                json!(["shop-deployers", "bank-viewers"]),
            ))),
            "more than one org",
        );
        denied(
            jwt.validate(&token(with(
                with(named.clone(), "org", json!("acme")),
                "groups",
                json!(["shop-admins"]),
            ))),
            "more than one org",
        );
        // A group no role names grants nothing.
        denied(
            jwt.validate(&token(with(named, "groups", json!(["dev"])))),
            "no group with a role",
        );
    }

    #[test]
    fn the_actor_is_the_preferred_username_else_the_email_else_the_sub() {
        let jwt = validator(&[issuer_config()]);
        let actor = |claims: Value| {
            jwt.validate(&hs256(Some("h1"), &claims, SECRET.as_bytes()))
                .unwrap()
                .actor()
                .to_string()
        };
        assert_eq!(actor(claims()), "alice");
        assert_eq!(
            actor(with(claims(), "email", json!("alice@example.com"))),
            "alice@example.com"
        );
        assert_eq!(
            actor(with(
                with(claims(), "email", json!("alice@example.com")),
                "preferred_username",
                json!("alice@idp")
            )),
            "alice@idp"
        );
    }

    #[test]
    fn configured_claim_names_are_used() {
        let jwt = validator(&[OidcIssuerConfig {
            org_claim: "tenant".into(),
            admin_claim: "roles".into(),
            ..issuer_config()
        }]);
        let token = hs256(
            Some("h1"),
            &with(claims(), "tenant", json!("globex")),
            SECRET.as_bytes(),
        );
        assert_eq!(
            jwt.validate(&token).unwrap(),
            Principal::member(alice(), "globex")
                .unwrap()
                .with_actor("alice")
        );
        let token = hs256(
            Some("h1"),
            &with(without(claims(), "org"), "roles", json!(["weft-admins"])),
            SECRET.as_bytes(),
        );
        assert_eq!(
            jwt.validate(&token).unwrap(),
            Principal::admin(alice()).with_actor("alice")
        );
        let token = hs256(Some("h1"), &claims(), SECRET.as_bytes());
        denied(jwt.validate(&token), "no \"tenant\" claim");
    }

    #[test]
    fn a_missing_or_non_string_org_denies() {
        let jwt = validator(&[issuer_config()]);
        let sign = |claims: Value| hs256(Some("h1"), &claims, SECRET.as_bytes());
        denied(
            jwt.validate(&sign(without(claims(), "org"))),
            "no \"org\" claim",
        );
        denied(
            jwt.validate(&sign(with(claims(), "org", json!(["acme"])))),
            "not a string",
        );
        denied(
            jwt.validate(&sign(with(claims(), "org", json!(7)))),
            "not a string",
        );
        denied(
            jwt.validate(&sign(with(claims(), "org", json!("")))),
            "org name",
        );
        denied(jwt.validate(&sign(without(claims(), "sub"))), "sub");
        denied(jwt.validate(&sign(with(claims(), "sub", json!(42)))), "sub");
    }

    #[test]
    fn expired_and_not_yet_valid_tokens_deny_with_a_small_leeway() {
        let jwt = validator(&[issuer_config()]);
        let now = get_current_timestamp();
        let sign = |claims: Value| hs256(Some("h1"), &claims, SECRET.as_bytes());
        denied(
            jwt.validate(&sign(with(claims(), "exp", json!(now - 3600)))),
            "expired",
        );
        denied(
            jwt.validate(&sign(with(
                claims(),
                "exp",
                json!(now - LEEWAY_SECONDS - 15),
            ))),
            "expired",
        );
        assert!(
            jwt.validate(&sign(with(claims(), "exp", json!(now - 5))))
                .is_ok(),
            "within leeway"
        );
        denied(jwt.validate(&sign(without(claims(), "exp"))), "exp");
        denied(
            jwt.validate(&sign(with(claims(), "exp", json!("later")))),
            "exp",
        );
        denied(
            jwt.validate(&sign(with(claims(), "nbf", json!(now + 3600)))),
            "nbf",
        );
        assert!(
            jwt.validate(&sign(with(claims(), "nbf", json!(now - 10))))
                .is_ok()
        );
    }

    #[test]
    fn issuers_must_be_configured_and_match_exactly() {
        let jwt = validator(&[issuer_config()]);
        let sign = |claims: Value| hs256(Some("h1"), &claims, SECRET.as_bytes());
        denied(
            jwt.validate(&sign(with(
                claims(),
                "iss",
                json!("https://evil.example.com"),
            ))),
            "not configured",
        );
        denied(
            jwt.validate(&sign(with(claims(), "iss", json!(format!("{ISSUER}/"))))),
            "not configured",
        );
        denied(jwt.validate(&sign(without(claims(), "iss"))), "iss");
        denied(
            jwt.validate(&sign(with(claims(), "iss", json!([ISSUER])))),
            "iss",
        );
        // A second issuer's token is checked with the second issuer's keys only.
        let other = OidcIssuerConfig {
            issuer: "https://other.example.com".into(),
            keys: vec![issuer_config().keys[1].clone()],
            ..issuer_config()
        };
        let jwt = validator(&[issuer_config(), other]);
        let token = sign(with(claims(), "iss", json!("https://other.example.com")));
        denied(jwt.validate(&token), "no key \"h1\"");
    }

    #[test]
    fn the_audience_must_be_present_and_held() {
        let jwt = validator(&[issuer_config()]);
        let sign = |claims: Value| hs256(Some("h1"), &claims, SECRET.as_bytes());
        denied(
            jwt.validate(&sign(with(claims(), "aud", json!("other")))),
            "aud",
        );
        denied(
            jwt.validate(&sign(with(claims(), "aud", json!(["a", "b"])))),
            "aud",
        );
        denied(jwt.validate(&sign(without(claims(), "aud"))), "aud");
        assert!(
            jwt.validate(&sign(with(claims(), "aud", json!(["other", "weft"]))))
                .is_ok()
        );
    }

    #[test]
    fn a_wrong_secret_denies() {
        let jwt = validator(&[issuer_config()]);
        let token = hs256(
            Some("h1"),
            &claims(),
            b"another secret of at least 32 bytes!!",
        );
        denied(jwt.validate(&token), "signature");
    }

    #[test]
    fn alg_none_is_never_accepted() {
        let jwt = validator(&[issuer_config()]);
        for alg in ["none", "None", "NONE"] {
            let token = raw(&json!({"alg": alg, "kid": "h1"}), &claims(), "");
            denied(jwt.validate(&token), "\"none\"");
        }
        let token = raw(&json!({"alg": "none"}), &claims(), "");
        denied(jwt.validate(&token), "\"none\"");
        denied(
            jwt.validate(&raw(&json!({"kid": "h1"}), &claims(), "")),
            "no alg",
        );
    }

    #[test]
    fn an_hs256_token_signed_with_the_rsa_public_key_is_refused() {
        // The classic confusion: the attacker signs with the public key as an HMAC secret and claims HS256.
        let jwt = validator(&[issuer_config()]);
        let public = std::fs::read(testdata("rsa_public.pem")).unwrap();
        let token = hs256(Some("r1"), &claims(), &public);
        denied(jwt.validate(&token), "is not RS256");
        // Even a hand-made header claiming RS256 over an HMAC signature does not verify.
        let hmac_token = hs256(Some("r1"), &claims(), &public);
        let signature = hmac_token.rsplit('.').next().unwrap();
        let token = raw(&json!({"alg": "RS256", "kid": "r1"}), &claims(), signature);
        denied(jwt.validate(&token), "signature does not verify");
    }

    #[test]
    fn the_kid_selects_the_key_and_no_kid_needs_exactly_one_key() {
        let jwt = validator(&[issuer_config()]);
        denied(
            jwt.validate(&hs256(Some("h9"), &claims(), SECRET.as_bytes())),
            "no key \"h9\"",
        );
        denied(
            jwt.validate(&hs256(None, &claims(), SECRET.as_bytes())),
            "has 3 keys",
        );
        let only = OidcIssuerConfig {
            keys: vec![issuer_config().keys[0].clone()],
            ..issuer_config()
        };
        let jwt = validator(&[only]);
        assert!(
            jwt.validate(&hs256(None, &claims(), SECRET.as_bytes()))
                .is_ok()
        );
        let token = raw(&json!({"alg": "HS256", "kid": 1}), &claims(), "");
        denied(jwt.validate(&token), "kid");
    }

    #[test]
    fn garbage_denies() {
        let jwt = validator(&[issuer_config()]);
        for token in [
            "a.b.c",
            "e30.e30.",
            "...",
            "x.y",
            "a.b.c.d",
            "eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.sig",
        ] {
            assert!(jwt.validate(token).is_err(), "{token}");
        }
    }

    #[test]
    fn loading_fails_naming_what_is_missing() {
        let no_env = |_: &str| None;
        let error = JwtValidator::from_config(&[issuer_config()], &no_env)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("WEFT_JWT_SECRET") && error.contains("h1"),
            "{error}"
        );

        let short = |_: &str| Some("short".to_string());
        let error = JwtValidator::from_config(&[issuer_config()], &short)
            .unwrap_err()
            .to_string();
        assert!(error.contains("at least 32"), "{error}");

        let mut config = issuer_config();
        config.keys[1].public_key_pem_file = Some(testdata("missing.pem"));
        let error = JwtValidator::from_config(&[config], &env)
            .unwrap_err()
            .to_string();
        assert!(error.contains("missing.pem"), "{error}");

        let mut config = issuer_config();
        config.keys[1].public_key_pem_file = Some(testdata("rsa_private.pem"));
        let error = JwtValidator::from_config(&[config], &env)
            .unwrap_err()
            .to_string();
        assert!(error.contains("private key"), "{error}");

        let mut config = issuer_config();
        config.keys[1].public_key_pem_file = Some(testdata("ec_public.pem"));
        let error = JwtValidator::from_config(&[config], &env)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("r1") && error.contains("ec_public.pem"),
            "{error}"
        );

        let config = OidcIssuerConfig {
            jwks_file: Some(testdata("missing-jwks.json")),
            ..issuer_config()
        };
        let error = JwtValidator::from_config(&[config], &env)
            .unwrap_err()
            .to_string();
        assert!(error.contains("missing-jwks.json"), "{error}");

        let config = OidcIssuerConfig {
            jwks_file: Some(testdata("jwks.json")),
            keys: vec![KeyConfig {
                kid: "rsa1".into(),
                ..issuer_config().keys[1].clone()
            }],
            ..issuer_config()
        };
        let error = JwtValidator::from_config(&[config], &env)
            .unwrap_err()
            .to_string();
        assert!(error.contains("rsa1") && error.contains("twice"), "{error}");
    }

    #[test]
    fn jwks_algorithms_come_from_the_key_not_the_token() {
        let set: JwkSet = serde_json::from_value(json!({"keys": [
            {"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"},
            {"kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"},
            {"kty": "RSA", "n": "AQAB", "e": "AQAB"},
            {"kty": "RSA", "alg": "PS384", "n": "AQAB", "e": "AQAB"},
            {"kty": "RSA", "alg": "RSA-OAEP", "n": "AQAB", "e": "AQAB"},
            {"kty": "OKP", "crv": "Ed25519", "x": "AA"},
            {"kty": "RSA", "use": "enc", "n": "AQAB", "e": "AQAB"},
            {"kty": "RSA", "key_ops": ["encrypt"], "n": "AQAB", "e": "AQAB"},
            {"kty": "RSA", "key_ops": ["verify"], "n": "AQAB", "e": "AQAB"}
        ]}))
        .unwrap();
        let algorithms: Vec<Option<Algorithm>> = set.keys.iter().map(jwk_algorithm).collect();
        assert_eq!(
            algorithms[..6],
            [
                Some(Algorithm::ES256),
                Some(Algorithm::ES384),
                Some(Algorithm::RS256),
                Some(Algorithm::PS384),
                None,
                Some(Algorithm::EdDSA)
            ]
        );
        let signing: Vec<bool> = set.keys.iter().map(is_for_signatures).collect();
        assert_eq!(signing[6..], [false, false, true]);
    }

    #[test]
    fn a_symmetric_key_in_a_jwks_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jwks.json");
        std::fs::write(
            &path,
            r#"{"keys":[{"kty":"oct","kid":"s","alg":"HS256","k":"c2VjcmV0"}]}"#,
        )
        .unwrap();
        let config = OidcIssuerConfig {
            jwks_file: Some(path),
            keys: Vec::new(),
            ..issuer_config()
        };
        let error = JwtValidator::from_config(&[config], &env)
            .unwrap_err()
            .to_string();
        assert!(error.contains("oct"), "{error}");
    }
}
