use weft_sdk::BuildFailure;

use super::{Diagnosis, diagnose};

fn of(step: &str, exit_code: Option<i32>, log: &str) -> Diagnosis {
    diagnose(&BuildFailure {
        attempt: 1,
        step: step.into(),
        exit_code,
        log: log.into(),
    })
}

fn build(log: &str) -> Diagnosis {
    of("build", Some(1), log)
}

fn version(language: &'static str, wanted: &str) -> Diagnosis {
    Diagnosis::Version {
        language,
        wanted: wanted.into(),
    }
}

#[test]
fn toolchain_versions_are_read_from_each_ecosystem() {
    assert_eq!(
        build(
            "error: package `clap_lex v0.7.4` cannot be built because it requires rustc 1.80.0 or newer, while the \
             currently active rustc version is 1.75.0\nEither upgrade to rustc 1.80.0 or newer, or use\n"
        ),
        version("rust", "1.80")
    );
    assert_eq!(
        build(
            "error: rustc 1.75.0 is not supported by the following packages:\n  a@1.0.0 requires rustc 1.78\n  b@2.0.0 requires rustc 1.81.0\n"
        ),
        version("rust", "1.81")
    );
    assert_eq!(
        build("error: failed to parse manifest\n  feature `edition2024` is required\n"),
        version("rust", "1.85")
    );
    assert_eq!(
        of(
            "install",
            Some(1),
            "error vite@6.0.0: The engine \"node\" is incompatible with this module. Expected version \"^18.0.0 || >=20.0.0\". Got \"16.20.2\"\nerror Found incompatible module.\n"
        ),
        version("node", "18")
    );
    assert_eq!(
        of(
            "install",
            Some(1),
            "npm ERR! code EBADENGINE\nnpm ERR! engine Unsupported engine\nnpm ERR! notsup Required: {\"node\":\">=20\"}\nnpm ERR! notsup required: { node: '>=20.0.0' }\n"
        ),
        version("node", "20")
    );
    assert_eq!(
        of(
            "install",
            Some(1),
            "ERROR: Package 'shop' requires a different Python: 3.9.18 not in '>=3.11'\n"
        ),
        version("python", "3.11")
    );
    assert_eq!(
        of(
            "install",
            Some(2),
            "  x No solution found when resolving dependencies:\n  Because the current Python version (3.9.18) does not satisfy Python>=3.12 and shop depends on it\n"
        ),
        version("python", "3.12")
    );
    assert_eq!(
        of(
            "install",
            Some(1),
            "The currently activated Python version 3.10.14 is not supported by the project (^3.11).\n"
        ),
        version("python", "3.11")
    );
    assert_eq!(
        build("go: go.mod requires go >= 1.23.0 (running go 1.22.5; GOTOOLCHAIN=local)\n"),
        version("go", "1.23")
    );
    assert_eq!(
        build("# example.com/shop\nnote: module requires Go 1.22\n"),
        version("go", "1.22")
    );
}

#[test]
fn frozen_installs_are_recognised() {
    for log in [
        "npm ERR! The `npm ci` command can only install with an existing package-lock.json or\nnpm ERR! npm-shrinkwrap.json with lockfileVersion >= 1.",
        "npm ERR! `npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync.",
        " ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with \"frozen-lockfile\" because pnpm-lock.yaml is not up to date with package.json",
        "error Your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`.",
        "YN0028: The lockfile would have been modified by this install, which is explicitly forbidden.",
        "error: the lock file /app/Cargo.lock needs to be updated but --locked was passed to prevent this",
        "error: Unable to find lockfile at `uv.lock`, but `--frozen` was provided.",
        "pyproject.toml changed significantly since poetry.lock was last generated. Run `poetry lock` to fix the lock file.",
        "main.go:4:2: missing go.sum entry for module providing package github.com/x/y",
    ] {
        assert_eq!(of("install", Some(1), log), Diagnosis::Lockfile, "{log}");
    }
}

#[test]
fn missing_tools_and_libraries_name_their_packages() {
    let packages = |log: &str| match build(log) {
        Diagnosis::MissingPackages(p) => p,
        other => panic!("{other:?} for {log}"),
    };
    assert_eq!(packages("sh: 1: pkg-config: not found\n"), ["pkg-config"]);
    // psycopg2 from source with libpq but no compiler, as pip prints it (a real build's log, abridged).
    assert_eq!(
        packages(
            "      x86_64-linux-gnu-gcc -Wsign-compare -DNDEBUG -g -fwrapv -O2 -fPIC -I/app/.venv/include \
             -I/usr/include/python3.11 -I. -I/usr/include/postgresql -c psycopg/adapter_asis.c\n      \n      \
             error: command 'x86_64-linux-gnu-gcc' failed: No such file or directory\n      [end of output]\n\
             error: legacy-install-failure\n"
        ),
        ["build-essential", "python3-dev"]
    );
    assert_eq!(
        packages("unable to execute 'gcc': No such file or directory\n"),
        ["build-essential"]
    );
    assert_eq!(packages("/bin/sh: make: command not found\n"), ["make"]);
    assert_eq!(
        packages("zsh: command not found: protoc\n"),
        ["protobuf-compiler"]
    );
    assert_eq!(packages("sh: 1: jq: not found\n"), ["jq"]);
    assert_eq!(
        packages("error: linker `cc` not found\n"),
        ["build-essential"]
    );
    assert_eq!(
        packages(
            "  run pkg_config fail: Could not run `PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 pkg-config --libs openssl`\n  The pkg-config command could not be found.\n\n  Could not find openssl via pkg-config:\n"
        ),
        ["pkg-config", "libssl-dev"]
    );
    assert_eq!(
        packages("src/ffi.c:3:10: fatal error: zlib.h: No such file or directory\n"),
        ["zlib1g-dev"]
    );
    assert_eq!(
        packages("Error: pg_config executable not found.\n"),
        ["libpq-dev"]
    );
    assert_eq!(
        packages("gyp ERR! find Python Python is not set from command line or npm configuration\n"),
        ["python3", "make", "g++"]
    );
    // A missing language toolchain or file is not a system package.
    assert_eq!(build("sh: 1: npm: not found\n"), Diagnosis::Unrecognised);
    assert_eq!(
        build("sh: 1: ./target/release/shop: not found\n"),
        Diagnosis::Unrecognised
    );
}

#[test]
fn out_of_memory_is_read_from_the_exit_code_and_the_killer() {
    assert_eq!(
        of("build", Some(137), "Compiling serde v1.0\n"),
        Diagnosis::OutOfMemory
    );
    assert_eq!(
        build("c++: fatal error: Killed signal terminated program cc1plus\n"),
        Diagnosis::OutOfMemory
    );
    assert_eq!(
        build(
            "error: could not compile `shop`\n\nCaused by:\n  process didn't exit successfully (signal: 9, SIGKILL: kill)\n"
        ),
        Diagnosis::OutOfMemory
    );
    assert_eq!(build("Building...\nKilled\n"), Diagnosis::OutOfMemory);
    assert_eq!(
        build(
            "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n"
        ),
        Diagnosis::OutOfMemory
    );
}

#[test]
fn missing_start_commands_and_ports() {
    assert_eq!(
        of(
            "start",
            Some(1),
            "npm ERR! Missing script: \"start\"\nnpm ERR!\n"
        ),
        Diagnosis::MissingStart
    );
    assert_eq!(
        of(
            "start",
            None,
            "the plan has no start command and its Dockerfile no CMD or ENTRYPOINT"
        ),
        Diagnosis::MissingStart
    );
    assert_eq!(
        of(
            "start",
            Some(1),
            "> shop@1.0.0 start\n> node server.js\n\nlistening on :3001\nhealth check failed: connection refused on 3000"
        ),
        Diagnosis::WrongPort(3001)
    );
    assert_eq!(
        of(
            "start",
            Some(1),
            "INFO:     Uvicorn running on http://0.0.0.0:5000 (Press CTRL+C to quit)"
        ),
        Diagnosis::WrongPort(5000)
    );
    assert_eq!(
        of("start", Some(1), "Server listening on port 4000"),
        Diagnosis::WrongPort(4000)
    );
}

#[test]
fn anything_else_is_unrecognised() {
    assert_eq!(build(""), Diagnosis::Unrecognised);
    assert_eq!(
        build("error[E0308]: mismatched types\n --> src/main.rs:3:5\n"),
        Diagnosis::Unrecognised
    );
    assert_eq!(
        build("Running on linux amd64: 3 warnings\nsegmentation fault in the frobnicator\n"),
        Diagnosis::Unrecognised
    );
}
