//! Image references (registry, repository, tag, digest) as the `allowed_registries` patterns and `no-latest` see
//! them, and those patterns.
//!
//! References are read by the SDK's [`weft_sdk::image::ImageReference`], the Docker/OCI reference grammar the host
//! reads them with too (`nginx` is `docker.io/library/nginx`, `bitnami/redis` is `docker.io/bitnami/redis`,
//! `index.docker.io` is `docker.io`). On top of it, hosts compare without case here: a registry is lowercased, so
//! `Index.Docker.IO/nginx` is Docker Hub's `library/nginx` as well.

use weft_sdk::image::{self, DOCKER_HUB, LEGACY_DOCKER_HUB};

/// A parsed image reference, its registry case-folded for matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRef {
    /// The registry host, lower case, with its port if any (`docker.io`, `localhost:5000`).
    pub registry: String,
    /// The repository path within the registry (`library/nginx`, `acme/web`).
    pub repository: String,
    /// The tag, when the reference names one (never an implied `latest`).
    pub tag: Option<String>,
    /// The digest (`sha256:…`), when the reference names one.
    pub digest: Option<String>,
}

impl ImageRef {
    /// Parses `reference`; the error says what is wrong with it.
    pub fn parse(reference: &str) -> Result<ImageRef, String> {
        let parsed = image::ImageReference::parse(reference).map_err(|e| e.to_string())?;
        let registry = normalise_host(parsed.registry());
        // A Docker Hub host written in another case is Docker Hub's too, official images under `library/`.
        let repository = if registry == DOCKER_HUB && !parsed.repository().contains('/') {
            format!("library/{}", parsed.repository())
        } else {
            parsed.repository().to_string()
        };
        Ok(ImageRef {
            registry,
            repository,
            tag: parsed.written_tag().map(str::to_string),
            digest: parsed.digest().map(str::to_string),
        })
    }

    /// `registry/repository`, fully qualified (`docker.io/library/nginx`).
    pub fn name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }
}

fn normalise_host(host: &str) -> String {
    let host = host.to_ascii_lowercase();
    if host == LEGACY_DOCKER_HUB {
        DOCKER_HUB.to_string()
    } else {
        host
    }
}

/// One `allowed_registries` entry: a registry host, or a host and a path prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryPattern {
    /// The host, normalised as image hosts are.
    host: String,
    /// The repository prefix under the host, when the entry has one.
    path: Option<String>,
}

impl RegistryPattern {
    /// Reads an entry (`registry.example.com`, `localhost:5000`, `ghcr.io/acme`, `docker.io/library`); a trailing
    /// `/` is ignored. The first component is always the host: an entry names a registry, not an image.
    pub fn parse(entry: &str) -> Result<RegistryPattern, String> {
        let entry = entry.trim().trim_end_matches('/');
        if entry.is_empty() {
            return Err("it is empty".to_string());
        }
        if entry.contains("://") {
            return Err("write the registry host without a scheme".to_string());
        }
        if entry
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '@')
        {
            return Err("a registry entry has no whitespace or digest".to_string());
        }
        let (host, path) = match entry.split_once('/') {
            Some((host, path)) => (host, Some(path)),
            None => (entry, None),
        };
        if host.is_empty() {
            return Err("it has no host".to_string());
        }
        image::check_registry(host).map_err(|e| e.to_string())?;
        if let Some(path) = path {
            if path.contains(':') {
                return Err("a registry entry has no tag".to_string());
            }
            image::check_repository(path).map_err(|e| e.to_string())?;
        }
        Ok(RegistryPattern {
            host: normalise_host(host),
            path: path.map(str::to_string),
        })
    }

    /// Whether `image` comes from this registry (and lies under its path, at a `/` boundary).
    pub fn matches(&self, image: &ImageRef) -> bool {
        if image.registry != self.host {
            return false;
        }
        match &self.path {
            None => true,
            Some(path) => {
                image.repository == *path
                    || image
                        .repository
                        .strip_prefix(path.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(reference: &str) -> ImageRef {
        ImageRef::parse(reference).unwrap()
    }

    const SHA: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_bare_name_is_an_official_docker_hub_image() {
        let image = parse("nginx");
        assert_eq!(image.name(), "docker.io/library/nginx");
        assert_eq!((image.tag, image.digest), (None, None));
    }

    #[test]
    fn docker_hub_names_normalise_to_one_form() {
        for reference in [
            "nginx:1.25",
            "library/nginx:1.25",
            "docker.io/nginx:1.25",
            "docker.io/library/nginx:1.25",
            "index.docker.io/library/nginx:1.25",
            "Index.Docker.IO/nginx:1.25",
        ] {
            let image = parse(reference);
            assert_eq!(image.name(), "docker.io/library/nginx", "{reference}");
            assert_eq!(image.tag.as_deref(), Some("1.25"), "{reference}");
        }
        assert_eq!(parse("bitnami/redis").name(), "docker.io/bitnami/redis");
    }

    #[test]
    fn a_first_component_with_a_dot_port_or_localhost_is_the_registry() {
        let image = parse("ghcr.io/acme/web:v2");
        assert_eq!(
            (image.registry.as_str(), image.repository.as_str()),
            ("ghcr.io", "acme/web")
        );
        let image = parse("localhost:5000/web");
        assert_eq!(
            (image.registry.as_str(), image.tag),
            ("localhost:5000", None)
        );
        assert_eq!(parse("localhost/web").registry, "localhost");
    }

    #[test]
    fn a_tag_and_a_digest_are_both_kept() {
        let image = parse(&format!("registry.example.com:443/team/app:1.0@{SHA}"));
        assert_eq!(image.registry, "registry.example.com:443");
        assert_eq!(image.repository, "team/app");
        assert_eq!(image.tag.as_deref(), Some("1.0"));
        assert_eq!(image.digest.as_deref(), Some(SHA));
        assert_eq!(parse(&format!("nginx@{SHA}")).tag, None);
    }

    #[test]
    fn malformed_references_say_what_is_wrong() {
        for (reference, says) in [
            ("", "empty"),
            ("nginx:", "tag"),
            ("nginx:-x", "tag"),
            ("Nginx", "lowercase"),
            ("ghcr.io//web", "empty component"),
            ("nginx@sha256:abc", "digest"),
            ("nginx@latest", "digest"),
            ("my image", "not a repository path component"),
            (":1.0", "names no repository"),
        ] {
            let error = ImageRef::parse(reference).unwrap_err();
            assert!(error.contains(says), "{reference:?}: {error}");
        }
    }

    #[test]
    fn a_registry_entry_matches_its_host_only() {
        let host = RegistryPattern::parse("registry.example.com").unwrap();
        assert!(host.matches(&parse("registry.example.com/team/app:1")));
        assert!(host.matches(&parse("REGISTRY.example.com/app")));
        assert!(!host.matches(&parse("registry.example.com.evil.io/app")));
        assert!(!host.matches(&parse("evil.io/registry.example.com/app")));
    }

    #[test]
    fn a_registry_path_prefix_matches_at_a_slash_boundary() {
        let acme = RegistryPattern::parse("ghcr.io/acme/").unwrap();
        assert!(acme.matches(&parse("ghcr.io/acme/web:1")));
        assert!(acme.matches(&parse("ghcr.io/acme/team/web")));
        assert!(acme.matches(&parse("ghcr.io/acme")));
        assert!(!acme.matches(&parse("ghcr.io/acmecorp/web")));
        assert!(!acme.matches(&parse("ghcr.io/other/acme")));
    }

    #[test]
    fn docker_hub_entries_match_normalised_images() {
        let hub = RegistryPattern::parse("index.docker.io").unwrap();
        assert!(hub.matches(&parse("nginx")));
        assert!(hub.matches(&parse("docker.io/bitnami/redis")));
        let official = RegistryPattern::parse("docker.io/library").unwrap();
        assert!(official.matches(&parse("nginx:1.25")));
        assert!(!official.matches(&parse("bitnami/redis")));
    }

    #[test]
    fn malformed_registry_entries_are_refused() {
        for entry in [
            "",
            "/",
            "https://ghcr.io",
            "ghcr.io/acme:1",
            "ghcr.io/Acme",
            "ghcr.io/a b",
            "/acme",
        ] {
            assert!(RegistryPattern::parse(entry).is_err(), "{entry:?}");
        }
    }
}
