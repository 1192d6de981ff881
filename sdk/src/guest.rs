//! Glue between the generated Wasm exports and the SDK's traits. Used by the export macros; not public API.

#[cfg(feature = "health")]
pub use health_glue::assess_batch;
#[cfg(feature = "renderer")]
pub use render_glue::render;

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

#[cfg(feature = "renderer")]
mod render_glue {
    use crate::bindings::renderer::exports::weft::plugin::render as wit;
    use crate::bindings::renderer::weft::plugin::cluster as host_cluster;
    use crate::bindings::renderer::weft::plugin::entropy as host_entropy;
    use crate::bindings::renderer::weft::plugin::live as host_live;
    use crate::bindings::renderer::weft::plugin::revision as host_revision;
    use crate::bindings::renderer::weft::plugin::source as host;
    use crate::render::{ClusterFacts, RenderRequest, RenderSeed, Renderer};
    use crate::source::{DirEntry, EntryKind, Source, SourceError};

    crate::source::host_source_adapter!();

    /// The host's `live` import: it answers `none` for a render that may not look up, so the view is always given.
    struct HostLookup;

    impl crate::lookup::LiveObjects for HostLookup {
        fn lookup(
            &self,
            api_version: &str,
            kind: &str,
            namespace: &str,
            name: &str,
        ) -> Option<crate::Value> {
            let json = host_live::lookup(api_version, kind, namespace, name)?;
            serde_json::from_str(&json).ok()
        }
    }

    /// An object as the JSON text the host reads, written straight into one buffer: `Value`'s `Display` writes
    /// the same text through the formatter a few bytes at a time, which cost a 200-object render about a tenth of
    /// its time in Wasm. A `Value` always serializes (its keys are strings), so the empty text, which the host
    /// would refuse as not JSON, is never handed over.
    fn object_json(object: &crate::Value) -> String {
        serde_json::to_string(object).unwrap_or_default()
    }

    /// Renders with `R`, converting to and from the generated types.
    pub fn render<R: Renderer>(
        request: wit::RenderRequest,
    ) -> Result<wit::RenderOutput, wit::RenderError> {
        super::install_panic_hook();
        let request = RenderRequest {
            app: request.app,
            namespace: request.namespace,
            release: request.release,
            parameters: request.parameters,
            values: request.values,
            cluster: host_cluster::facts().map(|facts| ClusterFacts {
                kube_version: facts.kube_version,
                api_versions: facts.api_versions,
            }),
            seed: RenderSeed::from_slice(&host_entropy::seed()),
            revision_time: host_revision::committed_at(),
            lookup: Some(crate::lookup::Lookup::new(HostLookup)),
        };
        match R::render(&request, &HostSource) {
            Ok(output) => Ok(wit::RenderOutput {
                manifests: output
                    .manifests
                    .into_iter()
                    .map(|m| {
                        let json = object_json(&m.object);
                        // The host runs every render in a fresh instance and drops it after this call, so the
                        // object is left to that rather than freed node by node (a twentieth of a 200-object
                        // render's time in Wasm).
                        std::mem::forget(m.object);
                        wit::Manifest { json, file: m.file }
                    })
                    .collect(),
                files_used: output.files_used,
            }),
            Err(error) => Err(wit::RenderError {
                message: error.message,
                file: error.file,
                line: error.line,
            }),
        }
    }
}

/// Exports a [`Renderer`](crate::Renderer) as the component's `render` interface (only when compiling for Wasm).
#[cfg(feature = "renderer")]
#[macro_export]
macro_rules! export_renderer {
    ($renderer:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            struct WeftRenderExport;

            impl $crate::bindings::renderer::exports::weft::plugin::render::Guest for WeftRenderExport {
                fn render(
                    request: $crate::bindings::renderer::exports::weft::plugin::render::RenderRequest,
                ) -> ::std::result::Result<
                    $crate::bindings::renderer::exports::weft::plugin::render::RenderOutput,
                    $crate::bindings::renderer::exports::weft::plugin::render::RenderError,
                > {
                    $crate::guest::render::<$renderer>(request)
                }
            }

            $crate::bindings::renderer::export_renderer_world!(
                WeftRenderExport with_types_in $crate::bindings::renderer
            );
        };
    };
}

/// Exports a type implementing the `resource-actions` interface's `Guest` trait
/// (`weft_sdk::bindings::resource_action::exports::weft::plugin::resource_actions::Guest`) as the component's
/// `resource-actions` export, beside its health check (the Lua plugin runs Argo CD's resource actions). Only when
/// compiling for Wasm, as [`export_health_check!`](crate::export_health_check).
#[cfg(feature = "resource-action")]
#[macro_export]
macro_rules! export_resource_actions {
    ($actions:ident) => {
        #[cfg(target_arch = "wasm32")]
        $crate::bindings::resource_action::export_resource_action_world!(
            $actions with_types_in $crate::bindings::resource_action
        );
    };
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
