//! An on-disk cache of compiled Wasm components, keyed by what they are and what compiled them.
//!
//! Compiling a component with Cranelift takes around 100 ms; loading a compiled one takes well under a
//! millisecond. This crate keeps compiled components on disk so a restart of Weft loads plugins at once.
//!
//! Loading compiled code is the one `unsafe` thing Weft does: wasmtime trusts that a compiled artifact was
//! produced by a compatible `Engine` and not tampered with. This crate only accepts artifacts it wrote itself:
//! - The file name is the sha256 of the component's own bytes plus a digest of the engine's precompile
//!   compatibility hash; a path is never taken from configuration or from the plugin.
//! - Each file starts with the sha256 of the rest of its contents, checked before wasmtime sees a byte, so a
//!   truncated or altered file is recompiled, never loaded.
//! - The cache directory is created private to its owner (mode 0700 on Unix) and a directory or file that others
//!   can write to is refused (the component is compiled in memory instead).
//!
//! Anything off (a missing, corrupt, foreign or incompatible file) falls back to compiling, and the fresh result is
//! written atomically (a temporary file renamed into place).
//!
//! It depends on no Weft crate, and nothing but the plugin host should depend on it.

use std::fs;
use std::hash::Hasher;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// Errors from the cache. Any of them leaves the cache usable.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The component could not be compiled (it is not a valid component, or uses a feature the engine refuses).
    #[error("compiling the component failed: {0}")]
    Compile(String),
    /// The cache directory could not be created.
    #[error("cannot create the compiled-component cache at {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Where a loaded component came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Loaded from a compiled file in the cache.
    Cache,
    /// Compiled now (and written to the cache when that was possible).
    Compiled,
}

/// A directory of compiled components for one engine configuration.
#[derive(Debug, Clone)]
pub struct CompiledCache {
    dir: Option<PathBuf>,
}

impl CompiledCache {
    /// A cache in `dir`, created (private to its owner) when missing.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self, CacheError> {
        let dir = dir.into();
        create_private_dir(&dir).map_err(|source| CacheError::CreateDir {
            path: dir.clone(),
            source,
        })?;
        Ok(CompiledCache { dir: Some(dir) })
    }

    /// No cache: every load compiles.
    pub fn disabled() -> Self {
        CompiledCache { dir: None }
    }

    /// The cache directory, if there is one.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The file a component would be cached in, for this engine.
    pub fn entry_path(&self, engine: &Engine, component_sha256: &str) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(dir.join(format!("{component_sha256}-{}.cwasm", engine_key(engine))))
    }

    /// Loads the compiled form of `wasm` (whose sha256, in hex, is `sha256`), compiling and caching it when there
    /// is no usable compiled file.
    pub fn load(
        &self,
        engine: &Engine,
        wasm: &[u8],
        sha256: &str,
    ) -> Result<(Component, Origin), CacheError> {
        let entry = self
            .entry_path(engine, sha256)
            .filter(|_| self.dir_is_private());
        if let Some(path) = &entry
            && let Some(component) = load_entry(engine, path)
        {
            return Ok((component, Origin::Cache));
        }
        let compiled = engine
            .precompile_component(wasm)
            .map_err(|e| CacheError::Compile(format!("{e:#}")))?;
        if let Some(path) = &entry {
            // A cache that cannot be written only costs time on the next start.
            let _ = write_entry(path, &compiled);
        }
        Ok((deserialize_own(engine, &compiled)?, Origin::Compiled))
    }

    fn dir_is_private(&self) -> bool {
        self.dir.as_deref().is_some_and(|dir| {
            fs::metadata(dir).is_ok_and(|m| m.is_dir() && !writable_by_others(&m))
        })
    }
}

/// Hex digest of the engine's compatibility hash: artifacts from an engine with other settings or another
/// wasmtime version land under another name instead of failing to load.
fn engine_key(engine: &Engine) -> String {
    let mut hasher = ShaHasher(Sha256::new());
    std::hash::Hash::hash(&engine.precompile_compatibility_hash(), &mut hasher);
    hex::encode(&hasher.0.finalize()[..8])
}

/// Feeds `Hash` input into sha256, so the key is stable across processes and Rust versions.
struct ShaHasher(Sha256);

impl Hasher for ShaHasher {
    fn finish(&self) -> u64 {
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

fn load_entry(engine: &Engine, path: &Path) -> Option<Component> {
    let metadata = fs::metadata(path).ok()?;
    if !metadata.is_file() || writable_by_others(&metadata) {
        return None;
    }
    let bytes = fs::read(path).ok()?;
    let (digest, payload) = bytes.split_at_checked(32)?;
    if Sha256::digest(payload).as_slice() != digest {
        return None;
    }
    deserialize_own(engine, payload).ok()
}

fn write_entry(path: &Path, compiled: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile_in(dir)?;
    tmp.1.write_all(&Sha256::digest(compiled))?;
    tmp.1.write_all(compiled)?;
    tmp.1.sync_all()?;
    drop(tmp.1);
    fs::rename(&tmp.0, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp.0);
    })
}

fn tempfile_in(dir: &Path) -> std::io::Result<(PathBuf, fs::File)> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    for attempt in 0..16u32 {
        let path = dir.join(format!(".tmp-{}-{attempt}-{}", std::process::id(), nanos()));
        match options.open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free temporary file name"))
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// Deserializes bytes this process just produced with `Engine::precompile_component`, or that carry the digest
/// this crate wrote beside them in its private cache (checked by the caller).
#[allow(unsafe_code)]
fn deserialize_own(engine: &Engine, compiled: &[u8]) -> Result<Component, CacheError> {
    // SAFETY: `compiled` is either the output of `engine.precompile_component` in this process, or a file from
    // this crate's owner-only cache directory whose leading sha256 matches its contents, written by this crate
    // from such output under a name bound to this engine's compatibility hash. wasmtime additionally checks the
    // artifact's header and compatibility and returns an error (not UB) on a mismatch.
    unsafe { Component::deserialize(engine, compiled) }
        .map_err(|e| CacheError::Compile(format!("{e:#}")))
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(unix)]
fn writable_by_others(metadata: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o022 != 0
}

#[cfg(not(unix))]
fn writable_by_others(_metadata: &fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    // The smallest valid component.
    const EMPTY_COMPONENT: &[u8] = b"\0asm\x0d\0\x01\0";

    fn sha(bytes: &[u8]) -> String {
        hex::encode(Sha256::digest(bytes))
    }

    #[test]
    fn compiles_once_then_loads_from_disk() {
        let engine = Engine::default();
        let dir = tempfile::tempdir().unwrap();
        let cache = CompiledCache::open(dir.path().join("c")).unwrap();
        let key = sha(EMPTY_COMPONENT);
        let (_, origin) = cache.load(&engine, EMPTY_COMPONENT, &key).unwrap();
        assert_eq!(origin, Origin::Compiled);
        let (_, origin) = cache.load(&engine, EMPTY_COMPONENT, &key).unwrap();
        assert_eq!(origin, Origin::Cache);
    }

    #[test]
    fn a_tampered_file_is_recompiled_not_loaded() {
        let engine = Engine::default();
        let dir = tempfile::tempdir().unwrap();
        let cache = CompiledCache::open(dir.path().join("c")).unwrap();
        let key = sha(EMPTY_COMPONENT);
        cache.load(&engine, EMPTY_COMPONENT, &key).unwrap();
        let path = cache.entry_path(&engine, &key).unwrap();
        let mut bytes = fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        fs::write(&path, &bytes).unwrap();
        let (_, origin) = cache.load(&engine, EMPTY_COMPONENT, &key).unwrap();
        assert_eq!(origin, Origin::Compiled);
        // And the recompiled entry replaced the bad one.
        let (_, origin) = cache.load(&engine, EMPTY_COMPONENT, &key).unwrap();
        assert_eq!(origin, Origin::Cache);
    }

    #[cfg(unix)]
    #[test]
    fn a_world_writable_cache_is_not_trusted() {
        use std::os::unix::fs::PermissionsExt;
        let engine = Engine::default();
        let dir = tempfile::tempdir().unwrap();
        let cache = CompiledCache::open(dir.path().join("c")).unwrap();
        let key = sha(EMPTY_COMPONENT);
        cache.load(&engine, EMPTY_COMPONENT, &key).unwrap();
        fs::set_permissions(cache.dir().unwrap(), fs::Permissions::from_mode(0o777)).unwrap();
        let (_, origin) = cache.load(&engine, EMPTY_COMPONENT, &key).unwrap();
        assert_eq!(origin, Origin::Compiled);
    }

    #[test]
    fn invalid_bytes_are_a_compile_error() {
        let engine = Engine::default();
        let err = CompiledCache::disabled()
            .load(&engine, b"not wasm", "x")
            .unwrap_err();
        assert!(matches!(err, CacheError::Compile(_)));
    }
}
