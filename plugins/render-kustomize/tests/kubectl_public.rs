//! Parity with `kubectl kustomize` on public kustomizations: every kustomization (not component) of every source in
//! `tests/render/kustomize/public/` (the repositories' own directories, vendored as they are) is built natively,
//! with the source's directory as the app's root, and by kubectl, and the outputs are compared object by object,
//! in order, as parsed values. Each kustomization is `identical`, `both-refuse` (kubectl refuses it too: the source
//! is incomplete there), `network` (it reads a remote base, URL or chart repository: not comparable on a machine
//! without network, and neither side is run), `different`, `refused` (our error where kubectl builds) or
//! `accepted` (we build what kubectl refuses). The counts and the identical rate are printed; a kustomization that
//! is `different`, `refused` or `accepted` must be written in `public/deviations.yaml`, and a written one that now
//! builds as kubectl does must be struck off. `WEFT_WRITE_DEVIATIONS=1` rewrites that file from the run, keeping
//! each `cause`.
//!
//! Remote git bases at a pinned ref that `import.py` vendored (`public/remote/<host>/<org>/<repo>@<ref>/`) are
//! built on both sides without a network: kubectl clones them, with its git, from a throwaway local repository per
//! vendored repository (each ref a tag) that an isolated git configuration's `url.<local>.insteadOf` puts in the
//! remote's place; natively, the vendored files are laid over the app's directory at
//! `weft_sdk::remote::repository_dir(entry)`, as the host lays a fetched repository. A kustomization naming a
//! remote that is not vendored stays `network`.
//!
//! A kustomization whose own `helmCharts` name charts in the repository is built by kubectl as `kustomize build
//! --enable-helm` builds it, without a `helm` binary: Helm's own library renders the charts first
//! (`support::kubectl_kustomize_inflated`, as `helm_parity` does). Without Python's `helm_python` those checks are
//! reported ignored (failed under CI).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

// The parity harnesses' shared module; this one uses part of it.
#[allow(dead_code)]
mod support;

use support::{
    difference, kubectl_kustomize_inflated, kubectl_kustomize_with, kustomization_file,
    native_with, overlays,
};
use weft_sdk::Value;
use weft_sdk::source::MemorySource;
use weft_test_reference::deviations::{self, Observed};
use weft_test_reference::{Arguments, Reference, Trial};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render/kustomize/public")
}

fn deviations_file() -> PathBuf {
    corpus_dir().join("deviations.yaml")
}

/// The comment at the top of `deviations.yaml`.
const DEVIATIONS_HEADER: &str = "\
# Written deviations of the public Kustomize corpus: each kustomization that does not build as `kubectl
# kustomize` builds it, with what was observed (the first differing object and path, or the error).
# kubectl_public fails when one not listed here differs, or when one listed here now builds as kubectl does.
# Regenerate with WEFT_WRITE_DEVIATIONS=1 cargo test -p render-kustomize --test kubectl_public (each `cause`
# is kept).
";

/// One kustomization of the corpus: its source's directory (the app's root) and its path inside it.
#[derive(Debug, Clone)]
struct Kustomization {
    source: PathBuf,
    overlay: String,
    /// `<source>/<overlay>`.
    name: String,
}

/// Where `import.py` vendors remote bases (not a source: its kustomizations are reached only as remote bases).
const REMOTE_DIR: &str = "remote";

/// A remote repository vendored at a ref: `public/remote/<host>/<org>/<repo>@<ref>/`.
#[derive(Debug, Clone)]
struct Vendored {
    /// `https://<host>/<org>/<repo>`, as `weft_sdk::remote::parse` names it.
    repository: String,
    reference: String,
    dir: PathBuf,
}

/// Every vendored remote repository, in path order.
fn vendored() -> Vec<Vendored> {
    let children = |dir: &Path| -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        found
    };
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut found = Vec::new();
    for host in children(&corpus_dir().join(REMOTE_DIR)) {
        for org in children(&host) {
            for repo in children(&org) {
                if let Some((name_only, reference)) = name(&repo).split_once('@') {
                    found.push(Vendored {
                        repository: format!("https://{}/{}/{name_only}", name(&host), name(&org)),
                        reference: reference.to_string(),
                        dir: repo.clone(),
                    });
                }
            }
        }
    }
    found
}

/// Every file under `dir` (paths relative to it, `/`-separated), in path order.
fn files_under(dir: &Path, prefix: &str, found: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if path.is_dir() {
            files_under(&path, &relative, found);
        } else if path.is_file() {
            found.push((relative, path));
        }
    }
}

/// The vendored repository a remote entry names, if it is vendored at the entry's ref.
fn vendored_for<'v>(vendored: &'v [Vendored], entry: &str) -> Option<&'v Vendored> {
    let base = weft_sdk::remote::parse(entry).ok()?;
    let repository = base.repository.trim_end_matches(".git");
    vendored
        .iter()
        .find(|v| v.repository == repository && v.reference == base.reference)
}

/// The vendored repository of each of `entries` laid where the host lays a fetched one
/// (`weft_sdk::remote::repository_dir(entry)`, relative to the app's directory), or `None` when one is not
/// vendored.
fn remote_overlay(vendored: &[Vendored], entries: &[String]) -> Option<MemorySource> {
    let mut extra = MemorySource::new();
    for entry in entries {
        let repository = vendored_for(vendored, entry)?;
        let mut files = Vec::new();
        files_under(&repository.dir, "", &mut files);
        let dir = weft_sdk::remote::repository_dir(entry);
        for (relative, path) in files {
            extra.insert(&format!("{dir}/{relative}"), std::fs::read(&path).ok()?);
        }
    }
    Some(extra)
}

/// The vendored repositories served to kubectl's git: a throwaway bare repository per vendored repository, with a
/// commit of the vendored files tagged with each ref, and an isolated git configuration (no system or user
/// configuration) whose `insteadOf` puts each in its remote's place. Removed when dropped.
struct RemoteGit {
    dir: PathBuf,
    config: PathBuf,
    home: PathBuf,
}

impl RemoteGit {
    fn new(vendored: &[Vendored]) -> Result<RemoteGit, String> {
        let dir =
            std::env::temp_dir().join(format!("weft-kustomize-remote-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let home = dir.join("home");
        std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
        let git = |args: &[&OsStr], env: &[(&str, &OsStr)]| -> Result<String, String> {
            let output = Command::new("git")
                .args(args)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("HOME", &home)
                .envs(env.iter().copied())
                .output()
                .map_err(|e| format!("git: {e}"))?;
            if output.status.success() {
                Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
            } else {
                Err(format!(
                    "git {args:?}: {}",
                    String::from_utf8_lossy(&output.stderr)
                ))
            }
        };
        let mut config = String::new();
        let mut made = BTreeSet::new();
        for (index, v) in vendored.iter().enumerate() {
            let path = v.repository.trim_start_matches("https://");
            let repo = dir.join("repositories").join(format!("{path}.git"));
            if made.insert(repo.clone()) {
                git(
                    &[
                        "init".as_ref(),
                        "-q".as_ref(),
                        "--bare".as_ref(),
                        repo.as_os_str(),
                    ],
                    &[],
                )?;
                let url = format!("file://{}", repo.display());
                config.push_str(&format!(
                    "[url \"{url}\"]\n\tinsteadOf = {0}\n\tinsteadOf = {0}.git\n",
                    v.repository
                ));
            }
            let index_file = dir.join(format!("index-{index}"));
            let env = [
                ("GIT_DIR", repo.as_os_str()),
                ("GIT_WORK_TREE", v.dir.as_os_str()),
                ("GIT_INDEX_FILE", index_file.as_os_str()),
            ];
            git(
                &["add".as_ref(), "-A".as_ref(), "-f".as_ref(), ".".as_ref()],
                &env,
            )?;
            let tree = git(&["write-tree".as_ref()], &env)?;
            let message = format!("{} at {}, as vendored", v.repository, v.reference);
            let commit = git(
                &[
                    "-c".as_ref(),
                    "user.name=weft".as_ref(),
                    "-c".as_ref(),
                    "user.email=weft@localhost".as_ref(),
                    "commit-tree".as_ref(),
                    tree.as_ref(),
                    "-m".as_ref(),
                    message.as_ref(),
                ],
                &env,
            )?;
            git(
                &["tag".as_ref(), v.reference.as_ref(), commit.as_ref()],
                &env,
            )?;
        }
        let config_file = dir.join("gitconfig");
        std::fs::write(&config_file, config)
            .map_err(|e| format!("{}: {e}", config_file.display()))?;
        Ok(RemoteGit {
            dir,
            config: config_file,
            home,
        })
    }

    /// The environment kubectl runs in to clone from these repositories.
    fn env(&self) -> [(&str, &OsStr); 3] {
        [
            ("GIT_CONFIG_GLOBAL", self.config.as_os_str()),
            ("GIT_CONFIG_NOSYSTEM", OsStr::new("1")),
            ("HOME", self.home.as_os_str()),
        ]
    }
}

impl Drop for RemoteGit {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Every kustomization of every source, in path order.
fn corpus() -> Vec<Kustomization> {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir() && !p.ends_with(REMOTE_DIR))
                .collect()
        })
        .unwrap_or_default();
    sources.sort();
    let mut found = Vec::new();
    for source in sources {
        let source_name = source
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for overlay in overlays(&source) {
            let name = if overlay.is_empty() {
                source_name.clone()
            } else {
                format!("{source_name}/{overlay}")
            };
            found.push(Kustomization {
                source: source.clone(),
                overlay,
                name,
            });
        }
    }
    found
}

/// Whether a kustomization entry names something remote (a URL, a `github.com/…` or `git@…` repository).
fn is_remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("git@")
        || ["github.com/", "gitlab.com/", "bitbucket.org/"]
            .iter()
            .any(|host| entry.starts_with(host))
}

/// What the kustomization in `dir`, or a local base or component of it, reads from the network: remote resources,
/// bases and components, and charts of `helmCharts` with a `repo`.
fn remote_references(dir: &Path, seen: &mut BTreeSet<PathBuf>, found: &mut Vec<String>) {
    if !seen.insert(dir.to_path_buf()) {
        return;
    }
    let Some(file) = kustomization_file(dir) else {
        return;
    };
    let Ok(kustomization) = std::fs::read_to_string(&file)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_norway::from_str::<Value>(&text).map_err(|e| e.to_string()))
    else {
        return;
    };
    for field in ["resources", "bases", "components"] {
        for entry in kustomization[field].as_array().into_iter().flatten() {
            let Some(entry) = entry.as_str() else {
                continue;
            };
            if is_remote(entry) {
                found.push(entry.to_string());
            } else if dir.join(entry).is_dir() {
                remote_references(&dir.join(entry), seen, found);
            }
        }
    }
    for chart in kustomization["helmCharts"].as_array().into_iter().flatten() {
        if let Some(repo) = chart["repo"].as_str() {
            found.push(format!("helm chart {} from {repo}", chart["name"]));
        }
    }
}

/// Whether the kustomization in `dir` inflates charts of its own (`helmCharts` without a `repo`), which kubectl
/// builds only with Helm.
fn inflates_local_charts(dir: &Path) -> bool {
    let Some(kustomization) = kustomization_file(dir)
        .and_then(|file| std::fs::read_to_string(file).ok())
        .and_then(|text| serde_norway::from_str::<Value>(&text).ok())
    else {
        return false;
    };
    kustomization["helmCharts"]
        .as_array()
        .is_some_and(|charts| !charts.is_empty() && charts.iter().all(|c| c["repo"].is_null()))
}

/// How one kustomization built, natively and by kubectl.
#[derive(Debug, Clone)]
enum Outcome {
    /// The same objects, in the same order.
    Identical,
    /// kubectl refuses it, and so do we: the source is incomplete as vendored (its error is kept).
    BothRefuse(String),
    /// It reads the network (what it reads: a URL, or a remote base not vendored): not built on either side.
    Network(Vec<String>),
    /// Both build it, with different objects (the first difference).
    Different(String),
    /// We refuse what kubectl builds (our error).
    Refused(String),
    /// We build what kubectl refuses (kubectl's error).
    Accepted(String),
}

impl Observed for Outcome {
    fn kind(&self) -> &'static str {
        match self {
            Outcome::Identical => "identical",
            Outcome::BothRefuse(_) => "both-refuse",
            Outcome::Network(_) => "network",
            Outcome::Different(_) => "different",
            Outcome::Refused(_) => "refused",
            Outcome::Accepted(_) => "accepted",
        }
    }

    fn reason(&self) -> String {
        match self {
            Outcome::Identical => String::new(),
            Outcome::Network(what) => what.join(", "),
            Outcome::BothRefuse(why)
            | Outcome::Different(why)
            | Outcome::Refused(why)
            | Outcome::Accepted(why) => why.trim().to_string(),
        }
    }

    fn deviates(&self) -> bool {
        matches!(
            self,
            Outcome::Different(_) | Outcome::Refused(_) | Outcome::Accepted(_)
        )
    }
}

/// What the builds share: kubectl, the vendored remote repositories and kubectl's git serving them.
struct Setup<'a> {
    kubectl: &'a Path,
    vendored: Vec<Vendored>,
    remote_git: Option<RemoteGit>,
}

/// Builds one kustomization both ways and judges the two builds.
fn build(setup: &Setup<'_>, kustomization: &Kustomization) -> (Outcome, Duration) {
    let mut remote = Vec::new();
    remote_references(
        &kustomization.source.join(&kustomization.overlay),
        &mut BTreeSet::new(),
        &mut remote,
    );
    let extra = match (remote.is_empty(), &setup.remote_git) {
        (true, _) => MemorySource::new(),
        (false, Some(_)) => match remote_overlay(&setup.vendored, &remote) {
            Some(extra) => extra,
            None => return (Outcome::Network(remote), Duration::ZERO),
        },
        (false, None) => return (Outcome::Network(remote), Duration::ZERO),
    };
    let env = match (&setup.remote_git, remote.is_empty()) {
        (Some(git), false) => git.env().to_vec(),
        _ => Vec::new(),
    };
    let dir = kustomization.source.join(&kustomization.overlay);
    let expected = if inflates_local_charts(&dir) {
        kubectl_kustomize_inflated(setup.kubectl, &dir)
    } else {
        kubectl_kustomize_with(setup.kubectl, &dir, &env)
    };
    let started = Instant::now();
    let actual = native_with(&kustomization.source, &kustomization.overlay, extra);
    let time = started.elapsed();
    let outcome = match (expected, actual) {
        (Ok(expected), Ok(actual)) => match difference(&expected, &actual) {
            None => Outcome::Identical,
            Some(why) => Outcome::Different(why),
        },
        (Err(why), Err(_)) => Outcome::BothRefuse(why),
        (Ok(_), Err(why)) => Outcome::Refused(why),
        (Err(why), Ok(_)) => Outcome::Accepted(why),
    };
    (outcome, time)
}

/// Every selected kustomization built, on as many threads as the machine has cores; the native build time summed.
fn observe(kubectl: &Path, selected: &[Kustomization]) -> (BTreeMap<String, Outcome>, Duration) {
    let vendored = vendored();
    // Without git (or when the repositories cannot be made), the remote bases stay `network`.
    let remote_git = match RemoteGit::new(&vendored) {
        Ok(git) => Some(git),
        Err(why) => {
            eprintln!("vendored remote bases not served to kubectl: {why}");
            None
        }
    };
    let setup = Setup {
        kubectl,
        vendored,
        remote_git,
    };
    let next = AtomicUsize::new(0);
    let built = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(kustomization) = selected.get(index) else {
                        break;
                    };
                    let (outcome, time) = build(&setup, kustomization);
                    built.lock().expect("the builds").push((
                        kustomization.name.clone(),
                        outcome,
                        time,
                    ));
                }
            });
        }
    });
    let mut outcomes = BTreeMap::new();
    let mut native = Duration::ZERO;
    for (name, outcome, time) in built.into_inner().expect("the builds") {
        native += time;
        outcomes.insert(name, outcome);
    }
    (outcomes, native)
}

/// Every kustomization's outcome, the counts and the identical rate.
fn report(outcomes: &BTreeMap<String, Outcome>, native: Duration, wall: Duration) {
    println!("public Kustomize corpus: {} kustomizations", outcomes.len());
    for (name, outcome) in outcomes {
        println!("{}", deviations::listing(name, outcome, 11));
    }
    let count = |kind: &str| outcomes.values().filter(|o| o.kind() == kind).count();
    let comparable = outcomes.len() - count("network");
    let same = count("identical") + count("both-refuse");
    let rate = |n: usize| 100.0 * n as f64 / comparable.max(1) as f64;
    println!(
        "identical rate: {same}/{comparable} ({:.1}%) of the kustomizations built here behave as with kubectl; {}/{} \
         ({:.1}%) give identical objects ({} refused by both); {} need the network (not built); different {}, \
         refused {}, accepted {}",
        rate(same),
        count("identical"),
        comparable,
        rate(count("identical")),
        count("both-refuse"),
        count("network"),
        count("different"),
        count("refused"),
        count("accepted")
    );
    println!(
        "time: {:.1}s wall; native builds {:.1}s (summed over threads)",
        wall.as_secs_f64(),
        native.as_secs_f64()
    );
}

fn main() -> ExitCode {
    let arguments = Arguments::from_args();
    let kubectl = Reference::kubectl();
    let corpus = corpus();
    let deviations = deviations::read(&deviations_file());
    let mut trials = vec![
        Trial::test("the public corpus holds at least 150 kustomizations", {
            let size = corpus.len();
            move || {
                if size >= 150 {
                    Ok(())
                } else {
                    Err(format!("found {size}").into())
                }
            }
        }),
        Trial::test(
            "every written deviation names a kustomization of the corpus and an outcome it can have",
            {
                let deviations = deviations.clone();
                let names: BTreeSet<String> = corpus.iter().map(|k| k.name.clone()).collect();
                move || {
                    let wrong: Vec<String> = deviations?
                        .iter()
                        .filter(|(name, d)| {
                            !names.contains(*name)
                                || !matches!(
                                    d.outcome.as_str(),
                                    "different" | "refused" | "accepted"
                                )
                                || d.reason.trim().is_empty()
                        })
                        .map(|(name, d)| format!("{name} ({})", d.outcome))
                        .collect();
                    if wrong.is_empty() {
                        Ok(())
                    } else {
                        Err(
                            format!("not kustomizations, or no outcome or reason: {wrong:?}")
                                .into(),
                        )
                    }
                }
            },
        ),
        Trial::test(
            "a kustomization reading a remote base or a chart repository is found to need the network",
            || {
                let remote = [
                    "https://github.com/fluxcd/source-controller/releases/download/v1.0.0/source-controller.crds.yaml",
                    "github.com/metallb/frr-k8s/config/default/?ref=v0.0.25",
                    "git@github.com:example/repo.git//base",
                    "ssh://root@localhost:2222/tmp/testdata.git//config-map",
                ];
                let local = ["../base", "deployment.yaml", "github/base"];
                let wrong: Vec<&&str> = remote
                    .iter()
                    .filter(|e| !is_remote(e))
                    .chain(local.iter().filter(|e| is_remote(e)))
                    .collect();
                if wrong.is_empty() {
                    Ok(())
                } else {
                    Err(format!("misjudged: {wrong:?}").into())
                }
            },
        ),
        Trial::test(
            "a remote base is served from its vendored repository only at the ref vendored",
            || {
                let vendored = vendored();
                let served = [
                    "https://github.com/metallb/frr-k8s/config/default/?timeout=120&ref=v0.0.25",
                    "https://github.com/argoproj/argo-workflows/manifests/base/crds/minimal?ref=v3.7.3",
                ];
                let not_served = [
                    "https://github.com/metallb/frr-k8s/config/default/?ref=v0.0.24",
                    "https://github.com/argoproj/argo-workflows/releases/download/v3.4.0/namespace-install.yaml",
                    "github.com/Liujingfang1/mysql",
                ];
                let wrong: Vec<&&str> = served
                    .iter()
                    .filter(|e| vendored_for(&vendored, e).is_none())
                    .chain(
                        not_served
                            .iter()
                            .filter(|e| vendored_for(&vendored, e).is_some()),
                    )
                    .collect();
                let laid = remote_overlay(&vendored, &[served[0].to_string()]).ok_or("not laid")?;
                let kustomization = format!(
                    "{}/config/default/kustomization.yaml",
                    weft_sdk::remote::repository_dir(served[0])
                );
                if !wrong.is_empty() {
                    Err(format!("misjudged: {wrong:?}").into())
                } else if weft_sdk::Source::read_file(&laid, &kustomization).is_err() {
                    Err(format!("{kustomization} not laid").into())
                } else {
                    Ok(())
                }
            },
        ),
    ];
    let trial_name = |name: &str| {
        format!("builds as kubectl kustomize does or as its written deviation says: {name}")
    };
    // Only what the filter selects is built; nothing is built for `--list`.
    let selected: Vec<Kustomization> = corpus
        .iter()
        .filter(|k| {
            let name = trial_name(&k.name);
            match &arguments.filter {
                Some(filter) if arguments.exact => &name == filter,
                Some(filter) => name.contains(filter.as_str()),
                None => true,
            }
        })
        .cloned()
        .collect();
    // The kustomizations inflating charts of their own are built only with Helm's library at hand.
    let helm = Reference::python_module("helm_python", "helm-python-sdk");
    let needs_helm = |k: &Kustomization| inflates_local_charts(&k.source.join(&k.overlay));
    let selected: Vec<Kustomization> = selected
        .into_iter()
        .filter(|k| helm.path().is_some() || !needs_helm(k))
        .collect();
    let observed = match kubectl.path() {
        Some(path) if !arguments.list && !selected.is_empty() => {
            let started = Instant::now();
            let (outcomes, native) = observe(path, &selected);
            report(&outcomes, native, started.elapsed());
            if deviations::write_requested() {
                deviations::write(
                    &deviations_file(),
                    DEVIATIONS_HEADER,
                    &outcomes,
                    deviations.as_ref().unwrap_or(&BTreeMap::new()),
                    Some(400),
                );
            }
            outcomes
        }
        _ => BTreeMap::new(),
    };
    let deviations = deviations.unwrap_or_default();
    for kustomization in &corpus {
        let outcome = observed.get(&kustomization.name).cloned();
        let listed = deviations.get(&kustomization.name).cloned();
        let reference = match (needs_helm(kustomization), kubectl.path()) {
            (true, Some(_)) => &helm,
            _ => &kubectl,
        };
        trials.push(reference.trial(trial_name(&kustomization.name), move || {
            let outcome = outcome.ok_or("not built")?;
            deviations::judge(&outcome, listed.as_ref()).map_err(Into::into)
        }));
    }
    weft_test_reference::run(&[&kubectl, &helm], trials)
}
