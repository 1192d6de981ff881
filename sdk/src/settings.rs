//! The settings of the plugin instance being called: the JSON text the host was configured with for the registry
//! entry it calls through (a Lua script, a set of CEL expressions). Empty when the entry has none.
//!
//! Inside Wasm the text comes from the host's `settings` import; natively (unit tests, benches) from
//! [`with_settings`], so a configurable plugin is tested without Wasm like any other.

/// The settings of the current call; empty when there are none.
pub fn get() -> String {
    imp::get()
}

/// Runs `f` with `settings` as what [`get`] returns on this thread (native builds only: inside Wasm the host
/// decides).
#[cfg(not(all(target_arch = "wasm32", any(feature = "health", feature = "gate"))))]
pub fn with_settings<T>(settings: &str, f: impl FnOnce() -> T) -> T {
    imp::CURRENT.with(|current| {
        let previous = current.replace(settings.to_string());
        let result = f();
        current.replace(previous);
        result
    })
}

#[cfg(all(target_arch = "wasm32", feature = "health"))]
mod imp {
    pub(super) fn get() -> String {
        crate::bindings::health::weft::plugin::settings::get()
    }
}

#[cfg(all(target_arch = "wasm32", not(feature = "health"), feature = "gate"))]
mod imp {
    pub(super) fn get() -> String {
        crate::bindings::gate::weft::plugin::settings::get()
    }
}

#[cfg(not(all(target_arch = "wasm32", any(feature = "health", feature = "gate"))))]
mod imp {
    use std::cell::RefCell;

    thread_local! {
        pub(super) static CURRENT: RefCell<String> = const { RefCell::new(String::new()) };
    }

    pub(super) fn get() -> String {
        CURRENT.with(|current| current.borrow().clone())
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn settings_are_scoped_to_the_closure() {
        assert_eq!(get(), "");
        let inside = with_settings("{\"a\":1}", || {
            let nested = with_settings("x", get);
            (get(), nested)
        });
        assert_eq!(inside, ("{\"a\":1}".to_string(), "x".to_string()));
        assert_eq!(get(), "");
    }
}
