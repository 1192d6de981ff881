//! Diagnostics from a plugin: sent to the host inside Wasm, printed to stderr when the plugin runs natively.

/// Severity of a log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Very detailed tracing.
    Trace,
    /// Debugging detail.
    Debug,
    /// Normal operation.
    Info,
    /// Something unexpected that did not stop the plugin.
    Warn,
    /// Something failed.
    Error,
}

/// Logs one line.
pub fn log(level: Level, message: &str) {
    imp::log(level, message);
}

/// Logs at `info`.
pub fn info(message: &str) {
    log(Level::Info, message);
}

/// Logs at `warn`.
pub fn warn(message: &str) {
    log(Level::Warn, message);
}

/// Logs at `error`.
pub fn error(message: &str) {
    log(Level::Error, message);
}

/// Logs at `debug`.
pub fn debug(message: &str) {
    log(Level::Debug, message);
}

#[cfg(all(target_arch = "wasm32", feature = "health"))]
mod imp {
    use super::Level;
    use crate::bindings::health::weft::plugin::log as host;

    pub(super) fn log(level: Level, message: &str) {
        host::log(to_host(level), message);
    }

    fn to_host(level: Level) -> host::Level {
        match level {
            Level::Trace => host::Level::Trace,
            Level::Debug => host::Level::Debug,
            Level::Info => host::Level::Info,
            Level::Warn => host::Level::Warn,
            Level::Error => host::Level::Error,
        }
    }
}

#[cfg(all(target_arch = "wasm32", not(feature = "health"), feature = "renderer"))]
mod imp {
    use super::Level;
    use crate::bindings::renderer::weft::plugin::log as host;

    pub(super) fn log(level: Level, message: &str) {
        let level = match level {
            Level::Trace => host::Level::Trace,
            Level::Debug => host::Level::Debug,
            Level::Info => host::Level::Info,
            Level::Warn => host::Level::Warn,
            Level::Error => host::Level::Error,
        };
        host::log(level, message);
    }
}

#[cfg(all(
    target_arch = "wasm32",
    not(feature = "health"),
    not(feature = "renderer"),
    feature = "build-steer"
))]
mod imp {
    use super::Level;
    use crate::bindings::build_steer::weft::plugin::log as host;

    pub(super) fn log(level: Level, message: &str) {
        let level = match level {
            Level::Trace => host::Level::Trace,
            Level::Debug => host::Level::Debug,
            Level::Info => host::Level::Info,
            Level::Warn => host::Level::Warn,
            Level::Error => host::Level::Error,
        };
        host::log(level, message);
    }
}

#[cfg(all(
    target_arch = "wasm32",
    not(feature = "health"),
    not(feature = "renderer"),
    not(feature = "build-steer"),
    feature = "gate"
))]
mod imp {
    use super::Level;
    use crate::bindings::gate::weft::plugin::log as host;

    pub(super) fn log(level: Level, message: &str) {
        let level = match level {
            Level::Trace => host::Level::Trace,
            Level::Debug => host::Level::Debug,
            Level::Info => host::Level::Info,
            Level::Warn => host::Level::Warn,
            Level::Error => host::Level::Error,
        };
        host::log(level, message);
    }
}

#[cfg(not(all(
    target_arch = "wasm32",
    any(
        feature = "health",
        feature = "renderer",
        feature = "build-steer",
        feature = "gate"
    )
)))]
mod imp {
    use super::Level;

    pub(super) fn log(level: Level, message: &str) {
        eprintln!("[{level:?}] {message}");
    }
}
