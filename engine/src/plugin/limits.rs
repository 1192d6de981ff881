//! What one plugin call may use.

use std::time::Duration;

use serde::Deserialize;

/// Limits applied to every call of a plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimits {
    /// Linear memory the instance may grow to.
    pub memory_bytes: usize,
    /// Wall-clock time for instantiation plus the call.
    pub timeout: Duration,
    /// Bytes the call may return (strings and lists, summed).
    pub max_output_bytes: usize,
    /// Bytes of log lines the call may emit; the rest is dropped and counted.
    pub max_log_bytes: usize,
}

const MIB: usize = 1024 * 1024;

impl CallLimits {
    /// Defaults for health checks: 64 MiB, 100 ms, 8 MiB of output, 64 KiB of logs.
    pub const HEALTH: CallLimits = CallLimits {
        memory_bytes: 64 * MIB,
        timeout: Duration::from_millis(100),
        max_output_bytes: 8 * MIB,
        max_log_bytes: 64 * 1024,
    };

    /// Defaults for renderers: 512 MiB, 10 s, 64 MiB of output, 1 MiB of logs.
    pub const RENDER: CallLimits = CallLimits {
        memory_bytes: 512 * MIB,
        timeout: Duration::from_secs(10),
        max_output_bytes: 64 * MIB,
        max_log_bytes: MIB,
    };

    /// Defaults for build steering: 128 MiB, 2 s, 4 MiB of output, 256 KiB of logs.
    pub const STEER: CallLimits = CallLimits {
        memory_bytes: 128 * MIB,
        timeout: Duration::from_secs(2),
        max_output_bytes: 4 * MIB,
        max_log_bytes: 256 * 1024,
    };

    /// These limits with the overrides a plugin manifest sets.
    pub fn with_overrides(self, overrides: &LimitOverrides) -> CallLimits {
        CallLimits {
            memory_bytes: overrides
                .memory_mib
                .map_or(self.memory_bytes, |m| m as usize * MIB),
            timeout: overrides
                .timeout_ms
                .map_or(self.timeout, Duration::from_millis),
            max_output_bytes: overrides
                .output_kib
                .map_or(self.max_output_bytes, |k| k as usize * 1024),
            max_log_bytes: overrides
                .log_kib
                .map_or(self.max_log_bytes, |k| k as usize * 1024),
        }
    }
}

/// Per-plugin overrides, as written in a plugin manifest's `[limits]` table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_replace_only_what_they_set() {
        let limits = CallLimits::HEALTH.with_overrides(&LimitOverrides {
            memory_mib: Some(256),
            ..LimitOverrides::default()
        });
        assert_eq!(limits.memory_bytes, 256 * MIB);
        assert_eq!(limits.timeout, CallLimits::HEALTH.timeout);
    }
}
