//! Running checks natively, without Wasm: single objects, objects with children, and whole Argo CD
//! `health_test.yaml` suites.

use std::path::{Path, PathBuf};

pub mod golden;
mod seed;

pub use seed::render_seed;

use serde::Deserialize;
use serde_json::Value;

use crate::check::{Context, HealthCheck, Related};
use crate::health::{Health, PluginError, Status};
use crate::object::Object;

/// Assesses one object with no related objects.
pub fn assess<C: HealthCheck>(obj: &Object) -> Result<Option<Health>, PluginError> {
    C::assess(obj, &Context::empty())
}

/// Assesses the object in a YAML document.
pub fn assess_yaml<C: HealthCheck>(yaml: &str) -> Result<Option<Health>, PluginError> {
    assess::<C>(&Object::from_yaml(yaml)?)
}

/// A set of objects a check can look up as children, as the host's cache would hold them.
#[derive(Debug, Clone, Default)]
pub struct Fixture {
    objects: Vec<Object>,
}

impl Fixture {
    /// A fixture holding `objects`.
    pub fn new(objects: Vec<Object>) -> Self {
        Fixture { objects }
    }

    /// Assesses `obj` with this fixture's objects as its possible children.
    pub fn assess<C: HealthCheck>(&self, obj: &Object) -> Result<Option<Health>, PluginError> {
        C::assess(obj, &Context::new(self))
    }
}

impl Related for Fixture {
    fn children(&self, uid: &str) -> Vec<Object> {
        self.objects
            .iter()
            .filter(|o| o.owner_uids().any(|owner| owner == uid))
            .cloned()
            .collect()
    }
}

/// Every non-empty document of a YAML stream (`---`-separated), in order.
pub fn yaml_documents(text: &str) -> Result<Vec<Value>, serde_norway::Error> {
    let mut documents = Vec::new();
    for document in serde_norway::Deserializer::from_str(text) {
        let value = Value::deserialize(document)?;
        if !value.is_null() {
            documents.push(value);
        }
    }
    Ok(documents)
}

/// One case of an Argo CD `health_test.yaml` suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthTestCase {
    /// The expected verdict.
    pub expected: Health,
    /// The object's file, resolved against the suite file's directory.
    pub input: PathBuf,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SuiteFile {
    tests: Vec<SuiteEntry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SuiteEntry {
    health_status: SuiteStatus,
    input_path: String,
}

#[derive(Deserialize)]
struct SuiteStatus {
    status: String,
    #[serde(default)]
    message: String,
}

/// Why a suite could not be read.
#[derive(Debug)]
pub struct SuiteError {
    /// The file at fault.
    pub path: PathBuf,
    /// What is wrong with it.
    pub reason: String,
}

impl std::fmt::Display for SuiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

impl std::error::Error for SuiteError {}

/// Reads an Argo CD `health_test.yaml` suite: `tests:` entries of `{healthStatus: {status, message}, inputPath}`.
/// Argo CD compares messages exactly, and an absent message means an empty one; so do we.
pub fn read_health_suite(path: &Path) -> Result<Vec<HealthTestCase>, SuiteError> {
    let fail = |reason: String| SuiteError {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
    let suite: SuiteFile = serde_norway::from_str(&text).map_err(|e| fail(e.to_string()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    suite
        .tests
        .into_iter()
        .enumerate()
        .map(|(i, entry)| {
            let status = Status::parse(&entry.health_status.status).ok_or_else(|| {
                fail(format!(
                    "test {}: unknown health status {:?}",
                    i + 1,
                    entry.health_status.status
                ))
            })?;
            Ok(HealthTestCase {
                expected: Health::new(status, entry.health_status.message),
                input: base.join(entry.input_path),
            })
        })
        .collect()
}

/// Reads the first non-empty YAML document of a file as an object.
pub fn read_object(path: &Path) -> Result<Object, SuiteError> {
    let fail = |reason: String| SuiteError {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
    let first = yaml_documents(&text)
        .map_err(|e| fail(e.to_string()))?
        .into_iter()
        .next()
        .ok_or_else(|| fail("no YAML document in the file".into()))?;
    Object::new(first).map_err(|e| fail(e.message))
}

/// The outcome of running a suite natively.
#[derive(Debug, Default)]
pub struct SuiteReport {
    /// Cases whose verdict matched.
    pub passed: usize,
    /// One line per case that did not, saying what was expected and what came back.
    pub failures: Vec<String>,
}

/// Every YAML document of a case file as an object: the first is the object assessed, the rest are what the check
/// may find as its children (as `weft plugin test` and the server's cache give them).
pub fn read_objects(path: &Path) -> Result<Vec<Object>, SuiteError> {
    let fail = |reason: String| SuiteError {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
    let objects: Vec<Object> = yaml_documents(&text)
        .map_err(|e| fail(e.to_string()))?
        .into_iter()
        .map(|document| Object::new(document).map_err(|e| fail(e.message)))
        .collect::<Result<_, _>>()?;
    if objects.is_empty() {
        return Err(fail("no YAML document in the file".into()));
    }
    Ok(objects)
}

/// A verdict as every suite runner prints it: `degraded "message"`, or `no health` when the check has no opinion.
pub fn verdict_text(verdict: Option<&Health>) -> String {
    match verdict {
        Some(health) => format!("{} {:?}", health.status, health.message),
        None => "no health".to_string(),
    }
}

/// A plugin's error as every suite runner prints it: `plugin error: failed: the message`.
pub fn error_text(error: &crate::PluginError) -> String {
    format!("plugin error: {error}")
}

/// A failed case as every suite runner prints it: `FILE: expected degraded "...", got progressing "..."`.
pub fn case_failure(input: &Path, expected: &Health, got: &str) -> String {
    format!(
        "{}: expected {}, got {got}",
        input.display(),
        verdict_text(Some(expected))
    )
}

/// Runs an Argo CD suite against `C` natively, each case file's other documents as the object's possible children.
pub fn run_health_suite<C: HealthCheck>(path: &Path) -> Result<SuiteReport, SuiteError> {
    let mut report = SuiteReport::default();
    for case in read_health_suite(path)? {
        let mut objects = read_objects(&case.input)?;
        let obj = objects.remove(0);
        match Fixture::new(objects).assess::<C>(&obj) {
            Ok(Some(got)) if got == case.expected => report.passed += 1,
            Ok(got) => report.failures.push(case_failure(
                &case.input,
                &case.expected,
                &verdict_text(got.as_ref()),
            )),
            Err(error) => report.failures.push(case_failure(
                &case.input,
                &case.expected,
                &error_text(&error),
            )),
        }
    }
    Ok(report)
}

/// One case of a conformance corpus (`cases.json` in `tests/conformance/`): an object file and the verdict Argo CD
/// gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusCase {
    /// The customization key's group (`_` is a wildcard segment, as in Argo CD's directory names).
    pub group: String,
    /// The customization key's kind (`_` for any).
    pub kind: String,
    /// The object file, resolved against the corpus directory.
    pub file: PathBuf,
    /// The expected status; `None` when Argo CD gives no health at all.
    pub status: Option<Status>,
    /// The expected message, when the corpus asserts one (an asserted empty message is `Some("")`).
    pub message: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CorpusEntry {
    group: String,
    kind: String,
    file: String,
    status: Option<String>,
    message: Option<String>,
    derived_message: Option<String>,
}

/// Reads a corpus `cases.json`. Where a case has no asserted `message` but a `derived_message` (the message the
/// current Go code emits), the derived one is expected.
pub fn read_corpus(cases_json: &Path) -> Result<Vec<CorpusCase>, SuiteError> {
    let fail = |reason: String| SuiteError {
        path: cases_json.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(cases_json).map_err(|e| fail(e.to_string()))?;
    let entries: Vec<CorpusEntry> = serde_json::from_str(&text).map_err(|e| fail(e.to_string()))?;
    let base = cases_json.parent().unwrap_or(Path::new("."));
    entries
        .into_iter()
        .map(|e| {
            let status = match &e.status {
                Some(name) => Some(
                    Status::parse(name)
                        .ok_or_else(|| fail(format!("{}: unknown status {name:?}", e.file)))?,
                ),
                None => None,
            };
            Ok(CorpusCase {
                group: e.group,
                kind: e.kind,
                file: base.join(&e.file),
                status,
                message: e.message.or(e.derived_message),
            })
        })
        .collect()
}

/// Checks one verdict against a corpus case; `Err` says what differs.
pub fn check_corpus_case(case: &CorpusCase, got: Option<&Health>) -> Result<(), String> {
    let got_status = got.map(|h| h.status);
    if got_status != case.status {
        return Err(format!(
            "{}: expected status {:?}, got {got:?}",
            case.file.display(),
            case.status
        ));
    }
    if let (Some(expected), Some(health)) = (&case.message, got)
        && &health.message != expected
    {
        return Err(format!(
            "{}: expected message {expected:?}, got {:?}",
            case.file.display(),
            health.message
        ));
    }
    Ok(())
}

/// Runs the corpus cases `select` picks through `C` natively.
pub fn run_corpus<C: HealthCheck>(
    cases_json: &Path,
    select: impl Fn(&CorpusCase) -> bool,
) -> Result<SuiteReport, SuiteError> {
    let mut report = SuiteReport::default();
    for case in read_corpus(cases_json)?.iter().filter(|c| select(c)) {
        let obj = read_object(&case.file)?;
        let verdict = match assess::<C>(&obj) {
            Ok(verdict) => verdict,
            Err(e) => {
                report
                    .failures
                    .push(format!("{}: plugin error {e}", case.file.display()));
                continue;
            }
        };
        match check_corpus_case(case, verdict.as_ref()) {
            Ok(()) => report.passed += 1,
            Err(failure) => report.failures.push(failure),
        }
    }
    Ok(report)
}

/// A [`Source`](crate::source::Source) over a directory on disk, for running renderers natively. It does what the
/// host does: paths are relative to where the render starts (the app's directory), `..` climbs to the root (the
/// repository) and no further, symlinks pointing outside are listed but cannot be read, `.git` is never readable.
#[derive(Debug, Clone)]
pub struct DirSource {
    root: PathBuf,
    start: String,
}

impl DirSource {
    /// A source rooted, and starting, at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        DirSource {
            root: root.into(),
            start: String::new(),
        }
    }

    /// A source rooted at `root` that starts at `start` (a directory inside it), as the host roots a render at
    /// the repository and starts it at the app's path.
    pub fn starting_at(root: impl Into<PathBuf>, start: &str) -> Self {
        DirSource {
            root: root.into(),
            start: crate::source::normalize(start).unwrap_or_default(),
        }
    }

    fn resolve(&self, path: &str) -> Result<PathBuf, crate::source::SourceError> {
        use crate::source::SourceError;
        if path.starts_with('/') {
            return Err(SourceError::NotAllowed(format!(
                "{path}: outside the source tree"
            )));
        }
        let relative = crate::source::normalize(&crate::source::join(&self.start, path))
            .ok_or_else(|| SourceError::NotAllowed(format!("{path}: outside the source tree")))?;
        if relative.split('/').any(|segment| segment == ".git") {
            return Err(SourceError::NotAllowed(format!(
                "{path}: .git is not readable"
            )));
        }
        let root = self
            .root
            .canonicalize()
            .map_err(|e| SourceError::Io(format!("{}: {e}", self.root.display())))?;
        let full = root.join(&relative);
        let real = full.canonicalize().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => SourceError::NotFound(path.to_string()),
            _ => SourceError::Io(format!("{path}: {e}")),
        })?;
        if !real.starts_with(&root) {
            return Err(SourceError::NotAllowed(format!(
                "{path}: links outside the source tree"
            )));
        }
        Ok(real)
    }
}

impl crate::source::Source for DirSource {
    fn read_file(&self, path: &str) -> Result<Vec<u8>, crate::source::SourceError> {
        let real = self.resolve(path)?;
        if real.is_dir() {
            return Err(crate::source::SourceError::NotFound(format!(
                "{path}: a directory"
            )));
        }
        std::fs::read(&real).map_err(|e| crate::source::SourceError::Io(format!("{path}: {e}")))
    }

    fn list_dir(
        &self,
        path: &str,
    ) -> Result<Vec<crate::source::DirEntry>, crate::source::SourceError> {
        use crate::source::{DirEntry, EntryKind, SourceError};
        let real = self.resolve(path)?;
        let entries =
            std::fs::read_dir(&real).map_err(|e| SourceError::Io(format!("{path}: {e}")))?;
        let mut listing = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == ".git" {
                continue;
            }
            // Follow symlinks; one that leaves the tree is listed (as the host lists it) but cannot be read.
            let Ok(metadata) =
                self.resolve(&crate::source::join(path, &name))
                    .and_then(|resolved| {
                        std::fs::metadata(&resolved)
                            .map_err(|e| SourceError::Io(format!("{name}: {e}")))
                    })
            else {
                listing.push(DirEntry {
                    name,
                    kind: EntryKind::File,
                    size: 0,
                });
                continue;
            };
            listing.push(DirEntry {
                name,
                kind: if metadata.is_dir() {
                    EntryKind::Directory
                } else {
                    EntryKind::File
                },
                size: if metadata.is_dir() { 0 } else { metadata.len() },
            });
        }
        listing.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(listing)
    }
}

/// Renders natively with `R` over a repository `root`, starting at the app's directory `start` inside it.
pub fn render_dir_in<R: crate::render::Renderer>(
    request: &crate::render::RenderRequest,
    root: &Path,
    start: &str,
) -> Result<crate::render::RenderOutput, crate::render::RenderError> {
    R::render(request, &DirSource::starting_at(root, start))
}

/// A source with extra files over another, as the host lays fetched files (charts, remote bases) over the source
/// view: a file of `extra` wins over the base's at the same path, and a listing holds both's entries. Paths of
/// `extra` are relative to where the base starts.
#[derive(Debug, Clone)]
pub struct OverlaySource<S> {
    base: S,
    extra: crate::source::MemorySource,
}

impl<S: crate::source::Source> OverlaySource<S> {
    /// `extra`'s files over `base`.
    pub fn new(base: S, extra: crate::source::MemorySource) -> Self {
        OverlaySource { base, extra }
    }
}

impl<S: crate::source::Source> crate::source::Source for OverlaySource<S> {
    fn read_file(&self, path: &str) -> Result<Vec<u8>, crate::source::SourceError> {
        self.extra
            .read_file(path)
            .or_else(|_| self.base.read_file(path))
    }

    fn list_dir(
        &self,
        path: &str,
    ) -> Result<Vec<crate::source::DirEntry>, crate::source::SourceError> {
        match (self.base.list_dir(path), self.extra.list_dir(path)) {
            (Ok(mut entries), Ok(extra)) => {
                for entry in extra {
                    entries.retain(|e| e.name != entry.name);
                    entries.push(entry);
                }
                entries.sort_by(|a, b| a.name.cmp(&b.name));
                Ok(entries)
            }
            (Ok(entries), Err(_)) => Ok(entries),
            (Err(_), Ok(extra)) if !extra.is_empty() => Ok(extra),
            (Err(error), _) => Err(error),
        }
    }
}

/// Renders natively with `R` over a directory with `extra` files laid over it (as the host lays fetched charts
/// and remote bases over the source view).
pub fn render_dir_with<R: crate::render::Renderer>(
    request: &crate::render::RenderRequest,
    dir: &Path,
    extra: crate::source::MemorySource,
) -> Result<crate::render::RenderOutput, crate::render::RenderError> {
    R::render(request, &OverlaySource::new(DirSource::new(dir), extra))
}

/// Renders natively with `R` over a directory.
pub fn render_dir<R: crate::render::Renderer>(
    request: &crate::render::RenderRequest,
    dir: &Path,
) -> Result<crate::render::RenderOutput, crate::render::RenderError> {
    R::render(request, &DirSource::new(dir))
}

/// Runs the corpus cases of the given customization groups through `C` natively and fails with every mismatch
/// listed; prints `N passed, M failed`.
pub fn assert_corpus_groups<C: HealthCheck>(cases_json: &Path, groups: &[&str]) {
    let report = run_corpus::<C>(cases_json, |c| groups.contains(&c.group.as_str()))
        .unwrap_or_else(|e| panic!("reading the corpus: {e}"));
    for failure in &report.failures {
        println!("{failure}");
    }
    println!("{} passed, {} failed", report.passed, report.failures.len());
    assert!(report.passed > 0, "no corpus case selected for {groups:?}");
    assert!(
        report.failures.is_empty(),
        "{} corpus cases failed",
        report.failures.len()
    );
}

/// The `kinds = [...]` array of a plugin manifest: double-quoted strings, over one or several lines, `#` comments
/// allowed. (A small reader, so plugin crates need no TOML parser to check their manifest.)
pub fn manifest_kinds(manifest: &str) -> Vec<String> {
    let text: String = manifest
        .lines()
        .map(|line| line.split('#').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let Some(start) = text
        .match_indices("kinds")
        .map(|(i, _)| i)
        .find(|&i| text[..i].ends_with('\n') || i == 0)
    else {
        return Vec::new();
    };
    let rest = &text[start..];
    let (Some(open), Some(close)) = (rest.find('['), rest.find(']')) else {
        return Vec::new();
    };
    rest[open + 1..close]
        .split(',')
        .map(|k| k.trim().trim_matches('"').to_string())
        .filter(|k| !k.is_empty())
        .collect()
}

/// Fails unless a plugin manifest lists exactly the table's keys, in order and without duplicates.
pub fn assert_manifest_lists(manifest: &str, table: &crate::KindTable) {
    let listed = manifest_kinds(manifest);
    let keys: Vec<&str> = table.keys().collect();
    let mut unique = keys.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), keys.len(), "duplicate keys in the table");
    assert_eq!(
        listed, keys,
        "weft-plugin.toml `kinds` must list exactly the table's keys, in order"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    struct ChildCount;

    impl HealthCheck for ChildCount {
        fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
            let n = cx.children(obj).len();
            Ok(Some(Health::healthy(format!("{n} children"))))
        }
    }

    #[test]
    fn an_overlay_s_files_win_and_join_the_base_s_listings() {
        use crate::source::{MemorySource, Source};
        let mut base = MemorySource::new();
        base.insert("app/kustomization.yaml", b"base".to_vec());
        base.insert("app/a.yaml", b"a".to_vec());
        let mut extra = MemorySource::new();
        extra.insert("app/kustomization.yaml", b"extra".to_vec());
        extra.insert(".weft-remote/k/base/b.yaml", b"b".to_vec());
        let overlay = OverlaySource::new(base, extra);
        assert_eq!(
            overlay.read_file("app/kustomization.yaml").unwrap(),
            b"extra"
        );
        assert_eq!(overlay.read_file("app/a.yaml").unwrap(), b"a");
        assert_eq!(
            overlay.read_file(".weft-remote/k/base/b.yaml").unwrap(),
            b"b"
        );
        let names = |path: &str| -> Vec<String> {
            overlay
                .list_dir(path)
                .unwrap()
                .into_iter()
                .map(|e| e.name)
                .collect()
        };
        assert_eq!(names(""), [".weft-remote", "app"]);
        assert_eq!(names("app"), ["a.yaml", "kustomization.yaml"]);
        assert_eq!(names(".weft-remote/k/base"), ["b.yaml"]);
        assert!(overlay.list_dir("missing").is_err());
    }

    #[test]
    fn fixture_finds_children_by_owner_uid() {
        let docs = yaml_documents(
            "---\nkind: Parent\nmetadata: {name: p, uid: p1}\n---\n\
             kind: Child\nmetadata: {name: a, ownerReferences: [{uid: p1}]}\n---\n\
             kind: Child\nmetadata: {name: b, ownerReferences: [{uid: other}]}\n---\n",
        )
        .unwrap();
        let objects: Vec<Object> = docs.into_iter().map(|d| Object::new(d).unwrap()).collect();
        let fixture = Fixture::new(objects.clone());
        let verdict = fixture.assess::<ChildCount>(&objects[0]).unwrap();
        assert_eq!(verdict, Some(Health::healthy("1 children")));
        assert_eq!(
            assess::<ChildCount>(&objects[0]).unwrap(),
            Some(Health::healthy("0 children"))
        );
    }

    #[test]
    fn reads_argocd_suites() {
        let dir = std::env::temp_dir().join(format!("weft-sdk-suite-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("testdata")).unwrap();
        std::fs::write(
            dir.join("health_test.yaml"),
            "tests:\n- healthStatus: {status: Healthy, message: fine}\n  inputPath: testdata/a.yaml\n\
             - healthStatus: {status: Degraded}\n  inputPath: testdata/a.yaml\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("testdata/a.yaml"),
            "---\nkind: X\nmetadata: {name: a}\n",
        )
        .unwrap();
        let cases = read_health_suite(&dir.join("health_test.yaml")).unwrap();
        assert_eq!(cases[1].expected, Health::degraded(""));
        let report = run_health_suite::<ChildCount>(&dir.join("health_test.yaml")).unwrap();
        assert_eq!(report.passed, 0);
        assert_eq!(report.failures.len(), 2);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn dir_source_stays_inside_its_root() {
        use crate::source::{Source, SourceError};
        let dir = std::env::temp_dir().join(format!("weft-sdk-dirsource-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("app/sub")).unwrap();
        std::fs::create_dir_all(dir.join("app/.git")).unwrap();
        std::fs::write(dir.join("app/a.yaml"), "a: 1").unwrap();
        std::fs::write(dir.join("app/.git/config"), "secret").unwrap();
        std::fs::write(dir.join("outside.txt"), "no").unwrap();
        #[cfg(unix)]
        {
            let _ = std::os::unix::fs::symlink("/etc", dir.join("app/etc"));
            let _ = std::os::unix::fs::symlink("../outside.txt", dir.join("app/escape"));
            let _ = std::os::unix::fs::symlink("a.yaml", dir.join("app/inside"));
        }
        let source = DirSource::new(dir.join("app"));
        assert_eq!(source.read_to_string("a.yaml").unwrap(), "a: 1");
        assert_eq!(source.read_to_string("sub/../a.yaml").unwrap(), "a: 1");
        assert!(matches!(
            source.read_file("../outside.txt"),
            Err(SourceError::NotAllowed(_))
        ));
        assert!(matches!(
            source.read_file("/etc/passwd"),
            Err(SourceError::NotAllowed(_))
        ));
        assert!(matches!(
            source.read_file(".git/config"),
            Err(SourceError::NotAllowed(_))
        ));
        assert!(matches!(
            source.read_file("missing"),
            Err(SourceError::NotFound(_))
        ));
        #[cfg(unix)]
        {
            assert!(matches!(
                source.read_file("etc/passwd"),
                Err(SourceError::NotAllowed(_))
            ));
            assert!(matches!(
                source.read_file("escape"),
                Err(SourceError::NotAllowed(_))
            ));
            assert_eq!(source.read_to_string("inside").unwrap(), "a: 1");
        }
        let names: Vec<String> = source
            .list_dir("")
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert!(names.contains(&"a.yaml".to_string()) && names.contains(&"sub".to_string()));
        assert!(!names.contains(&".git".to_string()));
        // A link out of the tree is listed, as the host lists it, so a renderer that reads it fails naming it.
        #[cfg(unix)]
        assert!(names.contains(&"etc".to_string()) && names.contains(&"escape".to_string()));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn reads_manifest_kinds() {
        let manifest = "name = \"x\"\n# kinds = [\"not this\"]\nkinds = [\n  \"apps/Deployment\", # the rollout\n  \"/Pod\",\n]\n";
        assert_eq!(manifest_kinds(manifest), ["apps/Deployment", "/Pod"]);
        assert!(manifest_kinds("name = \"x\"").is_empty());
    }

    #[test]
    fn bad_suite_status_names_the_file() {
        let dir = std::env::temp_dir().join(format!("weft-sdk-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("health_test.yaml");
        std::fs::write(
            &path,
            "tests:\n- healthStatus: {status: Fine}\n  inputPath: x.yaml\n",
        )
        .unwrap();
        let err = read_health_suite(&path).unwrap_err();
        assert!(err.to_string().contains("unknown health status"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
