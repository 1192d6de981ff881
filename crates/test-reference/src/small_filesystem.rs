//! A small filesystem of a test's own, to fill: a tmpfs of a given size mounted at a fresh temporary directory
//! (which takes root, or CAP_SYS_ADMIN), filled with a ballast file until the kernel says ENOSPC and freed by
//! removing it, unmounted on drop.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::under_ci;

/// ENOSPC, "No space left on device", on Linux.
const ENOSPC: i32 = 28;

/// A tmpfs mounted at a temporary directory, unmounted (lazily, `umount -l`) on drop, also when a test panics.
#[derive(Debug)]
pub struct SmallFilesystem {
    dir: tempfile::TempDir,
    bytes: u64,
}

impl SmallFilesystem {
    /// Mounts a tmpfs of `bytes` (rounded up to pages by the kernel) that every user may write to
    /// (`mount -t tmpfs -o size=BYTES,mode=0777 tmpfs DIR`); the error says why it could not be mounted.
    pub fn mount(bytes: u64) -> Result<SmallFilesystem, String> {
        let dir = tempfile::tempdir().map_err(|error| format!("a temporary directory: {error}"))?;
        let output = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes},mode=0777")])
            .arg("tmpfs")
            .arg(dir.path())
            .output()
            .map_err(|error| format!("mount cannot run: {error}"))?;
        if !output.status.success() {
            return Err(format!(
                "mounting a tmpfs at {} takes root or CAP_SYS_ADMIN: mount said {}",
                dir.path().display(),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        Ok(SmallFilesystem { dir, bytes })
    }

    /// [`SmallFilesystem::mount`] for the running test (named after its thread, as the test harness names it), or
    /// `None` when it cannot be mounted: the test is then skipped and says why. Under CI (`CI=true`), where tests
    /// run as root, that panics instead.
    pub fn mount_or_skip(bytes: u64) -> Option<SmallFilesystem> {
        let current = std::thread::current();
        let test = current.name().unwrap_or("this test");
        match SmallFilesystem::mount(bytes) {
            Ok(filesystem) => Some(filesystem),
            Err(why) if under_ci() => {
                panic!("{test}: {why}; under CI (CI=true) tests run as root and must mount it")
            }
            Err(why) => {
                println!("SKIPPED: {test} is not run: {why}");
                None
            }
        }
    }

    /// Where it is mounted.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Its size as asked for.
    pub fn size(&self) -> u64 {
        self.bytes
    }

    /// The ballast file [`fill`](Self::fill) writes.
    pub fn ballast(&self) -> PathBuf {
        self.path().join("ballast")
    }

    /// Takes all the room left: writes to the ballast file until the kernel refuses a byte more with ENOSPC
    /// ("No space left on device"); returns how many bytes it wrote. Calling it again takes what was freed since.
    pub fn fill(&self) -> std::io::Result<u64> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.ballast())?;
        let chunk = vec![0xa5u8; 64 * 1024];
        let mut written = 0u64;
        loop {
            match file.write(&chunk) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => written += n as u64,
                Err(error) if error.raw_os_error() == Some(ENOSPC) => return Ok(written),
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
    }

    /// Gives the room back: the ballast file removed.
    pub fn free(&self) -> std::io::Result<()> {
        match std::fs::remove_file(self.ballast()) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
            removed => removed,
        }
    }
}

impl Drop for SmallFilesystem {
    fn drop(&mut self) {
        // Lazily: a process still holding a file in it (a server the test left running) does not keep the mount
        // point busy; the directory is then empty and removed with the TempDir.
        let unmounted = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .output();
        match unmounted {
            Ok(output) if output.status.success() => {}
            Ok(output) => eprintln!(
                "unmounting {}: {}",
                self.dir.path().display(),
                String::from_utf8_lossy(&output.stderr).trim()
            ),
            Err(error) => eprintln!("unmounting {}: {error}", self.dir.path().display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_filesystem_fills_to_its_size_and_takes_writes_again_once_freed() {
        let Some(filesystem) = SmallFilesystem::mount_or_skip(4 * 1024 * 1024) else {
            return;
        };
        let written = filesystem.fill().unwrap();
        assert_eq!(written, filesystem.size());
        let refused = std::fs::write(filesystem.path().join("more"), vec![0; 4096]).unwrap_err();
        assert_eq!(refused.raw_os_error(), Some(ENOSPC), "{refused}");
        filesystem.free().unwrap();
        std::fs::write(filesystem.path().join("more"), vec![0; 4096]).unwrap();
        let path = filesystem.path().to_path_buf();
        drop(filesystem);
        let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
        assert!(
            !mounts.contains(path.to_str().unwrap()),
            "{} is still mounted",
            path.display()
        );
        assert!(!path.exists());
    }
}
