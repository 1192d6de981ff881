//! Renders remembered by what they were rendered from: the revision (a commit, or a digest of a local tree), the
//! renderer's sha256 and the request. A second render of the same inputs reads a file instead of running a plugin.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use weft_sdk::{Manifest, RenderRequest};

/// The identity of a render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderKey(String);

impl RenderKey {
    /// The key for rendering `path` of `revision` with the renderer whose component has `renderer_sha256`.
    pub fn new(revision: &str, path: &str, renderer_sha256: &str, request: &RenderRequest) -> Self {
        let mut hasher = Sha256::new();
        for part in [revision, path, renderer_sha256, &request.app] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        let identity = json!({
            "namespace": request.namespace,
            "release": request.release,
            "parameters": request.parameters,
            "values": request.values,
            "cluster": request.cluster.as_ref().map(|facts| json!({
                "kubeVersion": facts.kube_version,
                "apiVersions": facts.api_versions,
            })),
        });
        hasher.update(identity.to_string().as_bytes());
        // Only when present, so renders without them keep their keys. The seed enters as a digest of itself: a
        // rotated seed is another render, and the cache's file names say nothing about the seed.
        if let Some(seed) = &request.seed {
            hasher.update(b"seed");
            hasher.update(Sha256::digest(seed.bytes()));
        }
        if let Some(time) = request.revision_time {
            hasher.update(b"revision-time");
            hasher.update(time.to_le_bytes());
        }
        // A render that may look objects up is another render than one that may not (its lookups find nothing).
        // Only renders that asked nothing are ever stored under such a key (docs/render-lookup.md).
        if request.lookup.is_some() {
            hasher.update(b"lookup");
        }
        RenderKey(hex::encode(hasher.finalize()))
    }

    /// The key in hex.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A directory of finished renders.
#[derive(Debug, Clone)]
pub struct RenderCache {
    dir: PathBuf,
}

impl RenderCache {
    /// A cache in `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        RenderCache { dir: dir.into() }
    }

    fn path(&self, key: &RenderKey) -> PathBuf {
        self.dir.join(format!("{}.json", key.as_str()))
    }

    /// A remembered render; `None` when there is none or it cannot be read.
    pub fn get(&self, key: &RenderKey) -> Option<Vec<Manifest>> {
        let text = fs::read_to_string(self.path(key)).ok()?;
        let entries: Vec<Value> = serde_json::from_str(&text).ok()?;
        entries
            .into_iter()
            .map(|mut entry| {
                let file = entry
                    .get("file")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                Some(Manifest {
                    object: entry.get_mut("object")?.take(),
                    file,
                })
            })
            .collect()
    }

    /// Remembers a render (written to a temporary file and renamed, so readers never see half of it).
    pub fn put(&self, key: &RenderKey, manifests: &[Manifest]) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let entries: Vec<Value> = manifests
            .iter()
            .map(|m| json!({"object": m.object, "file": m.file}))
            .collect();
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        tmp.write_all(Value::Array(entries).to_string().as_bytes())?;
        tmp.persist(self.path(key)).map_err(|e| e.error)?;
        Ok(())
    }
}

/// A digest of a local directory tree (paths and contents, `.git` left out): the revision of a render from a
/// working directory, which has no commit.
pub fn tree_digest(root: &Path) -> io::Result<String> {
    let mut files = Vec::new();
    collect(root, root, &mut files)?;
    files.sort();
    let mut hasher = Sha256::new();
    for (relative, path) in files {
        let bytes = fs::read(&path)?;
        hasher.update((relative.len() as u64).to_le_bytes());
        hasher.update(relative.as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(format!("tree-{}", hex::encode(hasher.finalize())))
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name() == ".git" {
            continue;
        }
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            collect(root, &path, files)?;
        } else if kind.is_file() || kind.is_symlink() {
            let relative = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            files.push((relative, path));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_change_with_every_input() {
        let request = RenderRequest {
            app: "shop".into(),
            ..RenderRequest::default()
        };
        let base = RenderKey::new("c1", "app", "r1", &request);
        assert_eq!(base, RenderKey::new("c1", "app", "r1", &request));
        assert_ne!(base, RenderKey::new("c2", "app", "r1", &request));
        assert_ne!(base, RenderKey::new("c1", "app2", "r1", &request));
        assert_ne!(base, RenderKey::new("c1", "app", "r2", &request));
        let mut with_param = request.clone();
        with_param.parameters.push(("set".into(), "a=1".into()));
        assert_ne!(base, RenderKey::new("c1", "app", "r1", &with_param));
        let mut seeded = request.clone();
        seeded.seed = Some(weft_sdk::RenderSeed::new([1; 32]));
        let seeded_key = RenderKey::new("c1", "app", "r1", &seeded);
        assert_ne!(base, seeded_key);
        let mut rotated = seeded.clone();
        rotated.seed = Some(weft_sdk::RenderSeed::new([2; 32]));
        assert_ne!(seeded_key, RenderKey::new("c1", "app", "r1", &rotated));
        assert!(!seeded_key.as_str().contains(&hex::encode([1u8; 32])));
        let mut timed = request.clone();
        timed.revision_time = Some(1_700_000_000);
        assert_ne!(base, RenderKey::new("c1", "app", "r1", &timed));
        let mut looking = request.clone();
        looking.lookup = Some(weft_sdk::Lookup::new(weft_sdk::FixedObjects::default()));
        assert_ne!(base, RenderKey::new("c1", "app", "r1", &looking));
    }

    #[test]
    fn round_trips_and_digests_trees() {
        let dir = tempfile::tempdir().unwrap();
        let cache = RenderCache::new(dir.path().join("renders"));
        let key = RenderKey::new("c", "p", "r", &RenderRequest::default());
        assert!(cache.get(&key).is_none());
        let manifests = vec![Manifest {
            object: json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}),
            file: Some("a.yaml".into()),
        }];
        cache.put(&key, &manifests).unwrap();
        assert_eq!(cache.get(&key).unwrap(), manifests);

        let tree = dir.path().join("tree");
        fs::create_dir_all(tree.join(".git")).unwrap();
        fs::write(tree.join("a.yaml"), "a: 1").unwrap();
        let first = tree_digest(&tree).unwrap();
        fs::write(tree.join(".git/HEAD"), "ignored").unwrap();
        assert_eq!(tree_digest(&tree).unwrap(), first);
        fs::write(tree.join("a.yaml"), "a: 2").unwrap();
        assert_ne!(tree_digest(&tree).unwrap(), first);
    }
}
