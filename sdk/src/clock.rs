//! Time for plugins that need it: the host's wall clock when the call started, and how long the call has run.
//!
//! Inside Wasm both come from the host's `clock` import (a plugin has no ambient clock); natively from the
//! operating system.

use std::time::Duration;

/// Seconds and nanoseconds since the Unix epoch (UTC) when the current call started; the same for the whole call.
pub fn call_started() -> (i64, u32) {
    imp::call_started()
}

/// How long the current call has run (a monotonic clock).
pub fn elapsed() -> Duration {
    imp::elapsed()
}

#[cfg(all(target_arch = "wasm32", feature = "health"))]
mod imp {
    use std::time::Duration;

    use crate::bindings::health::weft::plugin::clock as host;

    pub(super) fn call_started() -> (i64, u32) {
        let now = host::call_started();
        (now.seconds, now.nanoseconds)
    }

    pub(super) fn elapsed() -> Duration {
        Duration::from_nanos(host::elapsed())
    }
}

#[cfg(not(all(target_arch = "wasm32", feature = "health")))]
mod imp {
    use std::sync::OnceLock;
    use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

    /// Natively, "the call" is the process: the first reading starts it.
    static STARTED: OnceLock<(Instant, SystemTime)> = OnceLock::new();

    fn started() -> &'static (Instant, SystemTime) {
        STARTED.get_or_init(|| (Instant::now(), SystemTime::now()))
    }

    pub(super) fn call_started() -> (i64, u32) {
        let since_epoch = started().1.duration_since(UNIX_EPOCH).unwrap_or_default();
        (
            i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX),
            since_epoch.subsec_nanos(),
        )
    }

    pub(super) fn elapsed() -> Duration {
        started().0.elapsed()
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_start_is_fixed_and_elapsed_grows() {
        let first = call_started();
        let before = elapsed();
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(call_started(), first);
        assert!(elapsed() > before);
        // Some time after 2020-01-01.
        assert!(first.0 > 1_577_836_800);
    }
}
