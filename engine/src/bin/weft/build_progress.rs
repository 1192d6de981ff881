//! Shows a plugin build's progress on standard error: the toolchain step, each plugin as it is compiled (n of m),
//! and the time; a live spinner on a terminal, plain lines (at most one every 30 s while dependencies compile)
//! elsewhere.

use std::io::IsTerminal as _;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use weft_engine::plugin::build::{BuildEvent, BuildProgress, Toolchain};

/// How often a line is printed while dependencies compile, where no spinner can be drawn.
const QUIET_LINE_EVERY: Duration = Duration::from_secs(30);

/// Prints a build's progress for a person.
#[derive(Debug)]
pub(crate) struct BuildReporter {
    started: Instant,
    spinner: Option<ProgressBar>,
    last_line: Instant,
}

impl BuildReporter {
    /// A reporter that draws a spinner when standard error is a terminal.
    pub(crate) fn new() -> Self {
        let spinner = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("weft: {spinner} {msg} [{elapsed}]") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        BuildReporter {
            started: Instant::now(),
            spinner,
            last_line: Instant::now(),
        }
    }

    fn line(&mut self, text: &str) {
        match &self.spinner {
            Some(bar) => bar.println(format!("weft: {text}")),
            None => {
                // A line just printed is news enough: the next status line waits its turn.
                self.last_line = Instant::now();
                eprintln!("weft: {text}");
            }
        }
    }

    fn status(&mut self, text: String) {
        match &self.spinner {
            Some(bar) => bar.set_message(text),
            None if self.last_line.elapsed() >= QUIET_LINE_EVERY => {
                self.last_line = Instant::now();
                eprintln!("weft: {text} ({})", elapsed(self.started.elapsed()));
            }
            None => {}
        }
    }
}

impl Drop for BuildReporter {
    fn drop(&mut self) {
        if let Some(bar) = &self.spinner {
            bar.finish_and_clear();
        }
    }
}

impl BuildProgress for BuildReporter {
    fn event(&mut self, event: BuildEvent<'_>) {
        match event {
            BuildEvent::Started { plugins } => {
                self.started = Instant::now();
                self.line(&format!("building {plugins} plugins"));
            }
            BuildEvent::InstallingToolchain { packages } => {
                self.line(&format!(
                    "step 1/2: installing the Wasm toolchain, Debian's Rust ({}), with apt-get",
                    packages.join(" ")
                ));
                self.status("installing the Wasm toolchain".into());
            }
            BuildEvent::ToolchainReady {
                toolchain,
                installed_in,
            } => {
                let which = match toolchain {
                    Toolchain::Rustup => "rustup's wasm32-unknown-unknown target",
                    Toolchain::Debian => "Debian's Rust, building the standard library for wasm32",
                };
                match installed_in {
                    Some(took) => self.line(&format!(
                        "step 1/2: Wasm toolchain installed in {}: {which}",
                        elapsed(took)
                    )),
                    None => self.line(&format!("step 1/2: Wasm toolchain: {which}")),
                }
                let first = if toolchain == Toolchain::Debian {
                    "the standard library for wasm32 first (once), then "
                } else {
                    ""
                };
                self.line(&format!(
                    "step 2/2: compiling {first}the plugins' dependencies and the plugins; cargo's own output \
                     goes to target/plugin-build/build.log"
                ));
                self.status("compiling".into());
            }
            BuildEvent::DependencyCompiled { name, count } => {
                self.status(format!(
                    "compiling dependencies: {count} crates done, last {name}"
                ));
            }
            BuildEvent::PluginCompiled { name, index, total } => {
                let width = total.to_string().len();
                self.line(&format!(
                    "  [{index:>width$}/{total}] {name:<20} {}",
                    elapsed(self.started.elapsed())
                ));
                self.status(format!("compiling plugins: {index} of {total} done"));
            }
            BuildEvent::Finished {
                plugins,
                elapsed: took,
            } => {
                if let Some(bar) = self.spinner.take() {
                    bar.finish_and_clear();
                }
                eprintln!("weft: built {plugins} plugins in {}", elapsed(took));
            }
        }
    }
}

/// `1m05s`, `42s`.
pub(crate) fn elapsed(took: Duration) -> String {
    let seconds = took.as_secs();
    if seconds >= 60 {
        format!("{}m{:02}s", seconds / 60, seconds % 60)
    } else {
        format!("{seconds}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_minutes_and_seconds() {
        assert_eq!(elapsed(Duration::from_secs(42)), "42s");
        assert_eq!(elapsed(Duration::from_secs(65)), "1m05s");
        assert_eq!(elapsed(Duration::from_millis(600_400)), "10m00s");
    }
}
