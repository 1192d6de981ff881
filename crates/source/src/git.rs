//! Git repositories through the git CLI: a ref resolves to a commit once (the pin), and checkouts are cached by
//! commit, shared by every app of the repository.
//!
//! Why the git CLI rather than gix: it is on every machine that runs CI or Kubernetes tooling, it speaks every
//! transport (file paths, `file://`, `https://`, `ssh://`) with the credential and proxy configuration platform
//! teams already have, and its behaviour is the reference users compare against. Weft drives it with no terminal
//! prompts and with credentials passed per command (an HTTP header or an SSH key), never in a URL or a log line.
//!
//! Layout of the cache directory:
//! - `repos/<url-digest>.git`: a bare mirror per repository, fetched when a ref is resolved;
//! - `checkouts/<url-digest>-<commit>`: the files of one commit, written to a temporary directory and renamed into
//!   place, so a failed checkout never leaves a half-written entry; the least recently used entries are evicted
//!   when the total passes the configured size.
//!
//! A repository is fetched once for many resolves: the refs a fetch found are kept with the time it began, a
//! resolve that accepts refs up to some age uses them, and resolves of one repository wait for each other's fetch
//! instead of running their own (10,000 apps of one repository cost one fetch per poll, not 10,000).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Instant, SystemTime};

use sha2::{Digest, Sha256};

use super::credentials::{CredentialError, CredentialSet, Credentials, Scheme, scheme_of};
use crate::outbound::{OutboundGuard, Refused};

/// A repository and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repository {
    /// A path, `file://`, `https://` or `ssh://` URL (or scp-like `git@host:path`).
    pub url: String,
    /// Credentials, when the remote needs them.
    pub credentials: Option<Credentials>,
}

impl Repository {
    /// A repository needing no credentials.
    pub fn new(url: impl Into<String>) -> Self {
        Repository {
            url: url.into(),
            credentials: None,
        }
    }

    fn digest(&self) -> String {
        hex::encode(&Sha256::digest(self.url.as_bytes())[..12])
    }
}

/// Why a git operation failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The ref names no branch, tag or commit of the repository.
    #[error("{url}: no branch, tag or commit named {reference:?}")]
    UnknownRef {
        /// The repository.
        url: String,
        /// The ref asked for.
        reference: String,
    },
    /// The repository could not be reached (no such path or host, connection refused, not a repository).
    #[error("{url}: cannot reach the repository: {message}")]
    Unreachable {
        /// The repository.
        url: String,
        /// git's explanation.
        message: String,
    },
    /// The remote refused the credentials (or needed some and got none).
    #[error("{url}: authentication failed: {message}")]
    Authentication {
        /// The repository.
        url: String,
        /// git's explanation.
        message: String,
    },
    /// git failed for another reason.
    #[error("git {command} failed: {message}")]
    Git {
        /// The subcommand.
        command: String,
        /// git's explanation.
        message: String,
    },
    /// The repository's credential cannot be used for it.
    #[error("{url}: {source}")]
    Credential {
        /// The repository.
        url: String,
        /// Why.
        source: CredentialError,
    },
    /// The outbound guard refused the repository's host (on the server's own network and not listed, plain HTTP
    /// to an unlisted host, a name that does not resolve); git was not run.
    #[error(transparent)]
    Refused(#[from] Refused),
    /// The URL is not one git may be run on (an unknown transport, or a host that reads as an option).
    #[error(
        "{url:?} is not a repository URL Weft accepts (https://, ssh://, git@host:path, file:// or a path)"
    )]
    Url {
        /// The URL.
        url: String,
    },
    /// The cache could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

impl GitError {
    /// The same error again, for each resolve that shares one failed fetch (an OS error keeps its kind and text).
    fn duplicate(&self) -> GitError {
        match self {
            GitError::UnknownRef { url, reference } => GitError::UnknownRef {
                url: url.clone(),
                reference: reference.clone(),
            },
            GitError::Unreachable { url, message } => GitError::Unreachable {
                url: url.clone(),
                message: message.clone(),
            },
            GitError::Authentication { url, message } => GitError::Authentication {
                url: url.clone(),
                message: message.clone(),
            },
            GitError::Git { command, message } => GitError::Git {
                command: command.clone(),
                message: message.clone(),
            },
            GitError::Credential { url, source } => GitError::Git {
                command: "fetch".into(),
                message: format!("{url}: {source}"),
            },
            GitError::Refused(refused) => GitError::Refused(refused.clone()),
            GitError::Url { url } => GitError::Url { url: url.clone() },
            GitError::Io { path, source } => GitError::Io {
                path: path.clone(),
                source: io::Error::new(source.kind(), source.to_string()),
            },
        }
    }
}

/// A repository's branches and tags by full ref name, each with the commit it names.
type Refs = Arc<std::collections::HashMap<String, String>>;

/// What one fetch of a repository found: its branches and tags by full ref name, each with the commit it names.
#[derive(Debug)]
struct Poll {
    /// When the fetch began: the refs are the remote's as of that moment or later.
    began: Instant,
    /// The refs, or why the fetch failed.
    refs: Result<Refs, GitError>,
}

/// The latest poll of each repository (by URL and credentials), and one fetch at a time per repository; one
/// checkout at a time per commit.
#[derive(Debug, Default)]
struct RepositoryPolls {
    slots: Mutex<std::collections::HashMap<String, Arc<Mutex<Option<Poll>>>>>,
    fetches: AtomicU64,
    /// Checkouts being written, by target: the apps of a repository syncing at once wait for one checkout of
    /// their commit instead of each writing its own (for a repository of 10,000 apps, 100,000 files each).
    checkouts: Mutex<std::collections::HashMap<PathBuf, Arc<Mutex<()>>>>,
    checkouts_written: AtomicU64,
    /// Commit times read so far, by commit id (a commit's time never changes).
    commit_times: Mutex<std::collections::HashMap<String, i64>>,
}

/// Git sources with a checkout cache.
#[derive(Debug, Clone)]
pub struct GitSources {
    cache: PathBuf,
    max_checkout_bytes: u64,
    credentials: CredentialSet,
    guard: OutboundGuard,
    polls: Arc<RepositoryPolls>,
}

impl GitSources {
    /// Sources cached under `cache`, keeping checkouts up to `max_checkout_bytes` in total.
    pub fn new(cache: impl Into<PathBuf>, max_checkout_bytes: u64) -> Self {
        GitSources {
            cache: cache.into(),
            max_checkout_bytes,
            credentials: CredentialSet::default(),
            guard: OutboundGuard::default(),
            polls: Arc::default(),
        }
    }

    /// These sources reaching remotes through `guard` (by default, a guard that lists no host): a remote's host is
    /// checked before git runs, and git connects only to the addresses checked.
    pub fn with_guard(mut self, guard: OutboundGuard) -> Self {
        self.guard = guard;
        self
    }

    /// Where git may connect for `repo`: nowhere for a path or `file://` (no network), else the addresses the guard
    /// checked for the remote's host.
    fn pin(&self, repo: &Repository) -> Result<Pin, GitError> {
        let scheme = match scheme_of(&repo.url) {
            Some(Scheme::Path | Scheme::File) => return Ok(Pin::Local),
            Some(Scheme::Https) => "https",
            Some(Scheme::Http) => "http",
            Some(Scheme::Ssh) => "ssh",
            None => {
                return Err(GitError::Url {
                    url: repo.url.clone(),
                });
            }
        };
        let refused = |refusal| {
            GitError::Refused(Refused {
                what: format!("repository {}", repo.url),
                refusal,
            })
        };
        let Some((host, port)) = remote_host(&repo.url) else {
            return Err(refused(crate::outbound::Refusal::new(
                crate::outbound::Reason::Unreadable,
                repo.url.clone(),
            )));
        };
        let addresses = self.guard.addresses(scheme, &host, port).map_err(refused)?;
        let port = port.unwrap_or(if scheme == "ssh" {
            22
        } else if scheme == "http" {
            80
        } else {
            443
        });
        let bare = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(&host)
            .to_ascii_lowercase();
        if crate::outbound::parse_literal(&bare).is_some() {
            // An address: git connects to it as written, and it is the one checked.
            return Ok(Pin::Address);
        }
        Ok(match scheme {
            "ssh" => Pin::Ssh {
                address: addresses[0].ip().to_string(),
                // The name ssh would look the host key up under, so known_hosts is read as before.
                alias: if port == 22 {
                    bare
                } else {
                    format!("[{bare}]:{port}")
                },
            },
            _ => Pin::Http {
                resolve: format!(
                    "{bare}:{port}:{}",
                    addresses
                        .iter()
                        .map(|a| match a.ip() {
                            std::net::IpAddr::V6(v6) => format!("[{v6}]"),
                            v4 => v4.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            },
        })
    }

    /// These sources with the operator's named credentials.
    pub fn with_credentials(mut self, credentials: CredentialSet) -> Self {
        self.credentials = credentials;
        self
    }

    /// The repository at `url` with the operator's credential whose prefix covers it most closely and that `org`'s
    /// apps may use (none when none covers it): how a repository an app's files name (a remote Kustomize base) is
    /// reached with the same credentials as the app's own sources.
    pub fn covered(&self, url: &str, org: Option<&str>) -> Result<Repository, GitError> {
        let credentials =
            self.credentials
                .for_url(url, org)
                .map_err(|source| GitError::Credential {
                    url: url.to_string(),
                    source,
                })?;
        Ok(Repository {
            url: url.to_string(),
            credentials,
        })
    }

    /// The repository as git is run on it: its URL checked, a named credential replaced by the secret it stands
    /// for, read now and only when the credential's prefix covers the URL.
    fn prepared(&self, repo: &Repository) -> Result<Repository, GitError> {
        if scheme_of(&repo.url).is_none() {
            return Err(GitError::Url {
                url: repo.url.clone(),
            });
        }
        let credentials = match &repo.credentials {
            Some(Credentials::Named(name)) => Some(
                self.credentials
                    .resolve(name, &repo.url)
                    .map_err(|source| GitError::Credential {
                        url: repo.url.clone(),
                        source,
                    })?,
            ),
            other => other.clone(),
        };
        Ok(Repository {
            url: repo.url.clone(),
            credentials,
        })
    }

    /// Resolves a branch, tag or commit to the full commit id it names now. From then on the commit is the
    /// revision: later renders use it even when the branch moves.
    pub fn resolve(&self, repo: &Repository, reference: &str) -> Result<String, GitError> {
        self.resolve_since(repo, reference, Instant::now())
    }

    /// Resolves a branch, tag or commit to the commit it names, from refs fetched at `since` or later: the
    /// repository's last poll if it began then, else a new fetch (which resolves of the same repository waiting
    /// meanwhile then share). A commit the poll does not know is fetched for before it is called unknown.
    pub fn resolve_since(
        &self,
        repo: &Repository,
        reference: &str,
        since: Instant,
    ) -> Result<String, GitError> {
        let called = Instant::now();
        let repo = &self.prepared(repo)?;
        let (refs, began) = self.polled(repo, since)?;
        for candidate in [
            format!("refs/heads/{reference}"),
            format!("refs/tags/{reference}"),
        ] {
            if let Some(commit) = refs.get(&candidate) {
                return Ok(commit.clone());
            }
        }
        // A commit id (or another revision expression): the mirror knows whether it names a commit.
        let mirror = self.mirror_path(repo);
        let out = git(
            repo,
            &mirror,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &format!("{reference}^{{commit}}"),
            ],
        )
        .map_err(|e| io_error(&mirror, e))?;
        if out.status.success() {
            return Ok(String::from_utf8_lossy(&out.stdout).trim().to_string());
        }
        if began < called {
            // Perhaps pushed since the last poll: fetch before calling it unknown.
            return self.resolve_since(repo, reference, Instant::now());
        }
        Err(GitError::UnknownRef {
            url: repo.url.clone(),
            reference: reference.to_string(),
        })
    }

    /// How many fetches these sources have made (each poll of a repository is one).
    pub fn fetches(&self) -> u64 {
        self.polls.fetches.load(Ordering::Relaxed)
    }

    /// The refs of `repo` from a fetch begun at `since` or later, and when that fetch began: the last poll's if
    /// it is that recent, else a new fetch's (made while other resolves of the repository wait for it).
    fn polled(&self, repo: &Repository, since: Instant) -> Result<(Refs, Instant), GitError> {
        let slot = {
            let mut slots = self
                .polls
                .slots
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            slots.entry(poll_key(repo)).or_default().clone()
        };
        let mut poll = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(last) = poll.as_ref()
            && last.began >= since
        {
            return last
                .refs
                .as_ref()
                .map(|refs| (Arc::clone(refs), last.began))
                .map_err(GitError::duplicate);
        }
        let began = Instant::now();
        self.polls.fetches.fetch_add(1, Ordering::Relaxed);
        let refs = self
            .fetch(repo)
            .and_then(|mirror| list_refs(repo, &mirror))
            .map(Arc::new);
        let answer = refs
            .as_ref()
            .map(|refs| (Arc::clone(refs), began))
            .map_err(GitError::duplicate);
        *poll = Some(Poll { began, refs });
        answer
    }

    /// The files of a commit, checked out once and shared; the returned directory must not be written to.
    pub fn checkout(&self, repo: &Repository, commit: &str) -> Result<PathBuf, GitError> {
        let repo = &self.prepared(repo)?;
        if !is_full_commit(commit) {
            return Err(GitError::UnknownRef {
                url: repo.url.clone(),
                reference: commit.to_string(),
            });
        }
        let checkouts = self.cache.join("checkouts");
        let target = checkouts.join(format!("{}-{commit}", repo.digest()));
        if target.is_dir() {
            touch(&target);
            return Ok(target);
        }
        let writing = self
            .polls
            .checkouts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(target.clone())
            .or_default()
            .clone();
        let written = {
            let _one_at_a_time = writing.lock().unwrap_or_else(PoisonError::into_inner);
            if target.is_dir() {
                // Written meanwhile by the checkout this one waited for.
                touch(&target);
                Ok(target.clone())
            } else {
                self.write_checkout(repo, commit, &checkouts, &target)
            }
        };
        self.polls
            .checkouts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&target);
        written
    }

    /// When `commit` was committed (its committer time), in seconds since the Unix epoch: what a render's clock
    /// reads, so that a revision renders the same bytes whenever it is rendered. The commit must have been checked
    /// out (or resolved) first.
    pub fn commit_time(&self, repo: &Repository, commit: &str) -> Result<i64, GitError> {
        if let Some(time) = self
            .polls
            .commit_times
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(commit)
        {
            return Ok(*time);
        }
        let repo = &self.prepared(repo)?;
        let mirror = self.mirror_path(repo);
        let unknown = || GitError::UnknownRef {
            url: repo.url.clone(),
            reference: commit.to_string(),
        };
        if !is_full_commit(commit) {
            return Err(unknown());
        }
        let out = git(
            repo,
            &mirror,
            &["show", "-s", "--format=%ct", "--end-of-options", commit],
        )
        .map_err(|e| io_error(&mirror, e))?;
        let time: i64 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .ok()
            .filter(|_| out.status.success())
            .ok_or_else(unknown)?;
        self.polls
            .commit_times
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(commit.to_string(), time);
        Ok(time)
    }

    /// How many checkouts these sources have written.
    pub fn checkouts_written(&self) -> u64 {
        self.polls.checkouts_written.load(Ordering::Relaxed)
    }

    /// Writes the checkout of `commit` to `target`, through a staging directory.
    fn write_checkout(
        &self,
        repo: &Repository,
        commit: &str,
        checkouts: &Path,
        target: &Path,
    ) -> Result<PathBuf, GitError> {
        self.polls.checkouts_written.fetch_add(1, Ordering::Relaxed);
        let mirror = self.mirror_path(repo);
        if !mirror.is_dir() || !has_commit(repo, &mirror, commit) {
            self.polled(repo, Instant::now())?;
        }
        if !has_commit(repo, &mirror, commit) {
            return Err(GitError::UnknownRef {
                url: repo.url.clone(),
                reference: commit.to_string(),
            });
        }
        fs::create_dir_all(checkouts).map_err(|e| io_error(checkouts, e))?;
        let staging = tempfile::Builder::new()
            .prefix(".staging-")
            .tempdir_in(checkouts)
            .map_err(|e| io_error(checkouts, e))?;
        let work = staging.path().join("tree");
        let work_str = work.to_string_lossy().into_owned();
        let mirror_str = mirror.to_string_lossy().into_owned();
        run(
            repo,
            checkouts,
            &[
                "clone",
                "--quiet",
                "--shared",
                "--no-checkout",
                &mirror_str,
                &work_str,
            ],
        )?;
        run(
            repo,
            &work,
            &[
                "-c",
                "advice.detachedHead=false",
                "checkout",
                "--quiet",
                "--detach",
                commit,
            ],
        )?;
        // Plugins never read .git, and a checkout is a snapshot: drop it (and its link to the mirror).
        fs::remove_dir_all(work.join(".git")).map_err(|e| io_error(&work, e))?;
        match fs::rename(&work, target) {
            Ok(()) => {}
            // Another process checked the same commit out meanwhile: use theirs.
            Err(_) if target.is_dir() => {}
            Err(e) => return Err(io_error(target, e)),
        }
        drop(staging);
        self.evict(target);
        Ok(target.to_path_buf())
    }

    fn mirror_path(&self, repo: &Repository) -> PathBuf {
        self.cache
            .join("repos")
            .join(format!("{}.git", repo.digest()))
    }

    /// Creates or updates the bare mirror of a repository.
    fn fetch(&self, repo: &Repository) -> Result<PathBuf, GitError> {
        let pin = self.pin(repo)?;
        let mirror = self.mirror_path(repo);
        if mirror.is_dir() {
            run_pinned(
                repo,
                &pin,
                &mirror,
                &[
                    "fetch",
                    "--quiet",
                    "--prune",
                    "--tags",
                    "origin",
                    "+refs/heads/*:refs/heads/*",
                ],
            )?;
            return Ok(mirror);
        }
        let repos = self.cache.join("repos");
        fs::create_dir_all(&repos).map_err(|e| io_error(&repos, e))?;
        let staging = tempfile::Builder::new()
            .prefix(".staging-")
            .tempdir_in(&repos)
            .map_err(|e| io_error(&repos, e))?;
        let work = staging.path().join("mirror.git");
        let url = local_url(&repo.url);
        run_pinned(
            repo,
            &pin,
            &repos,
            &[
                "clone",
                "--quiet",
                "--mirror",
                // Nothing after this is read as an option, whatever the URL says.
                "--",
                &url,
                &work.to_string_lossy(),
            ],
        )?;
        match fs::rename(&work, &mirror) {
            Ok(()) => Ok(mirror),
            Err(_) if mirror.is_dir() => Ok(mirror),
            Err(e) => Err(io_error(&mirror, e)),
        }
    }

    /// Removes the least recently used checkouts until the total fits, never `keep`.
    fn evict(&self, keep: &Path) {
        let Ok(entries) = fs::read_dir(self.cache.join("checkouts")) else {
            return;
        };
        let mut checkouts: Vec<(SystemTime, u64, PathBuf)> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.is_dir()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .map(|p| {
                let used = fs::metadata(&p)
                    .and_then(|m| m.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                (used, dir_size(&p), p)
            })
            .collect();
        let mut total: u64 = checkouts.iter().map(|(_, size, _)| size).sum();
        checkouts.sort();
        for (_, size, path) in checkouts {
            if total <= self.max_checkout_bytes {
                break;
            }
            if path != keep && fs::remove_dir_all(&path).is_ok() {
                total -= size;
            }
        }
    }
}

/// The key of a repository's polls: its URL and the credentials it is fetched with (refs fetched with one
/// tenant's credentials are never handed to a resolve made with other credentials, or none).
fn poll_key(repo: &Repository) -> String {
    let credentials = match &repo.credentials {
        None => "none".to_string(),
        Some(Credentials::Basic { username, password }) => format!("basic\0{username}\0{password}"),
        Some(Credentials::SshKey { path }) => format!("ssh\0{}", path.display()),
        Some(Credentials::Named(name)) => format!("named\0{name}"),
    };
    hex::encode(Sha256::digest(
        format!("{}\0{credentials}", repo.url).as_bytes(),
    ))
}

/// The branches and tags of a mirror, each with the commit it names (an annotated tag peeled to its commit; a
/// tag of something other than a commit is left out).
fn list_refs(
    repo: &Repository,
    mirror: &Path,
) -> Result<std::collections::HashMap<String, String>, GitError> {
    let out = git(
        repo,
        mirror,
        &[
            "for-each-ref",
            "--format=%(refname) %(objecttype) %(objectname) %(*objecttype) %(*objectname)",
            "refs/heads",
            "refs/tags",
        ],
    )
    .map_err(|e| io_error(mirror, e))?;
    if !out.status.success() {
        return Err(GitError::Git {
            command: "for-each-ref".into(),
            message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            match fields.as_slice() {
                [name, "commit", commit, "", ""] => Some((name.to_string(), commit.to_string())),
                [name, "tag", _, "commit", commit] => Some((name.to_string(), commit.to_string())),
                _ => None,
            }
        })
        .collect())
}

/// A plain path is used as a local repository.
fn local_url(url: &str) -> String {
    url.to_string()
}

fn has_commit(repo: &Repository, mirror: &Path, commit: &str) -> bool {
    git(
        repo,
        mirror,
        &["cat-file", "-e", &format!("{commit}^{{commit}}")],
    )
    .is_ok_and(|o| o.status.success())
}

/// The transports git may use: no `ext::` (it runs commands), no `fd::`, no unauthenticated `git://`. Which of
/// these an app may name is decided before git runs (API apps: https and ssh, file:// when the operator allows).
const ALLOWED_PROTOCOLS: &str = "file:https:http:ssh";

/// The ssh command git runs for a key: a constant string, the key's path given through the environment (quoted
/// by the shell git runs it with), never written into a command line.
const SSH_WITH_KEY: &str = "ssh -i \"$WEFT_GIT_SSH_KEY\" -o IdentitiesOnly=yes -o BatchMode=yes \
                            -o StrictHostKeyChecking=accept-new";

/// The options that pin ssh to the address the guard checked, the host key still looked up under the host's name:
/// constants, the values given through the environment.
const SSH_PINNED: &str =
    "-o \"HostName=$WEFT_GIT_SSH_ADDRESS\" -o \"HostKeyAlias=$WEFT_GIT_SSH_HOST\"";

/// Proxies the environment may name: a proxy resolves names itself, past the guard's check, so git uses none.
const PROXY_VARIABLES: [&str; 8] = [
    "http_proxy",
    "HTTP_PROXY",
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
    "no_proxy",
    "NO_PROXY",
];

/// Where git may connect for a command, as the guard checked it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pin {
    /// Nowhere: a local repository, or a command that only reads the mirror.
    Local,
    /// The address the URL spells (checked as such).
    Address,
    /// curl's `host:port:address[,address]`: the addresses a remote's name resolved to when checked.
    Http {
        /// The `http.curloptResolve` entry.
        resolve: String,
    },
    /// ssh to the address checked, the host key looked up under `alias`.
    Ssh {
        /// The address.
        address: String,
        /// `host`, or `[host]:port` off port 22.
        alias: String,
    },
}

/// The host (as written, brackets kept) and port of a remote URL: `https://`, `http://`, `ssh://` or scp-like
/// `user@host:path`; `None` when there is none to read.
fn remote_host(url: &str) -> Option<(String, Option<u16>)> {
    if url.contains("://") {
        return crate::outbound::url_parts(url).map(|(_, host, port)| {
            let host = if host.contains(':') {
                format!("[{host}]")
            } else {
                host
            };
            (host, port)
        });
    }
    // scp-like: `user@host:path`, or `user@[address]:path` (what `scheme_of` reads as ssh always has the user).
    let after_user = url.split_once('@').map_or(url, |(_, rest)| rest);
    if let Some(bracketed) = after_user.strip_prefix('[') {
        let (host, after) = bracketed.split_once(']')?;
        return after.starts_with(':').then(|| (format!("[{host}]"), None));
    }
    let (host, _) = after_user.split_once(':')?;
    Some((host.to_string(), None))
}

fn git(repo: &Repository, dir: &Path, args: &[&str]) -> io::Result<Output> {
    git_command(repo, dir, args).output()
}

/// The git command for `args` in `dir`, with the repository's credentials in its environment, for a command that
/// reaches no remote (or a local one).
fn git_command(repo: &Repository, dir: &Path, args: &[&str]) -> Command {
    git_command_pinned(repo, &Pin::Local, dir, args)
}

/// The git command for `args` in `dir`, with the repository's credentials in its environment and connecting only
/// where `pin` says.
fn git_command_pinned(repo: &Repository, pin: &Pin, dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ASKPASS", "true")
        .env("SSH_ASKPASS", "true")
        .env("GIT_ALLOW_PROTOCOL", ALLOWED_PROTOCOLS)
        .env("GIT_PROTOCOL_FROM_USER", "0")
        .env("LC_ALL", "C")
        // Whatever the machine's or the user's git configuration says, nothing of it runs here.
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    for variable in PROXY_VARIABLES {
        command.env_remove(variable);
    }
    // Configuration through the environment, so none of it shows in a process list or a URL. No redirect is
    // followed: it could lead to a host the guard did not check (and take a credential along).
    let mut config = vec![("http.followRedirects", "false".to_string())];
    match &repo.credentials {
        Some(Credentials::Basic { username, password }) => {
            let token = STANDARD.encode(format!("{username}:{password}").as_bytes());
            config.push(("http.extraHeader", format!("Authorization: Basic {token}")));
        }
        Some(Credentials::SshKey { path }) => {
            command.env("WEFT_GIT_SSH_KEY", path);
        }
        // Resolved by `GitSources::prepared` before git runs; unresolved, nothing is sent.
        Some(Credentials::Named(_)) | None => {}
    }
    let with_key = matches!(&repo.credentials, Some(Credentials::SshKey { .. }));
    match pin {
        Pin::Http { resolve } => config.push(("http.curloptResolve", resolve.clone())),
        Pin::Ssh { address, alias } => {
            let ssh = if with_key {
                format!("{SSH_WITH_KEY} {SSH_PINNED}")
            } else {
                format!("ssh {SSH_PINNED}")
            };
            command
                .env("GIT_SSH_COMMAND", ssh)
                .env("WEFT_GIT_SSH_ADDRESS", address)
                .env("WEFT_GIT_SSH_HOST", alias);
        }
        Pin::Local | Pin::Address if with_key => {
            command.env("GIT_SSH_COMMAND", SSH_WITH_KEY);
        }
        Pin::Local | Pin::Address => {}
    }
    command.env("GIT_CONFIG_COUNT", config.len().to_string());
    for (index, (key, value)) in config.into_iter().enumerate() {
        command
            .env(format!("GIT_CONFIG_KEY_{index}"), key)
            .env(format!("GIT_CONFIG_VALUE_{index}"), value);
    }
    command.args(args);
    command
}

/// Runs git and classifies a failure from what it printed.
fn run(repo: &Repository, dir: &Path, args: &[&str]) -> Result<(), GitError> {
    run_pinned(repo, &Pin::Local, dir, args)
}

/// Runs git connecting only where `pin` says, and classifies a failure from what it printed.
fn run_pinned(repo: &Repository, pin: &Pin, dir: &Path, args: &[&str]) -> Result<(), GitError> {
    let out = git_command_pinned(repo, pin, dir, args)
        .output()
        .map_err(|e| GitError::Git {
            command: args.first().copied().unwrap_or("").to_string(),
            message: format!("cannot run git: {e}"),
        })?;
    if out.status.success() {
        return Ok(());
    }
    let message = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let lower = message.to_lowercase();
    let auth = [
        "authentication failed",
        "could not read username",
        "permission denied (publickey",
        "403",
    ];
    let unreachable = [
        "does not appear to be a git repository",
        "does not exist",
        "could not resolve host",
        "connection refused",
        "unable to access",
        "not found",
        "no such file or directory",
        "could not read from remote repository",
    ];
    Err(if auth.iter().any(|p| lower.contains(p)) {
        GitError::Authentication {
            url: repo.url.clone(),
            message,
        }
    } else if unreachable.iter().any(|p| lower.contains(p)) {
        GitError::Unreachable {
            url: repo.url.clone(),
            message,
        }
    } else {
        GitError::Git {
            command: args.first().copied().unwrap_or("").to_string(),
            message,
        }
    })
}

fn io_error(path: &Path, source: io::Error) -> GitError {
    GitError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn touch(path: &Path) {
    let _ = fs::File::open(path).and_then(|f| f.set_modified(SystemTime::now()));
}

fn dir_size(path: &Path) -> u64 {
    fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => dir_size(&e.path()),
                    Ok(_) => e.metadata().map_or(0, |m| m.len()),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

/// Whether `text` is a full commit id (40 hex digits), not a ref or an abbreviation to resolve.
pub fn is_full_commit(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
}
#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Runs git in `dir` with a test identity and `main` as the default branch; its trimmed stdout.
    pub(crate) fn sh(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .current_dir(dir)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.com",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn repo_with_two_commits() -> (tempfile::TempDir, String, String) {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("origin");
        fs::create_dir_all(repo.join("app")).unwrap();
        sh(&repo, &["init", "--quiet"]);
        fs::write(repo.join("app/cm.yaml"), "v: 1\n").unwrap();
        sh(&repo, &["add", "."]);
        sh(&repo, &["commit", "--quiet", "-m", "one"]);
        let first = sh(&repo, &["rev-parse", "HEAD"]);
        sh(&repo, &["tag", "v1"]);
        fs::write(repo.join("app/cm.yaml"), "v: 2\n").unwrap();
        sh(&repo, &["commit", "--quiet", "-am", "two"]);
        let second = sh(&repo, &["rev-parse", "HEAD"]);
        (dir, first, second)
    }

    #[test]
    fn a_commits_time_is_its_committer_time_and_an_unknown_commit_has_none() {
        let (dir, first, _) = repo_with_two_commits();
        let origin = dir.path().join("origin");
        let sources = GitSources::new(dir.path().join("cache"), u64::MAX);
        let repo = Repository::new(origin.display().to_string());
        sources.checkout(&repo, &first).unwrap();
        let expected: i64 = sh(&origin, &["show", "-s", "--format=%ct", &first])
            .parse()
            .unwrap();
        assert_eq!(sources.commit_time(&repo, &first).unwrap(), expected);
        assert_eq!(sources.commit_time(&repo, &first).unwrap(), expected);
        assert!(sources.commit_time(&repo, &"0".repeat(40)).is_err());
        assert!(sources.commit_time(&repo, "--help").is_err());
    }

    #[test]
    fn a_resolved_commit_stays_pinned_after_the_branch_moves() {
        for file_url in [false, true] {
            let (dir, first, second) = repo_with_two_commits();
            let origin = dir.path().join("origin");
            let sources = GitSources::new(dir.path().join("cache"), u64::MAX);
            let url = if file_url {
                format!("file://{}", origin.display())
            } else {
                origin.display().to_string()
            };
            let repo = Repository::new(&url);
            assert_eq!(sources.resolve(&repo, "main").unwrap(), second);
            assert_eq!(sources.resolve(&repo, "v1").unwrap(), first);
            assert_eq!(sources.resolve(&repo, &first).unwrap(), first);
            let pinned = sources.resolve(&repo, "main").unwrap();
            // The branch moves on.
            fs::write(origin.join("app/cm.yaml"), format!("v: {url}\n")).unwrap();
            sh(&origin, &["commit", "--quiet", "-am", "three"]);
            let tree = sources.checkout(&repo, &pinned).unwrap();
            assert_eq!(
                fs::read_to_string(tree.join("app/cm.yaml")).unwrap(),
                "v: 2\n"
            );
            assert!(!tree.join(".git").exists());
            assert_ne!(sources.resolve(&repo, "main").unwrap(), pinned);
            let old = sources.checkout(&repo, &first).unwrap();
            assert_eq!(
                fs::read_to_string(old.join("app/cm.yaml")).unwrap(),
                "v: 1\n"
            );
        }
    }

    #[test]
    fn resolves_of_one_repository_share_a_fetch_within_the_age_they_accept() {
        let (dir, first, second) = repo_with_two_commits();
        let origin = dir.path().join("origin");
        sh(&origin, &["tag", "-a", "v2", "-m", "annotated"]);
        let sources = GitSources::new(dir.path().join("cache"), u64::MAX);
        let repo = Repository::new(origin.display().to_string());
        let minute_ago = || {
            let now = Instant::now();
            now.checked_sub(std::time::Duration::from_secs(60))
                .unwrap_or(now)
        };
        assert_eq!(
            sources.resolve_since(&repo, "main", minute_ago()).unwrap(),
            second
        );
        assert_eq!(
            sources.resolve_since(&repo, "v1", minute_ago()).unwrap(),
            first
        );
        // An annotated tag names the commit it points to, not the tag object.
        assert_eq!(
            sources.resolve_since(&repo, "v2", minute_ago()).unwrap(),
            second
        );
        assert_eq!(
            sources.resolve_since(&repo, &first, minute_ago()).unwrap(),
            first
        );
        assert_eq!(sources.fetches(), 1, "one fetch for four resolves");

        // The branch moves: a resolve that accepts a minute-old poll still sees the old commit, a fresh one the new.
        fs::write(origin.join("app/cm.yaml"), "v: 3\n").unwrap();
        sh(&origin, &["commit", "--quiet", "-am", "three"]);
        let third = sh(&origin, &["rev-parse", "HEAD"]);
        assert_eq!(
            sources.resolve_since(&repo, "main", minute_ago()).unwrap(),
            second
        );
        assert_eq!(sources.fetches(), 1);
        assert_eq!(sources.resolve(&repo, "main").unwrap(), third);
        assert_eq!(sources.fetches(), 2);

        // A commit pushed after the last poll is fetched rather than called unknown.
        fs::write(origin.join("app/cm.yaml"), "v: 4\n").unwrap();
        sh(&origin, &["commit", "--quiet", "-am", "four"]);
        let fourth = sh(&origin, &["rev-parse", "HEAD"]);
        assert_eq!(
            sources.resolve_since(&repo, &fourth, minute_ago()).unwrap(),
            fourth
        );
        assert_eq!(sources.fetches(), 3);

        // Other credentials never share a poll: the same URL with a token is fetched on its own.
        let with_token = Repository {
            url: repo.url.clone(),
            credentials: Some(Credentials::Basic {
                username: "git".into(),
                password: "token".into(),
            }),
        };
        sources
            .resolve_since(&with_token, "main", minute_ago())
            .unwrap();
        assert_eq!(sources.fetches(), 4);

        // A failed fetch is shared within the age too, and a fresh resolve tries again.
        let missing = Repository::new(dir.path().join("nowhere").display().to_string());
        for _ in 0..3 {
            let err = sources
                .resolve_since(&missing, "main", minute_ago())
                .unwrap_err();
            assert!(matches!(err, GitError::Unreachable { .. }), "{err}");
        }
        assert_eq!(sources.fetches(), 5);
        assert!(sources.resolve(&missing, "main").is_err());
        assert_eq!(sources.fetches(), 6);
    }

    #[test]
    fn errors_are_clear_and_leave_no_half_written_entry() {
        let (dir, _, _) = repo_with_two_commits();
        let origin = dir.path().join("origin");
        let cache = dir.path().join("cache");
        let sources = GitSources::new(&cache, u64::MAX);
        let repo = Repository::new(origin.display().to_string());
        let err = sources.resolve(&repo, "no-such-branch").unwrap_err();
        assert!(matches!(err, GitError::UnknownRef { .. }), "{err}");
        let err = sources.checkout(&repo, &"0".repeat(40)).unwrap_err();
        assert!(matches!(err, GitError::UnknownRef { .. }), "{err}");
        let missing = Repository::new(dir.path().join("nowhere").display().to_string());
        let err = sources.resolve(&missing, "main").unwrap_err();
        assert!(matches!(err, GitError::Unreachable { .. }), "{err}");
        // Nothing but finished entries in the cache.
        for sub in ["repos", "checkouts"] {
            for entry in fs::read_dir(cache.join(sub))
                .into_iter()
                .flatten()
                .flatten()
            {
                let name = entry.file_name().to_string_lossy().into_owned();
                assert!(!name.starts_with(".staging-"), "left behind {name}");
            }
        }
        assert_eq!(
            fs::read_dir(cache.join("checkouts"))
                .map(|d| d.count())
                .unwrap_or(0),
            0
        );
    }

    #[test]
    fn apps_checking_out_one_commit_at_once_share_one_checkout() {
        let (dir, _, second) = repo_with_two_commits();
        let sources = GitSources::new(dir.path().join("cache"), u64::MAX);
        let repo = Repository::new(dir.path().join("origin").display().to_string());
        let trees: Vec<PathBuf> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..6)
                .map(|_| scope.spawn(|| sources.checkout(&repo, &second).unwrap()))
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        assert!(trees.iter().all(|tree| tree == &trees[0]));
        assert_eq!(
            fs::read_to_string(trees[0].join("app/cm.yaml")).unwrap(),
            "v: 2\n"
        );
        assert_eq!(
            sources.checkouts_written(),
            1,
            "one checkout written for six"
        );
    }

    #[test]
    fn the_checkout_cache_is_bounded() {
        let (dir, first, second) = repo_with_two_commits();
        let sources = GitSources::new(dir.path().join("cache"), 1);
        let repo = Repository::new(dir.path().join("origin").display().to_string());
        sources.checkout(&repo, &first).unwrap();
        let kept = sources.checkout(&repo, &second).unwrap();
        let left: Vec<_> = fs::read_dir(dir.path().join("cache/checkouts"))
            .unwrap()
            .flatten()
            .collect();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].path(), kept);
    }

    #[test]
    fn credentials_reach_git_as_configuration_not_arguments() {
        let (dir, _, _) = repo_with_two_commits();
        let origin = dir.path().join("origin");
        let repo = Repository {
            url: origin.display().to_string(),
            credentials: Some(Credentials::Basic {
                username: "git".into(),
                password: "pw".into(),
            }),
        };
        let out = git(&repo, &origin, &["config", "--get", "http.extraHeader"]).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "Authorization: Basic Z2l0OnB3"
        );
        let ssh = Repository {
            url: origin.display().to_string(),
            credentials: Some(Credentials::SshKey {
                path: PathBuf::from("/keys/deploy"),
            }),
        };
        // A shell alias prints the environment git runs with: the command is the constant, the key travels apart.
        let out = git(
            &ssh,
            &origin,
            &[
                "-c",
                "alias.ssh-command=!printenv GIT_SSH_COMMAND WEFT_GIT_SSH_KEY",
                "ssh-command",
            ],
        )
        .unwrap();
        let printed = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            printed.lines().collect::<Vec<_>>(),
            [SSH_WITH_KEY, "/keys/deploy"]
        );
    }

    #[test]
    fn a_hostile_key_path_reaches_ssh_as_one_argument_and_runs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("pwned");
        // The input: a quote ends the old single-quoted string and starts a command.
        let hostile = format!("/keys/x' ; touch {} ; echo '", marker.display());
        // A stand-in `ssh` records the arguments it gets, one per line, and fails like an unreachable host.
        let bin = dir.path().join("bin");
        fs::create_dir_all(&bin).unwrap();
        let args_file = dir.path().join("ssh-args");
        let ssh = bin.join("ssh");
        fs::write(
            &ssh,
            format!(
                "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '{}'; done\nexit 255\n",
                args_file.display()
            ),
        )
        .unwrap();
        {
            use std::os::unix::fs::PermissionsExt as _;
            fs::set_permissions(&ssh, fs::Permissions::from_mode(0o755)).unwrap();
        }
        let repo = Repository {
            url: "ssh://git@git.example/acme/shop.git".into(),
            credentials: Some(Credentials::SshKey {
                path: PathBuf::from(&hostile),
            }),
        };
        let mut command = git_command(&repo, dir.path(), &["ls-remote", "--", &repo.url]);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![bin.clone()];
        paths.extend(std::env::split_paths(&path));
        command.env("PATH", std::env::join_paths(paths).unwrap());
        let out = command.output().unwrap();
        assert!(!out.status.success());
        assert!(!marker.exists(), "the key path ran a command");
        let args = fs::read_to_string(&args_file).expect("git ran the stand-in ssh");
        assert!(
            args.lines().any(|a| a == hostile),
            "the key path is one argument: {args}"
        );
    }

    #[test]
    fn only_accepted_urls_reach_git_and_a_named_credential_only_its_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let sources = GitSources::new(dir.path().join("cache"), 1 << 20).with_credentials(
            CredentialSet::new(vec![super::super::CredentialSpec {
                name: "acme".into(),
                url: "https://git.example/acme/".into(),
                username: Some("ci".into()),
                password_env: Some("PATH".into()),
                password_file: None,
                ssh_key: None,
                orgs: vec![],
            }]),
        );
        for url in ["ext::sh -c touch% /tmp/x", "--upload-pack=touch /tmp/x"] {
            assert!(matches!(
                sources.resolve(&Repository::new(url), "main"),
                Err(GitError::Url { .. })
            ));
        }
        // A credential named for a URL outside its prefix is never read, let alone sent.
        let elsewhere = Repository {
            url: "http://127.0.0.1:9/steal.git".into(),
            credentials: Some(Credentials::Named("acme".into())),
        };
        assert!(matches!(
            sources.resolve(&elsewhere, "main"),
            Err(GitError::Credential {
                source: CredentialError::NotCovered { .. },
                ..
            })
        ));
        assert!(!dir.path().join("cache").join("repos").exists());
    }

    /// A loopback listener counting the connections it accepts (each closed at once).
    fn counting_listener() -> (std::net::SocketAddr, Arc<AtomicU64>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicU64::new(0));
        let count = accepted.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stream.is_ok() {
                    count.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
        (address, accepted)
    }

    #[test]
    fn a_remote_on_the_servers_own_network_is_refused_before_git_runs() {
        let dir = tempfile::tempdir().unwrap();
        let sources = GitSources::new(dir.path().join("cache"), 1 << 20);
        let (address, accepted) = counting_listener();
        let port = address.port();
        for url in [
            format!("https://127.0.0.1:{port}/shop.git"),
            format!("http://127.0.0.1:{port}/shop.git"),
            format!("https://2130706433:{port}/shop.git"),
            format!("https://[::1]:{port}/shop.git"),
            format!("https://localhost:{port}/shop.git"),
            format!("ssh://git@127.0.0.1:{port}/shop.git"),
            format!("ssh://git@[::ffff:127.0.0.1]:{port}/shop.git"),
            "git@localhost:shop.git".to_string(),
            "git@127.0.0.1:shop.git".to_string(),
            "git@169.254.169.254:shop.git".to_string(),
        ] {
            let error = sources
                .resolve(&Repository::new(url.clone()), "main")
                .expect_err(&url);
            assert!(
                matches!(&error, GitError::Refused(r) if r.what == format!("repository {url}")),
                "{url}: {error}"
            );
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 0);
        assert!(!dir.path().join("cache").join("repos").exists());
    }

    #[test]
    fn git_connects_only_to_the_address_the_guard_checked() {
        let dir = tempfile::tempdir().unwrap();
        let (address, accepted) = counting_listener();
        let port = address.port();
        // `pinned.invalid` resolves nowhere but in the guard's table: git reaches the listener only through the pin.
        let guard = OutboundGuard::new(&crate::outbound::OutboundRules {
            allowed_hosts: vec![format!("pinned.invalid:{port}")],
            plain_http_hosts: vec![format!("plain.invalid:{port}")],
        })
        .with_names(vec![
            ("pinned.invalid".into(), vec![address.ip()]),
            ("plain.invalid".into(), vec![address.ip()]),
        ]);
        let sources = GitSources::new(dir.path().join("cache"), 1 << 20).with_guard(guard);
        for url in [
            format!("https://pinned.invalid:{port}/shop.git"),
            format!("http://plain.invalid:{port}/shop.git"),
        ] {
            let before = accepted.load(Ordering::SeqCst);
            let error = sources
                .resolve(&Repository::new(url.clone()), "main")
                .expect_err("the listener speaks no git");
            assert!(!matches!(error, GitError::Refused(_)), "{url}: {error}");
            assert!(
                accepted.load(Ordering::SeqCst) > before,
                "{url}: git connected to the checked address"
            );
        }
        // Plain HTTP to a host listed only as allowed is still refused.
        let error = sources
            .resolve(
                &Repository::new(format!("http://pinned.invalid:{port}/shop.git")),
                "main",
            )
            .expect_err("refused");
        assert!(matches!(error, GitError::Refused(_)), "{error}");

        // ssh is pointed at the checked address, the host key looked up under the name.
        let repo = Repository::new(format!("ssh://git@pinned.invalid:{port}/shop.git"));
        let pin = sources.pin(&repo).unwrap();
        assert_eq!(
            pin,
            Pin::Ssh {
                address: "127.0.0.1".into(),
                alias: format!("[pinned.invalid]:{port}"),
            }
        );
        let bin = dir.path().join("bin");
        fs::create_dir_all(&bin).unwrap();
        let args_file = dir.path().join("ssh-args");
        let ssh = bin.join("ssh");
        fs::write(
            &ssh,
            format!(
                "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '{}'; done\nexit 255\n",
                args_file.display()
            ),
        )
        .unwrap();
        {
            use std::os::unix::fs::PermissionsExt as _;
            fs::set_permissions(&ssh, fs::Permissions::from_mode(0o755)).unwrap();
        }
        let mut command =
            git_command_pinned(&repo, &pin, dir.path(), &["ls-remote", "--", &repo.url]);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![bin.clone()];
        paths.extend(std::env::split_paths(&path));
        command.env("PATH", std::env::join_paths(paths).unwrap());
        assert!(!command.output().unwrap().status.success());
        let args = fs::read_to_string(&args_file).expect("git ran the stand-in ssh");
        let args: Vec<&str> = args.lines().collect();
        assert!(args.contains(&"HostName=127.0.0.1"), "{args:?}");
        assert!(
            args.contains(&format!("HostKeyAlias=[pinned.invalid]:{port}").as_str()),
            "{args:?}"
        );
    }

    #[test]
    fn remote_hosts_are_read_as_git_reads_them() {
        for (url, host, port) in [
            ("https://git.example/a.git", "git.example", None),
            (
                "https://user@git.example:8443/a.git",
                "git.example",
                Some(8443),
            ),
            ("ssh://git@[::1]:2222/a.git", "[::1]", Some(2222)),
            ("git@github.com:shop/web.git", "github.com", None),
            ("git@[fd00::1]:shop/web.git", "[fd00::1]", None),
        ] {
            assert_eq!(remote_host(url), Some((host.to_string(), port)), "{url}");
        }
        assert_eq!(remote_host("https://a@b@c/x"), None);
    }

    #[test]
    fn credentials_never_print() {
        let creds = Credentials::Basic {
            username: "git".into(),
            password: "hunter2".into(),
        };
        assert!(!format!("{creds:?}").contains("hunter2"));
    }
}
