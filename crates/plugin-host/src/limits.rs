//! What one plugin call may use.

use std::time::Duration;

pub use weft_plugin_contract::LimitOverrides;

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

    /// Defaults for deploy gates: 128 MiB, 5 s, 1 MiB of output, 64 KiB of logs, and a step budget of 5 billion
    /// fuel units (a gate judges a plan of hundreds of objects; CEL policies are bounded per call).
    pub const GATE: CallLimits = CallLimits {
        memory_bytes: 128 * MIB,
        timeout: Duration::from_secs(5),
        max_output_bytes: MIB,
        max_log_bytes: 64 * 1024,
        fuel: Some(5_000_000_000),
    };

    /// These limits, none above `ceiling`'s (a budget the ceiling does not set stays as it is).
    pub fn within(self, ceiling: &CallLimits) -> CallLimits {
        CallLimits {
            memory_bytes: self.memory_bytes.min(ceiling.memory_bytes),
            timeout: self.timeout.min(ceiling.timeout),
            max_output_bytes: self.max_output_bytes.min(ceiling.max_output_bytes),
            max_log_bytes: self.max_log_bytes.min(ceiling.max_log_bytes),
            fuel: match (self.fuel, ceiling.fuel) {
                (Some(asked), Some(most)) => Some(asked.min(most)),
                (None, Some(most)) => Some(most),
                (asked, None) => asked,
            },
        }
    }

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

/// The most any plugin of a world may be given, whatever its manifest asks: the operator's (`[plugins.ceilings]`
/// in `weft.toml`), applied by the host to every plugin it binds. A plugin author cannot raise them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitCeilings {
    /// For health checks: by default 64 MiB, 1 s (Argo CD's Lua timeout), 8 MiB of output, 64 KiB of logs.
    pub health: CallLimits,
    /// For renderers: by default 512 MiB, 60 s, 64 MiB of output, 1 MiB of logs, 100 billion fuel units.
    pub render: CallLimits,
    /// For build steering: by default 256 MiB, 10 s, 4 MiB of output, 256 KiB of logs.
    pub steer: CallLimits,
    /// For deploy gates: by default 256 MiB, 30 s, 4 MiB of output, 256 KiB of logs, 20 billion fuel units.
    pub gate: CallLimits,
}

impl Default for LimitCeilings {
    fn default() -> Self {
        LimitCeilings {
            health: CallLimits {
                timeout: Duration::from_secs(1),
                ..CallLimits::HEALTH
            },
            render: CallLimits {
                timeout: Duration::from_secs(60),
                fuel: Some(100_000_000_000),
                ..CallLimits::RENDER
            },
            steer: CallLimits {
                memory_bytes: 256 * MIB,
                timeout: Duration::from_secs(10),
                ..CallLimits::STEER
            },
            gate: CallLimits {
                memory_bytes: 256 * MIB,
                timeout: Duration::from_secs(30),
                max_output_bytes: 4 * MIB,
                max_log_bytes: 256 * 1024,
                fuel: Some(20_000_000_000),
            },
        }
    }
}

impl LimitCeilings {
    /// The ceiling of a world.
    pub fn for_world(&self, world: super::World) -> &CallLimits {
        match world {
            super::World::HealthCheck => &self.health,
            super::World::Renderer => &self.render,
            super::World::BuildSteer => &self.steer,
            super::World::Gate => &self.gate,
        }
    }

    /// These ceilings with the operator's changes (`[plugins.ceilings.health]`, `.renderer`, `.build-steer`,
    /// `.gate`, in the shape of a manifest's `[limits]`).
    pub fn with_overrides(
        self,
        health: &LimitOverrides,
        render: &LimitOverrides,
        steer: &LimitOverrides,
        gate: &LimitOverrides,
    ) -> LimitCeilings {
        LimitCeilings {
            health: self.health.with_overrides(health),
            render: self.render.with_overrides(render),
            steer: self.steer.with_overrides(steer),
            gate: self.gate.with_overrides(gate),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_cannot_ask_past_the_ceiling() {
        let greedy = CallLimits::HEALTH.with_overrides(&LimitOverrides {
            memory_mib: Some(4096),
            timeout_ms: Some(600_000),
            output_kib: Some(1 << 20),
            log_kib: Some(1 << 20),
            fuel_millions: None,
        });
        let ceilings = LimitCeilings::default();
        let capped = greedy.within(&ceilings.health);
        assert_eq!(capped, ceilings.health);
        // Modest asks stay as asked.
        let modest = CallLimits::HEALTH.within(&ceilings.health);
        assert_eq!(modest, CallLimits::HEALTH);
        // A step budget is capped, and a renderer without one gets the ceiling's.
        let render = CallLimits {
            fuel: Some(u64::MAX),
            ..CallLimits::RENDER
        }
        .within(&ceilings.render);
        assert_eq!(render.fuel, Some(100_000_000_000));
        let unmetered = CallLimits {
            fuel: None,
            ..CallLimits::RENDER
        }
        .within(&ceilings.render);
        assert_eq!(unmetered.fuel, Some(100_000_000_000));
    }

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
