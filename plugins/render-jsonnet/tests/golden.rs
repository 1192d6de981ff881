//! Golden-output tests: every case under `tests/render/jsonnet/` rendered natively and compared, object by object,
//! with its `expected.yaml` (produced by go-jsonnet, see `generate.py` there) or `error.yaml`; and renders that
//! try to read outside the app's tree.

use std::path::{Path, PathBuf};

use render_jsonnet::JsonnetRenderer;
use weft_sdk::RenderRequest;
use weft_sdk::testing::{golden, render_dir};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render/jsonnet")
}

#[test]
fn golden_corpus() {
    golden::assert_corpus::<JsonnetRenderer>(&corpus(), "jsonnet corpus", 30);
}

/// A scratch tree: `app/` is the render root, files beside it are outside the tree.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("weft-render-jsonnet-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("app/lib")).unwrap();
        std::fs::write(dir.join("outside.libsonnet"), "{ secret: 'leaked' }\n").unwrap();
        Scratch(dir)
    }

    fn render(&self, main: &str) -> Result<weft_sdk::RenderOutput, weft_sdk::RenderError> {
        std::fs::write(self.0.join("app/main.jsonnet"), main).unwrap();
        let request = RenderRequest {
            app: "escape".into(),
            ..Default::default()
        };
        render_dir::<JsonnetRenderer>(&request, &self.0.join("app"))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn assert_refused(result: Result<weft_sdk::RenderOutput, weft_sdk::RenderError>, import: &str) {
    let error = result.expect_err("the render must fail");
    assert!(
        error.message.contains("not allowed"),
        "{import}: expected a `not allowed` error, got {error}"
    );
    assert!(
        !error.message.contains("leaked") && !error.message.contains("root:"),
        "{import}: the error shows content from outside the tree: {error}"
    );
}

#[test]
fn imports_cannot_leave_the_tree() {
    let scratch = Scratch::new("imports");
    for import in [
        "import '../outside.libsonnet'",
        "import '/etc/passwd'",
        "importstr '/etc/passwd'",
        "importbin '/etc/passwd'",
        "importstr '../../../../../../etc/passwd'",
        "import 'lib/../../outside.libsonnet'",
    ] {
        let result = scratch.render(&format!("local x = {import};\n{{ data: x }}\n"));
        assert_refused(result, import);
    }
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_tree_are_refused() {
    let scratch = Scratch::new("symlinks");
    std::os::unix::fs::symlink("/etc", scratch.0.join("app/lib/etc")).unwrap();
    std::os::unix::fs::symlink(
        "../../outside.libsonnet",
        scratch.0.join("app/lib/link.libsonnet"),
    )
    .unwrap();
    assert_refused(scratch.render("importstr 'etc/passwd'\n"), "lib/etc/passwd");
    assert_refused(
        scratch.render("import 'link.libsonnet'\n"),
        "lib/link.libsonnet",
    );
}

#[test]
fn the_main_parameter_cannot_leave_the_tree() {
    let scratch = Scratch::new("main");
    std::fs::write(scratch.0.join("app/main.jsonnet"), "{}\n").unwrap();
    for main in ["../outside.libsonnet", "/etc/passwd"] {
        let request = RenderRequest {
            app: "escape".into(),
            parameters: vec![("main".into(), main.into())],
            ..Default::default()
        };
        let error = render_dir::<JsonnetRenderer>(&request, &scratch.0.join("app")).unwrap_err();
        assert!(error.message.starts_with("not allowed"), "{main}: {error}");
    }
}
