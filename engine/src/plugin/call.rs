//! One sandboxed call: a fresh store with the call's limits, and the translation of whatever stopped it into a
//! [`Failure`].

use wasmtime::Store;

use super::error::Failure;
use super::host::HostInner;
use super::limits::CallLimits;
use super::state::CallState;

/// A fresh store for one call: memory cap, log budget and deadline set.
pub(crate) fn new_store(
    host: &HostInner,
    limits: &CallLimits,
    state: CallState,
) -> Store<CallState> {
    let mut store = Store::new(&host.engine, state);
    store.limiter(|state| &mut state.memory);
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
        Some(wasmtime::Trap::StackOverflow) => Failure::StackOverflow,
        Some(wasmtime::Trap::UnreachableCodeReached) if state.logs.panic.is_some() => {
            Failure::Panic(state.logs.panic.clone().unwrap_or_default())
        }
        Some(trap) => Failure::Trap(trap.to_string()),
        None => Failure::Trap(format!("{error:#}")),
    }
}
