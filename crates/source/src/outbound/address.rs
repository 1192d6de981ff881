//! What an address is, as far as the server may call it: pure classification of IP addresses (the server's own
//! networks, or the rest of the world) and the numeric spellings of an IPv4 address that resolvers accept
//! (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`), read as `inet_aton` reads them.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Which kind of network an address belongs to. Everything but [`AddressClass::Public`] is the server's own network
/// (or nobody's): Weft calls it only when the operator lists the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressClass {
    /// An address of the rest of the world.
    Public,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, `fc00::/7` (unique local), `fec0::/10` (site local),
    /// `64:ff9b:1::/48` (local-use NAT64).
    Private,
    /// `169.254.0.0/16` (cloud metadata services live there), `fe80::/10`.
    LinkLocal,
    /// `100.64.0.0/10`, carrier-grade NAT (cluster networks often live there).
    SharedAddressSpace,
    /// `0.0.0.0/8` and `::`: "this host" on many systems.
    Unspecified,
    /// `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// `198.18.0.0/15`, network benchmarking.
    Benchmarking,
    /// `240.0.0.0/4` (with the broadcast address), `192.0.0.0/24` (protocol assignments), `100::/64` (discard).
    Reserved,
}

impl AddressClass {
    /// Whether the address is on the server's own network (anything but [`AddressClass::Public`]).
    pub fn is_own_network(self) -> bool {
        self != AddressClass::Public
    }
}

/// The class of `ip`. An IPv6 address that carries an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
/// `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is the class of the IPv4
/// address it carries, since that is where a packet to it ends up.
pub fn classify(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, c, _] = ip.octets();
    match (a, b, c) {
        (0, _, _) => AddressClass::Unspecified,
        (127, _, _) => AddressClass::Loopback,
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => AddressClass::Private,
        (169, 254, _) => AddressClass::LinkLocal,
        (100, 64..=127, _) => AddressClass::SharedAddressSpace,
        (198, 18..=19, _) => AddressClass::Benchmarking,
        (192, 0, 0) => AddressClass::Reserved,
        (224..=239, _, _) => AddressClass::Multicast,
        (240..=255, _, _) => AddressClass::Reserved,
        _ => AddressClass::Public,
    }
}

fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    let s = ip.segments();
    let v4 = |high: u16, low: u16| {
        let [a, b] = high.to_be_bytes();
        let [c, d] = low.to_be_bytes();
        classify_v4(Ipv4Addr::new(a, b, c, d))
    };
    if ip.is_unspecified() {
        return AddressClass::Unspecified;
    }
    if ip.is_loopback() {
        return AddressClass::Loopback;
    }
    match s {
        // IPv4-compatible (::a.b.c.d, deprecated but still routed by some stacks) and IPv4-mapped.
        [0, 0, 0, 0, 0, 0, high, low] | [0, 0, 0, 0, 0, 0xffff, high, low] => v4(high, low),
        // IPv4-translated (SIIT).
        [0, 0, 0, 0, 0xffff, 0, high, low] => v4(high, low),
        // The well-known NAT64 prefix: the gateway forwards to the IPv4 address it carries.
        [0x64, 0xff9b, 0, 0, 0, 0, high, low] => v4(high, low),
        [0x64, 0xff9b, 1, ..] => AddressClass::Private,
        // 6to4: the relay forwards to the IPv4 address in bits 16..48.
        [0x2002, high, low, ..] => match v4(high, low) {
            AddressClass::Public => AddressClass::Public,
            carried => carried,
        },
        [0x100, 0, 0, 0, ..] => AddressClass::Reserved,
        [first, ..] if first & 0xff00 == 0xff00 => AddressClass::Multicast,
        [first, ..] if first & 0xfe00 == 0xfc00 => AddressClass::Private,
        [first, ..] if first & 0xffc0 == 0xfe80 => AddressClass::LinkLocal,
        [first, ..] if first & 0xffc0 == 0xfec0 => AddressClass::Private,
        _ => AddressClass::Public,
    }
}

/// The address `host` spells, when it is one: an IPv6 address (with or without brackets) or an IPv4 address in any
/// spelling `inet_aton` accepts — one to four parts, each decimal, octal (a leading `0`) or hexadecimal (`0x`), the
/// last filling the remaining bytes (`127.1` is `127.0.0.1`, `2130706433` is too) — with one trailing dot allowed.
/// `None` for a name.
pub fn parse_literal(host: &str) -> Option<IpAddr> {
    let unbracketed = host
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .unwrap_or(host);
    if unbracketed.contains(':') {
        return unbracketed.parse::<Ipv6Addr>().ok().map(IpAddr::V6);
    }
    parse_v4(host.strip_suffix('.').unwrap_or(host)).map(IpAddr::V4)
}

fn parse_v4(text: &str) -> Option<Ipv4Addr> {
    if text.is_empty() {
        return None;
    }
    let parts: Vec<u64> = text.split('.').map(number).collect::<Option<_>>()?;
    let (last, leading) = parts.split_last()?;
    if leading.len() > 3 || leading.iter().any(|p| *p > 255) {
        return None;
    }
    let room = 8 * (4 - leading.len() as u32);
    if *last >= 1u64 << room {
        return None;
    }
    let high = leading
        .iter()
        .enumerate()
        .fold(0u64, |acc, (i, p)| acc | (p << (24 - 8 * i as u32)));
    Some(Ipv4Addr::from((high | last) as u32))
}

/// One part of an IPv4 spelling: decimal, octal (leading `0`) or hexadecimal (`0x`); `None` past 32 bits.
fn number(part: &str) -> Option<u64> {
    let (digits, radix) =
        if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (hex, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix)
        .ok()
        .filter(|n| *n <= u64::from(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(host: &str) -> AddressClass {
        classify(parse_literal(host).unwrap_or_else(|| panic!("{host} is an address")))
    }

    #[test]
    fn every_spelling_of_loopback_is_loopback() {
        for host in [
            "127.0.0.1",
            "127.1",
            "127.0.1",
            "2130706433",
            "0x7f000001",
            "0X7F000001",
            "0x7f.1",
            "0x7f.0.0.1",
            "017700000001",
            "0177.0.0.1",
            "0177.1",
            "127.0.0.1.",
            "127.255.255.254",
            "::1",
            "[::1]",
            "0:0:0:0:0:0:0:1",
            "::ffff:127.0.0.1",
            "[::ffff:7f00:1]",
            "::127.0.0.1",
            "::ffff:0:127.0.0.1",
            "64:ff9b::127.0.0.1",
            "2002:7f00:1::",
        ] {
            assert_eq!(class(host), AddressClass::Loopback, "{host}");
        }
    }

    #[test]
    fn the_servers_own_networks_are_each_classified() {
        for (host, expected) in [
            ("10.0.0.1", AddressClass::Private),
            ("10.255.255.255", AddressClass::Private),
            ("172.16.0.1", AddressClass::Private),
            ("172.31.255.255", AddressClass::Private),
            ("192.168.1.1", AddressClass::Private),
            ("012.1", AddressClass::Private),
            ("167772161", AddressClass::Private),
            ("169.254.169.254", AddressClass::LinkLocal),
            ("0xa9fea9fe", AddressClass::LinkLocal),
            ("100.64.0.1", AddressClass::SharedAddressSpace),
            ("100.127.255.255", AddressClass::SharedAddressSpace),
            ("0.0.0.0", AddressClass::Unspecified),
            ("0", AddressClass::Unspecified),
            ("0.1.2.3", AddressClass::Unspecified),
            ("224.0.0.1", AddressClass::Multicast),
            ("239.255.255.250", AddressClass::Multicast),
            ("198.18.0.1", AddressClass::Benchmarking),
            ("198.19.255.255", AddressClass::Benchmarking),
            ("240.0.0.1", AddressClass::Reserved),
            ("255.255.255.255", AddressClass::Reserved),
            ("192.0.0.8", AddressClass::Reserved),
            ("::", AddressClass::Unspecified),
            ("fc00::1", AddressClass::Private),
            ("fd12:3456::1", AddressClass::Private),
            ("fec0::1", AddressClass::Private),
            ("fe80::1", AddressClass::LinkLocal),
            ("febf::1", AddressClass::LinkLocal),
            ("ff02::1", AddressClass::Multicast),
            ("100::1", AddressClass::Reserved),
            ("::ffff:10.0.0.1", AddressClass::Private),
            ("::ffff:169.254.169.254", AddressClass::LinkLocal),
            ("::10.0.0.1", AddressClass::Private),
            ("64:ff9b::a9fe:a9fe", AddressClass::LinkLocal),
            ("64:ff9b:1::1", AddressClass::Private),
            ("2002:c0a8:101::1", AddressClass::Private),
            ("2002:a9fe:a9fe::", AddressClass::LinkLocal),
        ] {
            assert_eq!(class(host), expected, "{host}");
            assert!(expected.is_own_network(), "{host}");
        }
    }

    #[test]
    fn the_rest_of_the_world_is_public() {
        for host in [
            "8.8.8.8",
            "1.1.1.1",
            "134744072",
            "172.15.255.255",
            "172.32.0.1",
            "100.63.255.255",
            "100.128.0.1",
            "169.253.0.1",
            "198.17.255.255",
            "198.20.0.1",
            "192.0.2.1",
            "223.255.255.255",
            "2001:4860:4860::8888",
            "[2606:4700:4700::1111]",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert_eq!(class(host), AddressClass::Public, "{host}");
            assert!(!class(host).is_own_network(), "{host}");
        }
    }

    #[test]
    fn names_and_malformed_spellings_are_not_addresses() {
        for host in [
            "localhost",
            "registry.example.com",
            "127.0.0.1.example",
            "0x",
            "1.2.3.4.5",
            "256.0.0.1",
            "4294967296",
            "1.16777216",
            "08.0.0.1",
            "0x1g",
            "",
            ".",
            "1..1",
            "[::1",
            "::1%eth0",
            "[fe80::1%25eth0]",
            "１２７.0.0.1",
        ] {
            assert_eq!(parse_literal(host), None, "{host}");
        }
    }
}
