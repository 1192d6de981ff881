//! Static sites: an `index.html` at the root, or in a committed build output directory, served by Caddy's file
//! server as the non-root user on port 8080 (`base/caddy:2`).

use weft_sdk::{BuildPlan, PluginError};

use crate::dockerfile::{SITE_ROOT, SITE_RUNTIME};
use crate::files::Repo;

/// The port a site is served on: above 1024, so a non-root user may listen on it.
pub const DEFAULT_PORT: u16 = 8080;
/// Build output directories looked in, in order, when the root has no `index.html`.
const OUTPUT_DIRS: [&str; 7] = ["public", "dist", "build", "_site", "site", "out", "www"];

/// A static site.
pub fn detect(repo: Repo<'_>) -> Result<Option<BuildPlan>, PluginError> {
    if site_dir(repo).is_none() {
        return Ok(None);
    }
    Ok(Some(BuildPlan {
        kind: "static".into(),
        base_image: SITE_RUNTIME.into(),
        start: Some(start(DEFAULT_PORT)),
        port: Some(DEFAULT_PORT),
        ..BuildPlan::default()
    }))
}

/// Caddy's file server over the site's root on `port`.
pub fn start(port: u16) -> String {
    format!("caddy file-server --root {SITE_ROOT} --listen :{port}")
}

/// The directory served: `.` for an `index.html` at the root, else the first build output directory with one.
pub fn site_dir(repo: Repo<'_>) -> Option<String> {
    if repo.has_file("index.html") {
        return Some(".".into());
    }
    OUTPUT_DIRS
        .iter()
        .find(|dir| repo.has_file(&format!("{dir}/index.html")))
        .map(|dir| dir.to_string())
}
