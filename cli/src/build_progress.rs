//! Shows a plugin build's progress on standard error: the toolchain step, each plugin as it is compiled (n of m),
//! and the time; a live spinner on a terminal, plain lines elsewhere (CI logs), with a line at least every 30 s
//! while nothing else is said, so a long compile never looks hung.

use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use weft_plugin_build::{BuildEvent, BuildProgress, Toolchain};

/// How long plain output may stay silent before a status line says what is going on.
const QUIET_LINE_EVERY: Duration = Duration::from_secs(30);

/// What the plain output last said, shared with the thread that speaks up when it has been silent too long.
#[derive(Debug)]
struct PlainState {
    last_line: Instant,
    status: String,
}

/// Prints a build's progress for a person.
#[derive(Debug)]
pub(crate) struct BuildReporter {
    started: Instant,
    spinner: Option<ProgressBar>,
    plain: Arc<Mutex<PlainState>>,
    done: Arc<AtomicBool>,
}

impl BuildReporter {
    /// A reporter that draws a spinner when standard error is a terminal, plain lines otherwise.
    pub(crate) fn new() -> Self {
        let started = Instant::now();
        let spinner = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("weft: {spinner} {msg} [{elapsed}]") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        let plain = Arc::new(Mutex::new(PlainState {
            last_line: started,
            status: "starting".into(),
        }));
        let done = Arc::new(AtomicBool::new(false));
        if spinner.is_none() {
            let (plain, done) = (plain.clone(), done.clone());
            // Speaks up after a silence; ends with the build (it checks once a second).
            let _ = std::thread::Builder::new()
                .name("weft-build-progress".into())
                .spawn(move || {
                    while !done.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_secs(1));
                        let mut state = plain.lock().unwrap_or_else(|e| e.into_inner());
                        if state.last_line.elapsed() >= QUIET_LINE_EVERY
                            && !done.load(Ordering::Relaxed)
                        {
                            state.last_line = Instant::now();
                            eprintln!("weft: {} ({})", state.status, elapsed(started.elapsed()));
                        }
                    }
                });
        }
        BuildReporter {
            started,
            spinner,
            plain,
            done,
        }
    }

    fn line(&mut self, text: &str) {
        match &self.spinner {
            Some(bar) => bar.println(format!("weft: {text}")),
            None => {
                self.plain
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .last_line = Instant::now();
                eprintln!("weft: {text}");
            }
        }
    }

    fn status(&mut self, text: String) {
        match &self.spinner {
            Some(bar) => bar.set_message(text),
            None => self.plain.lock().unwrap_or_else(|e| e.into_inner()).status = text,
        }
    }
}

impl Drop for BuildReporter {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(bar) = &self.spinner {
            bar.finish_and_clear();
        }
    }
}

impl BuildProgress for BuildReporter {
    fn event(&mut self, event: BuildEvent<'_>) {
        match event {
            BuildEvent::Started { plugins, log } => {
                self.started = Instant::now();
                let noun = if plugins == 1 { "plugin" } else { "plugins" };
                self.line(&format!(
                    "building {plugins} {noun}; the tools' own output goes to {}",
                    log.display()
                ));
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
            }
            BuildEvent::Compiling {
                toolchain: _,
                std_built,
            } => {
                if std_built {
                    self.line(
                        "step 2/2: compiling the plugins and the dependencies not yet compiled (the standard \
                         library for wasm32 is reused from an earlier build)",
                    );
                } else {
                    self.line(
                        "step 2/2: compiling the standard library for wasm32 from source first: Debian's Rust \
                         ships none prebuilt, so the first build of a build directory takes several minutes; \
                         later builds, of any plugin, reuse it",
                    );
                }
                self.status("compiling".into());
            }
            BuildEvent::InstallingTool { tool, into } => {
                self.line(&format!(
                    "installing {tool} into {} (once per version)",
                    into.display()
                ));
                self.status(format!("installing {tool}"));
            }
            BuildEvent::ToolReady { tool, installed_in } => match installed_in {
                Some(took) => self.line(&format!("{tool} installed in {}", elapsed(took))),
                None => self.line(&format!("using {tool}")),
            },
            BuildEvent::CompilingGuest { name, language } => {
                self.line(&format!(
                    "compiling {name} ({language}): the tool snapshots an initialised {language} runtime with \
                     the plugin into one component, which takes a few seconds"
                ));
                self.status(format!("compiling {name}"));
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
                let noun = if plugins == 1 { "plugin" } else { "plugins" };
                eprintln!("weft: built {plugins} {noun} in {}", elapsed(took));
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
