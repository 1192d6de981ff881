//! The host: the wasmtime engines every plugin shares (one plain, one fuel-metered for renderers), the
//! compiled-component cache, and component loading.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};
use weft_compiled_cache::{CompiledCache, Origin};

use super::World;
use super::bindings;
use super::epoch::EpochTicker;
use super::error::LoadError;
use super::limits::{CallLimits, LimitCeilings};
use super::shape::{ComponentShape, GUEST_RUNTIME_LIMITS, NATIVE_LIMITS, Sandbox, ShapeLimits};
use super::state::CallState;

/// How the host is set up.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Where compiled components are cached; `None` compiles on every load.
    pub cache_dir: Option<PathBuf>,
    /// Plugin calls that may run at once (and instance slots kept in the pool).
    pub max_concurrent_calls: u32,
    /// Of those, calls of guest-runtime plugins (Python, JavaScript: a language runtime inside the component)
    /// that may run at once: they have a pool of their own, sized for their many core instances, so the native
    /// plugins' limits stay as tight as they are.
    pub max_guest_runtime_calls: u32,
    /// The largest memory any plugin may be given (the pool reserves address space for it per slot).
    pub max_memory_bytes: usize,
    /// How often the deadline clock ticks.
    pub epoch_period: Duration,
    /// Bytes at the start of each instance slot's linear memory that are reset with `memset` and kept resident
    /// between calls instead of being returned to the OS (`madvise`). Larger values trade a memset per call for
    /// fewer page faults and fewer TLB shootdowns when many threads call plugins at once.
    pub keep_resident_bytes: usize,
    /// The most any plugin of each world may be given, whatever its manifest asks.
    pub ceilings: LimitCeilings,
    /// The largest component file read (checked before reading).
    pub max_component_bytes: u64,
    /// The largest function body a component may hold (compilation time grows faster than a function's size).
    pub max_function_bytes: usize,
    /// How long compiling one component may take before it is refused.
    pub compile_budget: Duration,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            cache_dir: default_cache_dir(),
            max_concurrent_calls: 32,
            max_guest_runtime_calls: 8,
            max_memory_bytes: 1024 * 1024 * 1024,
            epoch_period: Duration::from_millis(10),
            keep_resident_bytes: DEFAULT_KEEP_RESIDENT,
            ceilings: LimitCeilings::default(),
            max_component_bytes: 128 * 1024 * 1024,
            max_function_bytes: 1024 * 1024,
            compile_budget: Duration::from_secs(120),
        }
    }
}

impl HostConfig {
    /// The limits a plugin of `world` runs under: what its manifest asked (`limits`), within the world's ceiling
    /// and the largest memory the pool can give (so running out is always reported as out of memory).
    pub fn effective(&self, world: World, limits: CallLimits) -> CallLimits {
        let mut capped = limits.within(self.ceilings.for_world(world));
        capped.memory_bytes = capped.memory_bytes.min(self.max_memory_bytes);
        capped
    }
}

/// The default for [`HostConfig::keep_resident_bytes`], chosen with `cargo bench --bench health`, which prints the
/// per-call cost for several values: it covers the stack, data and first heap pages of a plugin built with a
/// 128 KiB stack (`[build] stack-kib = 128`, as the health plugins are).
pub const DEFAULT_KEEP_RESIDENT: usize = 256 * 1024;

/// `$XDG_CACHE_HOME/weft/components`, else `$HOME/.cache/weft/components`.
fn default_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(base.join("weft").join("components"))
}

/// Why the host could not start.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// wasmtime refused the configuration.
    #[error("cannot configure the Wasm engine: {0}")]
    Engine(String),
    /// The deadline thread could not be started.
    #[error("cannot start the deadline clock: {0}")]
    Clock(std::io::Error),
}

/// The plugin host. Cheap to clone; every clone shares the same engines.
///
/// Health checks and build steering run on a plain engine bounded by the deadline. Renderers, which run template
/// engines over user input, run on a second engine that also meters fuel, so each render has a step budget
/// ([`CallLimits::fuel`](super::CallLimits::fuel)) as well as a deadline; metering costs a few percent of speed,
/// which the per-object health checks do not pay.
#[derive(Clone)]
pub struct PluginHost {
    pub(crate) inner: Arc<HostInner>,
}

impl std::fmt::Debug for PluginHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginHost")
            .field("cache", &self.inner.cache.dir())
            .finish_non_exhaustive()
    }
}

pub(crate) struct HostInner {
    pub(crate) config: HostConfig,
    pub(crate) engine: Engine,
    pub(crate) metered: Engine,
    /// The engine of guest-runtime plugins: its own pool, sized per component for a language runtime.
    pub(crate) guest_runtime: Engine,
    pub(crate) cache: CompiledCache,
    pub(crate) ticker: EpochTicker,
    pub(crate) calls: Arc<tokio::sync::Semaphore>,
    /// Slots of the guest-runtime pool (a guest-runtime call holds one of these as well as one of `calls`).
    pub(crate) guest_runtime_calls: Arc<tokio::sync::Semaphore>,
    pub(crate) health_linker: Linker<CallState>,
    /// The health-check world with the deny-all WASI, on the guest-runtime engine.
    pub(crate) guest_health_linker: Linker<CallState>,
    pub(crate) render_linker: Linker<CallState>,
    pub(crate) steer_linker: Linker<CallState>,
    pub(crate) gate_linker: Linker<CallState>,
    /// Components whose compilation ran past the budget, by sha256: never compiled again by this process.
    pub(crate) refused: std::sync::Mutex<std::collections::HashMap<String, Duration>>,
}

/// A component compiled (or loaded from the cache) and checked, not yet bound to a world.
#[derive(Debug, Clone)]
pub struct LoadedComponent {
    /// The plugin's name.
    pub name: String,
    /// sha256 of the component's bytes, in hex.
    pub sha256: String,
    /// Whether it came from the compiled cache or was compiled now.
    pub origin: Origin,
    /// How long loading took.
    pub load_time: Duration,
    /// The world it was compiled for (renderers are compiled for the metered engine).
    pub world: World,
    /// The sandbox it runs in, decided from its shape before it was compiled.
    pub sandbox: Sandbox,
    pub(crate) component: Component,
}

impl PluginHost {
    /// Starts a host: the engines (pooling allocator, epoch interruption, fuel on the renderers' one), the
    /// deadline clock and the cache.
    pub fn new(config: HostConfig) -> Result<Self, HostError> {
        let slots = config.max_concurrent_calls.max(1);
        let guest_slots = config.max_guest_runtime_calls.clamp(1, slots);
        let engine = new_engine(&config, false, slots, &NATIVE_LIMITS, &NATIVE_PER_SLOT)?;
        let metered = new_engine(&config, true, slots, &NATIVE_LIMITS, &NATIVE_PER_SLOT)?;
        let guest_runtime = new_engine(
            &config,
            false,
            guest_slots,
            &GUEST_RUNTIME_LIMITS,
            &GUEST_RUNTIME_LIMITS,
        )?;
        let ticker = EpochTicker::start(
            vec![engine.clone(), metered.clone(), guest_runtime.clone()],
            config.epoch_period,
        )
        .map_err(HostError::Clock)?;
        // A cache that cannot be opened (read-only home, say) only costs compile time.
        let cache = config
            .cache_dir
            .clone()
            .and_then(|dir| CompiledCache::open(dir).ok())
            .unwrap_or_else(CompiledCache::disabled);
        let mut health_linker = Linker::new(&engine);
        bindings::health_check::HealthCheck::add_to_linker::<_, wasmtime::component::HasSelf<_>>(
            &mut health_linker,
            |state| state,
        )
        .map_err(|e| HostError::Engine(format!("{e:#}")))?;
        let mut guest_health_linker = Linker::new(&guest_runtime);
        bindings::health_check::HealthCheck::add_to_linker::<_, wasmtime::component::HasSelf<_>>(
            &mut guest_health_linker,
            |state| state,
        )
        .and_then(|()| super::guest_wasi::add_to_linker(&mut guest_health_linker))
        .map_err(|e| HostError::Engine(format!("{e:#}")))?;
        let mut render_linker = Linker::new(&metered);
        bindings::renderer::Renderer::add_to_linker::<_, wasmtime::component::HasSelf<_>>(
            &mut render_linker,
            |state| state,
        )
        .map_err(|e| HostError::Engine(format!("{e:#}")))?;
        let mut steer_linker = Linker::new(&engine);
        bindings::build_steer::BuildSteer::add_to_linker::<_, wasmtime::component::HasSelf<_>>(
            &mut steer_linker,
            |state| state,
        )
        .map_err(|e| HostError::Engine(format!("{e:#}")))?;
        let mut gate_linker = Linker::new(&metered);
        bindings::gate::Gate::add_to_linker::<_, wasmtime::component::HasSelf<_>>(
            &mut gate_linker,
            |state| state,
        )
        .map_err(|e| HostError::Engine(format!("{e:#}")))?;
        Ok(PluginHost {
            inner: Arc::new(HostInner {
                config: config.clone(),
                engine,
                metered,
                guest_runtime,
                cache,
                ticker,
                calls: Arc::new(tokio::sync::Semaphore::new(slots as usize)),
                guest_runtime_calls: Arc::new(tokio::sync::Semaphore::new(guest_slots as usize)),
                health_linker,
                guest_health_linker,
                render_linker,
                steer_linker,
                gate_linker,
                refused: std::sync::Mutex::new(std::collections::HashMap::new()),
            }),
        })
    }

    /// Loads a component's bytes for `world`: checks the pinned sha256 (when given), reads its shape (imports and
    /// instance counts) to choose its sandbox or refuse it before anything is compiled, then compiles it or loads
    /// it from the cache for that sandbox's engine.
    pub fn load_component(
        &self,
        name: &str,
        world: World,
        wasm: &[u8],
        pinned_sha256: Option<&str>,
        path: Option<&std::path::Path>,
    ) -> Result<LoadedComponent, LoadError> {
        let started = Instant::now();
        let sha256 = hex::encode(Sha256::digest(wasm));
        let mut loaded = self.load_digested(name, world, wasm, sha256, pinned_sha256, path)?;
        loaded.load_time = started.elapsed();
        Ok(loaded)
    }

    /// [`load_component`](Self::load_component) of bytes whose sha256 (hex) is known.
    fn load_digested(
        &self,
        name: &str,
        world: World,
        wasm: &[u8],
        sha256: String,
        pinned_sha256: Option<&str>,
        path: Option<&std::path::Path>,
    ) -> Result<LoadedComponent, LoadError> {
        let started = Instant::now();
        if let Some(expected) = pinned_sha256
            && !expected.eq_ignore_ascii_case(&sha256)
        {
            return Err(LoadError::Sha256Mismatch {
                plugin: name.to_string(),
                path: path.map(PathBuf::from).unwrap_or_default(),
                expected: expected.to_string(),
                actual: sha256,
            });
        }
        if let Some(refusal) = self.inner.refusal(name, &sha256) {
            return Err(refusal);
        }
        let sandbox = admit_shape(name, world, wasm)?;
        super::admission::check_function_sizes(name, wasm, self.inner.config.max_function_bytes)?;
        let engine = self.inner.engine_for(world, sandbox).clone();
        let (component, origin) = self
            .inner
            .compile_within_budget(name, &engine, wasm, &sha256)?;
        Ok(LoadedComponent {
            name: name.to_string(),
            sha256,
            origin,
            load_time: started.elapsed(),
            world,
            sandbox,
            component,
        })
    }

    /// Reads and loads a component file for `world`: a regular file, opened inside its directory (no symlink
    /// out), its size checked against the host's cap before reading. Its sha256 is taken from the cache's memo
    /// when the file's stamp (device, inode, size, mtime, ctime) is the one remembered and stayed so while it was
    /// read, else hashed and remembered (`weft_compiled_cache::digest_memo` says why that is sound).
    pub fn load_component_file(
        &self,
        name: &str,
        world: World,
        path: &std::path::Path,
        pinned_sha256: Option<&str>,
    ) -> Result<LoadedComponent, LoadError> {
        let started = Instant::now();
        let clock = std::time::SystemTime::now();
        let file =
            super::admission::read_component(name, path, self.inner.config.max_component_bytes)?;
        let cache = &self.inner.cache;
        let remembered = file
            .stamp
            .as_ref()
            .and_then(|stamp| cache.remembered_sha256(stamp));
        let sha256 = remembered.unwrap_or_else(|| {
            let sha256 = hex::encode(Sha256::digest(&file.bytes));
            if let Some(stamp) = &file.stamp {
                cache.remember_sha256(stamp, &sha256, clock);
            }
            sha256
        });
        let mut loaded =
            self.load_digested(name, world, &file.bytes, sha256, pinned_sha256, Some(path))?;
        loaded.load_time = started.elapsed();
        Ok(loaded)
    }
}

impl HostInner {
    /// The refusal of a component whose compilation ran past the budget before, if it did.
    fn refusal(&self, name: &str, sha256: &str) -> Option<LoadError> {
        let refused = self.refused.lock().unwrap_or_else(|e| e.into_inner());
        refused.get(sha256).map(|budget| LoadError::CompileTimeout {
            plugin: name.to_string(),
            budget: *budget,
        })
    }

    /// Compiles (or loads from the cache) on a thread of its own, waiting at most the compile budget: past it
    /// the component is refused, and remembered as refused (the abandoned compilation finishes in the
    /// background; its result is dropped).
    fn compile_within_budget(
        &self,
        name: &str,
        engine: &Engine,
        wasm: &[u8],
        sha256: &str,
    ) -> Result<(Component, weft_compiled_cache::Origin), LoadError> {
        // A cached compiled form is checked and mapped here, without a thread or a copy of the bytes.
        if let Some(component) = self.cache.load_cached(engine, sha256) {
            return Ok((component, Origin::Cache));
        }
        let (sender, receiver) = std::sync::mpsc::channel();
        let (cache, engine, bytes, digest) = (
            self.cache.clone(),
            engine.clone(),
            wasm.to_vec(),
            sha256.to_string(),
        );
        std::thread::Builder::new()
            .name(format!("weft-compile-{name}"))
            .spawn(move || {
                let _ = sender.send(cache.load(&engine, &bytes, &digest));
            })
            .map_err(|e| LoadError::Compile {
                plugin: name.to_string(),
                message: format!("cannot start the compiler thread: {e}"),
            })?;
        let budget = self.config.compile_budget;
        match receiver.recv_timeout(budget) {
            Ok(compiled) => compiled.map_err(|e| LoadError::Compile {
                plugin: name.to_string(),
                message: e.to_string(),
            }),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                self.refused
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(sha256.to_string(), budget);
                Err(LoadError::CompileTimeout {
                    plugin: name.to_string(),
                    budget,
                })
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(LoadError::Compile {
                plugin: name.to_string(),
                message: "the compiler thread failed".into(),
            }),
        }
    }

    /// The engine a world's plugins in a sandbox are compiled for and run on.
    pub(crate) fn engine_for(&self, world: World, sandbox: Sandbox) -> &Engine {
        match sandbox {
            Sandbox::GuestRuntime => &self.guest_runtime,
            Sandbox::Native if Self::metered(world) => &self.metered,
            Sandbox::Native => &self.engine,
        }
    }

    /// Whether a world runs with a step budget (renderers and gates: both run policy or template code whose
    /// cost depends on its input).
    pub(crate) fn metered(world: World) -> bool {
        matches!(world, World::Renderer | World::Gate)
    }
}

/// The sandbox a component's shape puts it in, or its refusal, decided before compiling: imports outside the
/// deny-all set and counts past the guest-runtime pool's are refused; guest runtimes serve health checks only
/// (renderers run metered, build steering has no guest-runtime linker yet).
fn admit_shape(name: &str, world: World, wasm: &[u8]) -> Result<Sandbox, LoadError> {
    let refused = |message: String| LoadError::Refused {
        plugin: name.to_string(),
        message,
    };
    let shape = ComponentShape::read(wasm).map_err(|e| LoadError::Compile {
        plugin: name.to_string(),
        message: e.to_string(),
    })?;
    let sandbox = shape.sandbox().map_err(|e| refused(e.to_string()))?;
    if sandbox == Sandbox::GuestRuntime && world != World::HealthCheck {
        let why = match shape.wasi_imports().next() {
            Some(import) => format!("it imports {import}"),
            None => format!("it has {} core instances", shape.core_instances),
        };
        return Err(refused(format!(
            "{why}, so it needs the guest-runtime sandbox (WASI deny-all, a language runtime's pool), which              serves health checks only; a {world} plugin must be built for wasm32-unknown-unknown and import only              the weft:plugin interfaces"
        )));
    }
    Ok(sandbox)
}

/// What the native pools hold per slot on average (a native plugin is usually one core instance with one memory;
/// one may use up to [`NATIVE_LIMITS`] as long as the pool as a whole has room).
const NATIVE_PER_SLOT: ShapeLimits = ShapeLimits {
    core_instances: 4,
    memories: 1,
    tables: 4,
};

/// Bytes of linear memory a metered engine's slot (renderers, gates) keeps resident between calls, at least: a
/// render's heap reaches megabytes (a 200-object chart touches about 1 MiB), and every page of it given back to the
/// OS is a page fault, zeroed by the kernel, in the next render. With `PAGEMAP_SCAN` (Linux 6.7 and later) only
/// the pages a call touched are reset (zeroed, or copied back from the component's data image) when the instance
/// is freed, so the next render still starts from the component's initial memory, in a slot of its own, while a
/// slot that stays idle costs only its resident pages. `cargo bench -p weft-engine --bench render` measured it.
pub const RENDER_KEEP_RESIDENT: usize = 16 * 1024 * 1024;

/// One engine: component model, epoch deadlines, the pooling allocator with `slots` instance slots, each
/// component within `per_component` and the pool's totals `per_slot` times the slots, and fuel if `metered`
/// (with [`RENDER_KEEP_RESIDENT`] bytes of each memory kept resident, reset page by page where the kernel can
/// say which pages were touched).
fn new_engine(
    config: &HostConfig,
    metered: bool,
    slots: u32,
    per_component: &ShapeLimits,
    per_slot: &ShapeLimits,
) -> Result<Engine, HostError> {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(slots)
        .total_core_instances(slots * per_slot.core_instances)
        .total_memories(slots * per_slot.memories)
        .total_tables(slots * per_slot.tables)
        // One execution stack a slot (wasmtime's default keeps 1,000, each mapped with its guard page when the
        // engine starts: 3,000 mprotect calls across the three engines, most of a short `weft render`'s time).
        .total_stacks(slots)
        .max_core_instances_per_component(per_component.core_instances)
        .max_memories_per_component(per_component.memories)
        .max_tables_per_component(per_component.tables)
        .max_memory_size(config.max_memory_bytes)
        .linear_memory_keep_resident(config.keep_resident_bytes)
        .table_keep_resident(64 * 1024);
    if metered {
        pool.linear_memory_keep_resident(config.keep_resident_bytes.max(RENDER_KEEP_RESIDENT))
            .pagemap_scan(wasmtime::Enabled::Auto);
    }
    let mut wasm = Config::new();
    wasm.wasm_component_model(true)
        .epoch_interruption(true)
        .consume_fuel(metered)
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    Engine::new(&wasm).map_err(|e| HostError::Engine(format!("{e:#}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest component, with a one-letter custom section: two of them differ in one byte, not in size.
    fn component(letter: u8) -> Vec<u8> {
        let mut bytes = b"\0asm\x0d\0\x01\0".to_vec();
        bytes.extend_from_slice(&[0, 2, 1, letter]);
        bytes
    }

    fn sha(bytes: &[u8]) -> String {
        hex::encode(Sha256::digest(bytes))
    }

    #[cfg(unix)]
    #[test]
    fn a_component_edited_in_place_with_its_mtime_set_back_is_hashed_again_despite_its_memo() {
        use weft_compiled_cache::FileStamp;
        let dir = tempfile::tempdir().unwrap();
        let cache_dir = dir.path().join("components");
        let host = PluginHost::new(HostConfig {
            cache_dir: Some(cache_dir.clone()),
            max_concurrent_calls: 1,
            max_guest_runtime_calls: 1,
            ..HostConfig::default()
        })
        .unwrap();
        let path = dir.path().join("p.wasm");
        std::fs::write(&path, component(b'a')).unwrap();
        let first = host
            .load_component_file("p", World::HealthCheck, &path, None)
            .unwrap();
        assert_eq!(first.sha256, sha(&component(b'a')));
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();

        // Edited in place, the same size, its mtime set back to what it was.
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut &file, &component(b'b')).unwrap();
        file.set_modified(modified).unwrap();
        drop(file);
        // A memo, as a run before the edit would have left it: the same device, inode, size and mtime as now, the
        // digest of the old bytes; only the ctime, which no user can set, is the one from before the edit.
        let now = FileStamp::of(&std::fs::metadata(&path).unwrap()).unwrap();
        let before_edit = FileStamp {
            changed_ns: now.changed_ns - 1,
            ..now
        };
        let far_later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
        let cache = CompiledCache::open(&cache_dir).unwrap();
        cache.remember_sha256(&before_edit, &first.sha256, far_later);
        assert_eq!(
            cache.remembered_sha256(&before_edit),
            Some(first.sha256.clone())
        );

        let second = host
            .load_component_file("p", World::HealthCheck, &path, None)
            .unwrap();
        assert_eq!(second.sha256, sha(&component(b'b')));
        // And a pin of the old digest is refused, not satisfied by the memo.
        let pinned = host.load_component_file("p", World::HealthCheck, &path, Some(&first.sha256));
        assert!(matches!(pinned, Err(LoadError::Sha256Mismatch { .. })));
    }
}
