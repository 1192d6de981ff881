//! Container image references read as Docker and containerd read them: the grammar of the CNCF distribution
//! project's `reference` package with Docker Hub's normalisation (`nginx` is `docker.io/library/nginx:latest`).
//!
//! ```text
//! reference  := name [ ":" tag ] [ "@" digest ]
//! name       := [ domain "/" ] path
//! domain     := host [ ":" port ]        host: dns-label ("." dns-label)* | "[" ipv6 "]"
//! path       := component ( "/" component )*
//! component  := [a-z0-9]+ ( ( "." | "_" | "__" | "-"+ ) [a-z0-9]+ )*
//! tag        := [A-Za-z0-9_] [A-Za-z0-9_.-]{0,127}
//! digest     := "sha256:" 64 hex | "sha384:" 96 hex | "sha512:" 128 hex   (lowercase hex)
//! ```
//!
//! The first path component is a registry when it contains `.` or `:`, is `localhost`, or has an uppercase letter
//! (repository names never do, so Docker takes it for a host); otherwise the image is on Docker Hub, and a
//! one-component Docker Hub name is under `library/`. `index.docker.io` is Docker Hub's old name.

use std::fmt;
use std::str::FromStr;

use super::ImageError;

/// Docker Hub's registry name, as references are normalised to it.
pub const DOCKER_HUB: &str = "docker.io";
/// The host Docker Hub's distribution API answers on.
pub const DOCKER_HUB_API: &str = "registry-1.docker.io";
/// Docker Hub's old name, read as [`DOCKER_HUB`].
const LEGACY_DOCKER_HUB: &str = "index.docker.io";
/// The tag implied when a reference names neither a tag nor a digest.
pub const DEFAULT_TAG: &str = "latest";
/// The longest name (`registry/repository`, normalised) Docker accepts.
const NAME_MAX: usize = 255;
/// The longest tag.
const TAG_MAX: usize = 128;

/// An image reference, parsed and normalised; displayed as it was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImageReference {
    written: String,
    written_name: String,
    registry: String,
    repository: String,
    tag: Option<String>,
    tag_implied: bool,
    digest: Option<String>,
}

impl ImageReference {
    /// Reads `text` as Docker does; the error names the reference and what is wrong with it.
    pub fn parse(text: &str) -> Result<ImageReference, ImageError> {
        let invalid = |reason: String| ImageError::InvalidReference {
            reference: text.to_string(),
            reason,
        };
        if text.is_empty() {
            return Err(invalid("it is empty".into()));
        }
        if text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(invalid(
                "a 64-character hexadecimal string is an image ID, not a repository name".into(),
            ));
        }
        let (rest, digest) = match text.split_once('@') {
            Some((rest, digest)) => (rest, Some(digest)),
            None => (text, None),
        };
        if let Some(digest) = digest {
            check_digest(digest).map_err(invalid)?;
        }
        let (name, tag) = split_tag(rest);
        if name.is_empty() {
            return Err(invalid("it names no repository".into()));
        }
        if let Some(tag) = tag {
            check_tag(tag).map_err(invalid)?;
        }
        let (registry, repository) = split_registry(name);
        if repository.to_ascii_lowercase() != repository
            && repository
                .split('/')
                .all(|c| component(&c.to_ascii_lowercase()))
        {
            return Err(invalid(format!(
                "the repository name {repository:?} must be lowercase"
            )));
        }
        if registry != DOCKER_HUB && !domain(&registry) {
            return Err(invalid(format!(
                "{registry:?} is not a registry host (host names, IPv4 or [IPv6] addresses, with an optional :port)"
            )));
        }
        if let Some(bad) = repository.split('/').find(|c| !component(c)) {
            return Err(invalid(if bad.is_empty() {
                "the repository path has an empty component".into()
            } else {
                format!(
                    "{bad:?} is not a repository path component (lowercase letters and digits, separated by \
                     one '.', one or two '_', or '-'s)"
                )
            }));
        }
        let full = registry.len() + 1 + repository.len();
        if full > NAME_MAX {
            return Err(invalid(format!(
                "the repository name is {full} characters, more than {NAME_MAX}"
            )));
        }
        let tag_implied = tag.is_none() && digest.is_none();
        Ok(ImageReference {
            written: text.to_string(),
            written_name: name.to_string(),
            registry,
            repository,
            tag: tag
                .map(String::from)
                .or_else(|| tag_implied.then(|| DEFAULT_TAG.to_string())),
            tag_implied,
            digest: digest.map(String::from),
        })
    }

    /// The registry, normalised (`docker.io` for Docker Hub, however it was written).
    pub fn registry(&self) -> &str {
        &self.registry
    }

    /// The host (`host[:port]`) whose distribution API serves the registry: [`DOCKER_HUB_API`] for Docker Hub.
    pub fn api_host(&self) -> &str {
        if self.registry == DOCKER_HUB {
            DOCKER_HUB_API
        } else {
            &self.registry
        }
    }

    /// The repository in the registry (`library/nginx`, `shop/web`).
    pub fn repository(&self) -> &str {
        &self.repository
    }

    /// The tag: the one written, or [`DEFAULT_TAG`] when neither a tag nor a digest was; `None` for a digest alone.
    pub fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    /// Whether the tag is the implied [`DEFAULT_TAG`] rather than written.
    pub fn tag_implied(&self) -> bool {
        self.tag_implied
    }

    /// The digest written (`sha256:<hex>`), which wins over the tag when both are.
    pub fn digest(&self) -> Option<&str> {
        self.digest.as_deref()
    }

    /// The name as written, without tag or digest (`nginx`, `registry.example/shop/web`).
    pub fn written_name(&self) -> &str {
        &self.written_name
    }

    /// The fully qualified name: `docker.io/library/nginx`.
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }

    /// The name as written with its tag, implied or not (`nginx:latest`, `registry.example/shop/web:1.4.2`); the
    /// written name alone for a reference by digest only.
    pub fn tagged(&self) -> String {
        match &self.tag {
            Some(tag) => format!("{}:{tag}", self.written_name),
            None => self.written_name.clone(),
        }
    }

    /// The reference pinned to `digest` (`sha256:<hex>`), keeping the registry and name as written and a written
    /// tag: `nginx` → `nginx@sha256:…`, `registry.example/shop/web:1.4.2` →
    /// `registry.example/shop/web:1.4.2@sha256:…`. The tag stays for whoever reads the manifest; container
    /// runtimes and Kubernetes pull by the digest when both are present. A digest already written is replaced.
    pub fn pinned(&self, digest: &str) -> String {
        match (&self.tag, self.tag_implied) {
            (Some(tag), false) => format!("{}:{tag}@{digest}", self.written_name),
            _ => format!("{}@{digest}", self.written_name),
        }
    }
}

impl fmt::Display for ImageReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

impl FromStr for ImageReference {
    type Err = ImageError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ImageReference::parse(text)
    }
}

/// `name[:tag]` split at a colon after the last slash (a colon before it is a registry's port).
fn split_tag(text: &str) -> (&str, Option<&str>) {
    let slash = text.rfind('/').map_or(0, |i| i + 1);
    match text[slash..].find(':') {
        Some(colon) => (&text[..slash + colon], Some(&text[slash + colon + 1..])),
        None => (text, None),
    }
}

/// The registry and repository of a name, as Docker normalises them.
fn split_registry(name: &str) -> (String, String) {
    let (registry, remote) = match name.split_once('/') {
        Some((first, rest))
            if first == "localhost"
                || first.contains(['.', ':'])
                || first.to_ascii_lowercase() != first =>
        {
            let registry = if first == LEGACY_DOCKER_HUB {
                DOCKER_HUB
            } else {
                first
            };
            (registry, rest)
        }
        _ => (DOCKER_HUB, name),
    };
    let repository = if registry == DOCKER_HUB && !remote.contains('/') {
        format!("library/{remote}")
    } else {
        remote.to_string()
    };
    (registry.to_string(), repository)
}

/// Whether `text` is `host[:port]`: DNS labels of letters, digits and inner hyphens, or a bracketed IPv6 address.
fn domain(text: &str) -> bool {
    let (host, port) = if let Some(inner) = text.strip_prefix('[') {
        let Some((address, after)) = inner.split_once(']') else {
            return false;
        };
        if address.is_empty() || !address.bytes().all(|b| b.is_ascii_hexdigit() || b == b':') {
            return false;
        }
        match after {
            "" => return true,
            _ => match after.strip_prefix(':') {
                Some(port) => (None, Some(port)),
                None => return false,
            },
        }
    } else {
        match text.split_once(':') {
            Some((host, port)) => (Some(host), Some(port)),
            None => (Some(text), None),
        }
    };
    let label = |l: &str| {
        let b = l.as_bytes();
        !b.is_empty()
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
            && b[0] != b'-'
            && b[b.len() - 1] != b'-'
    };
    let host_ok = host.is_none_or(|h| h.split('.').all(label));
    let port_ok = port.is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    host_ok && port_ok
}

/// Whether `text` is a repository path component: `[a-z0-9]+` runs joined by `.`, `_`, `__` or `-`s.
fn component(text: &str) -> bool {
    let b = text.as_bytes();
    let alphanumeric = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let mut i = 0;
    loop {
        let start = i;
        while i < b.len() && alphanumeric(b[i]) {
            i += 1;
        }
        if i == start {
            return false;
        }
        if i == b.len() {
            return true;
        }
        match b[i] {
            b'.' => i += 1,
            b'_' => {
                i += 1;
                if b.get(i) == Some(&b'_') {
                    i += 1;
                }
            }
            b'-' => {
                while b.get(i) == Some(&b'-') {
                    i += 1;
                }
            }
            _ => return false,
        }
    }
}

fn check_tag(tag: &str) -> Result<(), String> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = tag.as_bytes();
    let valid = !b.is_empty()
        && b.len() <= TAG_MAX
        && word(b[0])
        && b.iter().all(|c| word(*c) || *c == b'.' || *c == b'-');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "the tag {tag:?} is not valid (1 to {TAG_MAX} letters, digits, '_', '.' or '-', not starting with \
             '.' or '-')"
        ))
    }
}

fn check_digest(digest: &str) -> Result<(), String> {
    let Some((algorithm, hex)) = digest.split_once(':') else {
        return Err(format!(
            "the digest {digest:?} is not algorithm:hex (sha256:<64 hex digits>)"
        ));
    };
    let length = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => {
            return Err(format!(
                "the digest algorithm {algorithm:?} is not supported (sha256, sha384, sha512)"
            ));
        }
    };
    if hex.len() != length {
        return Err(format!(
            "the {algorithm} digest has {} hex digits, not {length}",
            hex.len()
        ));
    }
    if !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(format!(
            "the {algorithm} digest must be lowercase hexadecimal"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";

    /// What a valid reference reads as: registry, repository, tag, tag implied, digest.
    type Reading<'a> = (&'a str, &'a str, Option<&'a str>, bool, bool);

    fn read(text: &str) -> ImageReference {
        ImageReference::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn references_are_read_and_normalised_as_docker_reads_them() {
        let digest = format!("sha256:{HEX}");
        let long_tag = "t".repeat(128);
        let cases: Vec<(String, Reading<'_>)> = vec![
            (
                "nginx".into(),
                ("docker.io", "library/nginx", Some("latest"), true, false),
            ),
            (
                "test_com".into(),
                ("docker.io", "library/test_com", Some("latest"), true, false),
            ),
            (
                "test.com:tag".into(),
                ("docker.io", "library/test.com", Some("tag"), false, false),
            ),
            (
                "test.com:5000".into(),
                ("docker.io", "library/test.com", Some("5000"), false, false),
            ),
            (
                "test.com/repo:tag".into(),
                ("test.com", "repo", Some("tag"), false, false),
            ),
            (
                "test:5000/repo".into(),
                ("test:5000", "repo", Some("latest"), true, false),
            ),
            (
                "test:5000/repo:tag".into(),
                ("test:5000", "repo", Some("tag"), false, false),
            ),
            (
                format!("test:5000/repo@{digest}"),
                ("test:5000", "repo", None, false, true),
            ),
            (
                format!("test:5000/repo:tag@{digest}"),
                ("test:5000", "repo", Some("tag"), false, true),
            ),
            (
                "lowercase:Uppercase".into(),
                (
                    "docker.io",
                    "library/lowercase",
                    Some("Uppercase"),
                    false,
                    false,
                ),
            ),
            (
                "sub-dom1.foo.com/bar/baz/quux".into(),
                (
                    "sub-dom1.foo.com",
                    "bar/baz/quux",
                    Some("latest"),
                    true,
                    false,
                ),
            ),
            (
                "sub-dom1.foo.com/bar/baz/quux:some-long-tag".into(),
                (
                    "sub-dom1.foo.com",
                    "bar/baz/quux",
                    Some("some-long-tag"),
                    false,
                    false,
                ),
            ),
            (
                "b.gcr.io/test.example.com/my-app:test.example.com".into(),
                (
                    "b.gcr.io",
                    "test.example.com/my-app",
                    Some("test.example.com"),
                    false,
                    false,
                ),
            ),
            (
                "xn--n3h.com/myimage:xn--n3h.com".into(),
                ("xn--n3h.com", "myimage", Some("xn--n3h.com"), false, false),
            ),
            (
                format!("xn--7o8h.com/myimage:xn--7o8h.com@{digest}"),
                ("xn--7o8h.com", "myimage", Some("xn--7o8h.com"), false, true),
            ),
            (
                "foo_bar.com:8080".into(),
                (
                    "docker.io",
                    "library/foo_bar.com",
                    Some("8080"),
                    false,
                    false,
                ),
            ),
            (
                "foo/foo_bar.com:8080".into(),
                ("docker.io", "foo/foo_bar.com", Some("8080"), false, false),
            ),
            (
                "localhost/repo".into(),
                ("localhost", "repo", Some("latest"), true, false),
            ),
            (
                "localhost:5000/a/b:1.0".into(),
                ("localhost:5000", "a/b", Some("1.0"), false, false),
            ),
            (
                "127.0.0.1:5000/a__b/c--d/e.f:_tag".into(),
                (
                    "127.0.0.1:5000",
                    "a__b/c--d/e.f",
                    Some("_tag"),
                    false,
                    false,
                ),
            ),
            (
                "[::1]:5000/repo".into(),
                ("[::1]:5000", "repo", Some("latest"), true, false),
            ),
            (
                "[2001:db8::1]/repo".into(),
                ("[2001:db8::1]", "repo", Some("latest"), true, false),
            ),
            (
                "docker.io/nginx".into(),
                ("docker.io", "library/nginx", Some("latest"), true, false),
            ),
            (
                "index.docker.io/bitnami/redis:7".into(),
                ("docker.io", "bitnami/redis", Some("7"), false, false),
            ),
            (
                "docker.io/library/nginx:1.25".into(),
                ("docker.io", "library/nginx", Some("1.25"), false, false),
            ),
            (
                "Foo/bar".into(),
                ("Foo", "bar", Some("latest"), true, false),
            ),
            (
                format!("a/b:{long_tag}"),
                ("docker.io", "a/b", Some(long_tag.as_str()), false, false),
            ),
        ];
        for (text, (registry, repository, tag, implied, with_digest)) in &cases {
            let reference = read(text);
            assert_eq!(reference.registry(), *registry, "{text}");
            assert_eq!(reference.repository(), *repository, "{text}");
            assert_eq!(reference.tag(), *tag, "{text}");
            assert_eq!(reference.tag_implied(), *implied, "{text}");
            assert_eq!(reference.digest().is_some(), *with_digest, "{text}");
            assert_eq!(
                reference.to_string(),
                *text,
                "Display gives back what was written"
            );
        }
    }

    #[test]
    fn invalid_references_are_refused_naming_the_reference_and_why() {
        let long_name = format!("{}/{}", "a".repeat(125), "b".repeat(125));
        let cases: Vec<(String, &str)> = vec![
            (String::new(), "empty"),
            (":justtag".into(), "names no repository"),
            (format!("@sha256:{HEX}"), "names no repository"),
            (
                format!("repo@sha256:{}", &HEX[1..]),
                "63 hex digits, not 64",
            ),
            (format!("validname@invaliddigest:{HEX}"), "not supported"),
            (
                format!("repo@sha256:{}", HEX.to_uppercase()),
                "lowercase hexadecimal",
            ),
            ("repo@sha256".into(), "not algorithm:hex"),
            (HEX.into(), "image ID"),
            ("Uppercase:tag".into(), "must be lowercase"),
            (
                "test:5000/Uppercase/lowercase:tag".into(),
                "must be lowercase",
            ),
            ("foo_bar.com:8080/repo".into(), "not a registry host"),
            ("test:abc/repo".into(), "not a registry host"),
            ("-host.com/repo".into(), "not a registry host"),
            ("[fe80::1%eth0]:5000/repo".into(), "not a registry host"),
            ("a..b.com/repo".into(), "not a registry host"),
            ("-foo".into(), "not a repository path component"),
            ("foo/-bar".into(), "not a repository path component"),
            ("foo.com/a___b".into(), "not a repository path component"),
            ("foo.com/a._b".into(), "not a repository path component"),
            ("foo.com/repo/".into(), "empty component"),
            ("foo.com//repo".into(), "empty component"),
            ("repo:".into(), "the tag \"\""),
            ("repo:.tag".into(), "is not valid"),
            (format!("repo:{}", "t".repeat(129)), "is not valid"),
            ("repo:a b".into(), "is not valid"),
            (
                format!("example.com/{long_name}"),
                "263 characters, more than 255",
            ),
            ("a@b@c".into(), "not algorithm:hex"),
        ];
        for (text, why) in &cases {
            let error = ImageReference::parse(text)
                .expect_err(&format!("{text:?} must be refused"))
                .to_string();
            assert!(
                error.starts_with(&format!("{text:?} is not an image reference: ")),
                "{error}"
            );
            assert!(error.contains(why), "{text:?}: {error} (wanted {why:?})");
        }
    }

    #[test]
    fn a_pinned_reference_keeps_the_written_name_and_a_written_tag() {
        let digest = format!("sha256:{}", "a".repeat(64));
        assert_eq!(read("nginx").pinned(&digest), format!("nginx@{digest}"));
        assert_eq!(
            read("registry.example/shop/web:1.4.2").pinned(&digest),
            format!("registry.example/shop/web:1.4.2@{digest}")
        );
        assert_eq!(
            read(&format!("host:5000/a:1@sha256:{HEX}")).pinned(&digest),
            format!("host:5000/a:1@{digest}")
        );
        assert_eq!(
            read(&format!("host:5000/a@sha256:{HEX}")).pinned(&digest),
            format!("host:5000/a@{digest}")
        );
        let hub = read("nginx");
        assert_eq!(hub.api_host(), DOCKER_HUB_API);
        assert_eq!(hub.full_name(), "docker.io/library/nginx");
        assert_eq!(hub.tagged(), "nginx:latest");
        assert_eq!(read("localhost:5000/a").api_host(), "localhost:5000");
        assert_eq!(
            "registry.example/shop/web:1.4.2"
                .parse::<ImageReference>()
                .map(|r| r.tagged()),
            Ok("registry.example/shop/web:1.4.2".to_string())
        );
    }
}
