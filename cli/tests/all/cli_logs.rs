//! `weft logs -f` end to end against a `weft serve` child on the embedded default: the follow says on stderr
//! which pods joined (as stern does) and prints their lines on stdout prefixed by pod and container. Pods a
//! scale-up or a rollout creates joining the stream are tested through the API on the simulator
//! (`tests/log_follow.rs`); here it is the command's own wiring, compared on the lines it printed.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support::ServeProcess;

/// Sends each line `from` prints to a channel, from a thread of its own.
fn lines_of(from: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (sender, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    lines
}

/// Waits for a line holding `part` (a deadline only guards against a hang); the lines read are kept in `seen`.
fn wait_for(lines: &mpsc::Receiver<String>, part: &str, seen: &mut Vec<String>) -> String {
    let deadline = Instant::now() + Duration::from_secs(300);
    while Instant::now() < deadline {
        let Ok(line) = lines.recv_timeout(Duration::from_millis(200)) else {
            continue;
        };
        seen.push(line.clone());
        if line.contains(part) {
            return line;
        }
    }
    panic!("no line with {part:?} in:\n{}", seen.join("\n"));
}

#[test]
fn weft_logs_follow_says_which_pods_joined_and_prefixes_their_lines() {
    let data = tempfile::tempdir().unwrap();
    let mut process = ServeProcess::spawn(
        &[OsStr::new("--data-dir"), data.path().as_os_str()],
        Stdio::piped(),
    );
    let served = lines_of(process.child.stderr.take().unwrap());
    let mut seen = Vec::new();
    wait_for(&served, "weft: created the first admin token", &mut seen);
    let token = loop {
        let line = wait_for(&served, "", &mut seen);
        if line.starts_with("    ") && !line.trim().is_empty() {
            break line.trim().to_string();
        }
    };
    // The server's log keeps being drained so that it never blocks on it.
    std::thread::spawn(move || for _ in served {});
    process.wait_ready(Duration::from_secs(300), String::new);

    let mut follow = process
        .client(&token, &data.path().join("no-config"))
        .args(["logs", "shop", "-f", "--tail", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let said = lines_of(follow.stderr.take().unwrap());
    let printed = lines_of(follow.stdout.take().unwrap());
    let mut said_seen = Vec::new();
    let joined = wait_for(&said, "+ pod/web-", &mut said_seen);
    assert!(joined.ends_with(" joined (web)"), "{joined}");
    let pod = joined
        .trim_start_matches("+ pod/")
        .trim_end_matches(" joined (web)")
        .to_string();
    let mut printed_seen = Vec::new();
    let line = wait_for(&printed, &format!("[pod/{pod}/web] "), &mut printed_seen);
    assert!(line.starts_with(&format!("[pod/{pod}/web] ")), "{line}");
    follow.kill().unwrap();
    follow.wait().unwrap();
}
