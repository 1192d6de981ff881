//! The four kinds of plugin, one per world of `wit/plugin.wit`.

/// The four kinds of plugin, one per WIT world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum World {
    /// Assesses the health of objects.
    HealthCheck,
    /// Renders an app's manifests.
    Renderer,
    /// Plans and steers builds.
    BuildSteer,
    /// Judges a sync's plan before anything is applied.
    Gate,
}

impl World {
    /// The world's name in `wit/`.
    pub fn as_str(self) -> &'static str {
        match self {
            World::HealthCheck => "health-check",
            World::Renderer => "renderer",
            World::BuildSteer => "build-steer",
            World::Gate => "gate",
        }
    }
}

impl std::fmt::Display for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
