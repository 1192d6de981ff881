//! Golden-output tests: every case under `tests/render/yaml/` rendered natively and compared, object by object,
//! with its `expected.yaml` (or `error.yaml`); and renders that try to leave the app's tree.

use std::path::{Path, PathBuf};

use render_yaml::YamlRenderer;
use weft_sdk::source::{DirEntry, Source, SourceError};
use weft_sdk::testing::{DirSource, render_dir};
use weft_sdk::{RenderRequest, Renderer};

use weft_sdk::testing::golden;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render/yaml")
}

#[test]
fn golden_corpus() {
    golden::assert_corpus::<YamlRenderer>(&corpus(), "yaml corpus", 15);
}

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("weft-render-yaml-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("app/sub")).unwrap();
        Scratch(dir)
    }

    fn write(&self, path: &str, text: &str) {
        std::fs::write(self.0.join(path), text).unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: inside}\n";

fn recursive() -> RenderRequest {
    RenderRequest {
        app: "escape".into(),
        parameters: vec![("recurse".into(), "true".into())],
        ..Default::default()
    }
}

#[cfg(unix)]
#[test]
fn a_manifest_linked_from_outside_the_tree_fails_the_render_naming_it() {
    let scratch = Scratch::new("symlinks");
    scratch.write("app/inside.yaml", CONFIG_MAP);
    scratch.write(
        "outside.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata: {name: outside}\n",
    );
    std::os::unix::fs::symlink("../outside.yaml", scratch.0.join("app/escape.yaml")).unwrap();
    std::os::unix::fs::symlink("/etc", scratch.0.join("app/sub/etc")).unwrap();
    std::os::unix::fs::symlink("../..", scratch.0.join("app/sub/up")).unwrap();
    // Not followed, and not skipped either: a render that left it out would look complete (Argo CD refuses
    // out-of-bounds symlinks too). Links that are not manifests (`sub/etc`, `sub/up`) are not read at all.
    let error = render_dir::<YamlRenderer>(&recursive(), &scratch.0.join("app")).unwrap_err();
    assert_eq!(error.file.as_deref(), Some("escape.yaml"), "{error:?}");
    assert!(error.message.contains("outside"), "{error:?}");
}

/// A source that lists the tree but refuses to read one path, as the host does for a path it will not serve.
struct Refusing<'a> {
    inner: DirSource,
    refused: &'a str,
}

impl Source for Refusing<'_> {
    fn read_file(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        if path == self.refused {
            return Err(SourceError::NotAllowed(format!(
                "{path}: leaves the app root"
            )));
        }
        self.inner.read_file(path)
    }

    fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, SourceError> {
        self.inner.list_dir(path)
    }
}

#[test]
fn a_refused_read_fails_the_render_naming_the_file() {
    let scratch = Scratch::new("refused");
    scratch.write("app/a.yaml", CONFIG_MAP);
    scratch.write("app/sub/b.yaml", CONFIG_MAP.replace("inside", "b").as_str());
    let source = Refusing {
        inner: DirSource::new(scratch.0.join("app")),
        refused: "sub/b.yaml",
    };
    let error = YamlRenderer::render(&recursive(), &source).unwrap_err();
    assert_eq!(error.file.as_deref(), Some("sub/b.yaml"));
    assert!(error.message.starts_with("not allowed:"), "{error}");
}

#[test]
fn include_patterns_cannot_reach_outside_the_root() {
    let scratch = Scratch::new("patterns");
    scratch.write("app/a.yaml", CONFIG_MAP);
    scratch.write(
        "outside.yaml",
        CONFIG_MAP.replace("inside", "outside").as_str(),
    );
    let request = RenderRequest {
        app: "patterns".into(),
        parameters: vec![
            ("recurse".into(), "true".into()),
            ("include".into(), "../*.yaml,/etc/*,*".into()),
        ],
        ..Default::default()
    };
    let output = render_dir::<YamlRenderer>(&request, &scratch.0.join("app")).unwrap();
    assert_eq!(output.manifests.len(), 1);
    assert_eq!(output.manifests[0].file.as_deref(), Some("a.yaml"));
}
