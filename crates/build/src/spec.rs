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
//! builder = "buildah"               # auto (default), buildkit, buildah, podman or command
//! image = "registry.example/shop"   # where the image is pushed (the command backend needs none)
//! max_attempts = 3                  # builds per deploy, steering in between
//! overrides = { base-image = "node:20-slim", "env.NODE_ENV" = "production" }
//! image_parameter = "set:image"     # the render parameter that receives `name@sha256:...`
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::bases::BaseCatalogue;
use super::builder::Builder;
use super::buildkit::BuildkitBuilder;
use super::command::CommandBuilder;
use super::podman::PodmanBuilder;
use super::process::find_program;
use super::steering::DEFAULT_MAX_ATTEMPTS;

/// The most attempts an app may ask for.
pub const MAX_ATTEMPTS_LIMIT: u32 = 10;

/// The app type of the built-in steerer, used when `steer` is not set.
pub const DEFAULT_STEER_TYPE: &str = "build";

/// The builder backends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BuilderKind {
    /// The first this machine has: BuildKit when `buildctl` is on PATH and `BUILDKIT_HOST` names its daemon, else
    /// Buildah, else Podman (Buildah, saying it is missing, when there is none).
    #[default]
    Auto,
    /// BuildKit through `buildctl`.
    Buildkit,
    /// `podman build` and `podman push`.
    Podman,
    /// `buildah build` and `buildah push`, with chroot isolation.
    Buildah,
    /// The plan's commands in a scratch directory, no container (tests, local tries).
    Command,
}

/// What the operator sets for every build (`[build]` in weft.toml).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuilderSettings {
    /// The images a plan's logical bases (`FROM base/python:3.11`) stand for.
    pub bases: BaseCatalogue,
}

impl BuilderKind {
    /// The backend, with its defaults and the operator's `settings`; `Auto` is resolved on this machine.
    pub fn builder(self, settings: &BuilderSettings) -> Box<dyn Builder> {
        match self.on_this_machine() {
            BuilderKind::Buildkit => Box::new(BuildkitBuilder {
                bases: settings.bases.clone(),
                ..BuildkitBuilder::default()
            }),
            BuilderKind::Podman => Box::new(PodmanBuilder {
                bases: settings.bases.clone(),
                ..PodmanBuilder::podman()
            }),
            BuilderKind::Auto | BuilderKind::Buildah => Box::new(PodmanBuilder {
                bases: settings.bases.clone(),
                ..PodmanBuilder::buildah()
            }),
            BuilderKind::Command => Box::new(CommandBuilder::default()),
        }
    }

    /// What `Auto` stands for on this machine (its PATH and `BUILDKIT_HOST`); any other kind is itself.
    pub fn on_this_machine(self) -> BuilderKind {
        let buildkit_host = std::env::var_os("BUILDKIT_HOST").is_some_and(|host| !host.is_empty());
        self.resolved(|program| find_program(program).is_some(), buildkit_host)
    }

    /// What `Auto` stands for where `found` says which programs are on PATH and `buildkit_host` whether
    /// `BUILDKIT_HOST` is set; any other kind is itself.
    pub fn resolved(self, found: impl Fn(&str) -> bool, buildkit_host: bool) -> BuilderKind {
        if self != BuilderKind::Auto {
            return self;
        }
        if buildkit_host && found("buildctl") {
            BuilderKind::Buildkit
        } else if found("buildah") || !found("podman") {
            BuilderKind::Buildah
        } else {
            BuilderKind::Podman
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
                    "the container builders (auto, buildkit, buildah, podman) push the image: name it".into(),
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
        assert_eq!(key("max_attempts = 2"), "build.image", "auto pushes too");
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

    #[test]
    fn auto_picks_buildkit_with_a_daemon_then_buildah_then_podman() {
        let with = |programs: &'static [&'static str]| move |p: &str| programs.contains(&p);
        let auto = BuilderKind::Auto;
        assert_eq!(spec("image = \"r/a\"").builder, auto);
        let all = with(&["buildctl", "buildah", "podman"]);
        assert_eq!(auto.resolved(all, true), BuilderKind::Buildkit);
        assert_eq!(
            auto.resolved(all, false),
            BuilderKind::Buildah,
            "buildctl without its daemon"
        );
        assert_eq!(auto.resolved(with(&["podman"]), true), BuilderKind::Podman);
        assert_eq!(
            auto.resolved(with(&["buildah"]), false),
            BuilderKind::Buildah
        );
        // None at all: buildah, whose build then says it cannot be run and how to get it.
        assert_eq!(auto.resolved(with(&[]), false), BuilderKind::Buildah);
        // A kind named is itself, whatever the machine has.
        assert_eq!(BuilderKind::Podman.resolved(all, true), BuilderKind::Podman);
        assert_eq!(
            BuilderKind::Command
                .builder(&BuilderSettings::default())
                .name(),
            "command"
        );
        assert_eq!(
            BuilderKind::Buildah
                .builder(&BuilderSettings::default())
                .name(),
            "buildah"
        );
    }
}
