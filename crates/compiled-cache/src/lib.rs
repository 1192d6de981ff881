//! An on-disk cache of compiled Wasm components, keyed by what they are and what compiled them.
//!
//! Compiling a component with Cranelift takes around 100 ms; loading a compiled one takes a few milliseconds.
//! This crate keeps compiled components on disk so a restart of Weft loads plugins at once.
//!
//! Loading compiled code is the one `unsafe` thing Weft does: wasmtime trusts that a compiled artifact was
//! produced by a compatible `Engine` and not tampered with. This crate only accepts artifacts it wrote itself:
//! - The file name is the sha256 of the component's own bytes plus a digest of the engine's precompile
//!   compatibility hash; a path is never taken from configuration or from the plugin.
//! - Each file ends with the BLAKE3 digest of the rest of its contents ([`sealed`]), checked through the open file
//!   before wasmtime sees a byte, so a truncated or altered file is recompiled, never mapped executable.
//! - The checked file is then mapped, not copied: on Linux wasmtime maps the same open file (its
//!   `/proc/self/fd` entry, checked to be that file) copy-on-write. The cache never writes a file in place (a new
//!   file is renamed over the old), so a mapped file changes only if its owner or root writes it in place, who
//!   could as well replace the executable. Elsewhere, or without `/proc`, the file is read into memory and checked
//!   there.
//! - The cache directory is created private to its owner (mode 0700 on Unix) and a directory or file that others
//!   can write to is refused (the component is compiled in memory instead).
//!
//! Anything off (a missing, corrupt, foreign or incompatible file) falls back to compiling, and the fresh result is
//! written atomically (a temporary file renamed into place). The directory also keeps component files' sha256
//! digests by their stamps ([`digest_memo`]), so an unchanged component is not hashed at every start.
//!
//! It depends on no Weft crate, and nothing but the plugin host should depend on it.

use std::fs;
use std::hash::Hasher;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

pub mod digest_memo;
mod sealed;

pub use digest_memo::FileStamp;

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

    /// The file a component would be cached in, for this engine. (`v2`: sealed with a BLAKE3 trailer; the `.cwasm`
    /// files of older Weft versions, sealed with a SHA-256 header, are left alone.)
    pub fn entry_path(&self, engine: &Engine, component_sha256: &str) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(dir.join(format!(
            "{component_sha256}-{}.v2.cwasm",
            engine_key(engine)
        )))
    }

    /// The compiled form of the component whose sha256 (hex) is `sha256`, when the cache holds a usable one;
    /// never compiles.
    pub fn load_cached(&self, engine: &Engine, sha256: &str) -> Option<Component> {
        let path = self
            .entry_path(engine, sha256)
            .filter(|_| self.dir_is_private())?;
        load_entry(engine, &path)
    }

    /// Loads the compiled form of `wasm` (whose sha256, in hex, is `sha256`), compiling and caching it when there
    /// is no usable compiled file.
    pub fn load(
        &self,
        engine: &Engine,
        wasm: &[u8],
        sha256: &str,
    ) -> Result<(Component, Origin), CacheError> {
        if let Some(component) = self.load_cached(engine, sha256) {
            return Ok((component, Origin::Cache));
        }
        let entry = self
            .entry_path(engine, sha256)
            .filter(|_| self.dir_is_private());
        let compiled = engine
            .precompile_component(wasm)
            .map_err(|e| CacheError::Compile(format!("{e:#}")))?;
        if let Some(path) = &entry {
            // A cache that cannot be written only costs time on the next start.
            let _ = write_entry(path, &compiled);
        }
        Ok((
            deserialize(engine, Artifact::Bytes(&compiled))?,
            Origin::Compiled,
        ))
    }

    /// The sha256 (hex) remembered for a component file whose stamp is `stamp`, if the cache's memo holds one for
    /// exactly that stamp (see [`digest_memo`] for why that means the same bytes).
    pub fn remembered_sha256(&self, stamp: &FileStamp) -> Option<String> {
        let dir = self.dir.as_deref().filter(|_| self.dir_is_private())?;
        let path = dir.join(stamp.entry_name());
        let metadata = fs::symlink_metadata(&path).ok()?;
        if !metadata.is_file() || writable_by_others(&metadata) || metadata.len() > 512 {
            return None;
        }
        digest_memo::decode(&fs::read_to_string(path).ok()?, stamp)
    }

    /// Remembers `sha256` for a component file whose stamp was `stamp` both before and after the bytes it digests
    /// were read, `clock` read before the first stamp; a file that changed less than [`digest_memo::SETTLE`]
    /// before `clock` is not remembered. A memo that cannot be written only costs a hash at the next start.
    pub fn remember_sha256(&self, stamp: &FileStamp, sha256: &str, clock: std::time::SystemTime) {
        let Some(dir) = self.dir.as_deref().filter(|_| self.dir_is_private()) else {
            return;
        };
        if !stamp.settled_before(clock) {
            return;
        }
        let text = digest_memo::encode(stamp, sha256);
        let _ = write_atomically(&dir.join(stamp.entry_name()), &[text.as_bytes()], false);
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

/// A cache file, checked and mapped (or read and checked): `None` for anything off.
fn load_entry(engine: &Engine, path: &Path) -> Option<Component> {
    let mut file = fs::File::open(path).ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || writable_by_others(&metadata) {
        return None;
    }
    if let Some(mapped) = mapped_path(&file, &metadata) {
        if !sealed::is_sealed(&file, metadata.len()).ok()? {
            return None;
        }
        return deserialize(engine, Artifact::CheckedFile(&mapped)).ok();
    }
    file.rewind().ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    if !sealed::is_sealed(bytes.as_slice(), bytes.len() as u64).ok()? {
        return None;
    }
    deserialize(
        engine,
        Artifact::Bytes(&bytes[..bytes.len() - sealed::DIGEST_LEN]),
    )
    .ok()
}

/// A path that opens the very file `file` is (Linux's `/proc/self/fd/N`, checked to be the same device and
/// inode), for wasmtime to map; `None` where there is none.
fn mapped_path(file: &fs::File, metadata: &fs::Metadata) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::AsRawFd;
        let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        let target = fs::metadata(&path).ok()?;
        (target.dev() == metadata.dev() && target.ino() == metadata.ino()).then_some(path)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, metadata);
        None
    }
}

fn write_entry(path: &Path, compiled: &[u8]) -> std::io::Result<()> {
    write_atomically(path, &[compiled, &sealed::seal(compiled)], true)
}

/// Writes `parts` to a new private file in `path`'s directory and renames it over `path`, so a reader sees the old
/// file or the whole new one, and no file is ever written in place.
fn write_atomically(path: &Path, parts: &[&[u8]], sync: bool) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile_in(dir)?;
    for part in parts {
        tmp.1.write_all(part)?;
    }
    if sync {
        tmp.1.sync_all()?;
    }
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

/// A compiled artifact this crate vouches for.
enum Artifact<'a> {
    /// Bytes this process just produced with `Engine::precompile_component`, or read from a cache file and found
    /// sealed (the seal cut off).
    Bytes(&'a [u8]),
    /// A path opening a cache file this process just found sealed through the same open file.
    CheckedFile(&'a Path),
}

/// Deserializes an artifact this crate vouches for.
#[allow(unsafe_code)]
fn deserialize(engine: &Engine, artifact: Artifact<'_>) -> Result<Component, CacheError> {
    // SAFETY: the artifact is either the output of `engine.precompile_component` in this process, or a file from
    // this crate's owner-only cache directory whose trailing BLAKE3 digest matched its contents when read through
    // the open file that is mapped now, written by this crate from such output under a name bound to this engine's
    // compatibility hash. A mapped file must not change while mapped: this crate replaces files by renaming new
    // ones over them, never writing in place, so only the owner or root could change it (the trailing digest is
    // past the ELF sections wasmtime reads). wasmtime additionally checks the artifact's header and compatibility
    // and returns an error (not UB) on a mismatch.
    unsafe {
        match artifact {
            Artifact::Bytes(compiled) => Component::deserialize(engine, compiled),
            Artifact::CheckedFile(path) => Component::deserialize_file(engine, path),
        }
    }
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

    #[test]
    fn a_cache_file_changed_or_cut_inside_its_code_is_recompiled_not_loaded() {
        let engine = Engine::default();
        let dir = tempfile::tempdir().unwrap();
        let cache = CompiledCache::open(dir.path().join("c")).unwrap();
        let key = sha(EMPTY_COMPONENT);
        cache.load(&engine, EMPTY_COMPONENT, &key).unwrap();
        let path = cache.entry_path(&engine, &key).unwrap();
        let good = fs::read(&path).unwrap();
        let mut changed = good.clone();
        changed[good.len() / 2] ^= 0x01;
        let cut = &good[..good.len() - 1];
        for bad in [
            changed.as_slice(),
            cut,
            &good[..good.len() / 2],
            b"".as_slice(),
        ] {
            fs::write(&path, bad).unwrap();
            assert!(cache.load_cached(&engine, &key).is_none());
            let (_, origin) = cache.load(&engine, EMPTY_COMPONENT, &key).unwrap();
            assert_eq!(origin, Origin::Compiled);
            assert_eq!(fs::read(&path).unwrap(), good);
        }
    }

    #[test]
    fn a_sealed_file_is_the_compiled_artifact_followed_by_its_blake3_digest() {
        let engine = Engine::default();
        let dir = tempfile::tempdir().unwrap();
        let cache = CompiledCache::open(dir.path().join("c")).unwrap();
        let key = sha(EMPTY_COMPONENT);
        cache.load(&engine, EMPTY_COMPONENT, &key).unwrap();
        let bytes = fs::read(cache.entry_path(&engine, &key).unwrap()).unwrap();
        let (artifact, seal) = bytes.split_at(bytes.len() - sealed::DIGEST_LEN);
        assert_eq!(
            artifact,
            engine.precompile_component(EMPTY_COMPONENT).unwrap()
        );
        assert_eq!(seal, blake3::hash(artifact).as_bytes());
    }

    #[cfg(unix)]
    fn stamp_of(path: &Path) -> FileStamp {
        FileStamp::of(&fs::metadata(path).unwrap()).unwrap()
    }

    #[cfg(unix)]
    #[test]
    fn a_remembered_digest_is_given_back_only_for_the_same_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CompiledCache::open(dir.path().join("c")).unwrap();
        let component = dir.path().join("p.wasm");
        fs::write(&component, EMPTY_COMPONENT).unwrap();
        let stamp = stamp_of(&component);
        let later = std::time::SystemTime::now() + digest_memo::SETTLE * 2;
        cache.remember_sha256(&stamp, &sha(EMPTY_COMPONENT), later);
        assert_eq!(cache.remembered_sha256(&stamp), Some(sha(EMPTY_COMPONENT)));
        let edited = FileStamp {
            changed_ns: stamp.changed_ns + 1,
            ..stamp
        };
        assert_eq!(cache.remembered_sha256(&edited), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_changed_just_now_is_not_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CompiledCache::open(dir.path().join("c")).unwrap();
        let component = dir.path().join("p.wasm");
        let clock = std::time::SystemTime::now();
        fs::write(&component, EMPTY_COMPONENT).unwrap();
        let stamp = stamp_of(&component);
        cache.remember_sha256(&stamp, &sha(EMPTY_COMPONENT), clock);
        assert_eq!(cache.remembered_sha256(&stamp), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_forged_memo_for_an_edited_file_is_refused() {
        // The memo file is rewritten to claim the edited file's stamp without its check: it is not believed, so
        // the caller hashes the file again.
        let dir = tempfile::tempdir().unwrap();
        let cache = CompiledCache::open(dir.path().join("c")).unwrap();
        let component = dir.path().join("p.wasm");
        fs::write(&component, EMPTY_COMPONENT).unwrap();
        let stamp = stamp_of(&component);
        let later = std::time::SystemTime::now() + digest_memo::SETTLE * 2;
        cache.remember_sha256(&stamp, &sha(EMPTY_COMPONENT), later);
        let memo = cache.dir().unwrap().join(stamp.entry_name());
        let edited = FileStamp {
            changed_ns: stamp.changed_ns + 7,
            ..stamp
        };
        let text = fs::read_to_string(&memo).unwrap().replacen(
            &stamp.changed_ns.to_string(),
            &edited.changed_ns.to_string(),
            1,
        );
        fs::write(&memo, text).unwrap();
        assert_eq!(cache.remembered_sha256(&edited), None);
        assert_eq!(cache.remembered_sha256(&stamp), None);
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
