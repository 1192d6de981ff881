//! An app's `[app.build]` table: which steerer plans its image, which builder builds it, what the plan may not
//! change, and which render parameter receives the image.
//!
//! ```toml
//! [[app]]
//! name = "shop"
//! type = "helm"
//! namespace = "shop"
//! source = { repo = "https://git.example/shop.git", path = "." }
//!
//! [app.build]
//! builder = "buildkit"              # buildkit (default), podman, buildah or command
//! image = "registry.example/shop"   # where the image is pushed (the command backend needs none)
//! max_attempts = 3                  # builds per deploy, steering in between
//! overrides = { base-image = "node:20-slim", "env.NODE_ENV" = "production" }
//! image_parameter = "set:image"     # the render parameter that receives `name@sha256:...`
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::builder::Builder;
use super::buildkit::BuildkitBuilder;
use super::command::CommandBuilder;
use super::podman::PodmanBuilder;
use super::steering::DEFAULT_MAX_ATTEMPTS;

/// The most attempts an app may ask for.
pub const MAX_ATTEMPTS_LIMIT: u32 = 10;

/// The app type of the built-in steerer, used when `steer` is not set.
pub const DEFAULT_STEER_TYPE: &str = "build";

/// The builder backends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BuilderKind {
    /// BuildKit through `buildctl`.
    #[default]
    Buildkit,
    /// `podman build` and `podman push`.
    Podman,
    /// `buildah build` and `buildah push`.
    Buildah,
    /// The plan's commands in a scratch directory, no container (tests, local tries).
    Command,
}

impl BuilderKind {
    /// The backend, with its defaults.
    pub fn builder(self) -> Box<dyn Builder> {
        match self {
            BuilderKind::Buildkit => Box::new(BuildkitBuilder::default()),
            BuilderKind::Podman => Box::new(PodmanBuilder::default()),
            BuilderKind::Buildah => Box::new(PodmanBuilder {
                program: "buildah".into(),
                ..PodmanBuilder::default()
            }),
            BuilderKind::Command => Box::new(CommandBuilder::default()),
        }
    }

    /// Whether the backend pushes to a registry (and so needs an image name).
    pub fn pushes(self) -> bool {
        self != BuilderKind::Command
    }
}

/// An app's build settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildSpec {
    /// The app type whose `build-steer` plugin plans the build.
    #[serde(default = "default_steer")]
    pub steer: String,
    /// The builder backend.
    #[serde(default)]
    pub builder: BuilderKind,
    /// The image's name, without tag or digest; `local/<app>` for the command backend when unset.
    #[serde(default)]
    pub image: Option<String>,
    /// At most this many builds per deploy (1 to 10).
    #[serde(default = "default_max_attempts")]
    pub max_attempts: u32,
    /// Parts of the plan the steerer must keep as given (`base-image`, `start`, `port`, `env.NAME`, ...).
    #[serde(default)]
    pub overrides: BTreeMap<String, String>,
    /// The render parameter that receives the image reference: `NAME` (the parameter is the reference) or
    /// `NAME:KEY` (the parameter is `KEY=<reference>`, as Helm's `set` takes it). Default: `set:image` for Helm,
    /// `extVar.image` for Jsonnet, else `image`.
    #[serde(default)]
    pub image_parameter: Option<String>,
}

fn default_steer() -> String {
    DEFAULT_STEER_TYPE.to_string()
}

fn default_max_attempts() -> u32 {
    DEFAULT_MAX_ATTEMPTS
}

impl BuildSpec {
    /// Checks every setting that can be checked without I/O; the error names the key (under `build.`).
    pub fn validate(&self) -> Result<(), (String, String)> {
        let error = |key: &str, message: String| Err((format!("build.{key}"), message));
        if self.steer.trim().is_empty() {
            return error("steer", "must name an app type".into());
        }
        if !(1..=MAX_ATTEMPTS_LIMIT).contains(&self.max_attempts) {
            return error(
                "max_attempts",
                format!(
                    "{} is not between 1 and {MAX_ATTEMPTS_LIMIT}",
                    self.max_attempts
                ),
            );
        }
        match &self.image {
            Some(image) if !is_image_name(image) => {
                return error(
                    "image",
                    format!(
                        "{image:?} is not an image name (registry/path, lowercase, without a tag or digest)"
                    ),
                );
            }
            None if self.builder.pushes() => {
                return error(
                    "image",
                    "the buildkit, podman and buildah builders push the image: name it".into(),
                );
            }
            _ => {}
        }
        for (key, value) in &self.overrides {
            weft_sdk::steer::check_override(key, value)
                .or_else(|message| error(&format!("overrides.{key}"), message))?;
        }
        if let Some(parameter) = &self.image_parameter {
            let (name, key) = parameter
                .split_once(':')
                .map_or((parameter.as_str(), None), |(n, k)| (n, Some(k)));
            if name.trim().is_empty() || key.is_some_and(|k| k.trim().is_empty()) {
                return error(
                    "image_parameter",
                    format!("{parameter:?}: write NAME or NAME:KEY"),
                );
            }
        }
        Ok(())
    }

    /// The image's name for `app`.
    pub fn image_name(&self, app: &str) -> String {
        self.image.clone().unwrap_or_else(|| format!("local/{app}"))
    }

    /// The overrides as the steerer gets them.
    pub fn overrides(&self) -> Vec<(String, String)> {
        self.overrides
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// The render parameter that carries `reference` to an app of `app_type`.
    pub fn image_parameter(&self, app_type: &str, reference: &str) -> (String, String) {
        let configured = self.image_parameter.as_deref().unwrap_or(match app_type {
            "helm" => "set:image",
            "jsonnet" => "extVar.image",
            _ => "image",
        });
        match configured.split_once(':') {
            Some((name, key)) => (name.to_string(), format!("{key}={reference}")),
            None => (configured.to_string(), reference.to_string()),
        }
    }
}

/// `registry:5000/team/app`: lowercase path components, an optional registry host with a port, no tag or digest.
fn is_image_name(image: &str) -> bool {
    let mut parts = image.split('/').peekable();
    let mut first = true;
    while let Some(part) = parts.next() {
        let is_registry =
            first && parts.peek().is_some() && (part.contains(['.', ':']) || part == "localhost");
        first = false;
        let valid = !part.is_empty()
            && if is_registry {
                part.chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-:".contains(c))
            } else {
                part.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c))
            };
        if !valid {
            return false;
        }
    }
    !image.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> BuildSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn defaults_and_image_parameters() {
        let build = spec("builder = \"command\"");
        build.validate().unwrap();
        assert_eq!(build.steer, "build");
        assert_eq!(build.max_attempts, 3);
        assert_eq!(build.image_name("shop"), "local/shop");
        assert_eq!(
            build.image_parameter("helm", "reg/shop@sha256:ab"),
            ("set".to_string(), "image=reg/shop@sha256:ab".to_string())
        );
        assert_eq!(
            build.image_parameter("jsonnet", "x"),
            ("extVar.image".to_string(), "x".to_string())
        );
        assert_eq!(
            build.image_parameter("yaml", "x"),
            ("image".to_string(), "x".to_string())
        );
        let custom = spec("builder = \"command\"\nimage_parameter = \"set:web.image\"");
        assert_eq!(
            custom.image_parameter("yaml", "x").1,
            "web.image=x".to_string()
        );
    }

    #[test]
    fn bad_settings_name_their_key() {
        let key = |text: &str| spec(text).validate().unwrap_err().0;
        assert_eq!(key("builder = \"buildkit\""), "build.image");
        assert_eq!(
            key("builder = \"command\"\nmax_attempts = 0"),
            "build.max_attempts"
        );
        assert_eq!(
            key("builder = \"command\"\nmax_attempts = 11"),
            "build.max_attempts"
        );
        assert_eq!(key("image = \"Reg/Shop:1.0\""), "build.image");
        assert_eq!(
            key("builder = \"command\"\noverrides = { port = \"http\" }"),
            "build.overrides.port"
        );
        assert_eq!(
            key("builder = \"command\"\noverrides = { baseimage = \"x\" }"),
            "build.overrides.baseimage"
        );
        assert_eq!(
            key("builder = \"command\"\nimage_parameter = \"set:\""),
            "build.image_parameter"
        );
        assert!(toml::from_str::<BuildSpec>("builder = \"docker\"").is_err());
        assert!(toml::from_str::<BuildSpec>("imagee = \"x\"").is_err());
        spec("image = \"registry.example:5000/team/shop\"")
            .validate()
            .unwrap();
        spec("image = \"localhost/shop\"\nbuilder = \"podman\"")
            .validate()
            .unwrap();
    }
}
