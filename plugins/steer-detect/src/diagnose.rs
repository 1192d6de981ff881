//! Reading a failed build: which of the failures this plugin knows the log shows, from the messages the toolchains
//! print (cargo, npm, pnpm, yarn, pip, Poetry, uv, go, the shell, the kernel's OOM killer).

use weft_sdk::BuildFailure;

use crate::version::Constraint;

/// What went wrong, as far as the log tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Diagnosis {
    /// The toolchain is too old: `language` (`rust`, `node`, `python`, `go`) at least `wanted`.
    Version {
        /// The language whose version is wrong.
        language: &'static str,
        /// The version it asks for (`1.80`, `20`, `3.11`).
        wanted: String,
    },
    /// A frozen install refused a missing or stale lockfile.
    Lockfile,
    /// Tools or libraries missing from the image, as system package names.
    MissingPackages(Vec<String>),
    /// The build ran out of memory.
    OutOfMemory,
    /// There is no start command, or the one given names nothing.
    MissingStart,
    /// The app listens on another port than the plan's.
    WrongPort(u16),
    /// Nothing this plugin knows.
    Unrecognised,
}

/// Reads a failure.
pub fn diagnose(failure: &BuildFailure) -> Diagnosis {
    let log = failure.log.as_str();
    let lower = log.to_ascii_lowercase();
    if let Some(d) = version(log, &lower) {
        return d;
    }
    if lockfile(&lower) {
        return Diagnosis::Lockfile;
    }
    if missing_start(failure, &lower) {
        return Diagnosis::MissingStart;
    }
    let packages = missing_packages(&lower);
    if !packages.is_empty() {
        return Diagnosis::MissingPackages(packages);
    }
    if out_of_memory(failure, &lower) {
        return Diagnosis::OutOfMemory;
    }
    if let Some(port) = listening_port(&lower) {
        return Diagnosis::WrongPort(port);
    }
    Diagnosis::Unrecognised
}

/// The text after `marker` in `text`, when `marker` occurs.
fn after<'t>(text: &'t str, marker: &str) -> Option<&'t str> {
    text.find(marker).map(|i| &text[i + marker.len()..])
}

/// The leading run of `text` (after spaces and quotes) that can be part of a version constraint.
fn constraint_token(text: &str) -> &str {
    let text = text.trim_start_matches([' ', '"', '\'', '`', '(']);
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || "<>=~^.,*xX |!".contains(c)))
        .unwrap_or(text.len());
    text[..end].trim()
}

fn wanted(language: &'static str, constraint: &str, components: usize) -> Option<Diagnosis> {
    let minimum = Constraint::parse(constraint)?.minimum(components)?;
    Some(Diagnosis::Version {
        language,
        wanted: crate::version::render(&minimum, components),
    })
}

/// A toolchain that is too old, and the version the log asks for.
fn version(log: &str, lower: &str) -> Option<Diagnosis> {
    // cargo: "package `x v1.0.0` cannot be built because it requires rustc 1.80.0 or newer" and
    // "rustc 1.75.0 is not supported by the following package: x@1.0.0 requires rustc 1.80".
    let mut rust: Option<Vec<u32>> = None;
    for (index, _) in lower.match_indices("requires rustc ") {
        let token = constraint_token(&lower[index + "requires rustc ".len()..]);
        if let Some(v) = crate::version::parse(token.split_whitespace().next().unwrap_or(""))
            && rust.as_ref().is_none_or(|r| v > *r)
        {
            rust = Some(v);
        }
    }
    if lower.contains("feature `edition2024` is required")
        || lower.contains("edition 2024 is unstable")
    {
        rust = rust.max(Some(vec![1, 85]));
    }
    if let Some(v) = rust {
        return Some(Diagnosis::Version {
            language: "rust",
            wanted: crate::version::render(&v, 2),
        });
    }
    // yarn: The engine "node" is incompatible with this module. Expected version ">=20". Got "18.19.0"
    if lower.contains("the engine \"node\" is incompatible")
        && let Some(rest) = after(log, "Expected version ")
        && let Some(d) = wanted("node", constraint_token(rest), 1)
    {
        return Some(d);
    }
    // npm: EBADENGINE ... required: { node: '>=20.0.0' }
    if (lower.contains("ebadengine") || lower.contains("unsupported engine"))
        && let Some(rest) = after(lower, "node: ")
        && let Some(d) = wanted("node", constraint_token(rest), 1)
    {
        return Some(d);
    }
    // pip: Package 'x' requires a different Python: 3.9.18 not in '>=3.11'
    if let Some(rest) = after(lower, "requires a different python")
        && let Some(rest) = after(rest, " not in ")
        && let Some(d) = wanted("python", constraint_token(rest), 2)
    {
        return Some(d);
    }
    // uv, pip and build backends name requires-python; Poetry names the project's supported range.
    for marker in [
        "requires-python ",
        "requires-python: ",
        "requires-python=",
        "is not supported by the project (",
        "does not satisfy python",
    ] {
        if let Some(rest) = after(lower, marker)
            && let Some(d) = wanted("python", constraint_token(rest), 2)
        {
            return Some(d);
        }
    }
    // go: go.mod requires go >= 1.22 (running go 1.21.0; GOTOOLCHAIN=local); "note: module requires Go 1.22"
    for marker in ["requires go >= ", "module requires go "] {
        if let Some(rest) = after(lower, marker)
            && let Some(d) = wanted("go", constraint_token(rest), 2)
        {
            return Some(d);
        }
    }
    None
}

/// A frozen install that wants a lockfile it does not have, or has out of date.
fn lockfile(lower: &str) -> bool {
    const MARKERS: [&str; 11] = [
        // npm ci
        "can only install packages when your package.json and package-lock.json",
        "can only install with an existing package-lock.json",
        // pnpm
        "err_pnpm_outdated_lockfile",
        "err_pnpm_no_lockfile",
        "because pnpm-lock.yaml is not up to date",
        // yarn 1 and berry
        "your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`",
        "the lockfile would have been modified by this install, which is explicitly forbidden",
        // poetry
        "poetry.lock is not consistent with pyproject.toml",
        "changed significantly since poetry.lock was last generated",
        // go
        "missing go.sum entry",
        "updates to go.mod needed",
    ];
    if MARKERS.iter().any(|m| lower.contains(m)) {
        return true;
    }
    // cargo: "the lock file /app/Cargo.lock needs to be updated but --locked was passed to prevent this"
    if lower.contains("cargo.lock") && lower.contains("--locked was passed") {
        return true;
    }
    // uv: "The lockfile at `uv.lock` needs to be updated, but `--locked` was provided" / "Unable to find lockfile
    // at `uv.lock`, but `--frozen` was provided"
    lower.contains("uv.lock") && (lower.contains("`--frozen`") || lower.contains("`--locked`"))
}

/// No start command, or a start script that does not exist.
fn missing_start(failure: &BuildFailure, lower: &str) -> bool {
    lower.contains("missing script: \"start\"")
        || lower.contains("missing script: start")
        || lower.contains("no start command")
        || (failure.step == "start" && lower.contains("no command specified"))
}

/// System packages providing a command the shell could not find.
fn package_for_command(command: &str) -> Option<String> {
    Some(
        match command {
            "cc" | "gcc" | "ld" => "build-essential",
            "c++" | "g++" => "g++",
            "make" => "make",
            "pkg-config" | "pkgconf" => "pkg-config",
            "git" => "git",
            "cmake" => "cmake",
            "protoc" => "protobuf-compiler",
            "python" | "python3" => "python3",
            "perl" => "perl",
            "curl" => "curl",
            "wget" => "wget",
            "unzip" => "unzip",
            "zip" => "zip",
            "openssl" => "openssl",
            "ssh" => "openssh-client",
            "pg_config" => "libpq-dev",
            "mysql_config" => "default-libmysqlclient-dev",
            // Language toolchains come with the base image, never from the system's packages.
            "node" | "npm" | "npx" | "pnpm" | "yarn" | "corepack" | "bun" | "deno" | "cargo"
            | "rustc" | "rustup" | "go" | "gofmt" | "pip" | "pip3" | "uv" | "poetry" | "java"
            | "mvn" | "gradle" => {
                return None;
            }
            // Most other tools are packaged under their own name (jq, rsync, xz-utils aside).
            other
                if !other.is_empty()
                    && other.len() <= 40
                    && other
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') =>
            {
                return Some(other.to_string());
            }
            _ => return None,
        }
        .to_string(),
    )
}

/// Development packages providing a C header a compiler could not find.
fn package_for_header(header: &str) -> Option<&'static str> {
    Some(match header {
        "openssl/ssl.h" | "openssl/opensslv.h" | "openssl/crypto.h" => "libssl-dev",
        "zlib.h" => "zlib1g-dev",
        "ffi.h" => "libffi-dev",
        "python.h" => "python3-dev",
        "sqlite3.h" => "libsqlite3-dev",
        "libpq-fe.h" | "pg_config.h" => "libpq-dev",
        "mysql.h" => "default-libmysqlclient-dev",
        "jpeglib.h" => "libjpeg-dev",
        "png.h" => "libpng-dev",
        "libxml/xmlversion.h" | "libxml/parser.h" => "libxml2-dev",
        "yaml.h" => "libyaml-dev",
        _ => return None,
    })
}

/// System packages the log says are missing, in the order found, without repeats.
fn missing_packages(lower: &str) -> Vec<String> {
    let mut packages: Vec<String> = Vec::new();
    let mut add = |p: &str| {
        if !packages.iter().any(|known| known == p) {
            packages.push(p.to_string());
        }
    };
    for line in lower.lines() {
        let line = line.trim();
        // sh: 1: pkg-config: not found / bash: make: command not found / zsh: command not found: make
        let command = if let Some(rest) = line.strip_suffix(": not found") {
            rest.rsplit(": ").next()
        } else if let Some(rest) = line.strip_suffix(": command not found") {
            rest.rsplit(": ").next()
        } else {
            after(line, "command not found: ").map(str::trim)
        };
        if let Some(package) = command.and_then(|c| package_for_command(c.trim())) {
            add(&package);
        }
        // error: linker `cc` not found
        if let Some(rest) = after(line, "linker `")
            && let Some(linker) = rest.split('`').next()
            && line.contains("` not found")
            && let Some(package) = package_for_command(linker)
        {
            add(&package);
        }
        // fatal error: openssl/ssl.h: No such file or directory
        if let Some(rest) = after(line, "fatal error: ")
            && line.contains("no such file or directory")
            && let Some(header) = rest.split(':').next()
            && let Some(package) = package_for_header(header.trim())
        {
            add(package);
        }
    }
    // openssl-sys: "Could not find openssl via pkg-config", "Could not find directory of OpenSSL installation"
    if lower.contains("could not find openssl via pkg-config")
        || lower.contains("could not find directory of openssl installation")
        || lower.contains("could not find system library 'openssl'")
    {
        add("pkg-config");
        add("libssl-dev");
    }
    if lower.contains("the pkg-config command could not be found")
        || lower.contains("is `pkg-config` installed")
    {
        add("pkg-config");
    }
    if lower.contains("pg_config executable not found") {
        add("libpq-dev");
    }
    // setuptools compiling a C extension with no compiler: "error: command 'x86_64-linux-gnu-gcc' failed: No such
    // file or directory" (or "unable to execute 'gcc'"); the extension needs Python's headers as well.
    for marker in ["error: command '", "unable to execute '"] {
        if let Some(rest) = after(lower, marker)
            && let Some(line) = rest.lines().next()
            && let Some(program) = line.split('\'').next()
            && (line.contains("no such file or directory") || marker.starts_with("unable"))
        {
            let compiler = program.rsplit('-').next().unwrap_or(program);
            if let Some(package) = package_for_command(compiler) {
                add(&package);
                if lower.contains("-i/usr/include/python3") || lower.contains("setup.py") {
                    add("python3-dev");
                }
            }
        }
    }
    if lower.contains("could not find `protoc`") {
        add("protobuf-compiler");
    }
    // node-gyp builds native add-ons with Python, make and a C++ compiler.
    if lower.contains("gyp err! find python")
        || lower.contains("gyp err! stack error: not found: make")
    {
        add("python3");
        add("make");
        add("g++");
    }
    packages
}

/// A build the kernel or the runtime stopped for lack of memory.
fn out_of_memory(failure: &BuildFailure, lower: &str) -> bool {
    const MARKERS: [&str; 7] = [
        "out of memory",
        "cannot allocate memory",
        "killed signal terminated program",
        "signal: 9, sigkill",
        "javascript heap out of memory",
        "memoryerror",
        "exit code: 137",
    ];
    failure.exit_code == Some(137)
        || MARKERS.iter().any(|m| lower.contains(m))
        || lower.lines().any(|l| l.trim() == "killed")
}

/// The port a log line says the app listens on (`listening on :3000`, `running on http://0.0.0.0:8000`).
fn listening_port(lower: &str) -> Option<u16> {
    const PHRASES: [&str; 7] = [
        "listening on",
        "listening at",
        "running on",
        "started on",
        "serving on",
        "bound to",
        "server started at",
    ];
    for line in lower.lines() {
        for phrase in PHRASES {
            let Some(rest) = after(line, phrase) else {
                continue;
            };
            if let Some(port) = port_in(rest) {
                return Some(port);
            }
        }
    }
    None
}

/// `port 3000`, or the digits after the first `:` that are followed by something other than `/` (an address).
fn port_in(text: &str) -> Option<u16> {
    let digits = |s: &str| -> Option<u16> {
        let d: String = s.chars().take_while(char::is_ascii_digit).collect();
        d.parse().ok().filter(|p| *p > 0)
    };
    if let Some(port) = after(text, "port ").and_then(|rest| digits(rest.trim_start())) {
        return Some(port);
    }
    text.match_indices(':')
        .map(|(i, _)| &text[i + 1..])
        .filter(|rest| !rest.starts_with('/'))
        .find_map(digits)
}

#[cfg(test)]
mod tests;
