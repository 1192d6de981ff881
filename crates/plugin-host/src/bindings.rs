//! Host bindings generated from `wit/` by wasmtime, one module per world. The worlds share the `types` and `log`
//! interfaces (and two share `source`), so each is generated once and reused through `with`.
//!
//! Version dispatch: this is the bindings module for `weft:plugin@0.x`. When the contract's major version moves,
//! the host keeps this module beside the new one and picks by the version a component imports.

/// `health-check`.
pub(crate) mod health_check {
    wasmtime::component::bindgen!({
        world: "health-check",
        path: "../../wit",
    });
}

/// `renderer`.
pub(crate) mod renderer {
    wasmtime::component::bindgen!({
        world: "renderer",
        path: "../../wit",
        with: {
            "weft:plugin/types": super::health_check::weft::plugin::types,
            "weft:plugin/log": super::health_check::weft::plugin::log,
        },
    });
}

/// `build-steer`.
pub(crate) mod build_steer {
    wasmtime::component::bindgen!({
        world: "build-steer",
        path: "../../wit",
        with: {
            "weft:plugin/types": super::health_check::weft::plugin::types,
            "weft:plugin/log": super::health_check::weft::plugin::log,
            "weft:plugin/source": super::renderer::weft::plugin::source,
        },
    });
}

/// `gate`.
pub(crate) mod gate {
    wasmtime::component::bindgen!({
        world: "gate",
        path: "../../wit",
        with: {
            "weft:plugin/types": super::health_check::weft::plugin::types,
            "weft:plugin/log": super::health_check::weft::plugin::log,
            "weft:plugin/settings": super::health_check::weft::plugin::settings,
        },
    });
}

/// `resource-action`: the Lua plugin's second export, bound on the same pre-instantiated component as its
/// `health-check` world (whose linker already provides the imports it shares).
pub(crate) mod resource_action {
    wasmtime::component::bindgen!({
        world: "resource-action",
        path: "../../wit",
        with: {
            "weft:plugin/types": super::health_check::weft::plugin::types,
            "weft:plugin/log": super::health_check::weft::plugin::log,
            "weft:plugin/settings": super::health_check::weft::plugin::settings,
            "weft:plugin/clock": super::health_check::weft::plugin::clock,
        },
    });
}
