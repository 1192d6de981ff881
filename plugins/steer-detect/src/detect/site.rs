//! Static sites: an `index.html` at the root, or in a committed build output directory, served by nginx.

use weft_sdk::{BuildPlan, PluginError};

use crate::files::Repo;

/// The nginx image static sites are served from.
const NGINX_IMAGE: &str = "nginx:1.27-alpine";
/// Build output directories looked in, in order, when the root has no `index.html`.
const OUTPUT_DIRS: [&str; 7] = ["public", "dist", "build", "_site", "site", "out", "www"];

/// A static site.
pub fn detect(repo: Repo<'_>) -> Result<Option<BuildPlan>, PluginError> {
    if site_dir(repo).is_none() {
        return Ok(None);
    }
    Ok(Some(BuildPlan {
        kind: "static".into(),
        base_image: NGINX_IMAGE.into(),
        start: Some("nginx -g 'daemon off;'".into()),
        port: Some(80),
        ..BuildPlan::default()
    }))
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
