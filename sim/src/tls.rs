//! TLS for a served simulator, so every common client connects as to a real cluster (some, such as
//! `@kubernetes/client-node`, refuse a plain-HTTP server): a certificate authority generated for each server, a
//! server certificate for `localhost` and the bound address signed by it, and the authority in PEM for the
//! kubeconfig's `certificate-authority-data`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use base64::Engine as _;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::error::SimError;

/// A server's TLS identity and the authority that signed it.
#[derive(Clone)]
pub struct ServerTls {
    /// The certificate authority, PEM-encoded, as clients trust it.
    pub ca_pem: String,
    /// The server side of TLS: the certificate chain and key.
    pub config: Arc<rustls::ServerConfig>,
}

impl std::fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerTls").finish_non_exhaustive()
    }
}

fn failed(error: impl std::fmt::Display) -> SimError {
    SimError::Tls(error.to_string())
}

/// PEM text of one DER certificate.
fn pem(der: &[u8]) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(der);
    let mut text = String::from("-----BEGIN CERTIFICATE-----\n");
    for line in encoded.as_bytes().chunks(64) {
        text.push_str(&String::from_utf8_lossy(line));
        text.push('\n');
    }
    text.push_str("-----END CERTIFICATE-----\n");
    text
}

impl ServerTls {
    /// A new authority and a server certificate for `localhost`, `127.0.0.1`, `::1` and `address`.
    pub fn generate(address: IpAddr) -> Result<Self, SimError> {
        let mut authority = CertificateParams::new(Vec::<String>::new()).map_err(failed)?;
        authority.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        authority
            .distinguished_name
            .push(DnType::CommonName, "weft-sim certificate authority");
        authority.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let authority_key = KeyPair::generate().map_err(failed)?;
        let authority_certificate = authority.self_signed(&authority_key).map_err(failed)?;
        let issuer = Issuer::from_params(&authority, &authority_key);

        let mut server = CertificateParams::new(vec!["localhost".to_owned()]).map_err(failed)?;
        server
            .distinguished_name
            .push(DnType::CommonName, "weft-sim");
        let mut addresses = vec![
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(Ipv6Addr::LOCALHOST),
        ];
        if !address.is_unspecified() && !addresses.contains(&address) {
            addresses.push(address);
        }
        server
            .subject_alt_names
            .extend(addresses.into_iter().map(SanType::IpAddress));
        server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        server.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        let server_key = KeyPair::generate().map_err(failed)?;
        let server_certificate = server.signed_by(&server_key, &issuer).map_err(failed)?;

        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(failed)?
            .with_no_client_auth()
            .with_single_cert(
                vec![
                    server_certificate.der().clone(),
                    CertificateDer::from(authority_certificate.der().to_vec()),
                ],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der())),
            )
            .map_err(failed)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(ServerTls {
            ca_pem: pem(authority_certificate.der()),
            config: Arc::new(config),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_authority_is_pem_and_the_server_config_is_built() {
        let tls = ServerTls::generate("127.0.0.1".parse().expect("ip")).expect("generated");
        assert!(tls.ca_pem.starts_with("-----BEGIN CERTIFICATE-----\n"));
        assert!(tls.ca_pem.ends_with("-----END CERTIFICATE-----\n"));
        assert_eq!(tls.config.alpn_protocols, vec![b"http/1.1".to_vec()]);
    }
}
