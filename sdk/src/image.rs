//! Container image references read as Docker and containerd read them, one implementation for the host and its
//! plugins: the grammar of the CNCF distribution project's `reference` package with Docker Hub's normalisation
//! (`nginx` is `docker.io/library/nginx:latest`).
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
//! one-component Docker Hub name is under `library/`. `index.docker.io` is Docker Hub's old name. Registry names
//! are kept as written otherwise (Docker compares them exactly).
//!
//! Pure and allocation-light; it builds for Wasm like the rest of the SDK.
//!
//! ```
//! use weft_sdk::image::ImageReference;
//!
//! let nginx = ImageReference::parse("nginx").unwrap();
//! assert_eq!(nginx.full_name(), "docker.io/library/nginx");
//! assert_eq!((nginx.tag(), nginx.tag_implied()), (Some("latest"), true));
//!
//! let error = ImageReference::parse("shop/Web:1").unwrap_err();
//! assert_eq!(error.to_string(), "the repository name \"shop/Web\" must be lowercase");
//! ```

use std::fmt;
use std::str::FromStr;

/// Docker Hub's registry name, as references are normalised to it.
pub const DOCKER_HUB: &str = "docker.io";
/// The host Docker Hub's distribution API answers on.
pub const DOCKER_HUB_API: &str = "registry-1.docker.io";
/// Docker Hub's old name, read as [`DOCKER_HUB`].
pub const LEGACY_DOCKER_HUB: &str = "index.docker.io";
/// The tag implied when a reference names neither a tag nor a digest.
pub const DEFAULT_TAG: &str = "latest";
/// The longest name (`registry/repository`, normalised) Docker accepts.
pub const NAME_MAX: usize = 255;
/// The longest tag.
pub const TAG_MAX: usize = 128;

/// Why a text is not an image reference. It displays what is wrong ("it is empty", "the tag \"\" is not valid
/// …"), to be said after the reference it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReferenceError {
    /// The text is empty.
    Empty,
    /// The text is 64 lowercase hexadecimal digits: an image ID, which Docker refuses as a name.
    ImageId,
    /// Nothing comes before the tag or digest.
    NoRepository,
    /// The digest is not `algorithm:hex`.
    DigestForm {
        /// The digest as written.
        digest: String,
    },
    /// The digest's algorithm is not sha256, sha384 or sha512.
    DigestAlgorithm {
        /// The algorithm as written.
        algorithm: String,
    },
    /// The digest has the wrong number of hexadecimal digits for its algorithm.
    DigestLength {
        /// The algorithm.
        algorithm: String,
        /// How many digits it has.
        digits: usize,
        /// How many the algorithm has.
        expected: usize,
    },
    /// The digest is not lowercase hexadecimal.
    DigestHex {
        /// The algorithm.
        algorithm: String,
    },
    /// The tag is empty, too long, or has a character a tag may not.
    Tag {
        /// The tag as written.
        tag: String,
    },
    /// The repository would be valid in lowercase.
    Uppercase {
        /// The repository, normalised (`library/Nginx`).
        repository: String,
    },
    /// The registry is not `host[:port]`.
    Registry {
        /// The registry as written.
        registry: String,
    },
    /// A repository path component is empty (`a//b`, `a/`).
    EmptyComponent,
    /// A repository path component is not lowercase letters and digits joined by separators.
    Component {
        /// The component as written.
        component: String,
    },
    /// The normalised name is longer than [`NAME_MAX`].
    TooLong {
        /// Its length.
        length: usize,
    },
}

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReferenceError::Empty => f.write_str("it is empty"),
            ReferenceError::ImageId => f.write_str(
                "a 64-character hexadecimal string is an image ID, not a repository name",
            ),
            ReferenceError::NoRepository => f.write_str("it names no repository"),
            ReferenceError::DigestForm { digest } => write!(
                f,
                "the digest {digest:?} is not algorithm:hex (sha256:<64 hex digits>)"
            ),
            ReferenceError::DigestAlgorithm { algorithm } => write!(
                f,
                "the digest algorithm {algorithm:?} is not supported (sha256, sha384, sha512)"
            ),
            ReferenceError::DigestLength {
                algorithm,
                digits,
                expected,
            } => write!(
                f,
                "the {algorithm} digest has {digits} hex digits, not {expected}"
            ),
            ReferenceError::DigestHex { algorithm } => {
                write!(f, "the {algorithm} digest must be lowercase hexadecimal")
            }
            ReferenceError::Tag { tag } => write!(
                f,
                "the tag {tag:?} is not valid (1 to {TAG_MAX} letters, digits, '_', '.' or '-', not starting \
                 with '.' or '-')"
            ),
            ReferenceError::Uppercase { repository } => {
                write!(f, "the repository name {repository:?} must be lowercase")
            }
            ReferenceError::Registry { registry } => write!(
                f,
                "{registry:?} is not a registry host (host names, IPv4 or [IPv6] addresses, with an optional \
                 :port)"
            ),
            ReferenceError::EmptyComponent => {
                f.write_str("the repository path has an empty component")
            }
            ReferenceError::Component { component } => write!(
                f,
                "{component:?} is not a repository path component (lowercase letters and digits, separated by \
                 one '.', one or two '_', or '-'s)"
            ),
            ReferenceError::TooLong { length } => write!(
                f,
                "the repository name is {length} characters, more than {NAME_MAX}"
            ),
        }
    }
}

impl std::error::Error for ReferenceError {}

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
    /// Reads `text` as Docker does.
    pub fn parse(text: &str) -> Result<ImageReference, ReferenceError> {
        if text.is_empty() {
            return Err(ReferenceError::Empty);
        }
        if text.len() == 64 && lowercase_hex(text) {
            return Err(ReferenceError::ImageId);
        }
        let (rest, digest) = match text.split_once('@') {
            Some((rest, digest)) => (rest, Some(digest)),
            None => (text, None),
        };
        if let Some(digest) = digest {
            check_digest(digest)?;
        }
        let (name, tag) = split_tag(rest);
        if name.is_empty() {
            return Err(ReferenceError::NoRepository);
        }
        if let Some(tag) = tag {
            check_tag(tag)?;
        }
        let (registry, repository) = split_registry(name);
        check_lowercase(&repository)?;
        if registry != DOCKER_HUB {
            check_registry(&registry)?;
        }
        check_components(&repository)?;
        let length = registry.len() + 1 + repository.len();
        if length > NAME_MAX {
            return Err(ReferenceError::TooLong { length });
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

    /// The tag as written, if one was (never the implied [`DEFAULT_TAG`]).
    pub fn written_tag(&self) -> Option<&str> {
        if self.tag_implied {
            None
        } else {
            self.tag.as_deref()
        }
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
        match self.written_tag() {
            Some(tag) => format!("{}:{tag}@{digest}", self.written_name),
            None => format!("{}@{digest}", self.written_name),
        }
    }
}

impl fmt::Display for ImageReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

impl FromStr for ImageReference {
    type Err = ReferenceError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ImageReference::parse(text)
    }
}

/// Checks that `registry` is `host[:port]` as a reference's domain must be: DNS labels of letters, digits and
/// inner hyphens (any case), an IPv4 address or a bracketed IPv6 address, with an optional numeric port.
pub fn check_registry(registry: &str) -> Result<(), ReferenceError> {
    if domain(registry) {
        Ok(())
    } else {
        Err(ReferenceError::Registry {
            registry: registry.to_string(),
        })
    }
}

/// Checks that `repository` is a repository path (`library/nginx`, `shop/web`): `/`-separated components of
/// lowercase letters and digits joined by `.`, `_`, `__` or `-`s. Says [`ReferenceError::Uppercase`] when only
/// case is wrong.
pub fn check_repository(repository: &str) -> Result<(), ReferenceError> {
    check_lowercase(repository)?;
    check_components(repository)
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

/// Refuses a repository with uppercase letters that would be valid in lowercase (other mistakes are left to
/// [`check_components`], which names the component).
fn check_lowercase(repository: &str) -> Result<(), ReferenceError> {
    if repository.to_ascii_lowercase() != repository
        && repository
            .split('/')
            .all(|c| component(&c.to_ascii_lowercase()))
    {
        Err(ReferenceError::Uppercase {
            repository: repository.to_string(),
        })
    } else {
        Ok(())
    }
}

fn check_components(repository: &str) -> Result<(), ReferenceError> {
    match repository.split('/').find(|c| !component(c)) {
        None => Ok(()),
        Some("") => Err(ReferenceError::EmptyComponent),
        Some(bad) => Err(ReferenceError::Component {
            component: bad.to_string(),
        }),
    }
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

fn lowercase_hex(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn check_tag(tag: &str) -> Result<(), ReferenceError> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = tag.as_bytes();
    let valid = !b.is_empty()
        && b.len() <= TAG_MAX
        && word(b[0])
        && b.iter().all(|c| word(*c) || *c == b'.' || *c == b'-');
    if valid {
        Ok(())
    } else {
        Err(ReferenceError::Tag {
            tag: tag.to_string(),
        })
    }
}

fn check_digest(digest: &str) -> Result<(), ReferenceError> {
    let Some((algorithm, hex)) = digest.split_once(':') else {
        return Err(ReferenceError::DigestForm {
            digest: digest.to_string(),
        });
    };
    let expected = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => {
            return Err(ReferenceError::DigestAlgorithm {
                algorithm: algorithm.to_string(),
            });
        }
    };
    if hex.len() != expected {
        return Err(ReferenceError::DigestLength {
            algorithm: algorithm.to_string(),
            digits: hex.len(),
            expected,
        });
    }
    if !lowercase_hex(hex) {
        return Err(ReferenceError::DigestHex {
            algorithm: algorithm.to_string(),
        });
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
            assert_eq!(reference.written_tag(), tag.filter(|_| !implied), "{text}");
            assert_eq!(reference.digest().is_some(), *with_digest, "{text}");
            assert_eq!(
                reference.to_string(),
                *text,
                "Display gives back what was written"
            );
        }
    }

    #[test]
    fn invalid_references_are_refused_saying_why() {
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
            assert!(error.contains(why), "{text:?}: {error} (wanted {why:?})");
            assert_eq!(
                text.parse::<ImageReference>().map_err(|e| e.to_string()),
                Err(error),
                "FromStr reads as parse does"
            );
        }
    }

    #[test]
    fn an_error_says_which_part_is_wrong() {
        assert_eq!(
            ImageReference::parse("repo:-x"),
            Err(ReferenceError::Tag { tag: "-x".into() })
        );
        assert_eq!(
            ImageReference::parse("Nginx"),
            Err(ReferenceError::Uppercase {
                repository: "library/Nginx".into()
            })
        );
        assert_eq!(
            ImageReference::parse("repo@sha384:ab"),
            Err(ReferenceError::DigestLength {
                algorithm: "sha384".into(),
                digits: 2,
                expected: 96
            })
        );
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

    #[test]
    fn registries_and_repository_paths_are_checked_on_their_own() {
        for registry in [
            "ghcr.io",
            "localhost:5000",
            "REGISTRY.example.com",
            "[::1]:5000",
        ] {
            assert_eq!(check_registry(registry), Ok(()), "{registry}");
        }
        for registry in ["", "ghcr_io", "host:port", "-a.com", "a..b"] {
            assert!(check_registry(registry).is_err(), "{registry:?}");
        }
        assert_eq!(check_repository("acme/web-app"), Ok(()));
        assert_eq!(
            check_repository("Acme"),
            Err(ReferenceError::Uppercase {
                repository: "Acme".into()
            })
        );
        assert_eq!(
            check_repository("acme//web"),
            Err(ReferenceError::EmptyComponent)
        );
        assert_eq!(
            check_repository("a b"),
            Err(ReferenceError::Component {
                component: "a b".into()
            })
        );
    }
}
