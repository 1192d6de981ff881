//! The deny-all WASI a guest-runtime plugin (Python, JavaScript) gets: no files, no environment, no arguments,
//! no network or sockets, an empty stdin; standard output and error captured into the call's log; the wall clock
//! frozen at the call's start (what `weft:plugin/clock.call-started` says); a virtual monotonic clock that starts
//! at zero and advances only when the plugin sleeps, so a sleep returns at once and never holds a host thread;
//! randomness from a generator seeded the same for every call, so a check's verdict cannot depend on it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rand::SeedableRng as _;
use wasmtime::component::{Linker, Resource, ResourceTable};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::p2::{DynPollable, Pollable};
use wasmtime_wasi::{HostMonotonicClock, HostWallClock, WasiCtx, WasiCtxBuilder, WasiCtxView};

/// The seed of every call's random generators: fixed, so two calls on the same input behave the same.
const RANDOM_SEED: u64 = 0x5745_4654_2d72_6e67;

/// A guest-runtime call's WASI state.
pub(crate) struct GuestWasi {
    ctx: WasiCtx,
    table: ResourceTable,
    clock: VirtualClock,
    stdout: MemoryOutputPipe,
    stderr: MemoryOutputPipe,
}

impl GuestWasi {
    /// A deny-all WASI for one call that started at `started_at`; standard output and error keep at most
    /// `output_bytes` each.
    pub(crate) fn deny_all(started_at: SystemTime, output_bytes: usize) -> Self {
        let clock = VirtualClock::default();
        let stdout = MemoryOutputPipe::new(output_bytes);
        let stderr = MemoryOutputPipe::new(output_bytes);
        let ctx = WasiCtxBuilder::new()
            .stdin(wasmtime_wasi::p2::pipe::ClosedInputStream)
            .stdout(stdout.clone())
            .stderr(stderr.clone())
            .wall_clock(FrozenWallClock(started_at))
            .monotonic_clock(clock.clone())
            .secure_random(rand::rngs::StdRng::seed_from_u64(RANDOM_SEED))
            .insecure_random(rand::rngs::StdRng::seed_from_u64(RANDOM_SEED ^ 1))
            .insecure_random_seed(u128::from(RANDOM_SEED))
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .socket_addr_check(|_, _| Box::pin(async { false }))
            .build();
        GuestWasi {
            ctx,
            table: ResourceTable::new(),
            clock,
            stdout,
            stderr,
        }
    }

    /// What the plugin wrote to standard output and standard error.
    pub(crate) fn output(&self) -> (String, String) {
        let text = |pipe: &MemoryOutputPipe| String::from_utf8_lossy(&pipe.contents()).into_owned();
        (text(&self.stdout), text(&self.stderr))
    }

    /// The WASI context and resource table a store's data hands to wasmtime-wasi.
    pub(crate) fn view(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

/// A store's data that carries a guest runtime's WASI state, made deny-all on first use.
pub(crate) trait GuestWasiHolder: wasmtime_wasi::WasiView + 'static {
    /// The WASI state.
    fn guest_wasi(&mut self) -> &mut GuestWasi;
}

/// Adds the deny-all WASI to a linker, with sleeps that advance the virtual clock instead of waiting.
pub(crate) fn add_to_linker<T: GuestWasiHolder>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    wasmtime_wasi::p2::add_to_linker_sync(linker)?;
    linker.allow_shadowing(true);
    let mut clock = linker.instance("wasi:clocks/monotonic-clock@0.2.12")?;
    clock.func_wrap(
        "subscribe-duration",
        |mut store: wasmtime::StoreContextMut<'_, T>, (nanos,): (u64,)| {
            let wasi = store.data_mut().guest_wasi();
            wasi.clock.advance(nanos);
            Ok((ready_pollable(&mut wasi.table)?,))
        },
    )?;
    clock.func_wrap(
        "subscribe-instant",
        |mut store: wasmtime::StoreContextMut<'_, T>, (when,): (u64,)| {
            let wasi = store.data_mut().guest_wasi();
            wasi.clock.advance_to(when);
            Ok((ready_pollable(&mut wasi.table)?,))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

fn ready_pollable(table: &mut ResourceTable) -> wasmtime::Result<Resource<DynPollable>> {
    let ready = table.push(Ready)?;
    wasmtime_wasi::p2::subscribe(table, ready)
}

/// A pollable that is always ready.
struct Ready;

impl Pollable for Ready {
    // The shape `#[async_trait]` gives the trait's `async fn ready(&mut self)`.
    fn ready<'life, 'future>(&'life mut self) -> Pin<Box<dyn Future<Output = ()> + Send + 'future>>
    where
        'life: 'future,
        Self: 'future,
    {
        Box::pin(std::future::ready(()))
    }
}

/// The wall clock of a call: the moment it started, for the whole call.
struct FrozenWallClock(SystemTime);

impl HostWallClock for FrozenWallClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }

    fn now(&self) -> Duration {
        self.0.duration_since(UNIX_EPOCH).unwrap_or_default()
    }
}

/// A monotonic clock that starts at zero and moves only when the plugin sleeps.
#[derive(Clone, Default)]
struct VirtualClock(Arc<AtomicU64>);

impl VirtualClock {
    fn advance(&self, nanos: u64) {
        let _ = self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |now| {
                Some(now.saturating_add(nanos))
            });
    }

    fn advance_to(&self, when: u64) {
        self.0.fetch_max(when, Ordering::Relaxed);
    }
}

impl HostMonotonicClock for VirtualClock {
    fn resolution(&self) -> u64 {
        1
    }

    fn now(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_virtual_clock_moves_only_forward_and_only_when_told() {
        let clock = VirtualClock::default();
        assert_eq!(clock.now(), 0);
        clock.advance(5);
        clock.advance_to(3);
        assert_eq!(clock.now(), 5);
        clock.advance_to(40);
        clock.advance(u64::MAX);
        assert_eq!(clock.now(), u64::MAX);
    }

    #[test]
    fn the_wall_clock_is_the_calls_start() {
        let start = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            FrozenWallClock(start).now(),
            Duration::from_secs(1_700_000_000)
        );
    }
}
