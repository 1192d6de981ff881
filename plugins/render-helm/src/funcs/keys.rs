//! Private keys for Sprig's key and certificate functions: generated from the template's random stream (RSA,
//! ECDSA P-256, Ed25519), written as Sprig writes them (`RSA PRIVATE KEY` PKCS#1, `EC PRIVATE KEY` SEC1, `PRIVATE
//! KEY` PKCS#8) and read back from PEM as Sprig's `parsePrivateKeyPEM` reads them; and `genPrivateKey`.

use chacha20::ChaCha20Rng;
use chacha20::rand_core::SeedableRng as _;
use der::Decode as _;
use ed25519_dalek::pkcs8::{DecodePrivateKey as _, EncodePrivateKey as _, KeypairBytes};
use rsa::pkcs1::{DecodeRsaPrivateKey as _, EncodeRsaPrivateKey as _};
use rsa::{PrivateKey as RsaPrivateKey, PublicKey as RsaPublicKey};
use x509_cert::spki::{EncodePublicKey as _, SubjectPublicKeyInfoOwned};

use super::entropy;
use super::{arity, pem, string_arg};
use crate::template::{Budget, FunctionTable, Value};

/// The size of the RSA keys `genPrivateKey "rsa"` makes (Sprig's `rsa.GenerateKey(rand.Reader, 4096)`).
pub const PRIVATE_KEY_RSA_BITS: usize = 4096;
/// The size of the RSA keys the certificate functions make (Sprig's 2048).
pub const CERTIFICATE_RSA_BITS: usize = 2048;

/// Why a key or certificate could not be made or read. The messages are Sprig's where Sprig has one.
#[derive(Debug, thiserror::Error)]
pub enum CryptoError {
    /// The render has no seed to draw from.
    #[error("{0}")]
    NoEntropy(String),
    /// RSA key generation failed.
    #[error("error generating rsa key: {0}")]
    RsaGeneration(rsa::Error),
    /// Text without a PEM block.
    #[error("no PEM data in input")]
    NoPem,
    /// A PEM block that is not a private key.
    #[error("no private key data in PEM block of type {0}")]
    NotAPrivateKey(String),
    /// A `X PRIVATE KEY` block of a kind Go does not read.
    #[error("invalid private key type {0}")]
    UnknownKeyType(String),
    /// A PKCS#8 key that does not parse, or whose algorithm is not served.
    #[error("decoding PEM as PKCS#8: {0}")]
    Pkcs8(String),
    /// A PKCS#1 RSA key that does not parse.
    #[error("parsing RSA private key from PEM: {0}")]
    Pkcs1(String),
    /// A SEC1 EC key that does not parse, or is on a curve other than P-256.
    #[error("parsing EC private key from PEM: {0}")]
    Sec1(String),
    /// DSA keys are not served.
    #[error(
        "DSA keys are not supported by Weft's Helm renderer (Go deprecates DSA; use \"rsa\", \"ecdsa\" or \"ed25519\")"
    )]
    Dsa,
    /// A key could not be encoded.
    #[error("error pem-encoding key: {0}")]
    Encoding(String),
}

/// The kinds of key Sprig generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// RSA of this many bits, public exponent 65537.
    Rsa(usize),
    /// ECDSA on NIST P-256.
    EcdsaP256,
    /// Ed25519.
    Ed25519,
}

/// A private key of one of the kinds Weft serves.
#[derive(Debug, Clone)]
pub enum PrivateKey {
    /// An RSA key.
    Rsa(Box<RsaPrivateKey>),
    /// An ECDSA P-256 key.
    EcdsaP256(p256::SecretKey),
    /// An Ed25519 key.
    Ed25519(ed25519_dalek::SigningKey),
}

/// A generator seeded with 32 bytes of the current template's stream: every key, and RSA's blinding when it
/// signs, draws from it, so what it makes depends only on the seed, the template and the draws before it.
pub fn stream_rng(function: &str) -> Result<ChaCha20Rng, CryptoError> {
    let mut seed = [0u8; 32];
    entropy::fill(function, &mut seed).map_err(CryptoError::NoEntropy)?;
    Ok(ChaCha20Rng::from_seed(seed))
}

impl PrivateKey {
    /// A new key of `kind`, drawn from the current template's stream.
    pub fn generate(function: &str, kind: KeyKind) -> Result<Self, CryptoError> {
        let mut rng = stream_rng(function)?;
        Ok(match kind {
            KeyKind::Rsa(bits) => Self::Rsa(Box::new(
                RsaPrivateKey::new(&mut rng, bits).map_err(CryptoError::RsaGeneration)?,
            )),
            KeyKind::EcdsaP256 => {
                // A scalar in [1, n) by rejection, as Go draws it.
                let mut bytes = [0u8; 32];
                loop {
                    chacha20::rand_core::Rng::fill_bytes(&mut rng, &mut bytes);
                    if let Ok(key) = p256::SecretKey::from_slice(&bytes) {
                        break Self::EcdsaP256(key);
                    }
                }
            }
            KeyKind::Ed25519 => {
                let mut seed = [0u8; 32];
                chacha20::rand_core::Rng::fill_bytes(&mut rng, &mut seed);
                Self::Ed25519(ed25519_dalek::SigningKey::from_bytes(&seed))
            }
        })
    }

    /// The key in PEM as Sprig's `pemBlockForKey` writes it.
    pub fn to_pem(&self) -> Result<String, CryptoError> {
        let encoding = |e: &dyn std::fmt::Display| CryptoError::Encoding(e.to_string());
        Ok(match self {
            Self::Rsa(key) => pem::encode(
                "RSA PRIVATE KEY",
                key.to_pkcs1_der().map_err(|e| encoding(&e))?.as_bytes(),
            ),
            Self::EcdsaP256(key) => pem::encode(
                "EC PRIVATE KEY",
                &key.to_sec1_der().map_err(|e| encoding(&e))?,
            ),
            Self::Ed25519(key) => {
                // Go's MarshalPKCS8PrivateKey: version 0, the seed, no public key.
                let bytes = KeypairBytes {
                    secret_key: key.to_bytes(),
                    public_key: None,
                };
                pem::encode(
                    "PRIVATE KEY",
                    bytes.to_pkcs8_der().map_err(|e| encoding(&e))?.as_bytes(),
                )
            }
        })
    }

    /// Reads a key as Sprig's `parsePrivateKeyPEM`: the first PEM block, `PRIVATE KEY` as PKCS#8 and `RSA`/`EC
    /// PRIVATE KEY` as PKCS#1/SEC1.
    pub fn from_pem(text: &str) -> Result<Self, CryptoError> {
        let block = pem::decode(text).ok_or(CryptoError::NoPem)?;
        if block.kind == "PRIVATE KEY" {
            return Self::from_pkcs8(&block.der);
        }
        let Some(kind) = block.kind.strip_suffix(" PRIVATE KEY") else {
            return Err(CryptoError::NotAPrivateKey(block.kind));
        };
        match kind {
            "RSA" => RsaPrivateKey::from_pkcs1_der(&block.der)
                .map(|key| Self::Rsa(Box::new(key)))
                .map_err(|e| CryptoError::Pkcs1(e.to_string())),
            "EC" => p256::SecretKey::from_sec1_der(&block.der)
                .map(Self::EcdsaP256)
                .map_err(|_| {
                    CryptoError::Sec1(
                        "not a P-256 key in SEC 1 form (Weft's Helm renderer reads ECDSA keys on P-256)"
                            .into(),
                    )
                }),
            "DSA" => Err(CryptoError::Dsa),
            _ => Err(CryptoError::UnknownKeyType(block.kind)),
        }
    }

    /// A PKCS#8 key: RSA, ECDSA P-256 or Ed25519.
    fn from_pkcs8(der: &[u8]) -> Result<Self, CryptoError> {
        const RSA: &str = "1.2.840.113549.1.1.1";
        const EC: &str = "1.2.840.10045.2.1";
        const ED25519: &str = "1.3.101.112";
        let info = rsa::pkcs8::PrivateKeyInfoRef::from_der(der)
            .map_err(|e| CryptoError::Pkcs8(e.to_string()))?;
        let pkcs8 = |e: &dyn std::fmt::Display| CryptoError::Pkcs8(e.to_string());
        match info.algorithm.oid.to_string().as_str() {
            RSA => {
                use rsa::pkcs8::DecodePrivateKey as _;
                RsaPrivateKey::from_pkcs8_der(der)
                    .map(|key| Self::Rsa(Box::new(key)))
                    .map_err(|e| pkcs8(&e))
            }
            EC => {
                use p256::pkcs8::DecodePrivateKey as _;
                p256::SecretKey::from_pkcs8_der(der)
                    .map(Self::EcdsaP256)
                    .map_err(|_| {
                        CryptoError::Pkcs8(
                            "an ECDSA key on a curve other than P-256 (Weft's Helm renderer reads P-256)"
                                .into(),
                        )
                    })
            }
            ED25519 => ed25519_dalek::SigningKey::from_pkcs8_der(der)
                .map(Self::Ed25519)
                .map_err(|e| pkcs8(&e)),
            other => Err(CryptoError::Pkcs8(format!(
                "unknown PKCS#8 key algorithm {other} (Weft's Helm renderer reads RSA, ECDSA P-256 and Ed25519)"
            ))),
        }
    }

    /// The public key, as a certificate carries it.
    pub fn public_key_info(&self) -> Result<SubjectPublicKeyInfoOwned, CryptoError> {
        let der = match self {
            Self::Rsa(key) => RsaPublicKey::from(key.as_ref()).to_public_key_der(),
            Self::EcdsaP256(key) => key.public_key().to_public_key_der(),
            Self::Ed25519(key) => key.verifying_key().to_public_key_der(),
        }
        .map_err(|e| CryptoError::Encoding(e.to_string()))?;
        SubjectPublicKeyInfoOwned::from_der(der.as_bytes())
            .map_err(|e| CryptoError::Encoding(e.to_string()))
    }
}

/// Registers `genPrivateKey`.
pub fn register(table: &mut FunctionTable) {
    table.insert("genPrivateKey", gen_private_key);
}

/// `genPrivateKey TYPE`: a new key in PEM. Like Sprig, an unknown type is not an error but the text `Unknown type
/// TYPE`, and a failure is the text `failed to generate private key: ...`.
fn gen_private_key(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("genPrivateKey", &args, 1)?;
    let kind = match string_arg(&args, 0)? {
        "" | "rsa" => KeyKind::Rsa(PRIVATE_KEY_RSA_BITS),
        "ecdsa" => KeyKind::EcdsaP256,
        "ed25519" => KeyKind::Ed25519,
        "dsa" => return Err(CryptoError::Dsa.to_string()),
        other => return Ok(Value::string(format!("Unknown type {other}"))),
    };
    let text = match PrivateKey::generate("genPrivateKey", kind).and_then(|key| key.to_pem()) {
        Ok(text) => text,
        Err(error @ CryptoError::NoEntropy(_)) => return Err(error.to_string()),
        Err(error) => format!("failed to generate private key: {error}"),
    };
    Ok(Value::string(text))
}

#[cfg(test)]
mod tests {
    use super::super::entropy::{begin_template, with_render_context};
    use super::*;
    use rsa::traits::PublicKeyParts as _;

    fn in_template<T>(app: &str, template: &str, f: impl FnOnce() -> T) -> T {
        with_render_context(Some(weft_sdk::testing::render_seed(app)), None, || {
            begin_template(template);
            f()
        })
    }

    fn generated(kind: &str) -> String {
        in_template("app", "c/templates/secret.yaml", || match gen_private_key(
            &mut Budget::new(1_000),
            vec![Value::string(kind)],
        )
        .unwrap()
        {
            Value::String(s) => s.to_string(),
            other => panic!("not a string: {other:?}"),
        })
    }

    #[test]
    fn gen_private_key_rsa_is_a_4096_bit_pkcs1_key_that_parses_back() {
        let text = generated("rsa");
        assert!(
            text.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"),
            "{text}"
        );
        let PrivateKey::Rsa(key) = PrivateKey::from_pem(&text).unwrap() else {
            panic!("not RSA");
        };
        assert_eq!(key.size() * 8, 4096);
        assert_eq!(key.e(), &rsa::BoxedUint::from(65537u32));
        key.validate().unwrap();
        assert_eq!(
            text,
            generated(""),
            "the empty type is RSA, and the same draw"
        );
    }

    #[test]
    fn gen_private_key_ecdsa_is_a_sec1_p256_key_and_ed25519_a_pkcs8_key_without_its_public_half() {
        let ec = generated("ecdsa");
        assert!(ec.starts_with("-----BEGIN EC PRIVATE KEY-----\n"), "{ec}");
        assert!(matches!(
            PrivateKey::from_pem(&ec).unwrap(),
            PrivateKey::EcdsaP256(_)
        ));
        let ed = generated("ed25519");
        assert!(ed.starts_with("-----BEGIN PRIVATE KEY-----\n"), "{ed}");
        let block = pem::decode(&ed).unwrap();
        // Go's PKCS#8 of an Ed25519 key: 48 bytes (version 0, the algorithm, the 32-byte seed).
        assert_eq!(block.der.len(), 48);
        assert!(matches!(
            PrivateKey::from_pem(&ed).unwrap(),
            PrivateKey::Ed25519(_)
        ));
    }

    #[test]
    fn gen_private_key_answers_sprigs_text_for_an_unknown_type_and_refuses_dsa_by_name() {
        assert_eq!(generated("rsa2"), "Unknown type rsa2");
        let refused = in_template("app", "t", || {
            gen_private_key(&mut Budget::new(1_000), vec![Value::string("dsa")])
        });
        assert!(refused.unwrap_err().contains("DSA keys are not supported"));
    }

    #[test]
    fn a_key_is_the_same_on_every_render_and_differs_between_templates_and_apps() {
        let key = |app: &str, template: &str| {
            in_template(app, template, || {
                PrivateKey::generate("t", KeyKind::EcdsaP256)
                    .unwrap()
                    .to_pem()
                    .unwrap()
            })
        };
        let first = key("a", "c/templates/tls.yaml");
        assert_eq!(first, key("a", "c/templates/tls.yaml"));
        assert_ne!(first, key("a", "c/templates/other.yaml"));
        assert_ne!(first, key("b", "c/templates/tls.yaml"));
        let ed = |app: &str| {
            in_template(app, "t", || {
                PrivateKey::generate("t", KeyKind::Ed25519)
                    .unwrap()
                    .to_pem()
                    .unwrap()
            })
        };
        assert_eq!(ed("a"), ed("a"));
        assert_ne!(ed("a"), ed("b"));
    }

    #[test]
    fn reading_a_key_refuses_what_is_not_one_with_sprigs_words() {
        let err = |text: &str| PrivateKey::from_pem(text).unwrap_err().to_string();
        assert_eq!(err("nothing"), "no PEM data in input");
        assert_eq!(
            err(&pem::encode("CERTIFICATE", b"x")),
            "no private key data in PEM block of type CERTIFICATE"
        );
        assert_eq!(
            err(&pem::encode("FOO PRIVATE KEY", b"x")),
            "invalid private key type FOO PRIVATE KEY"
        );
        assert!(err(&pem::encode("RSA PRIVATE KEY", b"x")).starts_with("parsing RSA private key"));
        assert!(err(&pem::encode("PRIVATE KEY", b"x")).starts_with("decoding PEM as PKCS#8"));
    }

    /// Prints how long RSA key generation takes here (the draws differ per template, so each key is another one).
    #[test]
    #[ignore = "a measurement: cargo test -p render-helm --release --lib -- --ignored --nocapture rsa_key_generation"]
    fn rsa_key_generation_time_is_measured_for_2048_and_4096_bits() {
        for bits in [CERTIFICATE_RSA_BITS, PRIVATE_KEY_RSA_BITS] {
            let mut times: Vec<f64> = (0..8)
                .map(|n| {
                    in_template("bench", &format!("c/templates/{n}.yaml"), || {
                        let start = std::time::Instant::now();
                        PrivateKey::generate("t", KeyKind::Rsa(bits)).unwrap();
                        start.elapsed().as_secs_f64() * 1000.0
                    })
                })
                .collect();
            times.sort_by(f64::total_cmp);
            println!(
                "RSA-{bits}: median {:.0} ms, min {:.0} ms, max {:.0} ms over {} keys",
                times[times.len() / 2],
                times[0],
                times[times.len() - 1],
                times.len()
            );
        }
    }

    #[test]
    fn a_render_without_a_seed_generates_no_key() {
        let refused = with_render_context(None, None, || {
            gen_private_key(&mut Budget::new(1_000), vec![Value::string("ecdsa")])
        });
        assert!(refused.unwrap_err().contains("no seed"));
    }
}
