//! Glue between the generated Wasm exports and the SDK's traits. Used by the export macros; not public API.

#[cfg(feature = "health")]
pub use health_glue::assess_batch;

/// Sends the panic message to the host's log before the instance traps, so the host can say why it failed.
pub fn install_panic_hook() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            crate::log::error(&format!("panic: {info}"));
        }));
    });
}

#[cfg(feature = "health")]
mod health_glue {
    use crate::bindings::health::weft::plugin::types as wit;
    use crate::check::{Context, HealthCheck, Related};
    use crate::health::{ErrorKind, Health, PluginError, Status};
    use crate::object::Object;

    /// Children come from the host's `related` import.
    struct HostRelated;

    impl Related for HostRelated {
        fn children(&self, uid: &str) -> Vec<Object> {
            crate::bindings::health::weft::plugin::related::children(uid)
                .iter()
                .filter_map(|json| Object::from_json(json).ok())
                .collect()
        }
    }

    /// Assesses a batch with `C`, converting to and from the generated types.
    pub fn assess_batch<C: HealthCheck>(
        objects: Vec<String>,
    ) -> Vec<Result<Option<wit::Health>, wit::PluginError>> {
        super::install_panic_hook();
        let cx = Context::new(&HostRelated);
        objects
            .iter()
            .map(|json| {
                Object::from_json(json)
                    .and_then(|obj| C::assess(&obj, &cx))
                    .map(|verdict| verdict.map(to_wit_health))
                    .map_err(to_wit_error)
            })
            .collect()
    }

    fn to_wit_health(health: Health) -> wit::Health {
        let status = match health.status {
            Status::Healthy => wit::HealthStatus::Healthy,
            Status::Progressing => wit::HealthStatus::Progressing,
            Status::Degraded => wit::HealthStatus::Degraded,
            Status::Suspended => wit::HealthStatus::Suspended,
            Status::Missing => wit::HealthStatus::Missing,
            Status::Unknown => wit::HealthStatus::Unknown,
        };
        wit::Health {
            status,
            message: health.message,
        }
    }

    fn to_wit_error(error: PluginError) -> wit::PluginError {
        let kind = match error.kind {
            ErrorKind::InvalidInput => wit::ErrorKind::InvalidInput,
            ErrorKind::Unsupported => wit::ErrorKind::Unsupported,
            ErrorKind::Failed => wit::ErrorKind::Failed,
        };
        wit::PluginError {
            kind,
            message: error.message,
        }
    }
}

/// Exports a [`HealthCheck`](crate::HealthCheck) as the component's `health` interface.
///
/// The export exists only when compiling for Wasm; natively the crate is an ordinary library, so several plugins
/// can be linked into one test or bench binary.
#[cfg(feature = "health")]
#[macro_export]
macro_rules! export_health_check {
    ($check:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            struct WeftHealthExport;

            impl $crate::bindings::health::exports::weft::plugin::health::Guest for WeftHealthExport {
                fn assess(
                    objects: ::std::vec::Vec<::std::string::String>,
                ) -> ::std::vec::Vec<
                    ::std::result::Result<
                        ::std::option::Option<$crate::bindings::health::weft::plugin::types::Health>,
                        $crate::bindings::health::weft::plugin::types::PluginError,
                    >,
                > {
                    $crate::guest::assess_batch::<$check>(objects)
                }
            }

            $crate::bindings::health::export_health_world!(
                WeftHealthExport with_types_in $crate::bindings::health
            );
        };
    };
}
