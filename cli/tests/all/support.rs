//! What the `weft` command's end-to-end tests share: the workspace, the built-in plugins built once, running the
//! binary against them, reading its output, copying fixtures, and a `weft serve` child process to be a client of.

#![allow(dead_code)] // Each test crate uses its own subset.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;
use weft_plugin_build as build;

/// The workspace root.
pub fn workspace() -> PathBuf {
    build::find_workspace(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The built-in plugins (`plugins/` and `examples/`), built into the workspace's plugin directory on first use.
pub fn builtins() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let ws = workspace();
        let out = ws.join(build::DEFAULT_OUT_DIR);
        build::ensure_built(&ws, &[ws.join("plugins"), ws.join("examples")], &out).unwrap();
        out
    })
}

/// `weft` with the built-in plugins, run in the workspace, ready for more arguments or environment.
pub fn weft_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_weft"));
    command
        .current_dir(workspace())
        .env("WEFT_BUILTIN_PLUGINS", builtins());
    command
}

/// `weft plugin test . health_test.yaml` in a plugin folder (built first), with a deadline generous enough that
/// only the verdicts are tested, not the speed of a loaded machine.
pub fn weft_plugin_test_in(folder: &Path) -> Output {
    weft_command()
        .current_dir(folder)
        .args([
            "plugin",
            "test",
            ".",
            "health_test.yaml",
            "--timeout-ms",
            "120000",
        ])
        .output()
        .unwrap()
}

/// Runs `weft` with these arguments.
pub fn weft(args: &[&str]) -> Output {
    weft_command().args(args).output().unwrap()
}

/// A run's standard output.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A run's standard error.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The JSON lines of a successful run.
pub fn json_lines(output: &Output) -> Vec<Value> {
    assert!(output.status.success(), "{}", stderr(output));
    stdout(output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Copies the files under `from` into `to` (created if missing), keeping their paths below it.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A free loopback port: bound, read, released.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `GET /readyz` on this loopback port answers 200.
pub fn ready(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    if stream
        .write_all(b"GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.starts_with("HTTP/1.1 200")
}

/// A `weft serve` child process with the built-in plugins on a free loopback port, killed when dropped.
pub struct ServeProcess {
    /// The process.
    pub child: Child,
    /// Where it listens: `http://127.0.0.1:PORT`.
    pub url: String,
    port: u16,
    /// Its own configuration home (`XDG_CONFIG_HOME`), where it saves the first admin token for the client: never
    /// the user's.
    pub config_home: tempfile::TempDir,
}

impl ServeProcess {
    /// Starts `weft serve ARGS --listen 127.0.0.1:PORT` (no `WEFT_LOG`, no input, output discarded, a
    /// configuration home of its own), its standard error going to `stderr`.
    pub fn spawn(args: &[&OsStr], stderr: impl Into<Stdio>) -> ServeProcess {
        let port = free_port();
        let config_home = tempfile::tempdir().unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_weft"))
            .arg("serve")
            .args(args)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .env("WEFT_BUILTIN_PLUGINS", builtins())
            .env("XDG_CONFIG_HOME", config_home.path())
            .env_remove("WEFT_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap();
        ServeProcess {
            child,
            url: format!("http://127.0.0.1:{port}"),
            port,
            config_home,
        }
    }

    /// Waits until `GET /readyz` answers 200; panics, showing `context()`, if the process exits first or `timeout`
    /// passes.
    pub fn wait_ready(&mut self, timeout: Duration, context: impl Fn() -> String) {
        let deadline = Instant::now() + timeout;
        while !ready(self.port) {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("weft serve exited early ({status}):\n{}", context());
            }
            assert!(
                Instant::now() < deadline,
                "weft serve never became ready:\n{}",
                context()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `weft` as a client of this server, with `token`, none of the user's configuration (`XDG_CONFIG_HOME` is
    /// `config_home`), colour left to the pipe and no input; ready for arguments and more environment.
    pub fn client(&self, token: &str, config_home: &Path) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_weft"));
        command
            .env("WEFT_SERVER", &self.url)
            .env("WEFT_TOKEN", token)
            .env("XDG_CONFIG_HOME", config_home)
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .stdin(Stdio::null());
        command
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
