//! Remembers a component file's sha256 by the file's identity and change times, so an unchanged file is not hashed
//! again at every start.
//!
//! A memo is keyed by a [`FileStamp`]: device, inode, size, modification time and status-change time (ctime), all
//! read from the open file. Why a matching stamp means unchanged bytes:
//! - Any write to a file, and any change of its times, sets its ctime to the current time, and no call lets a user
//!   set ctime: changing it otherwise takes setting the system clock or writing the raw device, both root's. A user
//!   can set mtime back (`touch -d`), but not ctime, so an edit in place, of the same size, with mtime restored, still
//!   changes the stamp. Replacing the file (a new build, a rename over it) changes the inode, or if an inode number
//!   is reused, its ctime.
//! - ctime is kept with a clock that ticks coarsely (milliseconds), so a write in the same tick as the change a stamp
//!   saw could leave the stamp as it was. So a digest is only remembered for a file whose ctime and mtime are more
//!   than [`SETTLE`] older than the clock read before the file was stamped and hashed: any later write gets a
//!   ctime of at least that clock, which no remembered stamp holds.
//! - The caller stamps the file before and after reading it and uses or records a memo only when both stamps agree,
//!   so a write during the read is never taken for the remembered bytes.
//!
//! The memo lives in the cache's private directory (mode 0700, refused when others can write it): whoever can write
//! there can already write the compiled code the cache maps. A memo entry whose own check fails (a damaged file) is
//! ignored.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How much older than the clock a file's change times must be for its digest to be remembered.
pub const SETTLE: Duration = Duration::from_secs(2);

/// What identifies a file's contents without reading them: where it is and when it last changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileStamp {
    /// The device holding the file.
    pub device: u64,
    /// The file's inode number.
    pub inode: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, in nanoseconds since the Unix epoch.
    pub modified_ns: i128,
    /// Its status-change time (ctime), in nanoseconds since the Unix epoch.
    pub changed_ns: i128,
}

impl FileStamp {
    /// The stamp of an open file's metadata (`File::metadata`, an `fstat`); `None` where the platform has no
    /// inode numbers or ctime, so nothing is remembered there.
    pub fn of(metadata: &std::fs::Metadata) -> Option<FileStamp> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ns =
                |seconds: i64, nanos: i64| i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
            Some(FileStamp {
                device: metadata.dev(),
                inode: metadata.ino(),
                size: metadata.size(),
                modified_ns: ns(metadata.mtime(), metadata.mtime_nsec()),
                changed_ns: ns(metadata.ctime(), metadata.ctime_nsec()),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = metadata;
            None
        }
    }

    /// Whether the file last changed more than [`SETTLE`] before `clock` (read before the file was stamped), so a
    /// later write cannot leave its stamp as it is.
    pub fn settled_before(&self, clock: SystemTime) -> bool {
        let Ok(since_epoch) = clock.duration_since(UNIX_EPOCH) else {
            return false;
        };
        let limit = since_epoch.saturating_sub(SETTLE).as_nanos() as i128;
        self.changed_ns < limit && self.modified_ns < limit
    }

    /// The name of the memo entry for files at this device and inode.
    pub(crate) fn entry_name(&self) -> String {
        format!("sha256-{:x}-{:x}.memo", self.device, self.inode)
    }
}

/// The text of a memo entry: the stamp, the digest, and a check over both.
pub(crate) fn encode(stamp: &FileStamp, sha256: &str) -> String {
    let body = body(stamp, sha256);
    format!("{body} {}\n", check(&body))
}

/// The digest a memo entry's text remembers for `stamp`: `None` when the entry is for another stamp, malformed, or
/// fails its check.
pub(crate) fn decode(text: &str, stamp: &FileStamp) -> Option<String> {
    let line = text.strip_suffix('\n')?;
    let (body, sum) = line.rsplit_once(' ')?;
    if sum != check(body) {
        return None;
    }
    let sha256 = body.rsplit_once(' ')?.1;
    let well_formed = sha256.len() == 64
        && sha256
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (well_formed && body == self::body(stamp, sha256)).then(|| sha256.to_string())
}

fn body(stamp: &FileStamp, sha256: &str) -> String {
    format!(
        "v1 {} {} {} {} {} {sha256}",
        stamp.device, stamp.inode, stamp.size, stamp.modified_ns, stamp.changed_ns
    )
}

fn check(body: &str) -> String {
    hex::encode(&blake3::hash(body.as_bytes()).as_bytes()[..8])
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "8d969eef6ecad3c29a3a629280e686cf0c3f5d5a86aff3ca12020c923adc6c92";

    fn stamp() -> FileStamp {
        FileStamp {
            device: 66,
            inode: 1_234_567,
            size: 4_104_794,
            modified_ns: 1_796_000_000_123_456_789,
            changed_ns: 1_796_000_000_223_456_789,
        }
    }

    #[test]
    fn an_entry_gives_back_its_digest_for_the_same_stamp() {
        assert_eq!(
            decode(&encode(&stamp(), SHA), &stamp()).as_deref(),
            Some(SHA)
        );
    }

    #[test]
    fn an_entry_is_refused_for_a_file_changed_in_place_with_its_mtime_set_back() {
        // Same device, inode, size and mtime: only the ctime, which no user can set, tells the edit apart.
        let edited = FileStamp {
            changed_ns: stamp().changed_ns + 1,
            ..stamp()
        };
        assert_eq!(decode(&encode(&stamp(), SHA), &edited), None);
        for other in [
            FileStamp { size: 1, ..stamp() },
            FileStamp {
                inode: 1,
                ..stamp()
            },
            FileStamp {
                device: 1,
                ..stamp()
            },
            FileStamp {
                modified_ns: 1,
                ..stamp()
            },
        ] {
            assert_eq!(decode(&encode(&stamp(), SHA), &other), None);
        }
    }

    #[test]
    fn a_damaged_or_forged_entry_is_refused() {
        let text = encode(&stamp(), SHA);
        // A digit of the digest changed without the check.
        let forged = text.replacen("8d969eef", "8d969eee", 1);
        assert_eq!(decode(&forged, &stamp()), None);
        // The stamp's ctime rewritten to the file's new one, check left as it was.
        let moved = text.replacen(
            &stamp().changed_ns.to_string(),
            &(stamp().changed_ns + 1).to_string(),
            1,
        );
        let edited = FileStamp {
            changed_ns: stamp().changed_ns + 1,
            ..stamp()
        };
        assert_eq!(decode(&moved, &edited), None);
        assert_eq!(decode(&text[..text.len() - 2], &stamp()), None);
        assert_eq!(decode("", &stamp()), None);
        assert_eq!(decode(&encode(&stamp(), "not-a-digest"), &stamp()), None);
    }

    #[test]
    fn only_a_file_unchanged_for_the_settling_time_is_settled() {
        let changed = UNIX_EPOCH + Duration::from_nanos(stamp().changed_ns as u64);
        assert!(!stamp().settled_before(changed));
        assert!(!stamp().settled_before(changed + SETTLE));
        assert!(stamp().settled_before(changed + SETTLE + Duration::from_millis(1)));
        let touched_later = FileStamp {
            modified_ns: stamp().changed_ns + 1_000_000_000,
            ..stamp()
        };
        assert!(!touched_later.settled_before(changed + SETTLE + Duration::from_millis(1)));
    }

    #[cfg(unix)]
    #[test]
    fn a_files_stamp_is_read_from_its_metadata() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.wasm");
        std::fs::write(&path, b"abc").unwrap();
        let first = FileStamp::of(&std::fs::metadata(&path).unwrap()).unwrap();
        assert_eq!(first.size, 3);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"d").unwrap();
        let second = FileStamp::of(&file.metadata().unwrap()).unwrap();
        assert_eq!((second.inode, second.size), (first.inode, 4));
    }
}
