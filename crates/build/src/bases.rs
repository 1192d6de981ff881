//! Base images by logical name: a plan's Dockerfile says `FROM base/python:3.11` and the builder makes it the image
//! this machine has for it — one `deploy/base-images/build.sh` made from the Debian mirror (its `bases.json`), or,
//! without a catalogue, the public image of the same contents on Docker Hub.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The prefix of a logical base image's name.
pub const BASE_PREFIX: &str = "base/";

/// A logical base a catalogue has no image for: the builder's `base` step fails with this message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct UnknownBase {
    /// The name, and the versions of its family there are.
    pub message: String,
}

/// A catalogue that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BaseCatalogueError {
    /// The file could not be read.
    #[error("base image catalogue {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not a catalogue.
    #[error("base image catalogue {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Where the base images a plan names come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum BaseCatalogue {
    /// The public images of the same contents (`base/python:3.11` is `python:3.11-slim-bookworm`): for machines
    /// that reach Docker Hub and were given no catalogue.
    #[default]
    DockerHub,
    /// The images a base-image script made, by logical name (`base/python:3.11` → `localhost/weft-base/python:3.11`);
    /// a name it lacks is a failed `base` step.
    Local(BTreeMap<String, String>),
}

/// One entry of `bases.json`.
#[derive(Deserialize)]
struct Entry {
    image: String,
}

/// `bases.json` as `deploy/base-images/build.sh` writes it.
#[derive(Deserialize)]
struct File {
    bases: BTreeMap<String, Entry>,
}

impl BaseCatalogue {
    /// Reads a `bases.json`.
    pub fn load(path: &Path) -> Result<BaseCatalogue, BaseCatalogueError> {
        let text = std::fs::read_to_string(path).map_err(|source| BaseCatalogueError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let invalid = |message: String| BaseCatalogueError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let file: File = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        if let Some(name) = file.bases.keys().find(|name| !is_logical(name)) {
            return Err(invalid(format!(
                "{name:?} is not a logical base name (base/NAME:TAG)"
            )));
        }
        Ok(BaseCatalogue::Local(
            file.bases
                .into_iter()
                .map(|(name, entry)| (name, entry.image))
                .collect(),
        ))
    }

    /// The image a logical base name stands for, or `None` when this catalogue has none.
    pub fn image(&self, logical: &str) -> Option<String> {
        match self {
            BaseCatalogue::Local(bases) => bases.get(logical).cloned(),
            BaseCatalogue::DockerHub => docker_hub(logical),
        }
    }

    /// `dockerfile` with every logical base (`FROM base/...`, `COPY --from=base/...`; `RUN --mount=...from=base/...`
    /// is not rewritten) replaced by its image; a name the catalogue lacks is refused, naming what there is.
    pub fn resolve(&self, dockerfile: &str) -> Result<String, UnknownBase> {
        let mut out = String::with_capacity(dockerfile.len());
        for line in dockerfile.split_inclusive('\n') {
            out.push_str(&self.resolve_line(line)?);
        }
        Ok(out)
    }

    fn resolve_line(&self, line: &str) -> Result<String, UnknownBase> {
        let mut words = line.split_whitespace();
        let instruction = words.next().unwrap_or("");
        let named = if instruction.eq_ignore_ascii_case("FROM") {
            words.find(|word| !word.starts_with("--"))
        } else if instruction.eq_ignore_ascii_case("COPY") {
            words
                .take_while(|word| word.starts_with("--"))
                .find_map(|word| word.strip_prefix("--from="))
        } else {
            None
        };
        let Some(logical) = named.filter(|name| name.starts_with(BASE_PREFIX)) else {
            return Ok(line.to_string());
        };
        let Some(image) = self.image(logical) else {
            return Err(self.missing(logical));
        };
        // The name is a word of its own on the line: replace that word only.
        let at = line
            .match_indices(logical)
            .find(|(at, _)| {
                let before = line[..*at].chars().next_back();
                let after = line[at + logical.len()..].chars().next();
                matches!(before, Some(' ' | '\t' | '=')) && after.is_none_or(char::is_whitespace)
            })
            .map_or(0, |(at, _)| at);
        Ok(format!(
            "{}{image}{}",
            &line[..at],
            &line[at + logical.len()..]
        ))
    }

    fn missing(&self, logical: &str) -> UnknownBase {
        let message = match self {
            BaseCatalogue::Local(bases) => {
                let family = logical.split(':').next().unwrap_or(logical);
                let same: Vec<&str> = bases
                    .keys()
                    .filter(|name| name.split(':').next() == Some(family))
                    .map(String::as_str)
                    .collect();
                let all: Vec<&str> = bases.keys().map(String::as_str).collect();
                if same.is_empty() {
                    format!(
                        "base image {logical} is not among this machine's bases ({}); add it to the base-image \
                         script or set the override base-image",
                        all.join(", ")
                    )
                } else {
                    format!(
                        "base image {logical} is not among this machine's bases; {family} is there as {}: pin \
                         that version, add {logical} to the base-image script, or set the override base-image",
                        same.join(", ")
                    )
                }
            }
            BaseCatalogue::DockerHub => format!(
                "base image {logical} has no public image here (known: debian, static, cc, caddy, python, \
                 python-build, node, node-build, go-build, rust-build); configure [build] bases"
            ),
        };
        UnknownBase { message }
    }
}

/// Whether `name` is a logical base name: `base/NAME:TAG`.
fn is_logical(name: &str) -> bool {
    name.strip_prefix(BASE_PREFIX)
        .and_then(|rest| rest.split_once(':'))
        .is_some_and(|(family, tag)| {
            !family.is_empty()
                && !tag.is_empty()
                && family
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && tag
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        })
}

/// The public image with the contents a logical base stands for.
fn docker_hub(logical: &str) -> Option<String> {
    if !is_logical(logical) {
        return None;
    }
    let (family, tag) = logical[BASE_PREFIX.len()..].split_once(':')?;
    Some(match family {
        "debian" => format!("docker.io/library/debian:{tag}-slim"),
        "static" => "gcr.io/distroless/static-debian12:nonroot".to_string(),
        "cc" => "gcr.io/distroless/cc-debian12:nonroot".to_string(),
        "caddy" => format!("docker.io/library/caddy:{tag}"),
        "rust-build" if tag == "nightly" => "docker.io/rustlang/rust:nightly-bookworm".to_string(),
        "python" => format!("docker.io/library/python:{tag}-slim-bookworm"),
        "python-build" => format!("docker.io/library/python:{tag}-bookworm"),
        "node" => format!("docker.io/library/node:{tag}-bookworm-slim"),
        "node-build" => format!("docker.io/library/node:{tag}-bookworm"),
        "go-build" => format!("docker.io/library/golang:{tag}-bookworm"),
        "rust-build" => format!("docker.io/library/rust:{tag}-bookworm"),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> BaseCatalogue {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bases.json");
        std::fs::write(
            &path,
            r#"{"key": "k", "bases": {
                "base/debian:bookworm": {"image": "localhost/weft-base/debian:bookworm", "id": "sha256:1"},
                "base/python:3.11": {"image": "localhost/weft-base/python:3.11", "id": "sha256:2"},
                "base/python-build:3.11": {"image": "localhost/weft-base/python-build:3.11", "id": "sha256:3"}
            }}"#,
        )
        .unwrap();
        BaseCatalogue::load(&path).unwrap()
    }

    #[test]
    fn logical_bases_become_the_machines_images_and_nothing_else_changes() {
        let dockerfile = "# syntax=docker/dockerfile:1\nFROM base/python-build:3.11 AS deps\n\
                          RUN echo base/python:3.11\nfrom --platform=linux/amd64 base/python:3.11\n\
                          COPY --from=deps --chown=10001 /app/.venv /app/.venv\n\
                          COPY --from=base/debian:bookworm /etc/passwd /etc/passwd\nFROM scratch\n";
        assert_eq!(
            local().resolve(dockerfile).unwrap(),
            "# syntax=docker/dockerfile:1\nFROM localhost/weft-base/python-build:3.11 AS deps\n\
             RUN echo base/python:3.11\nfrom --platform=linux/amd64 localhost/weft-base/python:3.11\n\
             COPY --from=deps --chown=10001 /app/.venv /app/.venv\n\
             COPY --from=localhost/weft-base/debian:bookworm /etc/passwd /etc/passwd\nFROM scratch\n"
        );
        // Without a catalogue, the same contents from Docker Hub.
        assert_eq!(
            BaseCatalogue::DockerHub
                .resolve("FROM base/python:3.12\nFROM base/static:bookworm\n")
                .unwrap(),
            "FROM docker.io/library/python:3.12-slim-bookworm\nFROM gcr.io/distroless/static-debian12:nonroot\n"
        );
    }

    #[test]
    fn a_base_the_machine_lacks_fails_the_base_step_naming_what_there_is() {
        let failure = local().resolve("FROM base/python:3.12\n").unwrap_err();
        assert!(
            failure.message.contains("base/python:3.12")
                && failure
                    .message
                    .contains("python is there as base/python:3.11"),
            "{}",
            failure.message
        );
        let failure = local().resolve("FROM base/ruby:3.3\n").unwrap_err();
        assert!(
            failure
                .message
                .contains("base/debian:bookworm, base/python-build:3.11, base/python:3.11"),
            "{}",
            failure.message
        );
        let failure = BaseCatalogue::DockerHub
            .resolve("FROM base/ruby:3.3\n")
            .unwrap_err();
        assert!(
            failure.message.contains("[build] bases"),
            "{}",
            failure.message
        );
    }

    #[test]
    fn a_catalogue_that_is_not_one_is_refused_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bases.json");
        std::fs::write(&path, r#"{"bases": {"python": {"image": "x"}}}"#).unwrap();
        let error = BaseCatalogue::load(&path).unwrap_err().to_string();
        assert!(
            error.contains("\"python\" is not a logical base name"),
            "{error}"
        );
        std::fs::write(&path, "[]").unwrap();
        assert!(BaseCatalogue::load(&path).is_err());
        assert!(matches!(
            BaseCatalogue::load(&dir.path().join("missing.json")),
            Err(BaseCatalogueError::Read { .. })
        ));
    }
}
