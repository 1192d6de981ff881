//! What a plugin's store holds during one call, and the host side of the imports it may use.

use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use super::bindings::health_check::weft::plugin::{clock, log, related, settings, types};
use super::bindings::renderer::weft::plugin::cluster as wit_cluster;
use super::bindings::renderer::weft::plugin::entropy as wit_entropy;
use super::bindings::renderer::weft::plugin::live as wit_live;
use super::bindings::renderer::weft::plugin::revision as wit_revision;
use super::bindings::renderer::weft::plugin::source as wit_source;

/// Objects a health plugin may look up while it assesses (its `related` import).
pub trait RelatedObjects: Send + Sync {
    /// JSON texts of the objects whose ownerReferences name `uid`. The host reduces Secrets to their metadata (and
    /// drops text that is not a JSON object) before a plugin sees them, whatever an implementation returns.
    fn children(&self, uid: &str) -> Vec<String>;
}

/// No related objects.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRelated;

impl RelatedObjects for NoRelated {
    fn children(&self, _uid: &str) -> Vec<String> {
        Vec::new()
    }
}

/// One line a plugin logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// Severity.
    pub level: tracing::Level,
    /// The text.
    pub message: String,
}

/// A source tree a plugin may read during a call.
pub type SharedSource = Arc<dyn weft_sdk::Source + Send + Sync>;

/// The per-call store data.
pub(crate) struct CallState {
    pub(crate) memory: MemoryCap,
    pub(crate) logs: CallLog,
    pub(crate) related: Arc<dyn RelatedObjects>,
    pub(crate) source: Option<SharedSource>,
    /// What a render's destination cluster serves (the `cluster` import), when the render is for one.
    pub(crate) cluster: Option<weft_sdk::ClusterFacts>,
    /// The app's render seed (the `entropy` import), when the render has one.
    pub(crate) seed: Option<weft_sdk::RenderSeed>,
    /// When the rendered revision was committed (the `revision` import), when the source knows.
    pub(crate) revision_time: Option<i64>,
    /// What the render may read of its destination cluster (the `live` import); `None` answers nothing.
    pub(crate) lookup: Option<weft_sdk::Lookup>,
    /// The settings of the registry entry this call goes through (JSON text; empty when none).
    pub(crate) settings: Arc<str>,
    /// The wall clock when the call started (what `clock.call-started` returns for the whole call).
    pub(crate) started_at: SystemTime,
    /// The monotonic clock when the call started (`clock.elapsed` counts from it).
    pub(crate) started: Instant,
    /// The deny-all WASI of a guest-runtime plugin's call (`None` for native plugins, which import no WASI).
    pub(crate) wasi: Option<Box<super::guest_wasi::GuestWasi>>,
}

impl CallState {
    pub(crate) fn new(memory_limit: usize, max_log_bytes: usize) -> Self {
        CallState {
            memory: MemoryCap {
                limit: memory_limit,
                denied: false,
            },
            logs: CallLog::new(max_log_bytes),
            related: Arc::new(NoRelated),
            source: None,
            cluster: None,
            seed: None,
            revision_time: None,
            lookup: None,
            settings: Arc::from(""),
            started_at: SystemTime::now(),
            started: Instant::now(),
            wasi: None,
        }
    }
}

impl CallState {
    /// Moves what a guest-runtime plugin printed into the call's log: standard output at info, standard error at
    /// warn, a line each, within the log's budget.
    pub(crate) fn keep_standard_output(&mut self) {
        let Some(wasi) = self.wasi.take() else {
            return;
        };
        let (stdout, stderr) = wasi.output();
        for (text, level) in [
            (stdout, tracing::Level::INFO),
            (stderr, tracing::Level::WARN),
        ] {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                self.logs.push(level, line.to_string());
            }
        }
    }
}

/// Caps linear memory; remembers a refusal so the host can tell an out-of-memory trap from any other.
pub(crate) struct MemoryCap {
    pub(crate) limit: usize,
    pub(crate) denied: bool,
}

impl wasmtime::ResourceLimiter for MemoryCap {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.limit {
            self.denied = true;
            // An error (not `Ok(false)`) makes the growth trap at once, like `trap_on_grow_failure`: a plugin
            // cannot catch it and limp on.
            wasmtime::bail!("memory limit of {} bytes reached", self.limit);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1 << 16)
    }
}

/// The lines a call logged, bounded in bytes; a panic message is kept aside.
pub(crate) struct CallLog {
    budget: usize,
    pub(crate) lines: Vec<LogLine>,
    pub(crate) dropped: usize,
    pub(crate) panic: Option<String>,
}

/// The longest panic message kept.
const MAX_PANIC_MESSAGE: usize = 4096;
/// What a line costs the log budget besides its text (the host's own record of it): empty lines are not free.
pub(crate) const LOG_LINE_OVERHEAD: usize = 64;

impl CallLog {
    fn new(budget: usize) -> Self {
        CallLog {
            budget,
            lines: Vec::new(),
            dropped: 0,
            panic: None,
        }
    }

    pub(crate) fn push(&mut self, level: tracing::Level, message: String) {
        if level == tracing::Level::ERROR
            && let Some(panic) = message.strip_prefix("panic: ")
        {
            self.panic = Some(truncate(panic, MAX_PANIC_MESSAGE).to_string());
        }
        let cost = message.len() + LOG_LINE_OVERHEAD;
        if cost > self.budget {
            self.dropped = self.dropped.saturating_add(1);
            return;
        }
        self.budget -= cost;
        self.lines.push(LogLine { level, message });
    }
}

fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

impl types::Host for CallState {}

impl log::Host for CallState {
    fn log(&mut self, level: log::Level, message: String) {
        let level = match level {
            log::Level::Trace => tracing::Level::TRACE,
            log::Level::Debug => tracing::Level::DEBUG,
            log::Level::Info => tracing::Level::INFO,
            log::Level::Warn => tracing::Level::WARN,
            log::Level::Error => tracing::Level::ERROR,
        };
        self.logs.push(level, message);
    }
}

impl related::Host for CallState {
    fn children(&mut self, uid: String) -> Vec<String> {
        self.related
            .children(&uid)
            .iter()
            .filter_map(|json| weft_core::secrets::metadata_only_json(json))
            .collect()
    }
}

impl settings::Host for CallState {
    fn get(&mut self) -> String {
        self.settings.to_string()
    }
}

impl clock::Host for CallState {
    fn call_started(&mut self) -> clock::Instant {
        let since_epoch = self
            .started_at
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        clock::Instant {
            seconds: i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX),
            nanoseconds: since_epoch.subsec_nanos(),
        }
    }

    fn elapsed(&mut self) -> u64 {
        u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

impl wit_source::Host for CallState {
    fn read_file(&mut self, path: String) -> Result<Vec<u8>, wit_source::SourceError> {
        match &self.source {
            Some(source) => source.read_file(&path).map_err(to_wit_source_error),
            None => Err(wit_source::SourceError::NotAllowed(
                "this call has no source tree".into(),
            )),
        }
    }

    fn list_dir(
        &mut self,
        path: String,
    ) -> Result<Vec<wit_source::DirEntry>, wit_source::SourceError> {
        let Some(source) = &self.source else {
            return Err(wit_source::SourceError::NotAllowed(
                "this call has no source tree".into(),
            ));
        };
        let entries = source.list_dir(&path).map_err(to_wit_source_error)?;
        Ok(entries
            .into_iter()
            .map(|e| wit_source::DirEntry {
                name: e.name,
                kind: match e.kind {
                    weft_sdk::EntryKind::File => wit_source::EntryKind::File,
                    weft_sdk::EntryKind::Directory => wit_source::EntryKind::Directory,
                },
                size: e.size,
            })
            .collect())
    }
}

impl wit_cluster::Host for CallState {
    fn facts(&mut self) -> Option<wit_cluster::ClusterFacts> {
        self.cluster
            .as_ref()
            .map(|facts| wit_cluster::ClusterFacts {
                kube_version: facts.kube_version.clone(),
                api_versions: facts.api_versions.clone(),
            })
    }
}

impl wit_entropy::Host for CallState {
    fn seed(&mut self) -> Vec<u8> {
        self.seed
            .as_ref()
            .map(|seed| seed.bytes().to_vec())
            .unwrap_or_default()
    }
}

impl wit_revision::Host for CallState {
    fn committed_at(&mut self) -> Option<i64> {
        self.revision_time
    }
}

impl wit_live::Host for CallState {
    fn lookup(
        &mut self,
        api_version: String,
        kind: String,
        namespace: String,
        name: String,
    ) -> Option<String> {
        let answer = self
            .lookup
            .as_ref()?
            .lookup(&api_version, &kind, &namespace, &name)?;
        without_secret_values(answer, &api_version, &kind).map(|answer| answer.to_string())
    }
}

/// A lookup's answer as a plugin may see it: a Secret, and every Secret among a list's `items`, reduced to its
/// metadata, whatever the implementation answered. An object or item that does not say what it is counts as the
/// kind asked for (so a Secret without `kind` is still a Secret); anything but a JSON object is no answer.
fn without_secret_values(
    mut answer: serde_json::Value,
    api_version: &str,
    kind: &str,
) -> Option<serde_json::Value> {
    fn reduced(mut object: serde_json::Value, api_version: &str, kind: &str) -> serde_json::Value {
        if let Some(fields) = object.as_object_mut() {
            for (key, asked) in [("apiVersion", api_version), ("kind", kind)] {
                fields
                    .entry(key)
                    .or_insert_with(|| serde_json::Value::String(asked.to_string()));
            }
        }
        weft_core::secrets::metadata_only(&object)
    }
    if !answer.is_object() {
        return None;
    }
    if let Some(serde_json::Value::Array(items)) = answer.get_mut("items") {
        for item in items.iter_mut() {
            *item = reduced(item.take(), api_version, kind);
        }
    }
    // The answer itself too, list or not: a Secret with a field named `items` is still a Secret.
    Some(reduced(answer, api_version, kind))
}

fn to_wit_source_error(error: weft_sdk::SourceError) -> wit_source::SourceError {
    match error {
        weft_sdk::SourceError::NotFound(m) => wit_source::SourceError::NotFound(m),
        weft_sdk::SourceError::NotAllowed(m) => wit_source::SourceError::NotAllowed(m),
        weft_sdk::SourceError::TooLarge(m) => wit_source::SourceError::TooLarge(m),
        weft_sdk::SourceError::Io(m) => wit_source::SourceError::Io(m),
    }
}

impl super::guest_wasi::GuestWasiHolder for CallState {
    fn guest_wasi(&mut self) -> &mut super::guest_wasi::GuestWasi {
        let started_at = self.started_at;
        self.wasi
            .get_or_insert_with(|| Box::new(super::guest_wasi::GuestWasi::deny_all(started_at, 0)))
    }
}

impl wasmtime_wasi::WasiView for CallState {
    fn ctx(&mut self) -> wasmtime_wasi::WasiCtxView<'_> {
        use super::guest_wasi::GuestWasiHolder;
        self.guest_wasi().view()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Children(Vec<String>);

    impl RelatedObjects for Children {
        fn children(&self, _uid: &str) -> Vec<String> {
            self.0.clone()
        }
    }

    #[test]
    fn a_related_secret_arrives_as_its_metadata_and_garbage_never_arrives() {
        let mut state = CallState::new(1024, 1024);
        state.related = Arc::new(Children(vec![
            r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"a":"c2VjcmV0"}}"#.into(),
            "not json".into(),
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}"#.into(),
        ]));
        let children = related::Host::children(&mut state, "owner".into());
        assert_eq!(children.len(), 2, "{children:?}");
        assert!(!children[0].contains("c2VjcmV0"), "{children:?}");
        assert!(children[0].contains("\"name\":\"s\""));
        assert!(children[1].contains("ConfigMap"));
    }

    #[test]
    fn settings_and_clock_answer_for_the_call() {
        let mut state = CallState::new(1024, 1024);
        assert_eq!(settings::Host::get(&mut state), "");
        state.settings = Arc::from("{\"script\":\"return nil\"}");
        assert_eq!(
            settings::Host::get(&mut state),
            "{\"script\":\"return nil\"}"
        );
        let first = clock::Host::call_started(&mut state);
        std::thread::sleep(std::time::Duration::from_millis(1));
        let second = clock::Host::call_started(&mut state);
        assert_eq!(
            (first.seconds, first.nanoseconds),
            (second.seconds, second.nanoseconds)
        );
        assert!(first.seconds > 1_577_836_800);
        assert!(clock::Host::elapsed(&mut state) >= 1_000_000);
    }

    #[test]
    fn a_render_reads_its_seed_and_revision_time_and_nothing_without_them() {
        let mut state = CallState::new(1024, 1024);
        assert!(wit_entropy::Host::seed(&mut state).is_empty());
        assert_eq!(wit_revision::Host::committed_at(&mut state), None);
        state.seed = Some(weft_sdk::RenderSeed::new([7; 32]));
        state.revision_time = Some(1_700_000_000);
        assert_eq!(wit_entropy::Host::seed(&mut state), vec![7; 32]);
        assert_eq!(
            wit_revision::Host::committed_at(&mut state),
            Some(1_700_000_000)
        );
    }

    #[test]
    fn a_lookup_answers_nothing_when_off_and_never_a_secrets_values() {
        let mut state = CallState::new(1024, 1024);
        let ask = |state: &mut CallState, name: &str| {
            wit_live::Host::lookup(
                state,
                "v1".into(),
                "Secret".into(),
                "shop".into(),
                name.into(),
            )
        };
        assert_eq!(ask(&mut state, "db"), None);
        let secret = serde_json::json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "db", "namespace": "shop", "annotations": {"a": "c2VjcmV0"}},
            "data": {"password": "c2VjcmV0"}, "stringData": {"password": "secret"},
        });
        state.lookup = Some(weft_sdk::Lookup::new(weft_sdk::FixedObjects::new(vec![
            secret,
        ])));
        let one = ask(&mut state, "db").expect("the Secret is found");
        assert!(one.contains("\"name\":\"db\""), "{one}");
        assert!(
            !one.contains("c2VjcmV0") && !one.contains("secret\""),
            "{one}"
        );
        let list = ask(&mut state, "").expect("a list is answered");
        assert!(
            list.contains("SecretList") && list.contains("\"db\""),
            "{list}"
        );
        assert!(
            !list.contains("c2VjcmV0") && !list.contains("stringData"),
            "{list}"
        );
        assert_eq!(ask(&mut state, "other"), None);
    }

    #[test]
    fn log_is_bounded_and_keeps_the_panic() {
        let mut log = CallLog::new(10 + LOG_LINE_OVERHEAD);
        log.push(tracing::Level::INFO, "12345".into());
        log.push(tracing::Level::INFO, "123456".into());
        log.push(tracing::Level::ERROR, "panic: boom".into());
        assert_eq!(log.lines.len(), 1);
        assert_eq!(log.dropped, 2);
        assert_eq!(log.panic.as_deref(), Some("boom"));
    }

    #[test]
    fn empty_lines_are_charged_so_they_cannot_fill_the_host() {
        let mut log = CallLog::new(64 * 1024);
        for _ in 0..1_000_000 {
            log.push(tracing::Level::INFO, String::new());
        }
        assert_eq!(log.lines.len(), 64 * 1024 / LOG_LINE_OVERHEAD);
        assert_eq!(log.dropped, 1_000_000 - log.lines.len());
    }
}
