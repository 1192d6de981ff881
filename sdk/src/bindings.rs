//! Bindings generated from the plugin contract in `wit/`, one module per world.

/// The `health-check` world.
#[cfg(feature = "health")]
pub mod health {
    wit_bindgen::generate!({
        world: "health-check",
        path: "wit",
        pub_export_macro: true,
        export_macro_name: "export_health_world",
        default_bindings_module: "weft_sdk::bindings::health",
    });
}

/// The `renderer` world.
#[cfg(feature = "renderer")]
pub mod renderer {
    wit_bindgen::generate!({
        world: "renderer",
        path: "wit",
        pub_export_macro: true,
        export_macro_name: "export_renderer_world",
        default_bindings_module: "weft_sdk::bindings::renderer",
    });
}

/// The `build-steer` world.
#[cfg(feature = "build-steer")]
pub mod build_steer {
    wit_bindgen::generate!({
        world: "build-steer",
        path: "wit",
        pub_export_macro: true,
        export_macro_name: "export_build_steer_world",
        default_bindings_module: "weft_sdk::bindings::build_steer",
    });
}

/// The `gate` world.
#[cfg(feature = "gate")]
pub mod gate {
    wit_bindgen::generate!({
        world: "gate",
        path: "wit",
        pub_export_macro: true,
        export_macro_name: "export_gate_world",
        default_bindings_module: "weft_sdk::bindings::gate",
    });
}

/// The `resource-action` world, exported beside `health-check` by the component that runs Argo CD's Lua (its
/// shared interfaces are the `health` module's, so one component imports each once).
#[cfg(feature = "resource-action")]
pub mod resource_action {
    wit_bindgen::generate!({
        world: "resource-action",
        path: "wit",
        with: {
            "weft:plugin/types@0.1.0": crate::bindings::health::weft::plugin::types,
            "weft:plugin/log@0.1.0": crate::bindings::health::weft::plugin::log,
            "weft:plugin/settings@0.1.0": crate::bindings::health::weft::plugin::settings,
            "weft:plugin/clock@0.1.0": crate::bindings::health::weft::plugin::clock,
        },
        pub_export_macro: true,
        export_macro_name: "export_resource_action_world",
        default_bindings_module: "weft_sdk::bindings::resource_action",
    });
}
