//! Stand-ins for `buildctl` and `podman` in the container backends' tests: the shell scripts of `fakes/`, installed
//! as executables in a temporary directory with their settings (`fake.env`), each call's arguments and Dockerfile
//! recorded for the test to read. The backends take the program's path, so nothing touches the process's `PATH`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The `buildctl` stand-in.
pub const BUILDCTL: &str = include_str!("fakes/buildctl.sh");
/// The `podman` stand-in.
pub const PODMAN: &str = include_str!("fakes/podman.sh");

/// One call the stand-in received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// Its arguments.
    pub argv: Vec<String>,
    /// The Dockerfile it was given, when it was a build.
    pub dockerfile: Option<String>,
}

/// An installed stand-in.
#[derive(Debug)]
pub struct FakeTool {
    dir: tempfile::TempDir,
    program: PathBuf,
}

impl FakeTool {
    /// Installs `script` as `name` with `settings` (shell variables: `DIGEST`, `FAIL_RUN`, ...).
    pub fn install(name: &str, script: &str, settings: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join(name);
        std::fs::write(&program, script).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let env: String = settings
            .iter()
            .map(|(key, value)| format!("{key}={}\n", shell_quote(value)))
            .collect();
        std::fs::write(dir.path().join("fake.env"), env).unwrap();
        FakeTool { dir, program }
    }

    /// The program's path, as a backend takes it.
    pub fn program(&self) -> String {
        self.program.display().to_string()
    }

    /// The calls so far, in order.
    pub fn calls(&self) -> Vec<Call> {
        let calls = self.dir.path().join("calls");
        let count = std::fs::read_dir(&calls).map_or(0, |d| d.count());
        (0..count)
            .map(|n| {
                let call = calls.join(n.to_string());
                Call {
                    argv: read_lines(&call.join("argv")),
                    dockerfile: std::fs::read_to_string(call.join("Dockerfile")).ok(),
                }
            })
            .collect()
    }
}

fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// `text` as one single-quoted shell word.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}
