//! Running one build step as a child process: standard output and error merged into one stream of lines sent to
//! the log as they come, the tail kept for the steerer, and the whole process group killed at the deadline.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

use super::builder::{BuilderError, LogSink};

/// Lines of a step's output kept for the steerer.
pub const TAIL_LINES: usize = 200;
/// Bytes of a step's output kept for the steerer.
pub const TAIL_BYTES: usize = 64 * 1024;

/// How a step ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepOutcome {
    /// Whether it exited with status 0.
    pub success: bool,
    /// Its exit code (`None` when a signal ended it or the deadline passed).
    pub exit_code: Option<i32>,
    /// The last lines of its output.
    pub tail: String,
}

/// The last lines of a stream, bounded in lines and bytes.
#[derive(Debug, Default)]
pub struct Tail {
    lines: VecDeque<String>,
    bytes: usize,
}

impl Tail {
    /// Keeps a line, dropping the oldest past the bounds.
    pub fn push(&mut self, line: &str) {
        let mut start = line.len().saturating_sub(TAIL_BYTES);
        while !line.is_char_boundary(start) {
            start += 1;
        }
        let line = line[start..].to_string();
        self.bytes += line.len() + 1;
        self.lines.push_back(line);
        while self.lines.len() > TAIL_LINES || self.bytes > TAIL_BYTES {
            match self.lines.pop_front() {
                Some(old) => self.bytes -= old.len() + 1,
                None => break,
            }
        }
    }

    /// The kept lines, newline-separated.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.bytes);
        for line in &self.lines {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// A step to run: `program` with `args` in `dir`, with `env` added to the inherited environment.
#[derive(Debug, Clone)]
pub struct Step {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory.
    pub dir: PathBuf,
    /// Variables set for it.
    pub env: Vec<(String, String)>,
    /// How long it may run.
    pub timeout: Duration,
}

/// Runs a step through `sh`, so that its standard error joins its standard output in one ordered stream.
pub async fn run(step: Step, log: &dyn LogSink) -> Result<StepOutcome, BuilderError> {
    // Found here, not by the shell: a builder that is not installed is the builder's error, never a failed build
    // for the steerer to read.
    let program = find_program(&step.program).ok_or_else(|| BuilderError::Spawn {
        program: step.program.clone(),
        source: std::io::Error::new(std::io::ErrorKind::NotFound, "not found"),
    })?;
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("exec 2>&1; exec \"$0\" \"$@\"")
        .arg(&program)
        .args(&step.args)
        .current_dir(&step.dir)
        .envs(step.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command.spawn().map_err(|source| BuilderError::Spawn {
        program: step.program.to_string(),
        source,
    })?;
    let pid = child.id();
    let stdout = child.stdout.take();
    let mut tail = Tail::default();
    let finished = tokio::time::timeout(step.timeout, async {
        if let Some(stdout) = stdout {
            // Bytes, not `lines()`: output that is not UTF-8 must not stop the reading (the child would block on
            // a full pipe).
            let mut reader = BufReader::new(stdout);
            let mut buffer = Vec::new();
            while let Ok(read) = reader.read_until(b'\n', &mut buffer).await {
                if read == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buffer);
                let line = text.trim_end_matches(['\n', '\r']);
                log.line(line);
                tail.push(line);
                buffer.clear();
            }
        }
        child.wait().await
    })
    .await;
    match finished {
        Ok(Ok(status)) => Ok(StepOutcome {
            success: status.success(),
            exit_code: status.code().or_else(|| signal_exit_code(&status)),
            tail: tail.text(),
        }),
        Ok(Err(source)) => Err(BuilderError::Spawn {
            program: step.program.clone(),
            source,
        }),
        Err(_) => {
            kill_group(pid).await;
            let message = format!("timed out after {:?}; the step was killed", step.timeout);
            log.line(&message);
            tail.push(&message);
            Ok(StepOutcome {
                success: false,
                exit_code: None,
                tail: tail.text(),
            })
        }
    }
}

/// The program's path: as given when it names a file, else the first executable file of that name on `PATH` (a
/// file without an execute bit is passed over, as a shell passes it over).
pub(crate) fn find_program(program: &str) -> Option<PathBuf> {
    let is_file = |path: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let path = PathBuf::from(program);
        return is_file(&path).then_some(path);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_file(candidate))
}

/// A process killed by a signal reports the shell's convention, 128 + the signal (137 for SIGKILL: what the OOM
/// killer sends).
fn signal_exit_code(status: &std::process::ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal().map(|signal| 128 + signal)
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// Kills the step's whole process group (the shell and everything it started).
async fn kill_group(pid: Option<u32>) {
    let Some(pid) = pid else { return };
    // `kill` the command: the crate forbids the unsafe a direct `kill(2)` needs.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await;
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    fn step(script: &str, dir: &std::path::Path, timeout: Duration) -> Step {
        Step {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            dir: dir.to_path_buf(),
            env: vec![("GREETING".into(), "hello".into())],
            timeout,
        }
    }

    #[tokio::test]
    async fn output_is_streamed_merged_and_tailed() {
        let dir = tempfile::tempdir().unwrap();
        let lines = Mutex::new(Vec::new());
        let sink = |line: &str| lines.lock().unwrap().push(line.to_string());
        let outcome = run(
            step(
                "echo \"$GREETING\"; echo oops >&2; pwd; exit 3",
                dir.path(),
                Duration::from_secs(10),
            ),
            &sink,
        )
        .await
        .unwrap();
        assert!(!outcome.success);
        assert_eq!(outcome.exit_code, Some(3));
        let lines = lines.into_inner().unwrap();
        assert_eq!(lines[..2], ["hello", "oops"]);
        assert!(
            lines[2].ends_with(
                &dir.path()
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .to_string()
            )
        );
        assert_eq!(outcome.tail, lines.join("\n") + "\n");
    }

    #[tokio::test]
    async fn a_step_past_its_deadline_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        let started = std::time::Instant::now();
        let outcome = run(
            step(
                "echo start; sleep 3600 & wait",
                dir.path(),
                Duration::from_millis(300),
            ),
            &|_: &str| {},
        )
        .await
        .unwrap();
        // Killed at its deadline, not waited for: an hour's sleep ends within minutes however loaded the machine.
        assert!(started.elapsed() < Duration::from_secs(300));
        assert!(!outcome.success);
        assert_eq!(outcome.exit_code, None);
        assert!(outcome.tail.contains("timed out"), "{}", outcome.tail);
    }

    #[tokio::test]
    async fn a_killed_step_reports_128_plus_the_signal() {
        let dir = tempfile::tempdir().unwrap();
        let outcome = run(
            step("kill -KILL $$", dir.path(), Duration::from_secs(10)),
            &|_: &str| {},
        )
        .await
        .unwrap();
        assert_eq!(outcome.exit_code, Some(137));
    }

    #[test]
    fn the_tail_keeps_the_newest_lines() {
        let mut tail = Tail::default();
        for i in 0..(TAIL_LINES + 5) {
            tail.push(&format!("line {i}"));
        }
        let text = tail.text();
        assert!(!text.contains("line 4\n"));
        assert!(text.starts_with("line 5\n"));
        assert!(text.ends_with(&format!("line {}\n", TAIL_LINES + 4)));
    }
}
