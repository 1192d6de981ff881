//! The guard itself: the operator's lists, the check of one destination (scheme, host, the addresses it resolves
//! to), the HTTP agent whose every connection is made through that check, and the refusals tenants are shown.

use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::Arc;

use ureq::config::ConfigBuilder;
use ureq::typestate::AgentScope;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use super::address::{classify, parse_literal};

/// What the operator lists (`[outbound]` in `weft.toml`). Entries are `host` (the scheme's default port) or
/// `host:port`, an IPv6 address in brackets (`[fd00::5]:5000`); names are compared without regard to case.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutboundRules {
    /// Hosts Weft may call although they are on the server's own network.
    pub allowed_hosts: Vec<String>,
    /// Hosts Weft reaches over plain HTTP (listed for the server's own network too); every other one over HTTPS.
    pub plain_http_hosts: Vec<String>,
}

/// An operator's entry, read.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listed {
    host: String,
    port: Option<u16>,
}

impl Listed {
    fn parse(entry: &str) -> Option<Listed> {
        let entry = entry.trim();
        let (host, port) = split_host_port(entry)?;
        let host = normalize_host(host)?;
        Some(Listed { host, port })
    }

    fn matches(&self, host: &str, port: u16, default_port: u16) -> bool {
        self.host == host
            && match self.port {
                Some(listed) => listed == port,
                None => port == default_port,
            }
    }
}

/// `host[:port]` (`[v6]`, `[v6]:port`, a bare IPv6 address) split; `None` when the port is not a number.
fn split_host_port(text: &str) -> Option<(&str, Option<u16>)> {
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        return match after {
            "" => Some((host, None)),
            _ => Some((host, Some(after.strip_prefix(':')?.parse().ok()?))),
        };
    }
    match text.rsplit_once(':') {
        // A bare IPv6 address has more than one colon and no port.
        Some((host, _)) if host.contains(':') => Some((text, None)),
        Some((host, port)) => Some((host, Some(port.parse().ok()?))),
        None => Some((text, None)),
    }
}

/// A host as the guard compares it: brackets dropped, lowercase; `None` for anything but a name (letters, digits,
/// `-`, `_`, `.`) or an IPv6 address, so that what is checked is what every client connects to.
fn normalize_host(host: &str) -> Option<String> {
    let host = host
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .unwrap_or(host);
    if host.is_empty() || host.starts_with(['-', '.']) {
        return None;
    }
    let name = host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    let v6 = host.contains(':') && host.parse::<std::net::Ipv6Addr>().is_ok();
    (name || v6).then(|| host.to_ascii_lowercase())
}

/// Whether `entry` is one the operator may list (`host` or `host:port`); the reason when it is not.
pub fn check_listed(entry: &str) -> Result<(), String> {
    match Listed::parse(entry) {
        Some(_) => Ok(()),
        None => Err(format!(
            "{entry:?} is not host or host:port (an IPv6 address in brackets)"
        )),
    }
}

/// Why the guard refused a destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// Its address (or one of those its name resolves to) is on the server's own network, and the operator does not
    /// list the host.
    OwnNetwork,
    /// Plain HTTP to a host the operator does not list for it.
    PlainHttp,
    /// Its name does not resolve (nothing is tried then: the guard fails closed).
    Unresolved,
    /// Its host is neither a name nor an address the guard can check.
    Unreadable,
    /// A scheme Weft does not call out with.
    Scheme,
}

/// A destination the guard refused; nothing was sent to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Why.
    pub reason: Reason,
    /// The host refused (`host:port`); never shown to a tenant, since a redirect or token service may name a host
    /// of the server's network.
    pub host: String,
    /// Whether the refused host is another than the one asked for (a redirect, a token service, a download URL).
    pub elsewhere: bool,
    /// Whether plain HTTP was asked for (a host of the server's network would need listing for plain HTTP).
    pub plain_http: bool,
}

impl Refusal {
    /// A refusal of `host` (`host:port`) for `reason`, of the host asked for, not over plain HTTP.
    pub fn new(reason: Reason, host: impl Into<String>) -> Refusal {
        Refusal {
            reason,
            host: host.into(),
            elsewhere: false,
            plain_http: false,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const PLAIN: &str = "an operator can list the host in [outbound] plain_http_hosts";
        let allowed = if self.plain_http {
            PLAIN
        } else {
            "an operator can list the host in [outbound] allowed_hosts"
        };
        match (self.reason, self.elsewhere) {
            (Reason::OwnNetwork, false) => {
                write!(f, "it is on the server's own network ({allowed})")
            }
            (Reason::OwnNetwork, true) => write!(
                f,
                "it sends Weft on to a host on the server's own network ({allowed})"
            ),
            (Reason::PlainHttp, false) => write!(
                f,
                "plain HTTP is used only for hosts the operator lists; use https:// ({PLAIN})"
            ),
            (Reason::PlainHttp, true) => write!(
                f,
                "it sends Weft on to plain HTTP on a host the operator does not list ({PLAIN})"
            ),
            (Reason::Unresolved, false) => write!(f, "its host name does not resolve"),
            (Reason::Unresolved, true) => {
                write!(f, "it sends Weft on to a host name that does not resolve")
            }
            (Reason::Unreadable, _) => {
                write!(
                    f,
                    "its host is neither a name nor an address Weft can check"
                )
            }
            (Reason::Scheme, _) => write!(
                f,
                "Weft calls out over https:// (http:// only to hosts the operator lists)"
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// A refusal as a tenant sees it: what was asked for, and why it is not allowed. It says nothing the server's network
/// answered, because nothing was asked of it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} is not allowed: {refusal}")]
pub struct Refused {
    /// What was asked for, as the app named it (`chart repository https://127.0.0.1:8443/charts`).
    pub what: String,
    /// Why.
    pub refusal: Refusal,
}

/// How names are resolved: the system's resolver, or a table (tests).
type Lookup = Arc<dyn Fn(&str, u16) -> io::Result<Vec<SocketAddr>> + Send + Sync>;

/// The one guard every outbound request an app can cause goes through: chart repositories (indexes, archives, OCI
/// registries, their token services, and the dependencies a chart names), image registries, git remotes, and what
/// later calls out on a tenant's behalf (webhooks).
///
/// A destination is allowed when its scheme is `https` (or `ssh` for git; `http` only to a host the operator lists
/// for plain HTTP) and every address it resolves to is outside the server's own networks
/// ([`AddressClass`](super::AddressClass)), unless the operator lists the host; `localhost` and `*.localhost` are the
/// server's own. Addresses are checked, not names: a numeric spelling (`2130706433`) is read as the address it is, a
/// name is resolved once, and the connection is made only to the addresses checked (the HTTP agent's resolver is the
/// guard; git is pinned to them), so nothing can resolve differently between the check and the connection. A name
/// that does not resolve is refused. Cheap to clone.
#[derive(Clone, Default)]
pub struct OutboundGuard {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    allowed: Vec<Listed>,
    plain_http: Vec<Listed>,
    lookup: Option<Lookup>,
}

impl fmt::Debug for OutboundGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutboundGuard")
            .field("allowed", &self.inner.allowed)
            .field("plain_http", &self.inner.plain_http)
            .finish_non_exhaustive()
    }
}

/// A guard whose only listed hosts are these plain-HTTP ones (`host[:port]`): what the chart repositories and the
/// image resolver were given before the guard, so their callers keep working.
impl From<Vec<String>> for OutboundGuard {
    fn from(plain_http_hosts: Vec<String>) -> Self {
        OutboundGuard::new(&OutboundRules {
            allowed_hosts: Vec::new(),
            plain_http_hosts,
        })
    }
}

/// The default port of a scheme the guard lets through.
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "https" => Some(443),
        "http" => Some(80),
        "ssh" => Some(22),
        _ => None,
    }
}

impl OutboundGuard {
    /// A guard with the operator's lists; an entry that is not `host[:port]` is left out (configuration checks them
    /// first, with [`check_listed`]).
    pub fn new(rules: &OutboundRules) -> Self {
        let read = |entries: &[String]| entries.iter().filter_map(|e| Listed::parse(e)).collect();
        OutboundGuard {
            inner: Arc::new(Inner {
                allowed: read(&rules.allowed_hosts),
                plain_http: read(&rules.plain_http_hosts),
                lookup: None,
            }),
        }
    }

    /// This guard resolving names from `table` (name, addresses) instead of the system's resolver, for tests: a name
    /// not in it does not resolve.
    #[cfg(test)]
    pub(crate) fn with_names(self, table: Vec<(String, Vec<IpAddr>)>) -> Self {
        let lookup: Lookup = Arc::new(move |name: &str, port: u16| {
            table
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, ips)| ips.iter().map(|ip| SocketAddr::new(*ip, port)).collect())
                .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such name"))
        });
        OutboundGuard {
            inner: Arc::new(Inner {
                allowed: self.inner.allowed.clone(),
                plain_http: self.inner.plain_http.clone(),
                lookup: Some(lookup),
            }),
        }
    }

    /// Whether the operator lists `authority` (`host[:port]`, as a URL writes it) for plain HTTP.
    pub fn is_plain_http(&self, authority: &str) -> bool {
        let Some((host, port)) = split_host_port(authority) else {
            return false;
        };
        let Some(host) = normalize_host(host) else {
            return false;
        };
        let port = port.unwrap_or(80);
        self.inner
            .plain_http
            .iter()
            .any(|l| l.matches(&host, port, 80))
    }

    /// `http` for a host the operator lists for plain HTTP, else `https`.
    pub fn scheme_for(&self, authority: &str) -> &'static str {
        if self.is_plain_http(authority) {
            "http"
        } else {
            "https"
        }
    }

    /// Checks `url` before anything is resolved or sent: an `https://` URL with a readable host, or an `http://` one
    /// to a host the operator lists for plain HTTP. The addresses are checked when the connection is made.
    pub fn check_url(&self, url: &str) -> Result<(), Refusal> {
        let (scheme, host, port) =
            url_parts(url).ok_or_else(|| Refusal::new(Reason::Unreadable, url))?;
        self.check_syntax(&scheme, &host, port).map(|_| ())
    }

    /// The scheme, host and port rules, without resolving.
    fn check_syntax(
        &self,
        scheme: &str,
        host: &str,
        port: Option<u16>,
    ) -> Result<Destination, Refusal> {
        let scheme = scheme.to_ascii_lowercase();
        let refuse = |reason, host: String| Refusal {
            plain_http: scheme == "http",
            ..Refusal::new(reason, host)
        };
        let default =
            default_port(&scheme).ok_or_else(|| refuse(Reason::Scheme, host.to_string()))?;
        let normalized =
            normalize_host(host).ok_or_else(|| refuse(Reason::Unreadable, host.to_string()))?;
        let port = port.unwrap_or(default);
        let plain = self
            .inner
            .plain_http
            .iter()
            .any(|l| l.matches(&normalized, port, default));
        let destination = Destination {
            listed: plain
                || self
                    .inner
                    .allowed
                    .iter()
                    .any(|l| l.matches(&normalized, port, default)),
            host: normalized,
            port,
        };
        if !destination.listed && destination.spelled_own_network() {
            return Err(refuse(Reason::OwnNetwork, destination.shown()));
        }
        if scheme == "http" && !plain {
            return Err(refuse(Reason::PlainHttp, destination.shown()));
        }
        Ok(destination)
    }

    /// The addresses a connection to `host` (`port`, else the scheme's default) over `scheme` (`https`, `http`,
    /// `ssh`) may be made to: the address the host spells, or those its name resolves to now, each outside the
    /// server's own networks unless the operator lists the host. Connect only to these.
    pub fn addresses(
        &self,
        scheme: &str,
        host: &str,
        port: Option<u16>,
    ) -> Result<Vec<SocketAddr>, Refusal> {
        self.addresses_with(scheme, host, port, &|name, port| match &self.inner.lookup {
            Some(lookup) => lookup(name, port),
            None => (name, port).to_socket_addrs().map(Iterator::collect),
        })
    }

    fn addresses_with(
        &self,
        scheme: &str,
        host: &str,
        port: Option<u16>,
        lookup: &dyn Fn(&str, u16) -> io::Result<Vec<SocketAddr>>,
    ) -> Result<Vec<SocketAddr>, Refusal> {
        let destination = self.check_syntax(scheme, host, port)?;
        let own = |reason| Refusal {
            plain_http: scheme.eq_ignore_ascii_case("http"),
            ..Refusal::new(reason, destination.shown())
        };
        let Destination { host, port, listed } = &destination;
        let (port, listed) = (*port, *listed);
        // An address, or a name of the server's own (refused above unless listed), is not looked up.
        if let Some(ip) = parse_literal(host) {
            return Ok(vec![SocketAddr::new(ip, port)]);
        }
        let addresses = lookup(host, port).unwrap_or_default();
        if addresses.is_empty() {
            return Err(own(Reason::Unresolved));
        }
        if !listed && addresses.iter().any(|a| classify(a.ip()).is_own_network()) {
            return Err(own(Reason::OwnNetwork));
        }
        Ok(addresses)
    }

    /// An HTTP agent configured by `config` whose every connection, redirects included, goes through this guard:
    /// its resolver refuses what the guard refuses and connects only to the addresses checked. No proxy from the
    /// environment is used (a proxy would resolve names itself).
    pub fn agent(&self, config: ConfigBuilder<AgentScope>) -> ureq::Agent {
        ureq::Agent::with_parts(
            config.proxy(None).build(),
            DefaultConnector::default(),
            GuardResolver(self.clone()),
        )
    }

    /// The refusal behind an agent's error, when the guard refused the connection; `asked` is the URL the caller
    /// names in its message, so a refusal of another host (a redirect) is told apart.
    pub fn refusal_of(error: &ureq::Error, asked: &str) -> Option<Refusal> {
        let ureq::Error::Io(io) = error else {
            return None;
        };
        let refusal = io.get_ref()?.downcast_ref::<Refusal>()?;
        let asked = url_parts(asked).and_then(|(scheme, host, port)| {
            let destination = Destination {
                host: normalize_host(&host)?,
                port: port.or_else(|| default_port(&scheme.to_ascii_lowercase()))?,
                listed: false,
            };
            Some(destination.shown())
        });
        Some(Refusal {
            elsewhere: asked.as_deref() != Some(refusal.host.as_str()),
            ..refusal.clone()
        })
    }
}

/// A destination as the guard reads it.
struct Destination {
    /// The host, normalized (no brackets, lowercase).
    host: String,
    /// The port, the scheme's default when the URL names none.
    port: u16,
    /// Whether the operator lists it.
    listed: bool,
}

impl Destination {
    /// Whether the host is the server's own network as written: an address of it in any spelling, `localhost` or a
    /// name under `.localhost`.
    fn spelled_own_network(&self) -> bool {
        if let Some(ip) = parse_literal(&self.host) {
            return classify(ip).is_own_network();
        }
        let bare = self.host.strip_suffix('.').unwrap_or(&self.host);
        bare == "localhost" || bare.ends_with(".localhost")
    }

    /// `host:port` (`[v6]:port`).
    fn shown(&self) -> String {
        match parse_literal(&self.host) {
            Some(IpAddr::V6(_)) => format!("[{}]:{}", self.host, self.port),
            _ => format!("{}:{}", self.host, self.port),
        }
    }
}

/// `scheme`, host and port of `scheme://[user@]host[:port][/...]`; `None` when it is not that shape.
pub(crate) fn url_parts(url: &str) -> Option<(String, String, Option<u16>)> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.matches('@').count() > 1 {
        return None;
    }
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let (host, port) = split_host_port(host_port)?;
    if host.is_empty() {
        return None;
    }
    Some((scheme.to_string(), host.to_string(), port))
}

/// The guard as an HTTP agent's resolver: every connection's scheme, host and addresses are checked here, and the
/// addresses returned are the only ones connected to.
#[derive(Debug)]
struct GuardResolver(OutboundGuard);

impl Resolver for GuardResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let refused = |refusal: Refusal| ureq::Error::Io(io::Error::other(refusal));
        let scheme = uri.scheme_str().unwrap_or_default();
        let Some(host) = uri.host() else {
            return Err(refused(Refusal::new(Reason::Unreadable, uri.to_string())));
        };
        let system = |name: &str, port: u16| -> io::Result<Vec<SocketAddr>> {
            if let Some(lookup) = &self.0.inner.lookup {
                return lookup(name, port);
            }
            // The system's resolver under the agent's timeout, asked for the name alone (the address is checked
            // above, so this never sees a numeric spelling).
            let uri: ureq::http::Uri = format!("http://{name}:{port}/")
                .parse()
                .map_err(io::Error::other)?;
            DefaultResolver::default()
                .resolve(&uri, config, timeout)
                .map(|found| found.iter().copied().collect())
                .map_err(ureq::Error::into_io)
        };
        let addresses = self
            .0
            .addresses_with(scheme, host, uri.port_u16(), &system)
            .map_err(refused)?;
        let mut out = self.empty();
        for address in addresses.into_iter().take(16) {
            out.push(address);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, TcpListener};
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn guard(allowed: &[&str], plain: &[&str]) -> OutboundGuard {
        OutboundGuard::new(&OutboundRules {
            allowed_hosts: allowed.iter().map(|s| s.to_string()).collect(),
            plain_http_hosts: plain.iter().map(|s| s.to_string()).collect(),
        })
    }

    fn reason(result: Result<Vec<SocketAddr>, Refusal>) -> Option<Reason> {
        result.err().map(|r| r.reason)
    }

    #[test]
    fn the_servers_own_network_is_refused_in_every_spelling_unless_listed() {
        let strict = guard(&[], &[]);
        for host in [
            "127.0.0.1",
            "2130706433",
            "0x7f000001",
            "0177.0.0.1",
            "127.1",
            "[::1]",
            "::1",
            "[::ffff:127.0.0.1]",
            "[::127.0.0.1]",
            "[64:ff9b::7f00:1]",
            "[2002:7f00:1::]",
            "[::]",
            "0.0.0.0",
            "0",
            "10.0.0.1",
            "169.254.169.254",
            "100.64.0.1",
            "198.18.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "[fd00::1]",
            "[fe80::1]",
            "localhost",
            "LOCALHOST",
            "localhost.",
            "registry.localhost",
        ] {
            assert_eq!(
                reason(strict.addresses("https", host, Some(8443))),
                Some(Reason::OwnNetwork),
                "{host}"
            );
        }
        let listed = guard(&["127.0.0.1:8443", "[::1]:8443", "localhost:8443"], &[]);
        for host in ["127.0.0.1", "[::1]"] {
            assert!(
                listed.addresses("https", host, Some(8443)).is_ok(),
                "{host}"
            );
        }
        assert_eq!(
            reason(listed.addresses("https", "127.0.0.1", Some(8444))),
            Some(Reason::OwnNetwork),
            "a listing names its port"
        );
        assert_eq!(
            reason(listed.addresses("https", "2130706433", Some(8443))),
            Some(Reason::OwnNetwork),
            "another spelling of a listed address is not the listed host"
        );
        assert!(
            strict
                .addresses("https", "8.8.8.8", None)
                .is_ok_and(|a| a == [SocketAddr::from(([8, 8, 8, 8], 443))])
        );
    }

    #[test]
    fn names_are_judged_by_every_address_they_resolve_to_and_an_unresolved_one_is_refused() {
        let names = vec![
            (
                "public.test".to_string(),
                vec![IpAddr::V4(Ipv4Addr::new(93, 184, 216, 34))],
            ),
            (
                "rebound.test".to_string(),
                vec![
                    IpAddr::V4(Ipv4Addr::new(93, 184, 216, 34)),
                    IpAddr::V4(Ipv4Addr::new(10, 0, 0, 7)),
                ],
            ),
            (
                "metadata.test".to_string(),
                vec!["::ffff:169.254.169.254".parse().unwrap()],
            ),
        ];
        let strict = guard(&[], &[]).with_names(names.clone());
        assert_eq!(
            strict.addresses("https", "public.test", None).unwrap(),
            [SocketAddr::from(([93, 184, 216, 34], 443))]
        );
        for host in ["rebound.test", "metadata.test"] {
            assert_eq!(
                reason(strict.addresses("https", host, None)),
                Some(Reason::OwnNetwork),
                "{host}"
            );
        }
        assert_eq!(
            reason(strict.addresses("https", "nowhere.test", None)),
            Some(Reason::Unresolved)
        );
        let listed = guard(&["rebound.test"], &[]).with_names(names);
        assert_eq!(
            listed
                .addresses("https", "rebound.test", None)
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn plain_http_only_to_listed_hosts_and_unreadable_hosts_are_refused() {
        let guard = guard(&[], &["charts.internal:8080", "mirror.internal"]);
        assert_eq!(
            reason(guard.addresses("http", "charts.example.com", None)),
            Some(Reason::PlainHttp)
        );
        assert_eq!(
            reason(guard.addresses("http", "charts.internal", Some(8081))),
            Some(Reason::PlainHttp)
        );
        assert!(guard.is_plain_http("charts.internal:8080"));
        assert!(guard.is_plain_http("CHARTS.internal:8080"));
        assert!(guard.is_plain_http("mirror.internal"));
        assert!(guard.is_plain_http("mirror.internal:80"));
        assert!(!guard.is_plain_http("mirror.internal:8080"));
        assert_eq!(guard.scheme_for("charts.internal:8080"), "http");
        assert_eq!(guard.scheme_for("charts.example.com"), "https");
        for url in [
            "ftp://charts.example.com/",
            "gopher://x/",
            "https://a@b@127.0.0.1/",
            "https:///x",
            "https://ex%61mple.com/",
            "https://exa mple.com/",
            "https://-x/",
            "http://[::1/",
        ] {
            assert!(guard.check_url(url).is_err(), "{url}");
        }
        assert!(guard.check_url("https://charts.example.com/x").is_ok());
        assert!(
            guard
                .check_url("http://charts.internal:8080/index.yaml")
                .is_ok()
        );
        assert_eq!(
            guard
                .check_url("http://auth.example/token")
                .map_err(|r| r.reason),
            Err(Reason::PlainHttp)
        );
        assert!(check_listed("registry.internal:5000").is_ok());
        assert!(check_listed("[fd00::5]:5000").is_ok());
        assert!(check_listed("fd00::5").is_ok());
        for bad in ["", "http://x", "x:port", "x/y", "[::1"] {
            assert!(check_listed(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn refusals_say_what_was_asked_and_why_and_nothing_of_the_network() {
        let refusal = guard(&[], &[])
            .addresses("https", "127.0.0.1", Some(1234))
            .unwrap_err();
        let refused = Refused {
            what: "chart repository https://127.0.0.1:1234/charts".into(),
            refusal,
        };
        assert_eq!(
            refused.to_string(),
            "chart repository https://127.0.0.1:1234/charts is not allowed: it is on the server's own network (an \
             operator can list the host in [outbound] allowed_hosts)"
        );
    }

    /// A loopback listener that counts the connections it accepts (answering each with a redirect to `location`,
    /// when given, else 404).
    struct Counting {
        address: SocketAddr,
        accepted: Arc<AtomicUsize>,
    }

    fn counting(location: Option<String>) -> Counting {
        use std::io::{BufRead, BufReader, Write};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = accepted.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                count.fetch_add(1, Ordering::SeqCst);
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let answer = match &location {
                    Some(to) => format!(
                        "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    ),
                    None => {
                        "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .to_string()
                    }
                };
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        Counting { address, accepted }
    }

    #[test]
    fn the_agent_connects_only_where_the_guard_allows_and_follows_no_redirect_elsewhere() {
        let unlisted = counting(None);
        let listed = counting(Some(format!("http://{}/index.yaml", unlisted.address)));
        let guard = guard(&[], &[&listed.address.to_string()]);
        let agent = guard.agent(
            ureq::Agent::config_builder()
                .max_redirects(5)
                .http_status_as_error(false),
        );
        let asked = format!("http://{}/index.yaml", listed.address);
        let error = agent
            .get(&asked)
            .call()
            .expect_err("the redirect is refused");
        let refusal = OutboundGuard::refusal_of(&error, &asked).expect("the guard's refusal");
        assert_eq!(refusal.reason, Reason::OwnNetwork);
        assert!(refusal.elsewhere);
        assert_eq!(
            refusal.to_string(),
            "it sends Weft on to a host on the server's own network (an operator can list the host in [outbound] \
             plain_http_hosts)"
        );
        assert_eq!(listed.accepted.load(Ordering::SeqCst), 1);
        assert_eq!(unlisted.accepted.load(Ordering::SeqCst), 0);

        for url in [
            format!("http://{}/", unlisted.address),
            format!("https://{}/", unlisted.address),
            format!("https://2130706433:{}/", unlisted.address.port()),
            format!("https://localhost:{}/", unlisted.address.port()),
            format!("https://[::ffff:127.0.0.1]:{}/", unlisted.address.port()),
        ] {
            let error = agent.get(&url).call().expect_err(&url);
            let refusal = OutboundGuard::refusal_of(&error, &url).expect(&url);
            assert!(!refusal.elsewhere, "{url}");
        }
        assert_eq!(unlisted.accepted.load(Ordering::SeqCst), 0);
    }
}
