//! Python and JavaScript plugins against their real tools: a plugin made by `weft plugin new --lang python|js`
//! builds with `weft plugin build` (componentize-py from PyPI through pip, componentize-js from npm, installed on
//! demand) and passes its suite both in Weft's sandbox and in the language's own runner; a Python plugin probing
//! its sandbox finds no files, no environment, no network, a frozen wall clock, sleeps that return at once and the
//! same randomness on every call; and more Python calls than the guest-runtime pool has slots all succeed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use weft_plugin_build::{self as build, BuildRequest};
use weft_plugin_host::shape::Sandbox;
use weft_plugin_host::{
    CallLimits, HealthPlugin, HostConfig, LimitCeilings, NoRelated, PluginHost, World,
};
use weft_test_reference::{Failed, Reference, Trial};

use crate::support::{stderr, stdout, weft_command, weft_plugin_test_in, workspace};

/// The trials, and the tools they need.
pub fn trials(pyyaml: &Reference) -> (Vec<Reference>, Vec<Trial>) {
    let pip = Reference::python_module("pip", "pip");
    let npm = Reference::command(
        "npm",
        &["/usr/bin/npm"],
        &["--version"],
        "apt-get install npm",
    );
    // The Python scaffold's native run needs both pip (for the build) and PyYAML (for its suite runner).
    let python_native = if pip.path().is_none() { &pip } else { pyyaml };
    let trials = vec![
        python_native.trial(
            "a python plugin from weft plugin new passes its suite in the sandbox and natively",
            || scaffold_passes("python", &["python3", "-m", "unittest"]),
        ),
        npm.trial(
            "a javascript plugin from weft plugin new passes its suite in the sandbox and natively",
            || scaffold_passes("js", &["sh", "-c", "npm install --silent --no-audit --no-fund && npm test"]),
        ),
        pyyaml.trial("the python sdk's own tests pass", || {
            run_in(
                &workspace(),
                &["python3", "-m", "unittest", "discover", "-s", "sdk/python/tests"],
            )
        }),
        npm.trial("the javascript sdk's own tests pass", javascript_sdk_tests_pass),
        pip.trial(
            "a python plugin finds a deny-all sandbox with a frozen clock and the same randomness every call",
            python_sandbox_is_deny_all,
        ),
        pip.trial(
            "more python calls at once than the guest-runtime pool has slots all succeed",
            python_calls_beyond_the_pool_wait_their_turn,
        ),
    ];
    (vec![pip, npm], trials)
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), Failed> {
    if ok { Ok(()) } else { Err(what().into()) }
}

/// `weft plugin new` in a temporary folder, `weft plugin test DIR` (build and suite in the sandbox), then the
/// language's own test command in the plugin's folder.
fn scaffold_passes(lang: &str, native: &[&str]) -> Result<(), Failed> {
    let authors = tempfile::tempdir()?;
    let name = format!("health-database-{lang}");
    let made = weft_command()
        .current_dir(authors.path())
        .args([
            "plugin",
            "new",
            &name,
            "--kind",
            "acme.io/Database",
            "--lang",
            lang,
        ])
        .output()?;
    check(made.status.success(), || stderr(&made))?;
    let plugin = authors.path().join(&name);
    let tested = weft_plugin_test_in(&plugin);
    let out = stdout(&tested);
    check(
        tested.status.success() && out.contains("5 passed, 0 failed"),
        || format!("weft plugin test:\n{out}\n{}", stderr(&tested)),
    )?;
    check(out.contains("ok   testdata/child-not-ready.yaml"), || {
        out.clone()
    })?;
    let natively = Command::new(native[0])
        .args(&native[1..])
        .current_dir(&plugin)
        .env("PYTHONPATH", workspace().join("sdk/python"))
        .output()?;
    check(natively.status.success(), || {
        format!(
            "{}:\n{}\n{}",
            native.join(" "),
            String::from_utf8_lossy(&natively.stdout),
            String::from_utf8_lossy(&natively.stderr)
        )
    })
}

/// Runs a command in `dir`; fails with its output unless it succeeds.
fn run_in(dir: &Path, command: &[&str]) -> Result<(), Failed> {
    let output = Command::new(command[0])
        .args(&command[1..])
        .current_dir(dir)
        .output()?;
    check(output.status.success(), || {
        format!(
            "{}:\n{}\n{}",
            command.join(" "),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The JavaScript SDK's `npm test`, in a copy of it (its dev dependencies installed there, not in the checkout).
fn javascript_sdk_tests_pass() -> Result<(), Failed> {
    let copy = tempfile::tempdir()?;
    let sdk = workspace().join("sdk/js");
    copy_without_node_modules(&sdk, copy.path())?;
    run_in(
        copy.path(),
        &["npm", "ci", "--silent", "--no-audit", "--no-fund"],
    )?;
    run_in(copy.path(), &["npm", "test"])
}

fn copy_without_node_modules(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if entry.file_name() == "node_modules" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_without_node_modules(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// Builds a plugin folder into `out`; its installed component.
fn build_into(folder: &Path, out: &Path) -> Result<PathBuf, Failed> {
    let sources = build::discover(&[folder.to_path_buf()])?;
    let request = BuildRequest::new(Some(workspace()), sources, out.to_path_buf());
    let built = build::build(&request)?;
    Ok(built[0].component.clone())
}

fn python_plugin(source: &str, dir: &Path) -> Result<HealthPlugin, Failed> {
    let folder = dir.join("probe");
    std::fs::create_dir_all(&folder)?;
    std::fs::write(
        folder.join("weft-plugin.toml"),
        "name = \"probe\"\nworld = \"health-check\"\nkinds = [\"acme.io/Probe\"]\n[build]\nlanguage = \"python\"\n",
    )?;
    std::fs::write(folder.join("check.py"), source)?;
    let component = build_into(&folder, &dir.join("out"))?;
    // Deadlines far past anything a loaded machine needs: these checks are about the sandbox, not speed.
    let generous = CallLimits {
        timeout: CALL_DEADLINE,
        ..CallLimits::HEALTH
    };
    let host = PluginHost::new(HostConfig {
        cache_dir: None,
        max_guest_runtime_calls: 4,
        ceilings: LimitCeilings {
            health: generous,
            ..LimitCeilings::default()
        },
        ..HostConfig::default()
    })?;
    let loaded = host.load_component_file("probe", World::HealthCheck, &component, None)?;
    check(loaded.sandbox == Sandbox::GuestRuntime, || {
        format!("{:?}", loaded.sandbox)
    })?;
    Ok(host.health_plugin(&loaded, generous)?)
}

/// The deadline of the checks' plugin calls.
const CALL_DEADLINE: std::time::Duration = std::time::Duration::from_secs(120);

const PROBE: &str = r#"
import os
import time

from weft import Health, health_check

try:
    import socket
except ImportError:
    socket = None


def attempt(action):
    try:
        action()
        return "allowed"
    except Exception:
        return "denied"


def read_file():
    with open("/etc/hostname") as f:
        f.read()


def connect():
    if socket is None:
        raise OSError("no socket module")
    s = socket.socket()
    s.connect(("127.0.0.1", 9))


@health_check
def probe(obj, cx):
    print("probe ran")
    wall = time.time()
    frozen = abs(wall - cx.now.timestamp()) < 0.001
    started = time.monotonic()
    time.sleep(3600)
    slept = time.monotonic() - started
    frozen = frozen and time.time() == wall
    parts = [
        "file=" + attempt(read_file),
        "listdir=" + attempt(lambda: os.listdir("/")),
        "socket=" + attempt(connect),
        "env=" + str(len(os.environ)),
        "clock=" + ("frozen" if frozen else "moving"),
        "slept=%.1f" % slept,
        "urandom=" + os.urandom(8).hex(),
    ]
    return Health.healthy(" ".join(parts))
"#;

fn python_sandbox_is_deny_all() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let plugin = python_plugin(PROBE, dir.path())?;
    let object = r#"{"apiVersion":"acme.io/v1","kind":"Probe","metadata":{"name":"p","uid":"u"}}"#
        .to_string();
    let mut messages = Vec::new();
    for _ in 0..2 {
        // A real hour's sleep would overrun the call's deadline: the call succeeding shows the sleep was virtual.
        let (results, report) =
            plugin.assess_blocking(std::slice::from_ref(&object), Arc::new(NoRelated))?;
        let message = match &results[0] {
            Ok(Some(health)) => health.message.clone(),
            other => return Err(format!("{other:?}").into()),
        };
        check(report.logs.iter().any(|l| l.message == "probe ran"), || {
            format!("print() did not reach the call's log: {:?}", report.logs)
        })?;
        messages.push(message);
    }
    let expected =
        "file=denied listdir=denied socket=denied env=0 clock=frozen slept=3600.0 urandom=";
    check(messages[0].starts_with(expected), || {
        format!("{:?} does not start with {expected:?}", messages[0])
    })?;
    check(!messages[0].ends_with("urandom=0000000000000000"), || {
        messages[0].clone()
    })?;
    check(messages[0] == messages[1], || {
        format!("two calls saw different sandboxes: {messages:?}")
    })
}

fn python_calls_beyond_the_pool_wait_their_turn() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let plugin = python_plugin(
        "from weft import Health, health_check\n\n@health_check\ndef ok(obj, cx):\n    return Health.healthy(obj.name)\n",
        dir.path(),
    )?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    // Four pool slots (the host above), sixteen calls at once: each waits for a slot instead of failing.
    let names: Vec<String> = runtime.block_on(async {
        let calls = (0..16).map(|n| {
            let plugin = plugin.clone();
            let object = format!(
                r#"{{"apiVersion":"acme.io/v1","kind":"Probe","metadata":{{"name":"p{n}","uid":"u{n}"}}}}"#
            );
            tokio::spawn(async move { plugin.assess(vec![object], Arc::new(NoRelated)).await })
        });
        let mut names = Vec::new();
        for call in futures_join(calls.collect()).await {
            let (results, _) = call
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?;
            match &results[0] {
                Ok(Some(health)) => names.push(health.message.clone()),
                other => return Err(format!("{other:?}")),
            }
        }
        Ok::<_, String>(names)
    })?;
    let expected: Vec<String> = (0..16).map(|n| format!("p{n}")).collect();
    check(names == expected, || format!("{names:?}"))
}

/// Awaits every handle in order.
async fn futures_join<T>(
    handles: Vec<tokio::task::JoinHandle<T>>,
) -> Vec<Result<T, tokio::task::JoinError>> {
    let mut out = Vec::with_capacity(handles.len());
    for handle in handles {
        out.push(handle.await);
    }
    out
}
