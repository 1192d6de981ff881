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
    /// The call's step budget in Wasm fuel (about one unit per instruction executed), for worlds that run on the
    /// metered engine (renderers); `None` leaves only the deadline. Unlike the deadline, the budget does not
    /// depend on the machine's speed or load: a template that needs more steps fails the same way everywhere.
    pub fuel: Option<u64>,
}

const MIB: usize = 1024 * 1024;

impl CallLimits {
    /// Defaults for health checks: 64 MiB, 100 ms, 8 MiB of output, 64 KiB of logs.
    pub const HEALTH: CallLimits = CallLimits {
        memory_bytes: 64 * MIB,
        timeout: Duration::from_millis(100),
        max_output_bytes: 8 * MIB,
        max_log_bytes: 64 * 1024,
        fuel: None,
    };

    /// Defaults for renderers: 512 MiB, 10 s, 64 MiB of output, 1 MiB of logs, and a step budget of
    /// [`RENDER_FUEL`](Self::RENDER_FUEL).
    pub const RENDER: CallLimits = CallLimits {
        memory_bytes: 512 * MIB,
        timeout: Duration::from_secs(10),
        max_output_bytes: 64 * MIB,
        max_log_bytes: MIB,
        fuel: Some(Self::RENDER_FUEL),
    };

    /// The default step budget of one render: 20 billion fuel units, about 115 times what the 200-object Helm
    /// chart of `cargo bench --bench render` uses (174 million) and 3–4 s of rendering on a 2-core machine, so
    /// the budget stops a runaway template before the 10 s deadline does while leaving real charts plenty.
    pub const RENDER_FUEL: u64 = 20_000_000_000;

    /// Defaults for build steering: 128 MiB, 2 s, 4 MiB of output, 256 KiB of logs.
    pub const STEER: CallLimits = CallLimits {
        memory_bytes: 128 * MIB,
        timeout: Duration::from_secs(2),
        max_output_bytes: 4 * MIB,
        max_log_bytes: 256 * 1024,
        fuel: None,
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
            fuel: overrides
                .fuel_millions
                .map_or(self.fuel, |m| Some(m.saturating_mul(1_000_000))),
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
    /// Step budget in millions of fuel units (renderers only; other worlds run unmetered).
    pub fuel_millions: Option<u64>,
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
        assert_eq!(limits.fuel, None);
    }

    #[test]
    fn a_fuel_override_is_in_millions() {
        let limits = CallLimits::RENDER.with_overrides(&LimitOverrides {
            fuel_millions: Some(5),
            ..LimitOverrides::default()
        });
        assert_eq!(limits.fuel, Some(5_000_000));
        assert_eq!(
            CallLimits::RENDER
                .with_overrides(&LimitOverrides::default())
                .fuel,
            Some(CallLimits::RENDER_FUEL)
        );
    }
}
