//! What a component must be before the host spends anything on it: a regular file inside its plugin's directory
//! (no symlink out of it, no FIFO or device), no bigger than the cap, checked before a byte is read; no function
//! body bigger than the cap (compile time grows faster than a function's size); and its compilation must finish
//! within the budget, or it is refused, by name, and never compiled again by this process.

use std::io::Read as _;
use std::path::Path;

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use weft_compiled_cache::FileStamp;

use super::error::LoadError;

/// A component file as read.
#[derive(Debug)]
pub(crate) struct ComponentFile {
    /// Its bytes.
    pub(crate) bytes: Vec<u8>,
    /// The open file's stamp, when it was the same before and after the read (so no write met the read); `None`
    /// when it changed or the platform has none.
    pub(crate) stamp: Option<FileStamp>,
}

/// Reads a component file: `path`'s file name opened inside `path`'s directory (so a symlink cannot lead out of
/// it), a regular file of at most `max_bytes`, its size checked before reading.
pub(crate) fn read_component(
    plugin: &str,
    path: &Path,
    max_bytes: u64,
) -> Result<ComponentFile, LoadError> {
    let read_error = |source: std::io::Error| LoadError::Read {
        plugin: plugin.to_string(),
        path: path.to_path_buf(),
        source,
    };
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let file_name = path.file_name().ok_or_else(|| {
        read_error(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a file name",
        ))
    })?;
    let dir = Dir::open_ambient_dir(parent, ambient_authority()).map_err(read_error)?;
    let metadata = dir.metadata(file_name).map_err(read_error)?;
    if !metadata.is_file() {
        return Err(LoadError::NotAFile {
            plugin: plugin.to_string(),
            path: path.to_path_buf(),
        });
    }
    if metadata.len() > max_bytes {
        return Err(LoadError::TooLarge {
            plugin: plugin.to_string(),
            path: path.to_path_buf(),
            size: metadata.len(),
            limit: max_bytes,
        });
    }
    let file = dir.open(file_name).map_err(read_error)?.into_std();
    let stamp = || file.metadata().ok().as_ref().and_then(FileStamp::of);
    let before = stamp();
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    (&file)
        .take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > max_bytes {
        // It grew between the check and the read.
        return Err(LoadError::TooLarge {
            plugin: plugin.to_string(),
            path: path.to_path_buf(),
            size: bytes.len() as u64,
            limit: max_bytes,
        });
    }
    let stamp = before.filter(|before| stamp().as_ref() == Some(before));
    Ok(ComponentFile { bytes, stamp })
}

/// Refuses a component with a function body over `max_bytes`, before compiling it. Bytes that do not parse are
/// left for the compiler to refuse with its own message.
pub(crate) fn check_function_sizes(
    plugin: &str,
    wasm: &[u8],
    max_bytes: usize,
) -> Result<(), LoadError> {
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        let Ok(payload) = payload else {
            return Ok(());
        };
        if let wasmparser::Payload::CodeSectionEntry(body) = payload {
            let range = body.range();
            let size = usize::try_from(range.end - range.start).unwrap_or(usize::MAX);
            if size > max_bytes {
                return Err(LoadError::FunctionTooLarge {
                    plugin: plugin.to_string(),
                    size,
                    limit: max_bytes,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_component_is_a_regular_file_inside_its_directory_no_bigger_than_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let plugins = dir.path().join("plugins");
        std::fs::create_dir_all(&plugins).unwrap();
        std::fs::write(plugins.join("ok.wasm"), b"\0asm").unwrap();
        assert_eq!(
            read_component("ok", &plugins.join("ok.wasm"), 1024)
                .unwrap()
                .bytes,
            b"\0asm"
        );
        // Read whole and unchanged meanwhile: it carries the open file's stamp for the digest memo.
        let read = read_component("ok", &plugins.join("ok.wasm"), 1024).unwrap();
        let metadata = std::fs::metadata(plugins.join("ok.wasm")).unwrap();
        assert_eq!(read.stamp, FileStamp::of(&metadata));
        assert!(read.stamp.is_some());
        // Over the cap: refused before reading, naming the size.
        std::fs::write(plugins.join("big.wasm"), vec![0u8; 2048]).unwrap();
        assert!(matches!(
            read_component("big", &plugins.join("big.wasm"), 1024),
            Err(LoadError::TooLarge {
                size: 2048,
                limit: 1024,
                ..
            })
        ));
        // A symlink out of the directory, to a file or to a device that never ends.
        std::fs::write(dir.path().join("outside.wasm"), b"\0asm").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.wasm"), plugins.join("out.wasm"))
            .unwrap();
        assert!(read_component("out", &plugins.join("out.wasm"), 1024).is_err());
        std::os::unix::fs::symlink("/dev/zero", plugins.join("zero.wasm")).unwrap();
        assert!(read_component("zero", &plugins.join("zero.wasm"), 1024).is_err());
        // A directory is not a component.
        std::fs::create_dir(plugins.join("dir.wasm")).unwrap();
        assert!(matches!(
            read_component("dir", &plugins.join("dir.wasm"), 1024),
            Err(LoadError::NotAFile { .. })
        ));
    }

    #[test]
    fn a_huge_function_is_refused_before_compiling() {
        // One function whose body is a long run of `nop`s.
        let body = "nop ".repeat(5000);
        let wasm = wat::parse_str(format!("(module (func {body}))")).unwrap();
        assert!(check_function_sizes("small", &wasm, 1 << 20).is_ok());
        assert!(matches!(
            check_function_sizes("huge", &wasm, 1000),
            Err(LoadError::FunctionTooLarge { limit: 1000, .. })
        ));
    }
}
