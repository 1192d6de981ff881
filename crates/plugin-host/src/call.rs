//! One sandboxed call: a fresh store with the call's limits, and the translation of whatever stopped it into a
//! [`Failure`].

use std::sync::Arc;

use wasmtime::Store;
use wasmtime::component::{InstancePre, Linker};

use super::World;
use super::error::{CallError, Failure, LoadError};
use super::host::{HostInner, LoadedComponent};
use super::limits::CallLimits;
use super::shape::Sandbox;
use super::state::CallState;

/// A fresh store for one call of a `world` plugin in `sandbox`: memory cap, log budget, deadline and (on the
/// metered engine) step budget set.
pub(crate) fn new_store(
    host: &HostInner,
    world: World,
    sandbox: Sandbox,
    limits: &CallLimits,
    state: CallState,
) -> Store<CallState> {
    let mut store = Store::new(host.engine_for(world, sandbox), state);
    store.limiter(|state| &mut state.memory);
    if HostInner::metered(world) {
        // Cannot fail: fuel is enabled on this engine.
        let _ = store.set_fuel(limits.fuel.unwrap_or(u64::MAX));
    }
    store.set_epoch_deadline(host.ticker.ticks_for(limits.timeout));
    store.epoch_deadline_trap();
    store
}

/// Turns a wasmtime error into the failure it means, using what the store saw.
pub(crate) fn classify(error: &wasmtime::Error, state: &CallState, limits: &CallLimits) -> Failure {
    if state.memory.denied {
        return Failure::OutOfMemory {
            limit: state.memory.limit,
        };
    }
    match error.downcast_ref::<wasmtime::Trap>() {
        Some(wasmtime::Trap::Interrupt) => Failure::Timeout(limits.timeout),
        Some(wasmtime::Trap::OutOfFuel) => Failure::OutOfSteps {
            budget: limits.fuel.unwrap_or(u64::MAX),
        },
        Some(wasmtime::Trap::StackOverflow) => Failure::StackOverflow,
        Some(wasmtime::Trap::UnreachableCodeReached) if state.logs.panic.is_some() => {
            Failure::Panic(state.logs.panic.clone().unwrap_or_default())
        }
        Some(trap) => Failure::Trap(trap.to_string()),
        None => Failure::Trap(format!("{error:#}")),
    }
}

/// Pre-instantiates a component against a world's linker; a missing import or export names the world, and so
/// does a component loaded for another world (its code was compiled for another engine).
pub(crate) fn instance_pre(
    linker: &Linker<CallState>,
    component: &LoadedComponent,
    world: World,
) -> Result<InstancePre<CallState>, LoadError> {
    if component.world != world {
        return Err(wrong_world(
            component,
            world,
            format!(
                "it was loaded as a {} plugin; load it for the {world} world",
                component.world
            ),
        ));
    }
    linker
        .instantiate_pre(&component.component)
        .map_err(|e| wrong_world(component, world, format!("{e:#}")))
}

/// The error for a component that cannot serve `world`, and why.
pub(crate) fn wrong_world(component: &LoadedComponent, world: World, message: String) -> LoadError {
    LoadError::WrongWorld {
        plugin: component.name.clone(),
        world: world.as_str().into(),
        message,
    }
}

/// Runs a blocking call on a blocking thread, at most as many at once as the host has instance slots (and, for a
/// guest-runtime plugin, as its pool has).
pub(crate) async fn on_blocking_thread<T: Send + 'static>(
    host: &Arc<HostInner>,
    plugin: &str,
    sandbox: Sandbox,
    call: impl FnOnce() -> Result<T, CallError> + Send + 'static,
) -> Result<T, CallError> {
    let aborted = |reason: String| CallError {
        plugin: plugin.to_string(),
        failure: Failure::Aborted(reason),
    };
    let guest_permit = match sandbox {
        Sandbox::GuestRuntime => Some(
            host.guest_runtime_calls
                .clone()
                .acquire_owned()
                .await
                .map_err(|e| aborted(e.to_string()))?,
        ),
        Sandbox::Native => None,
    };
    let permit = host
        .calls
        .clone()
        .acquire_owned()
        .await
        .map_err(|e| aborted(e.to_string()))?;
    tokio::task::spawn_blocking(move || {
        let _permits = (permit, guest_permit);
        call()
    })
    .await
    .map_err(|e| aborted(e.to_string()))?
}
