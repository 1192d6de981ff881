//! Sprig's certificate functions (`genCA`, `genSelfSignedCert`, `genSignedCert`, their `WithKey` forms and
//! `buildCustomCert`): X.509 v3 certificates shaped as Go's `x509.CreateCertificate` makes them from Sprig's
//! template (a random 128-bit serial, `CN=` the name, the IPs and DNS names, server and client auth, KeyUsage and
//! BasicConstraints critical, a CA's subject key identifier), valid from the revision's commit time for the given
//! days. Keys and serials are drawn from the template's stream, so a revision renders the same certificates.

use std::net::IpAddr;
use std::rc::Rc;
use std::str::FromStr as _;
use std::time::Duration;

use base64::Engine as _;
use der::asn1::{Any, GeneralizedTime, Ia5String, OctetString};
use der::oid::ObjectIdentifier;
use der::{Decode as _, Encode as _, Tag};
use rustcrypto_sha2::{Digest as _, Sha256};
use x509_cert::attr::AttributeTypeAndValue;
use x509_cert::builder::profile::BuilderProfile;
use x509_cert::builder::{Builder as _, CertificateBuilder};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage, KeyUsage, KeyUsages,
    SubjectAltName, SubjectKeyIdentifier,
};
use x509_cert::ext::{Extension, ToExtension as _};
use x509_cert::name::{Name, RdnSequence, RelativeDistinguishedName};
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::SubjectPublicKeyInfoRef;
use x509_cert::time::{Time, Validity};
use x509_cert::{Certificate, TbsCertificate};

use super::entropy::{self, revision_time};
use super::keys::{CERTIFICATE_RSA_BITS, CryptoError, KeyKind, PrivateKey, stream_rng};
use super::{arity, int_arg, pem, string_arg, strval};
use crate::template::{Budget, FunctionTable, HostObject, Map, Value};

const OID_COMMON_NAME: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.4.3");
const OID_SERVER_AUTH: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.1");
const OID_CLIENT_AUTH: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.2");

/// Why a certificate could not be made, in Sprig's words where Sprig has them.
#[derive(Debug, thiserror::Error)]
pub enum CertificateError {
    /// A key could not be made, read or written.
    #[error(transparent)]
    Key(#[from] CryptoError),
    /// A `WithKey` function's key does not parse.
    #[error("parsing private key: {0}")]
    GivenKey(CryptoError),
    /// The CA's key does not parse.
    #[error("error parsing private key: {0}")]
    CaKey(CryptoError),
    /// The CA's certificate is not PEM.
    #[error("unable to decode certificate")]
    NoCertificate,
    /// The CA's certificate does not parse.
    #[error("error parsing certificate: decodedSignerCert.Bytes: {0}")]
    CaCertificate(der::Error),
    /// An IP address argument that is not one.
    #[error("error parsing ip: {0}")]
    Ip(String),
    /// A DNS name argument that is not a string (or not ASCII, which a certificate cannot carry).
    #[error("error processing alternate dns name: {0}")]
    DnsName(String),
    /// The validity does not fit in a certificate (before 1970 or after 9999).
    #[error(
        "error creating certificate: the validity ({0} days from the revision's time) is out of range"
    )]
    Validity(i64),
    /// The CA's key is not the key of the CA's certificate.
    #[error(
        "error creating certificate: x509: provided PrivateKey doesn't match parent's PublicKey"
    )]
    KeyMismatch,
    /// The certificate could not be encoded or signed.
    #[error("error creating certificate: {0}")]
    Build(String),
}

/// Sprig's `certificate`: a certificate and its key, both PEM; `.Cert` and `.Key` in templates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateObject {
    /// The certificate, a `CERTIFICATE` block.
    pub cert: String,
    /// Its private key, in the block Sprig writes for its kind.
    pub key: String,
}

impl CertificateObject {
    /// A template value holding this certificate.
    pub fn value(self) -> Value {
        Value::Object(Rc::new(self))
    }
}

impl HostObject for CertificateObject {
    fn type_name(&self) -> &str {
        "sprig.certificate"
    }

    fn kind_name(&self) -> &'static str {
        "struct"
    }

    fn member(&self, name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "Cert" => Some(Ok(Value::string(self.cert.as_str()))),
            "Key" => Some(Ok(Value::string(self.key.as_str()))),
            _ => None,
        }
    }

    fn is_method(&self, _name: &str) -> bool {
        false
    }

    fn display(&self) -> String {
        format!("{{{} {}}}", self.cert, self.key)
    }

    fn to_data(&self) -> Value {
        let mut map = Map::new();
        map.insert("Cert".into(), Value::string(self.cert.as_str()));
        map.insert("Key".into(), Value::string(self.key.as_str()));
        Value::map(map)
    }
}

/// Registers the certificate functions.
pub fn register(table: &mut FunctionTable) {
    table.insert("genCA", |_, args| {
        arity("genCA", &args, 2)?;
        let request = Request::ca(string_arg(&args, 0)?, int_arg(&args, 1)?);
        issue_with_new_key("genCA", &request, None)
    });
    table.insert("genCAWithKey", |_, args| {
        arity("genCAWithKey", &args, 3)?;
        let request = Request::ca(string_arg(&args, 0)?, int_arg(&args, 1)?);
        issue_with_given_key("genCAWithKey", &request, string_arg(&args, 2)?, None)
    });
    table.insert("genSelfSignedCert", |_, args| {
        arity("genSelfSignedCert", &args, 4)?;
        let request = Request::leaf(&args)?;
        issue_with_new_key("genSelfSignedCert", &request, None)
    });
    table.insert("genSelfSignedCertWithKey", |_, args| {
        arity("genSelfSignedCertWithKey", &args, 5)?;
        let request = Request::leaf(&args)?;
        issue_with_given_key(
            "genSelfSignedCertWithKey",
            &request,
            string_arg(&args, 4)?,
            None,
        )
    });
    table.insert("genSignedCert", |_, args| {
        arity("genSignedCert", &args, 5)?;
        let request = Request::leaf(&args)?;
        let ca = certificate_arg(&args, 4)?;
        issue_with_new_key("genSignedCert", &request, Some(&ca))
    });
    table.insert("genSignedCertWithKey", |_, args| {
        arity("genSignedCertWithKey", &args, 6)?;
        let request = Request::leaf(&args)?;
        let ca = certificate_arg(&args, 4)?;
        issue_with_given_key(
            "genSignedCertWithKey",
            &request,
            string_arg(&args, 5)?,
            Some(&ca),
        )
    });
    table.insert("buildCustomCert", build_custom_cert);
}

/// What Sprig's `getBaseCertTemplate` takes, and whether the certificate is a CA.
#[derive(Debug, Clone)]
struct Request {
    common_name: String,
    ips: Vec<IpAddr>,
    dns_names: Vec<String>,
    days: i64,
    is_ca: bool,
}

impl Request {
    fn ca(common_name: &str, days: i64) -> Self {
        Self {
            common_name: common_name.to_string(),
            ips: Vec::new(),
            dns_names: Vec::new(),
            days,
            is_ca: true,
        }
    }

    /// `CN IPS DNS DAYS` as the leaf functions take them.
    fn leaf(args: &[Value]) -> Result<Self, String> {
        let common_name = string_arg(args, 0)?.to_string();
        let ips = list_arg(args, 1)?
            .iter()
            .map(|ip| match ip {
                Value::String(text) => {
                    parse_ip(text).ok_or_else(|| CertificateError::Ip(text.to_string()).to_string())
                }
                other => Err(
                    CertificateError::Ip(format!("{} is not a string", strval(other))).to_string(),
                ),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let dns_names = list_arg(args, 2)?
            .iter()
            .map(|name| match name {
                Value::String(text) => Ok(text.to_string()),
                other => Err(CertificateError::DnsName(format!(
                    "{} is not a string",
                    strval(other)
                ))
                .to_string()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            common_name,
            ips,
            dns_names,
            days: int_arg(args, 3)?,
            is_ca: false,
        })
    }
}

/// Go's `net.ParseIP`: an IPv4 or IPv6 address, nothing else.
fn parse_ip(text: &str) -> Option<IpAddr> {
    IpAddr::from_str(text).ok()
}

/// A `[]interface{}` parameter: a list, or nil for none.
fn list_arg(args: &[Value], index: usize) -> Result<Vec<Value>, String> {
    match args.get(index) {
        Some(Value::List(items)) => Ok(items.as_ref().clone()),
        Some(Value::Nil) | None => Ok(Vec::new()),
        Some(other) => Err(format!(
            "wrong type for value; expected []interface {{}}; got {}",
            other.type_name()
        )),
    }
}

/// A `certificate` parameter: what `genCA` returned.
fn certificate_arg(args: &[Value], index: usize) -> Result<CertificateObject, String> {
    match args.get(index) {
        Some(Value::Object(object)) if object.type_name() == "sprig.certificate" => {
            let field = |name: &str| match object.member(name, &[]) {
                Some(Ok(Value::String(text))) => Ok(text.to_string()),
                _ => Err(format!("sprig.certificate without {name}")),
            };
            Ok(CertificateObject {
                cert: field("Cert")?,
                key: field("Key")?,
            })
        }
        Some(other) => Err(format!(
            "wrong type for value; expected sprig.certificate; got {}",
            other.type_name()
        )),
        None => Err("invalid value; expected sprig.certificate".into()),
    }
}

/// Generates the certificate's RSA-2048 key (first, as Sprig does), then the certificate.
fn issue_with_new_key(
    function: &str,
    request: &Request,
    ca: Option<&CertificateObject>,
) -> Result<Value, String> {
    let key = PrivateKey::generate(function, KeyKind::Rsa(CERTIFICATE_RSA_BITS))
        .map_err(|e| e.to_string())?;
    issue(function, request, &key, ca)
        .map(CertificateObject::value)
        .map_err(|e| e.to_string())
}

/// Reads the given key, then makes the certificate.
fn issue_with_given_key(
    function: &str,
    request: &Request,
    key: &str,
    ca: Option<&CertificateObject>,
) -> Result<Value, String> {
    let key = PrivateKey::from_pem(key)
        .map_err(CertificateError::GivenKey)
        .map_err(|e| e.to_string())?;
    issue(function, request, &key, ca)
        .map(CertificateObject::value)
        .map_err(|e| e.to_string())
}

/// Makes the certificate for `key`, self-signed or signed by `ca`.
fn issue(
    function: &str,
    request: &Request,
    key: &PrivateKey,
    ca: Option<&CertificateObject>,
) -> Result<CertificateObject, CertificateError> {
    // The parent: its name, its key identifier and its key, read before drawing anything (as Sprig reads them).
    let parent = match ca {
        Some(ca) => {
            let block = pem::decode(&ca.cert).ok_or(CertificateError::NoCertificate)?;
            let certificate =
                Certificate::from_der(&block.der).map_err(CertificateError::CaCertificate)?;
            let signer = PrivateKey::from_pem(&ca.key).map_err(CertificateError::CaKey)?;
            Some((certificate, signer))
        }
        None => None,
    };
    let subject = common_name(&request.common_name)?;
    let build = |e: &dyn std::fmt::Display| CertificateError::Build(e.to_string());
    let mut serial = [0u8; 16];
    entropy::fill(function, &mut serial).map_err(CryptoError::NoEntropy)?;
    let serial = SerialNumber::new(&serial).map_err(|e| build(&e))?;
    let validity = validity(request.days)?;
    let spki = key.public_key_info()?;
    let (issuer, signer, parent_key_id) = match &parent {
        Some((certificate, signer)) => {
            let tbs = certificate.tbs_certificate();
            if signer.public_key_info()? != *tbs.subject_public_key_info() {
                return Err(CertificateError::KeyMismatch);
            }
            (tbs.subject().clone(), signer, subject_key_id_of(tbs))
        }
        None => (subject.clone(), key, None),
    };
    let authority_key_id = parent_key_id.filter(|_| {
        // Go sets the authority key identifier only when the issuer is not the subject.
        issuer.to_der().ok() != subject.to_der().ok()
    });
    let profile = SprigProfile {
        subject,
        issuer,
        request: request.clone(),
        authority_key_id,
    };
    let builder =
        CertificateBuilder::new(profile, serial, validity, spki).map_err(|e| build(&e))?;
    let mut rng = stream_rng(function)?;
    let certificate = match signer {
        PrivateKey::Rsa(signing) => {
            let signing =
                rsa::pkcs1v15::SigningKey::<rsa::sha2::Sha256>::new(signing.as_ref().clone());
            builder.build_with_rng::<_, rsa::pkcs1v15::Signature, _>(&signing, &mut rng)
        }
        PrivateKey::EcdsaP256(secret) => {
            let signing = p256::ecdsa::SigningKey::from(secret);
            builder.build_with_rng::<_, p256::ecdsa::DerSignature, _>(&signing, &mut rng)
        }
        PrivateKey::Ed25519(signing) => builder.build::<_, ed25519_dalek::Signature>(signing),
    }
    .map_err(|e| build(&e))?;
    let der = certificate.to_der().map_err(|e| build(&e))?;
    Ok(CertificateObject {
        cert: pem::encode("CERTIFICATE", &der),
        key: key.to_pem()?,
    })
}

/// `CN=name`, as Go's `pkix.Name{CommonName: name}` marshals it: a PrintableString when every character allows it,
/// a UTF8String otherwise; no attribute at all for an empty name.
fn common_name(name: &str) -> Result<Name, CertificateError> {
    let build = |e: der::Error| CertificateError::Build(e.to_string());
    let mut sequence = RdnSequence::default();
    if !name.is_empty() {
        let printable = name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b" '()+,-./:=?".contains(&b));
        let tag = if printable {
            Tag::PrintableString
        } else {
            Tag::Utf8String
        };
        let value = AttributeTypeAndValue {
            oid: OID_COMMON_NAME,
            value: Any::new(tag, name.as_bytes()).map_err(build)?,
        };
        sequence.push(RelativeDistinguishedName::try_from(vec![value]).map_err(build)?);
    }
    Name::from_der(&sequence.to_der().map_err(build)?).map_err(build)
}

/// From the revision's commit time (Sprig's `time.Now()`) for `days` days; UTCTime before 2050 as Go writes it.
fn validity(days: i64) -> Result<Validity, CertificateError> {
    let out_of_range = || CertificateError::Validity(days);
    let start = revision_time();
    let end = days
        .checked_mul(86_400)
        .and_then(|span| start.checked_add(span))
        .ok_or_else(out_of_range)?;
    let time = |seconds: i64| -> Result<Time, CertificateError> {
        let seconds = u64::try_from(seconds).map_err(|_| out_of_range())?;
        GeneralizedTime::from_unix_duration(Duration::from_secs(seconds))
            .map(Time::GeneralTime)
            .map_err(|_| out_of_range())
    };
    Ok(Validity::new(time(start)?, time(end)?))
}

/// The subject key identifier a certificate carries, if any.
fn subject_key_id_of(tbs: &TbsCertificate) -> Option<Vec<u8>> {
    let id = tbs
        .get_extension::<SubjectKeyIdentifier>()
        .ok()
        .flatten()?
        .1;
    Some(id.0.as_bytes().to_vec())
}

/// The extensions of Sprig's template, in the order Go's `buildCertExtensions` writes them.
struct SprigProfile {
    subject: Name,
    issuer: Name,
    request: Request,
    authority_key_id: Option<Vec<u8>>,
}

impl BuilderProfile for SprigProfile {
    fn get_issuer(&self, _subject: &Name) -> Name {
        self.issuer.clone()
    }

    fn get_subject(&self) -> Name {
        self.subject.clone()
    }

    fn build_extensions(
        &self,
        spk: SubjectPublicKeyInfoRef<'_>,
        _issuer_spk: SubjectPublicKeyInfoRef<'_>,
        tbs: &TbsCertificate,
    ) -> x509_cert::builder::Result<Vec<Extension>> {
        let subject = tbs.subject();
        let mut usage = KeyUsages::DigitalSignature | KeyUsages::KeyEncipherment;
        if self.request.is_ca {
            usage |= KeyUsages::KeyCertSign;
        }
        let mut extensions = vec![
            (true, &KeyUsage(usage)).to_extension(subject, &[])?,
            (
                false,
                &ExtendedKeyUsage(vec![OID_SERVER_AUTH, OID_CLIENT_AUTH]),
            )
                .to_extension(subject, &[])?,
            (
                true,
                &BasicConstraints {
                    ca: self.request.is_ca,
                    path_len_constraint: None,
                },
            )
                .to_extension(subject, &[])?,
        ];
        if self.request.is_ca {
            // Go 1.25's generated identifier: the first 160 bits of SHA-256 of the public key's bits (RFC 7093).
            let digest = Sha256::digest(spk.subject_public_key.raw_bytes());
            let id = SubjectKeyIdentifier(OctetString::new(&digest[..20])?);
            extensions.push((false, &id).to_extension(subject, &[])?);
        }
        if let Some(id) = &self.authority_key_id {
            let id = AuthorityKeyIdentifier {
                key_identifier: Some(OctetString::new(id.as_slice())?),
                authority_cert_issuer: None,
                authority_cert_serial_number: None,
            };
            extensions.push((false, &id).to_extension(subject, &[])?);
        }
        if !self.request.dns_names.is_empty() || !self.request.ips.is_empty() {
            let mut names = Vec::new();
            for name in &self.request.dns_names {
                names.push(GeneralName::DnsName(Ia5String::new(name)?));
            }
            for ip in &self.request.ips {
                let bytes = match ip {
                    IpAddr::V4(v4) => v4.octets().to_vec(),
                    IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                        // Go writes an IPv4-mapped address as its four bytes.
                        Some(v4) => v4.octets().to_vec(),
                        None => v6.octets().to_vec(),
                    },
                };
                names.push(GeneralName::IpAddress(OctetString::new(bytes)?));
            }
            // Critical when the subject is empty, as RFC 5280 and Go have it.
            let critical = subject.is_empty();
            extensions.push((critical, &SubjectAltName(names)).to_extension(subject, &[])?);
        }
        Ok(extensions)
    }
}

/// `buildCustomCert CERT KEY`: a certificate object from a base64 PEM certificate and key, both checked.
fn build_custom_cert(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("buildCustomCert", &args, 2)?;
    let decode = |text: &str| base64::engine::general_purpose::STANDARD.decode(text);
    let cert = decode(string_arg(&args, 0)?)
        .map_err(|_| "unable to decode base64 certificate".to_string())?;
    let key = decode(string_arg(&args, 1)?)
        .map_err(|_| "unable to decode base64 private key".to_string())?;
    let cert = String::from_utf8_lossy(&cert).into_owned();
    let key = String::from_utf8_lossy(&key).into_owned();
    let block = pem::decode(&cert).ok_or("unable to decode certificate")?;
    Certificate::from_der(&block.der)
        .map_err(|e| format!("error parsing certificate: decodedCert.Bytes: {e}"))?;
    PrivateKey::from_pem(&key).map_err(|e| format!("error parsing private key: {e}"))?;
    Ok(CertificateObject { cert, key }.value())
}

#[cfg(test)]
mod tests {
    use super::super::entropy::{begin_template, with_render_context};
    use super::*;
    use rsa::signature::Verifier as _;
    use x509_cert::spki::DecodePublicKey as _;

    /// 2026-06-01T00:00:00Z, the corpus's commit time.
    const COMMITTED: u64 = 1_780_272_000;

    /// Runs `f` as template `template` of app `app` renders, at the commit time.
    fn render<T>(
        app: &str,
        template: &str,
        f: impl FnOnce(&dyn Fn(&str, Vec<Value>) -> Value) -> T,
    ) -> T {
        let table = super::super::table();
        with_render_context(
            Some(weft_sdk::testing::render_seed(app)),
            Some(COMMITTED as i64),
            || {
                begin_template(template);
                let call = |name: &str, args: Vec<Value>| {
                    table[name](&mut Budget::new(1_000), args)
                        .unwrap_or_else(|e| panic!("{name}: {e}"))
                };
                f(&call)
            },
        )
    }

    fn try_call(name: &str, args: Vec<Value>) -> Result<Value, String> {
        let table = super::super::table();
        with_render_context(
            Some(weft_sdk::testing::render_seed("a")),
            Some(COMMITTED as i64),
            || {
                begin_template("c/templates/t.yaml");
                table[name](&mut Budget::new(1_000), args)
            },
        )
    }

    fn s(text: &str) -> Value {
        Value::string(text)
    }

    fn list(items: &[&str]) -> Value {
        Value::List(Rc::new(items.iter().map(|i| s(i)).collect()))
    }

    fn field(value: &Value, name: &str) -> String {
        let Value::Object(object) = value else {
            panic!("not an object: {value:?}")
        };
        match object.member(name, &[]) {
            Some(Ok(Value::String(text))) => text.to_string(),
            other => panic!("{name}: {other:?}"),
        }
    }

    fn parse(value: &Value) -> Certificate {
        Certificate::from_der(&pem::decode(&field(value, "Cert")).unwrap().der).unwrap()
    }

    fn common_name_of(name: &Name) -> Option<String> {
        name.common_name().unwrap().map(String::from)
    }

    fn seconds(time: &Time) -> u64 {
        time.to_unix_duration().as_secs()
    }

    /// Checks `cert`'s signature with the public key of `issuer`.
    fn verify(cert: &Certificate, issuer: &Certificate) {
        let message = cert.tbs_certificate().to_der().unwrap();
        let signature = cert.signature().raw_bytes();
        let key = issuer
            .tbs_certificate()
            .subject_public_key_info()
            .to_der()
            .unwrap();
        match issuer
            .tbs_certificate()
            .subject_public_key_info()
            .algorithm
            .oid
            .to_string()
            .as_str()
        {
            "1.2.840.113549.1.1.1" => {
                let key =
                    rsa::pkcs1v15::VerifyingKey::<rsa::sha2::Sha256>::from_public_key_der(&key)
                        .unwrap();
                let signature = rsa::pkcs1v15::Signature::try_from(signature).unwrap();
                key.verify(&message, &signature).unwrap();
            }
            "1.2.840.10045.2.1" => {
                let key = p256::ecdsa::VerifyingKey::from_public_key_der(&key).unwrap();
                let signature = p256::ecdsa::DerSignature::try_from(signature).unwrap();
                key.verify(&message, &signature).unwrap();
            }
            "1.3.101.112" => {
                let key = ed25519_dalek::VerifyingKey::from_public_key_der(&key).unwrap();
                let signature = ed25519_dalek::Signature::from_slice(signature).unwrap();
                key.verify(&message, &signature).unwrap();
            }
            other => panic!("algorithm {other}"),
        }
    }

    fn basic_constraints(cert: &Certificate) -> (bool, BasicConstraints) {
        cert.tbs_certificate()
            .get_extension::<BasicConstraints>()
            .unwrap()
            .unwrap()
    }

    #[test]
    fn gen_ca_is_a_self_signed_rsa_2048_ca_valid_from_the_commit_time_for_its_days() {
        let ca = render("a", "c/templates/tls.yaml", |call| {
            call("genCA", vec![s("my-ca"), Value::Int(365)])
        });
        let cert = parse(&ca);
        let tbs = cert.tbs_certificate();
        assert_eq!(common_name_of(tbs.subject()).as_deref(), Some("my-ca"));
        assert_eq!(tbs.issuer(), tbs.subject());
        assert_eq!(seconds(&tbs.validity().not_before), COMMITTED);
        assert_eq!(seconds(&tbs.validity().not_after), COMMITTED + 365 * 86_400);
        let (critical, constraints) = basic_constraints(&cert);
        assert!(critical && constraints.ca);
        let (_, usage) = tbs.get_extension::<KeyUsage>().unwrap().unwrap();
        assert!(usage.key_cert_sign() && usage.digital_signature() && usage.key_encipherment());
        assert!(
            tbs.get_extension::<SubjectKeyIdentifier>()
                .unwrap()
                .is_some()
        );
        assert!(
            tbs.get_extension::<AuthorityKeyIdentifier>()
                .unwrap()
                .is_none()
        );
        verify(&cert, &cert);
        let key = field(&ca, "Key");
        assert!(
            key.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"),
            "{key}"
        );
        let key = PrivateKey::from_pem(&key).unwrap();
        assert_eq!(
            &key.public_key_info().unwrap(),
            tbs.subject_public_key_info()
        );
        let PrivateKey::Rsa(rsa_key) = key else {
            panic!("not RSA")
        };
        assert_eq!(rsa::traits::PublicKeyParts::size(rsa_key.as_ref()), 256);
    }

    #[test]
    fn gen_signed_cert_carries_its_names_and_ips_and_verifies_against_the_ca() {
        let (ca, leaf) = render("a", "c/templates/tls.yaml", |call| {
            let ca = call("genCA", vec![s("my-ca"), Value::Int(3650)]);
            let leaf = call(
                "genSignedCert",
                vec![
                    s("svc.apps"),
                    list(&["10.0.0.1", "::1", "::ffff:10.0.0.2"]),
                    list(&["svc", "svc.apps.svc"]),
                    Value::Int(30),
                    ca.clone(),
                ],
            );
            (ca, leaf)
        });
        let (ca_cert, cert) = (parse(&ca), parse(&leaf));
        let tbs = cert.tbs_certificate();
        verify(&cert, &ca_cert);
        assert_eq!(tbs.issuer(), ca_cert.tbs_certificate().subject());
        assert_eq!(common_name_of(tbs.subject()).as_deref(), Some("svc.apps"));
        assert_ne!(
            tbs.serial_number(),
            ca_cert.tbs_certificate().serial_number()
        );
        assert_ne!(field(&leaf, "Key"), field(&ca, "Key"));
        assert_eq!(seconds(&tbs.validity().not_after), COMMITTED + 30 * 86_400);
        let (critical, constraints) = basic_constraints(&cert);
        assert!(critical && !constraints.ca);
        let (_, usage) = tbs.get_extension::<KeyUsage>().unwrap().unwrap();
        assert!(!usage.key_cert_sign());
        let (_, usages) = tbs.get_extension::<ExtendedKeyUsage>().unwrap().unwrap();
        assert_eq!(usages.0, [OID_SERVER_AUTH, OID_CLIENT_AUTH]);
        let (_, ca_id) = ca_cert
            .tbs_certificate()
            .get_extension::<SubjectKeyIdentifier>()
            .unwrap()
            .unwrap();
        let (_, authority) = tbs
            .get_extension::<AuthorityKeyIdentifier>()
            .unwrap()
            .unwrap();
        assert_eq!(authority.key_identifier, Some(ca_id.0));
        let (critical, names) = tbs.get_extension::<SubjectAltName>().unwrap().unwrap();
        assert!(!critical);
        let names: Vec<String> = names
            .0
            .iter()
            .map(|name| match name {
                GeneralName::DnsName(dns) => format!("DNS:{dns}"),
                GeneralName::IpAddress(ip) => format!("IP:{:?}", ip.as_bytes()),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            names,
            [
                "DNS:svc".to_string(),
                "DNS:svc.apps.svc".into(),
                "IP:[10, 0, 0, 1]".into(),
                format!("IP:{:?}", std::net::Ipv6Addr::LOCALHOST.octets()),
                "IP:[10, 0, 0, 2]".into(),
            ]
        );
    }

    #[test]
    fn gen_self_signed_cert_without_a_name_has_an_empty_subject_and_a_critical_san() {
        let cert = render("a", "t", |call| {
            call(
                "genSelfSignedCert",
                vec![s(""), list(&["10.0.0.2"]), Value::Nil, Value::Int(10)],
            )
        });
        let cert = parse(&cert);
        let tbs = cert.tbs_certificate();
        assert!(tbs.subject().is_empty() && tbs.issuer().is_empty());
        let (critical, _) = tbs.get_extension::<SubjectAltName>().unwrap().unwrap();
        assert!(critical);
        assert!(!basic_constraints(&cert).1.ca);
        assert!(
            tbs.get_extension::<SubjectKeyIdentifier>()
                .unwrap()
                .is_none()
        );
        verify(&cert, &cert);
    }

    #[test]
    fn the_with_key_variants_certify_the_given_key_of_each_kind_and_an_ecdsa_ca_signs() {
        render("a", "t", |call| {
            let ec = call("genPrivateKey", vec![s("ecdsa")]);
            let ed = call("genPrivateKey", vec![s("ed25519")]);
            let ca = call("genCAWithKey", vec![s("ec-ca"), Value::Int(1), ec.clone()]);
            assert_eq!(field(&ca, "Key"), strval(&ec));
            let ca_cert = parse(&ca);
            verify(&ca_cert, &ca_cert);
            let leaf = call(
                "genSignedCertWithKey",
                vec![
                    s("leaf"),
                    Value::Nil,
                    list(&["a.example"]),
                    Value::Int(1),
                    ca.clone(),
                    ed.clone(),
                ],
            );
            assert_eq!(field(&leaf, "Key"), strval(&ed));
            let cert = parse(&leaf);
            verify(&cert, &ca_cert);
            let given = PrivateKey::from_pem(&strval(&ed)).unwrap();
            assert_eq!(
                &given.public_key_info().unwrap(),
                cert.tbs_certificate().subject_public_key_info()
            );
            let own = call(
                "genSelfSignedCertWithKey",
                vec![s("ed"), Value::Nil, Value::Nil, Value::Int(1), ed.clone()],
            );
            let own = parse(&own);
            verify(&own, &own);
        });
    }

    #[test]
    fn certificates_are_the_same_bytes_on_every_render_and_differ_between_apps_and_templates() {
        let make = |app: &str, template: &str| {
            render(app, template, |call| {
                let ca = call("genCA", vec![s("ca"), Value::Int(30)]);
                let leaf = call(
                    "genSignedCert",
                    vec![
                        s("leaf"),
                        Value::Nil,
                        Value::Nil,
                        Value::Int(30),
                        ca.clone(),
                    ],
                );
                (
                    field(&ca, "Cert"),
                    field(&leaf, "Cert"),
                    field(&leaf, "Key"),
                )
            })
        };
        let first = make("a", "c/templates/tls.yaml");
        assert_eq!(first, make("a", "c/templates/tls.yaml"));
        let other_app = make("b", "c/templates/tls.yaml");
        let other_template = make("a", "c/templates/webhook.yaml");
        for other in [other_app, other_template] {
            assert_ne!(first.0, other.0);
            assert_ne!(first.1, other.1);
            assert_ne!(first.2, other.2);
        }
    }

    #[test]
    fn bad_arguments_fail_with_sprigs_words() {
        let err = |name: &str, args: Vec<Value>| try_call(name, args).unwrap_err();
        assert_eq!(
            err(
                "genSelfSignedCert",
                vec![s("x"), list(&["10.0.0.300"]), Value::Nil, Value::Int(1)]
            ),
            "error parsing ip: 10.0.0.300"
        );
        assert_eq!(
            err(
                "genSelfSignedCert",
                vec![
                    s("x"),
                    Value::List(Rc::new(vec![Value::Int(3)])),
                    Value::Nil,
                    Value::Int(1)
                ]
            ),
            "error parsing ip: 3 is not a string"
        );
        assert_eq!(
            err(
                "genSelfSignedCert",
                vec![
                    s("x"),
                    Value::Nil,
                    Value::List(Rc::new(vec![Value::Bool(true)])),
                    Value::Int(1)
                ]
            ),
            "error processing alternate dns name: true is not a string"
        );
        assert_eq!(
            err("genCAWithKey", vec![s("x"), Value::Int(1), s("nope")]),
            "parsing private key: no PEM data in input"
        );
        let mut map = Map::new();
        map.insert("Cert".into(), s("c"));
        assert_eq!(
            err(
                "genSignedCert",
                vec![
                    s("x"),
                    Value::Nil,
                    Value::Nil,
                    Value::Int(1),
                    Value::map(map)
                ]
            ),
            "wrong type for value; expected sprig.certificate; got map[string]interface {}"
        );
        let forged = CertificateObject {
            cert: "junk".into(),
            key: "junk".into(),
        };
        assert_eq!(
            err(
                "genSignedCert",
                vec![
                    s("x"),
                    Value::Nil,
                    Value::Nil,
                    Value::Int(1),
                    forged.value()
                ]
            ),
            "unable to decode certificate"
        );
        // A CA whose key is not its certificate's.
        let (ca, other) = render("a", "t", |call| {
            (
                call("genCA", vec![s("ca"), Value::Int(1)]),
                call("genPrivateKey", vec![s("ecdsa")]),
            )
        });
        let mismatched = CertificateObject {
            cert: field(&ca, "Cert"),
            key: strval(&other),
        };
        assert_eq!(
            err(
                "genSignedCert",
                vec![
                    s("x"),
                    Value::Nil,
                    Value::Nil,
                    Value::Int(1),
                    mismatched.value()
                ]
            ),
            "error creating certificate: x509: provided PrivateKey doesn't match parent's PublicKey"
        );
        let refused = with_render_context(None, None, try_call_without_seed);
        assert!(refused.unwrap_err().contains("no seed"));
    }

    fn try_call_without_seed() -> Result<Value, String> {
        super::super::table()["genCA"](&mut Budget::new(1_000), vec![s("x"), Value::Int(1)])
    }

    #[test]
    fn a_certificate_is_sprigs_struct_with_cert_and_key_and_build_custom_cert_checks_both() {
        let ca = render("a", "t", |call| call("genCA", vec![s("ca"), Value::Int(1)]));
        assert_eq!(ca.type_name(), "sprig.certificate");
        assert_eq!(ca.kind_name(), "struct");
        let b64 = |text: String| s(&base64::engine::general_purpose::STANDARD.encode(text));
        let built = try_call(
            "buildCustomCert",
            vec![b64(field(&ca, "Cert")), b64(field(&ca, "Key"))],
        )
        .unwrap();
        assert_eq!(field(&built, "Cert"), field(&ca, "Cert"));
        assert_eq!(field(&built, "Key"), field(&ca, "Key"));
        assert_eq!(
            try_call("buildCustomCert", vec![s("%%"), s("")]).unwrap_err(),
            "unable to decode base64 certificate"
        );
        assert!(
            try_call(
                "buildCustomCert",
                vec![b64(field(&ca, "Cert")), b64("x".into())]
            )
            .unwrap_err()
            .starts_with("error parsing private key: no PEM data")
        );
    }
}
