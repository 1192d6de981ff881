//! Packaged charts (`.tgz`): unpacked in memory as Helm's archive loader does — the first path segment (the
//! chart's directory) dropped, absolute and climbing paths refused, a UTF-8 byte-order mark stripped, and the
//! same size limits (100 MiB in all, 5 MiB a file), so a small archive cannot unpack into a large one.

use std::io::Read;

use weft_sdk::RenderError;
use weft_sdk::source::{MemorySource, join};

/// The most an archive may unpack to (Helm's `MaxDecompressedChartSize`).
pub const MAX_UNPACKED_SIZE: u64 = 100 * 1024 * 1024;
/// The most one file of an archive may unpack to (Helm's `MaxDecompressedFileSize`).
pub const MAX_UNPACKED_FILE_SIZE: u64 = 5 * 1024 * 1024;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Unpacks the gzipped tar `bytes` (read from `origin`) into a tree whose files sit under `mount`.
pub fn unpack(bytes: &[u8], origin: &str, mount: &str) -> Result<MemorySource, RenderError> {
    let fail = |message: String| RenderError::in_file(message, origin, None);
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Err(fail(
            "does not appear to be a gzipped archive (a packaged chart is a .tgz made by `helm package`)".into(),
        ));
    }
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let entries = archive
        .entries()
        .map_err(|e| fail(format!("cannot read the archive: {e}")))?;
    let mut tree = MemorySource::new();
    let mut remaining = MAX_UNPACKED_SIZE;
    for entry in entries {
        let mut entry = entry.map_err(|e| fail(format!("cannot read the archive: {e}")))?;
        let header = entry.header();
        // Directories, links, devices and PAX headers carry no chart file.
        if !header.entry_type().is_file() {
            continue;
        }
        let raw_name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let name = chart_path(&raw_name).map_err(fail)?;
        let size = entry.size();
        if size > MAX_UNPACKED_FILE_SIZE {
            return Err(fail(format!(
                "decompressed chart file {raw_name:?} is larger than the maximum file size {MAX_UNPACKED_FILE_SIZE}"
            )));
        }
        if size > remaining {
            return Err(fail(format!(
                "decompressed chart is larger than the maximum size {MAX_UNPACKED_SIZE}"
            )));
        }
        let mut data = Vec::with_capacity(size as usize);
        (&mut entry)
            .take(size)
            .read_to_end(&mut data)
            .map_err(|e| fail(format!("cannot read {raw_name:?} from the archive: {e}")))?;
        remaining -= data.len() as u64;
        let data = data.strip_prefix(UTF8_BOM).unwrap_or(&data).to_vec();
        tree.insert(&join(mount, &name), data);
    }
    if tree.is_empty() {
        return Err(fail("no files in chart archive".into()));
    }
    Ok(tree)
}

/// A member's path within the chart: the first segment dropped, `\` read as `/`, refused when it would leave
/// the chart.
fn chart_path(raw: &str) -> Result<String, String> {
    let normalized = raw.replace('\\', "/");
    let mut parts = normalized.split('/');
    let first = parts.next().unwrap_or_default();
    if first == "Chart.yaml" {
        return Err("chart yaml not in base directory".into());
    }
    let rest: Vec<&str> = parts.collect();
    let rest = rest.join("/");
    if rest.starts_with('/') {
        return Err("chart illegally contains absolute paths".into());
    }
    let cleaned = weft_sdk::source::clean(&rest).unwrap_or_default();
    if cleaned.is_empty() {
        return Err(format!(
            "chart illegally contains content outside the base directory: {raw:?}"
        ));
    }
    if cleaned == ".." || cleaned.starts_with("../") {
        return Err("chart illegally references parent directory".into());
    }
    let bytes = cleaned.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err("chart contains illegally named files".into());
    }
    Ok(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sdk::source::Source;

    /// A gzipped tar of `(path, bytes)` members, as `helm package` lays them out.
    pub(crate) fn packed(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (path, bytes) in members {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_entry_type(tar::EntryType::Regular);
            // Written raw: the builder itself refuses the hostile names these tests need.
            let name = &mut header.as_old_mut().name;
            name.fill(0);
            name[..path.len()].copy_from_slice(path.as_bytes());
            header.set_cksum();
            builder.append(&header, *bytes).unwrap();
        }
        let tar = builder.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &tar).unwrap();
        gz.finish().unwrap()
    }

    #[test]
    fn unpacks_under_the_mount_without_the_charts_own_directory() {
        let bytes = packed(&[
            ("common/Chart.yaml", b"name: common\nversion: 1.0.0\n"),
            ("common/templates/cm.yaml", b"\xEF\xBB\xBFkind: ConfigMap\n"),
        ]);
        let tree = unpack(&bytes, "charts/common-1.0.0.tgz", "charts/common-1.0.0.tgz").unwrap();
        assert_eq!(
            tree.read_to_string("charts/common-1.0.0.tgz/Chart.yaml")
                .unwrap(),
            "name: common\nversion: 1.0.0\n"
        );
        assert_eq!(
            tree.read_to_string("charts/common-1.0.0.tgz/templates/cm.yaml")
                .unwrap(),
            "kind: ConfigMap\n",
            "the byte-order mark is stripped"
        );
    }

    #[test]
    fn refuses_archives_that_leave_the_chart_or_are_not_gzip() {
        let climbing = packed(&[("c/../../etc/passwd", b"x")]);
        let error = unpack(&climbing, "charts/c.tgz", "m").unwrap_err();
        assert!(
            error.message.contains("parent directory"),
            "{}",
            error.message
        );
        let top = packed(&[("Chart.yaml", b"name: c")]);
        let error = unpack(&top, "charts/c.tgz", "m").unwrap_err();
        assert!(
            error.message.contains("not in base directory"),
            "{}",
            error.message
        );
        let error = unpack(b"plain text", "charts/c.tgz", "m").unwrap_err();
        assert!(error.message.contains("gzipped"), "{}", error.message);
        let empty = packed(&[]);
        let error = unpack(&empty, "charts/c.tgz", "m").unwrap_err();
        assert!(error.message.contains("no files"), "{}", error.message);
    }

    #[test]
    fn a_member_over_the_file_limit_is_refused_before_it_is_read() {
        let big = vec![b'a'; (MAX_UNPACKED_FILE_SIZE + 1) as usize];
        let bytes = packed(&[("c/Chart.yaml", b"name: c"), ("c/big", &big)]);
        let error = unpack(&bytes, "charts/c.tgz", "m").unwrap_err();
        assert!(
            error.message.contains("maximum file size"),
            "{}",
            error.message
        );
    }
}
