//! A throwaway PostgreSQL server for tests: initialized in a temporary directory on a free loopback port, able to
//! stop and start again on the same port and data (a database outage), stopped on drop. Its data directory can be
//! put on a filesystem of the test's own, to fill.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to get the server programs when they are missing.
pub const POSTGRES_INSTALL: &str = "PostgreSQL is not installed: this test needs its server programs (initdb, \
                                    pg_ctl); install them, e.g. `apt-get install postgresql`";

/// A PostgreSQL server in a temporary directory, stopped (immediately) on drop.
#[derive(Debug)]
pub struct PostgresServer {
    url: String,
    port: u16,
    pg_ctl: PathBuf,
    data: PathBuf,
    as_postgres_user: bool,
    /// Settings of its own, as `-c` options.
    settings: &'static str,
    dir: tempfile::TempDir,
}

impl PostgresServer {
    /// Initializes and starts a server whose user `weft` connects without a password; panics with what to
    /// install when PostgreSQL's server programs are missing.
    pub fn start() -> PostgresServer {
        PostgresServer::start_with(None)
    }

    /// [`PostgresServer::start`] with its data directory in `dir` (as `dir/data`; a filesystem of the test's own,
    /// such as a [`SmallFilesystem`](crate::SmallFilesystem), which must outlive the server); its socket and log
    /// stay in a temporary directory of its own, so the log can be read when `dir` is full. It makes no timed
    /// checkpoints (`checkpoint_timeout = 1d`), so no write-ahead log segment is recycled or preallocated behind the
    /// test's back: the log needs new room exactly when it moves on to a new segment.
    pub fn start_in(dir: &Path) -> PostgresServer {
        PostgresServer::start_with(Some(dir))
    }

    fn start_with(data_in: Option<&Path>) -> PostgresServer {
        let bin = postgres_bin_dir().unwrap_or_else(|| panic!("{POSTGRES_INSTALL}"));
        let dir = tempfile::tempdir().expect("a temporary directory");
        // PostgreSQL refuses to run as root: then the server runs as the `postgres` user the package made.
        let as_postgres_user = running_as_root(dir.path());
        if as_postgres_user {
            let id = |flag: &str| -> u32 {
                let output = Command::new("id")
                    .args([flag, "postgres"])
                    .output()
                    .expect("running id");
                assert!(
                    output.status.success(),
                    "running as root, and there is no `postgres` user to run the server as. {POSTGRES_INSTALL}"
                );
                String::from_utf8_lossy(&output.stdout)
                    .trim()
                    .parse()
                    .expect("a numeric id")
            };
            std::os::unix::fs::chown(dir.path(), Some(id("-u")), Some(id("-g")))
                .expect("handing the directory to postgres");
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let server = PostgresServer {
            url: format!("postgres://weft@127.0.0.1:{port}/postgres"),
            port,
            pg_ctl: bin.join("pg_ctl"),
            data: data_in.unwrap_or(dir.path()).join("data"),
            as_postgres_user,
            settings: if data_in.is_some() {
                "-c checkpoint_timeout=1d"
            } else {
                ""
            },
            dir,
        };
        server.run(
            &bin.join("initdb"),
            &[
                "-D",
                path(&server.data),
                "-U",
                "weft",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-locale",
                "--no-sync",
            ],
        );
        server.start_again();
        server
    }

    /// The URL to connect to (`postgres://weft@127.0.0.1:PORT/postgres`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`: connections are cut), keeping its data.
    pub fn stop(&self) {
        self.run(
            &self.pg_ctl,
            &["-D", path(&self.data), "-m", "immediate", "-w", "stop"],
        );
    }

    /// What the server has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }

    /// Whether the server is running (`pg_ctl status`): false once stopped, or once it has shut itself down.
    pub fn is_running(&self) -> bool {
        self.command(&self.pg_ctl)
            .args(["-D", path(&self.data), "status"])
            .output()
            .expect("running pg_ctl")
            .status
            .success()
    }

    /// Starts the server (again) on its port with its data.
    pub fn start_again(&self) {
        let socket_dir = self.dir.path();
        let log = self.log_path();
        let options = format!(
            "-k {} -p {} -c listen_addresses=127.0.0.1 -c fsync=off {}",
            path(socket_dir),
            self.port,
            self.settings
        );
        let status = self
            .command(&self.pg_ctl)
            .args(["-D", path(&self.data), "-l", path(&log), "-o", &options])
            .args(["-w", "-t", "60", "start"])
            .status()
            .expect("running pg_ctl");
        assert!(
            status.success(),
            "pg_ctl start failed: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    fn command(&self, program: &Path) -> Command {
        if self.as_postgres_user {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        }
    }

    fn run(&self, program: &Path, args: &[&str]) {
        let output = self
            .command(program)
            .args(args)
            .output()
            .expect("running a PostgreSQL program");
        assert!(
            output.status.success(),
            "{} failed: {}{}",
            program.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
        let _ = self
            .command(&self.pg_ctl)
            .args(["-D", path(&self.data), "-m", "immediate", "-w", "stop"])
            .output();
    }
}

/// The newest `/usr/lib/postgresql/N/bin` (Debian), else the directory of `initdb` on `PATH`.
pub fn postgres_bin_dir() -> Option<PathBuf> {
    let has_both = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, bin)| has_both(bin))
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::split_paths(&std::env::var_os("PATH")?).find(|dir| has_both(dir))
}

fn running_as_root(dir: &Path) -> bool {
    let probe = dir.join("probe");
    std::fs::write(&probe, b"").expect("writing a probe file");
    let uid = std::fs::metadata(&probe)
        .expect("the probe's metadata")
        .uid();
    let _ = std::fs::remove_file(&probe);
    uid == 0
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}
