//! What a renderer implements: a request and a source tree in, manifests out.

use serde_json::Value;

use crate::lookup::Lookup;
use crate::source::Source;

/// What to render. The source tree itself comes as a [`Source`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderRequest {
    /// The application's name.
    pub app: String,
    /// The destination namespace, when the app has one (Helm's `.Release.Namespace`).
    pub namespace: Option<String>,
    /// The release name for renderers that have one (Helm); defaults to the app's name.
    pub release: Option<String>,
    /// Key/value parameters (`--set`, Jsonnet external variables, renderer options), in order.
    pub parameters: Vec<(String, String)>,
    /// Value documents (YAML or JSON text), merged in order, last wins.
    pub values: Vec<String>,
    /// What the destination cluster serves, when the render is for one (read through the host's `cluster`
    /// import in Wasm).
    pub cluster: Option<ClusterFacts>,
    /// The app's render seed (the host's `entropy` import in Wasm): what random values, keys and certificates are
    /// drawn from, so that a revision renders the same bytes every time. `None`: the render has none, and a
    /// renderer refuses to draw random values.
    pub seed: Option<RenderSeed>,
    /// When the rendered revision was committed, in seconds since the Unix epoch (the host's `revision` import in
    /// Wasm): what a renderer's clock (Helm's `now`) reads. `None` when the source has no commit time.
    pub revision_time: Option<i64>,
    /// What the render may read of its destination cluster (Helm's `lookup`; the host's `live` import in Wasm):
    /// `None` answers every lookup with nothing, as `helm template` does.
    pub lookup: Option<Lookup>,
}

/// The 32 secret bytes an app's renders draw random values from. Its `Debug` never prints them.
#[derive(Clone, PartialEq, Eq)]
pub struct RenderSeed([u8; RenderSeed::LEN]);

impl RenderSeed {
    /// Its length in bytes.
    pub const LEN: usize = 32;

    /// A seed of these bytes.
    pub fn new(bytes: [u8; RenderSeed::LEN]) -> Self {
        RenderSeed(bytes)
    }

    /// A seed from exactly [`RenderSeed::LEN`] bytes; `None` for any other length (an empty answer means none).
    pub fn from_slice(bytes: &[u8]) -> Option<Self> {
        bytes.try_into().ok().map(RenderSeed)
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8; RenderSeed::LEN] {
        &self.0
    }
}

impl std::fmt::Debug for RenderSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RenderSeed(<secret>)")
    }
}

/// What a cluster serves (Helm's `.Capabilities.KubeVersion` and `.APIVersions`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterFacts {
    /// The API server's version (`v1.31.2`).
    pub kube_version: String,
    /// Every served `group/version` (`v1` for the core group) and `group/version/Kind`, sorted.
    pub api_versions: Vec<String>,
}

impl RenderRequest {
    /// The last value of a parameter.
    pub fn parameter(&self, key: &str) -> Option<&str> {
        self.parameters
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The release name: `release`, else the app's name.
    pub fn release_name(&self) -> &str {
        self.release.as_deref().unwrap_or(&self.app)
    }
}

/// One rendered object.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The object.
    pub object: Value,
    /// The source file it came from, relative to the app's root.
    pub file: Option<String>,
}

/// A successful render.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenderOutput {
    /// The objects, in output order.
    pub manifests: Vec<Manifest>,
    /// Files the renderer read, beyond those it read through the source (the host tracks those itself).
    pub files_used: Vec<String>,
}

/// A failed render, pointing at the source where it can.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError {
    /// What went wrong.
    pub message: String,
    /// The file at fault.
    pub file: Option<String>,
    /// The 1-based line in that file.
    pub line: Option<u32>,
}

impl RenderError {
    /// An error with no location.
    pub fn new(message: impl Into<String>) -> Self {
        RenderError {
            message: message.into(),
            file: None,
            line: None,
        }
    }

    /// An error in a file.
    pub fn in_file(message: impl Into<String>, file: impl Into<String>, line: Option<u32>) -> Self {
        RenderError {
            message: message.into(),
            file: Some(file.into()),
            line,
        }
    }
}

impl std::fmt::Display for RenderError {
    /// `FILE:LINE: MESSAGE`, or the message alone when it names its file itself (as Helm's errors do:
    /// `template: chart/templates/x.yaml:12:4: ...`), so that the location is printed once.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.file, self.line) {
            (Some(file), _) if self.message.contains(file.as_str()) => f.write_str(&self.message),
            (Some(file), Some(line)) => write!(f, "{file}:{line}: {}", self.message),
            (Some(file), None) => write!(f, "{file}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for RenderError {}

impl From<crate::source::SourceError> for RenderError {
    fn from(error: crate::source::SourceError) -> Self {
        RenderError::new(error.to_string())
    }
}

/// A renderer for one or more app types.
pub trait Renderer {
    /// Renders the app's manifests.
    fn render(request: &RenderRequest, source: &dyn Source) -> Result<RenderOutput, RenderError>;
}

#[cfg(test)]
mod tests {
    use super::RenderError;

    #[test]
    fn a_location_is_printed_once() {
        let plain = RenderError::in_file("unknown key", "kustomization.yaml", Some(3));
        assert_eq!(plain.to_string(), "kustomization.yaml:3: unknown key");
        let helm = RenderError::in_file(
            "template: app/templates/cm.yaml:6:18: executing \"app/templates/cm.yaml\" at <.Values.a.b>: nil pointer evaluating interface {}.b",
            "templates/cm.yaml",
            Some(6),
        );
        assert_eq!(helm.to_string(), helm.message);
    }
}
