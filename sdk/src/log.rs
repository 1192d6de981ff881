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

/// The Wasm `imp` for one world: its bindings' `log` interface, and the one mapping of [`Level`] to the host's level
/// (each world's bindings have a `Level` type of their own).
#[cfg(target_arch = "wasm32")]
macro_rules! host_log {
    ($($world:ident)::+) => {
        use super::Level;
        use crate::bindings::$($world)::+::weft::plugin::log as host;

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
    };
}

#[cfg(all(target_arch = "wasm32", feature = "health"))]
mod imp {
    host_log!(health);
}

#[cfg(all(target_arch = "wasm32", not(feature = "health"), feature = "renderer"))]
mod imp {
    host_log!(renderer);
}

#[cfg(all(
    target_arch = "wasm32",
    not(feature = "health"),
    not(feature = "renderer"),
    feature = "build-steer"
))]
mod imp {
    host_log!(build_steer);
}

#[cfg(all(
    target_arch = "wasm32",
    not(feature = "health"),
    not(feature = "renderer"),
    not(feature = "build-steer"),
    feature = "gate"
))]
mod imp {
    host_log!(gate);
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
