//! A plugin manifest's `[limits]`: what it asks for beyond its world's defaults (the host caps them).

use serde::{Deserialize, Serialize};

/// Per-plugin overrides, as written in a plugin manifest's `[limits]` table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LimitOverrides {
    /// Memory in MiB.
    pub memory_mib: Option<u32>,
    /// Deadline in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Output in KiB.
    pub output_kib: Option<u32>,
    /// Logs in KiB.
    pub log_kib: Option<u32>,
    /// Step budget in millions of fuel units (renderers only; other worlds run unmetered).
    pub fuel_millions: Option<u64>,
}
