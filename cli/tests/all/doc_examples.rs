//! Every shell example of the README and `docs/` is run, and every plugin example in Rust, Python and JavaScript
//! is built, read from the files so that none can break again (issue 38). `tests/doc_examples.rs` runs the TOML
//! and YAML examples in a server on the simulator.
//!
//! **Shell blocks** run as a reader types them, in the order of the documents: one working directory per document
//! (the reader's own, `~` too), in which a `cd` carries on to the document's later blocks as in a tutorial; one
//! `weft` binary (this build's, which `cargo run --bin weft --` also means); one configuration and data home for the
//! whole run, so a `weft serve` line serves the later lines of every document (its `--listen` is a free port the
//! client lines are pointed at, `7780` being anyone's). Each line must exit 0; a `weft serve` line must become ready
//! and bring every app it serves to synced and healthy. A line runs commands joined with `&&`, with `VAR=value`
//! prefixes, `~` and `DIR/*.ext` globs; anything else of a shell (pipes, `$(...)`, redirections) fails the test
//! unless the line is marked.
//!
//! **The marker** for what a test cannot have (a real cluster, helm, a reader's own revision or server): a comment
//! `# not run: REASON` at the end of a line marks that line; as a block's first line, the whole block. Marked lines
//! are listed in the test's output with their reasons. The files the examples name as the reader's own (a
//! directory of manifests, customizations, a ConfigMap) are made by [`fixtures`] just before the block that names
//! them.
//!
//! **Plugin code**: each Rust, Python and JavaScript block is built as a plugin of its own with `weft plugin build`
//! (into a folder `weft plugin new` made, the block in place of its check, or beside it for a fragment); a block
//! whose language's tools are missing is reported skipped, and fails under `CI=true`, as `weft-test-reference`
//! does for reference tools.

mod fixtures;
mod shell;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use weft_test_reference::{Reference, under_ci};

use crate::support::{builtins, free_port, ready, stderr, stdout, workspace};
use shell::{Block, Line, all_blocks, expand};

/// How long one command may run before the test gives up on it: far beyond what any takes on a loaded machine,
/// only there so that a hang fails instead of blocking the suite.
const COMMAND_LIMIT: Duration = Duration::from_secs(900);

/// A `weft serve` a line started, serving the lines after it.
struct Served {
    child: Child,
    url: String,
    log: PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One run of the documents' shell examples.
struct Session {
    /// Configuration and data homes (`XDG_CONFIG_HOME`, `XDG_DATA_HOME`) and the documents' working directories.
    state: tempfile::TempDir,
    /// The document's own directory (`~`) and where its lines run.
    home: PathBuf,
    cwd: PathBuf,
    served: Option<Served>,
    /// Lines run, and lines marked not run with their reasons.
    ran: Vec<String>,
    not_run: Vec<String>,
    /// What tools a line needs that this machine lacks: the lines skipped for each.
    skipped: BTreeMap<String, Vec<String>>,
}

impl Session {
    fn new() -> Session {
        let state = tempfile::tempdir().unwrap();
        for dir in ["config", "data", "docs"] {
            std::fs::create_dir_all(state.path().join(dir)).unwrap();
        }
        let home = state.path().join("docs");
        Session {
            cwd: home.clone(),
            home,
            state,
            served: None,
            ran: Vec::new(),
            not_run: Vec::new(),
            skipped: BTreeMap::new(),
        }
    }

    /// A new document: a directory of its own, where its lines start.
    fn open(&mut self, file: &str) {
        self.home = self.state.path().join("docs").join(file.replace('/', "-"));
        std::fs::create_dir_all(&self.home).unwrap();
        self.cwd = self.home.clone();
    }

    /// A command with the session's environment: the homes, the built-in plugins, the served API, the Python SDK
    /// on `PYTHONPATH` (as the tutorial says to set it), no colours and no input.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(&self.cwd)
            .env("XDG_CONFIG_HOME", self.state.path().join("config"))
            .env("XDG_DATA_HOME", self.state.path().join("data"))
            .env("WEFT_BUILTIN_PLUGINS", builtins())
            .env("PYTHONPATH", workspace().join("sdk/python"))
            .env("NO_COLOR", "1")
            .env_remove("WEFT_TOKEN")
            .env_remove("WEFT_LOG")
            .stdin(Stdio::null());
        if let Some(served) = &self.served {
            command.env("WEFT_SERVER", &served.url);
        }
        command
    }

    /// Runs one line of a block.
    fn run_line(&mut self, line: Line) {
        match line {
            Line::Nothing => {}
            Line::NotRun { at, text, reason } => {
                self.not_run.push(format!("{at}: `{text}`: {reason}"))
            }
            Line::Unsupported { at, text, why } => panic!("{at}: `{text}`: {why}"),
            Line::Run { at, text, commands } => {
                if let Some(tool) = missing_tool(&commands) {
                    self.skipped
                        .entry(tool)
                        .or_default()
                        .push(format!("{at}: `{text}`"));
                    return;
                }
                for words in commands {
                    self.run_command(&at, &words);
                }
                self.ran.push(format!("{at}: `{text}`"));
            }
        }
    }

    fn run_command(&mut self, at: &str, words: &[String]) {
        let words = expand(words, &self.home, &self.cwd);
        let assignments = words.iter().take_while(|w| is_assignment(w)).count();
        let (env, words) = words.split_at(assignments);
        let Some(program) = words.first() else {
            panic!("{at}: an assignment alone is not run");
        };
        let args: Vec<String> = match program.as_str() {
            "cd" => {
                self.cwd = self
                    .cwd
                    .join(words.get(1).map_or(self.home.as_path(), |d| Path::new(d)));
                assert!(
                    self.cwd.is_dir(),
                    "{at}: cd {}: no such directory",
                    self.cwd.display()
                );
                return;
            }
            "weft" => words[1..].to_vec(),
            "cargo" if words.windows(2).any(|w| w[0] == "--bin" && w[1] == "weft") => {
                let dashes = words
                    .iter()
                    .position(|w| w == "--")
                    .unwrap_or(words.len() - 1);
                words[dashes + 1..].to_vec()
            }
            _ => {
                let mut command = self.command(program);
                command
                    .args(&words[1..])
                    .envs(env.iter().map(|a| a.split_once('=').unwrap()));
                self.finish(at, words, command);
                return;
            }
        };
        if args.first().map(String::as_str) == Some("serve") {
            self.serve(at, &args);
            return;
        }
        let mut command = self.command(env!("CARGO_BIN_EXE_weft"));
        command
            .args(&args)
            .envs(env.iter().map(|a| a.split_once('=').unwrap()));
        self.finish(at, words, command);
    }

    /// Runs `command` to its end (within [`COMMAND_LIMIT`]) and requires exit 0.
    fn finish(&self, at: &str, words: &[String], mut command: Command) {
        let out = self.state.path().join("out");
        let err = self.state.path().join("err");
        let mut child = command
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .unwrap_or_else(|e| panic!("{at}: {}: {e}", words[0]));
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > COMMAND_LIMIT {
                let _ = child.kill();
                panic!(
                    "{at}: `{}` still ran after {COMMAND_LIMIT:?}",
                    words.join(" ")
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        assert!(
            status.success(),
            "{at}: `{}` exited {status}\nstdout:\n{}\nstderr:\n{}{}",
            words.join(" "),
            read(&out),
            read(&err),
            self.served.as_ref().map_or(String::new(), |s| format!(
                "\nweft serve's log:\n{}",
                read(&s.log)
            ))
        );
    }

    /// Starts `weft serve` (stopping one a line before started, as Ctrl-C would), on a free port; waits until it is
    /// ready and every app it serves is synced and healthy.
    fn serve(&mut self, at: &str, args: &[String]) {
        self.served = None;
        let port = free_port();
        let log = self.state.path().join(format!("serve-{port}.log"));
        let child = self
            .command(env!("CARGO_BIN_EXE_weft"))
            .args(args)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut served = Served {
            child,
            url: format!("http://127.0.0.1:{port}"),
            log,
        };
        let logged = |s: &Served| std::fs::read_to_string(&s.log).unwrap_or_default();
        let deadline = Instant::now() + COMMAND_LIMIT;
        while !ready(port) {
            if let Some(status) = served.child.try_wait().unwrap() {
                panic!("{at}: weft serve exited {status}:\n{}", logged(&served));
            }
            assert!(
                Instant::now() < deadline,
                "{at}: weft serve never became ready:\n{}",
                logged(&served)
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        self.served = Some(served);
        loop {
            let output = self
                .command(env!("CARGO_BIN_EXE_weft"))
                .args(["apps", "-o", "json"])
                .output()
                .unwrap();
            let rows = rows(&stdout(&output));
            let settled = |row: &Value| row["sync"] == "synced" && row["health"] == "healthy";
            if output.status.success() && !rows.is_empty() && rows.iter().all(settled) {
                return;
            }
            let last = format!("{}{}", stdout(&output), stderr(&output));
            assert!(
                Instant::now() < deadline,
                "{at}: the apps of weft serve never became synced and healthy:\n{last}\n{}",
                self.served.as_ref().map(logged).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

/// `NAME=value`: an environment assignment before a command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The fleet's rows in `weft apps -o json`'s output (an array, or one object a line).
fn rows(text: &str) -> Vec<Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(rows)) => rows,
        Ok(Value::Object(object)) => object
            .get("apps")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_else(|| vec![Value::Object(object)]),
        _ => text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
    }
}

/// The language tool a line's commands need that this machine lacks, if any: pip for Python plugins and their
/// native suites, npm for JavaScript.
fn missing_tool(commands: &[Vec<String>]) -> Option<String> {
    let words: Vec<&str> = commands.iter().flatten().map(String::as_str).collect();
    let python = words.contains(&"python3") || words.windows(2).any(|w| w == ["--lang", "python"]);
    let javascript = words.contains(&"npm") || words.windows(2).any(|w| w == ["--lang", "js"]);
    let reference = if python {
        Reference::python_module("pip", "pip")
    } else if javascript {
        Reference::command(
            "npm",
            &["/usr/bin/npm"],
            &["--version"],
            "apt-get install npm",
        )
    } else {
        return None;
    };
    match reference.path() {
        Some(_) => None,
        None => Some(reference.name().to_string()),
    }
}

/// Says what was skipped for want of a tool; under CI, fails.
fn report_skipped(skipped: &BTreeMap<String, Vec<String>>) {
    for (tool, lines) in skipped {
        println!(
            "SKIPPED: {tool} is missing, so these were not run:\n  {}",
            lines.join("\n  ")
        );
    }
    assert!(
        skipped.is_empty() || !under_ci(),
        "under CI every tool the examples need must be installed: {skipped:?}"
    );
}

#[test]
fn every_shell_example_of_the_readme_and_the_docs_runs_or_says_why_not() {
    let workspace = workspace();
    let mut session = Session::new();
    let mut current = String::new();
    let mut blocks = 0;
    for block in all_blocks(&workspace) {
        if !matches!(block.language.as_str(), "sh" | "bash" | "shell" | "console") {
            continue;
        }
        blocks += 1;
        if block.file != current {
            current.clone_from(&block.file);
            session.open(&block.file);
        }
        if let Some(reason) = block.not_run() {
            session
                .not_run
                .push(format!("{} (the whole block): {reason}", block.at()));
            continue;
        }
        fixtures::prepare(&block, &session.cwd, &session.home, &workspace);
        for line in block.lines() {
            session.run_line(line);
        }
    }
    println!(
        "ran {} lines of {blocks} shell blocks:\n  {}",
        session.ran.len(),
        session.ran.join("\n  ")
    );
    println!("not run:\n  {}", session.not_run.join("\n  "));
    report_skipped(&session.skipped);
    assert!(blocks >= 12, "only {blocks} shell blocks found");
    assert!(
        session.ran.len() >= 15,
        "only {} lines ran",
        session.ran.len()
    );
}

/// `weft plugin new NAME --kind acme.io/Database --lang LANG` in `dir`: the folder.
fn scaffold(dir: &Path, name: &str, lang: &str) -> PathBuf {
    let made = Command::new(env!("CARGO_BIN_EXE_weft"))
        .current_dir(dir)
        .env("WEFT_BUILTIN_PLUGINS", builtins())
        .args([
            "plugin",
            "new",
            name,
            "--kind",
            "acme.io/Database",
            "--lang",
            lang,
        ])
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", stderr(&made));
    dir.join(name)
}

/// `weft plugin build FOLDER`, which must succeed: what it printed.
fn build(block: &Block, folder: &Path) -> String {
    let built = Command::new(env!("CARGO_BIN_EXE_weft"))
        .env("WEFT_BUILTIN_PLUGINS", builtins())
        .args(["plugin", "build"])
        .arg(folder)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}: the example does not build:\n{}\n{}",
        block.at(),
        stdout(&built),
        stderr(&built)
    );
    stdout(&built)
}

/// What a plugin example is, read from its text: a check, a rule to add to a check, or a gate.
fn plugin_example(block: &Block, dir: &Path) -> PathBuf {
    let body = &block.body;
    let name = format!("example-{}", block.line);
    match block.language.as_str() {
        "rust" if body.contains("impl DeployGate") => fixtures::gate_folder(dir, &name, body),
        "rust" => {
            // The check in place of the scaffold's, after its imports and the type it implements.
            let folder = scaffold(dir, &name, "rust");
            let lib = format!(
                "use weft_sdk::{{Context, Health, HealthCheck, Object, PluginError}};\n\n\
                 /// The README's example.\n#[derive(Debug)]\npub struct DatabaseHealth;\n\n{body}"
            );
            std::fs::write(folder.join("src/lib.rs"), lib).unwrap();
            folder
        }
        "python" if body.starts_with("    ") => {
            // A rule to add: at the top of the scaffold's check.
            let folder = scaffold(dir, &name, "python");
            let check = std::fs::read_to_string(folder.join("check.py")).unwrap();
            let at = check
                .find("def assess")
                .expect("the scaffold defines assess");
            let body_at = at + check[at..].find(":\n").unwrap() + 2;
            let edited = format!("{}{body}{}", &check[..body_at], &check[body_at..]);
            std::fs::write(folder.join("check.py"), edited).unwrap();
            folder
        }
        "python" => {
            let folder = scaffold(dir, &name, "python");
            std::fs::write(folder.join("check.py"), body).unwrap();
            folder
        }
        "js" => {
            let folder = scaffold(dir, &name, "js");
            std::fs::write(folder.join("check.js"), body).unwrap();
            folder
        }
        other => panic!("{}: no way to build a {other} example", block.at()),
    }
}

#[test]
fn every_plugin_code_example_builds_as_a_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let mut built = Vec::new();
    let mut skipped = BTreeMap::new();
    for block in all_blocks(&workspace()) {
        let tool = match block.language.as_str() {
            "rust" => None,
            "python" => Some(Reference::python_module("pip", "pip")),
            "js" => Some(Reference::command(
                "npm",
                &["/usr/bin/npm"],
                &["--version"],
                "apt-get install npm",
            )),
            _ => continue,
        };
        if let Some(tool) = tool.filter(|t| t.path().is_none()) {
            skipped
                .entry(tool.name().to_string())
                .or_insert_with(Vec::new)
                .push(block.at());
            continue;
        }
        let folder = plugin_example(&block, dir.path());
        build(&block, &folder);
        // A rule added to the scaffold's check keeps its suite passing.
        if block.language == "python" && block.body.starts_with("    ") {
            let tested = crate::support::weft_plugin_test_in(&folder);
            assert!(
                tested.status.success(),
                "{}: {}{}",
                block.at(),
                stdout(&tested),
                stderr(&tested)
            );
        }
        built.push(block.at());
    }
    println!("built: {}", built.join(", "));
    report_skipped(&skipped);
    assert!(
        built.len() + skipped.values().map(Vec::len).sum::<usize>() >= 5,
        "only {built:?}"
    );
}

#[test]
fn the_tutorial_s_manifest_builds_its_python_check_and_its_plugins_setting_loads_it() {
    let blocks = all_blocks(&workspace());
    let manifest = blocks
        .iter()
        .find(|b| b.language == "toml" && b.body.contains("\nworld = "))
        .expect("docs/plugins.md shows a manifest");
    let setting = blocks
        .iter()
        .find(|b| b.language == "toml" && b.body.contains("[plugins]"))
        .expect("docs/plugins.md shows the [plugins] setting");
    let pip = Reference::python_module("pip", "pip");
    if pip.path().is_none() {
        let mut skipped = BTreeMap::new();
        skipped.insert(pip.name().to_string(), vec![manifest.at(), setting.at()]);
        return report_skipped(&skipped);
    }
    // The manifest in place of the scaffold's: the plugin it describes builds and passes its suite.
    let dir = tempfile::tempdir().unwrap();
    let name = manifest
        .body
        .lines()
        .find_map(|l| l.strip_prefix("name = \""))
        .and_then(|rest| rest.split('"').next())
        .expect("the manifest names the plugin")
        .to_string();
    let folder = scaffold(dir.path(), &name, "python");
    std::fs::write(folder.join("weft-plugin.toml"), &manifest.body).unwrap();
    let tested = crate::support::weft_plugin_test_in(&folder);
    assert!(
        tested.status.success() && stdout(&tested).contains("5 passed, 0 failed"),
        "{}: {}{}",
        manifest.at(),
        stdout(&tested),
        stderr(&tested)
    );
    // `[plugins] dirs`, naming where that build went, makes it one of the server's plugins.
    let dist = folder.join("dist");
    let config = setting.body.replace(
        &format!("/path/to/{name}/dist"),
        &dist.display().to_string(),
    );
    assert!(
        config.contains(&dist.display().to_string()),
        "{}: the setting names no {name}/dist",
        setting.at()
    );
    // As `weft serve` loads it: the configuration's plugin directories added to the registry as user plugins.
    let config =
        weft_engine::config::Config::parse(&config, &dir.path().join("weft.toml"), dir.path())
            .unwrap_or_else(|e| panic!("{}: {e}", setting.at()));
    let mut registry = weft_plugin_host::registry::Registry::new();
    for plugins in &config.plugins.dirs {
        registry
            .add_dir(plugins, weft_plugin_host::registry::Provenance::User)
            .unwrap_or_else(|e| panic!("{}: {e}", setting.at()));
    }
    assert!(
        registry.plugins().iter().any(|p| p.name() == name),
        "{}: {name} is not among the plugins it loads",
        setting.at()
    );
}
