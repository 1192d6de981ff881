//! Which registry hosts the server may call: an image reference comes from an app's manifests, so a host on a
//! loopback, private, link-local or unspecified address (the server's own network) is refused unless the operator
//! listed it.

use std::net::{IpAddr, ToSocketAddrs};

/// Whether `host` (`name`, `name:port`, `1.2.3.4:5000`, `[::1]:5000`) is, or resolves to, an address of the
/// server's own network. A name that does not resolve is not: the request fails on its own.
pub fn is_private_host(host: &str) -> bool {
    let (name, port) = split_port(host);
    if name.eq_ignore_ascii_case("localhost") || name.ends_with(".localhost") {
        return true;
    }
    if let Ok(ip) = name.parse::<IpAddr>() {
        return is_private(ip);
    }
    (name, port.unwrap_or(443))
        .to_socket_addrs()
        .map(|mut addresses| addresses.any(|address| is_private(address.ip())))
        .unwrap_or(false)
}

fn split_port(host: &str) -> (&str, Option<u16>) {
    if let Some(rest) = host.strip_prefix('[') {
        let (name, after) = rest.split_once(']').unwrap_or((rest, ""));
        return (name, after.strip_prefix(':').and_then(|p| p.parse().ok()));
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') => (name, port.parse().ok()),
        _ => (host, None),
    }
}

fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                // 100.64.0.0/10, carrier-grade NAT (cluster networks often live there).
                || (v4.octets()[0] == 100 && (v4.octets()[1] & 0xc0) == 64)
        }
        IpAddr::V6(v6) => {
            v6.is_loopback()
                || v6.is_unspecified()
                || (v6.segments()[0] & 0xfe00) == 0xfc00
                || (v6.segments()[0] & 0xffc0) == 0xfe80
                || v6
                    .to_ipv4_mapped()
                    .is_some_and(|v4| is_private(IpAddr::V4(v4)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_private_and_link_local_hosts_are_the_servers_own_network() {
        for host in [
            "localhost",
            "localhost:5000",
            "registry.localhost",
            "127.0.0.1:5000",
            "10.1.2.3",
            "172.16.0.9:443",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "[::1]:5000",
            "[fe80::1]",
            "[fd00::1]:5000",
            "[::ffff:10.0.0.1]",
        ] {
            assert!(is_private_host(host), "{host}");
        }
        for host in ["8.8.8.8", "1.1.1.1:443", "[2001:4860:4860::8888]:443"] {
            assert!(!is_private_host(host), "{host}");
        }
    }

    #[test]
    fn the_resolver_refuses_a_private_host_the_operator_did_not_list() {
        use crate::CredentialSet;
        use crate::images::{ImageError, ImageReference, ImageResolver};
        let resolver = ImageResolver::new(
            CredentialSet::default(),
            Vec::new(),
            std::time::Duration::from_secs(60),
        );
        for image in [
            "127.0.0.1:5000/shop/web:1",
            "169.254.169.254/latest:meta",
            "localhost/x:1",
        ] {
            let reference = ImageReference::parse(image).unwrap();
            assert!(
                matches!(
                    resolver.resolve(&reference, None),
                    Err(ImageError::PrivateAddress { .. })
                ),
                "{image}"
            );
        }
    }
}
