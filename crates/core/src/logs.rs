//! The log store: bounded in-memory log streams (one per operation) that a client can follow from the first line,
//! however late it comes.
//!
//! A stream keeps its newest lines within a line and a byte bound and counts the lines it dropped. Following a
//! stream gives its backlog and a channel of the lines appended after it, taken under one lock, so nothing is
//! missed or seen twice. There is no background task: streams nobody follows are swept lazily, when a line is
//! appended or a stream is opened or followed (at most once per sweep interval, a sixteenth of the time-to-live up
//! to a second, so an append costs the same however many streams there are), once they have been idle (closed, or
//! written to and followed by no one) for the idle time-to-live; past the stream bound the stream idle for longest
//! is evicted.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use futures::Stream;
use serde::Serialize;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

/// The bounds of a [`LogStore`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogLimits {
    /// The most lines one stream keeps; older lines are dropped.
    pub max_lines_per_stream: usize,
    /// The most bytes of text one stream keeps; older lines are dropped, and a longer line is cut to this size.
    pub max_bytes_per_stream: usize,
    /// How long a stream that nobody follows lives after its last activity (a line, its close, a follow).
    pub idle_ttl: Duration,
    /// The most streams kept; a new stream evicts the one idle for longest (one nobody follows, if any).
    pub max_streams: usize,
    /// How many new lines a follower may fall behind before it is told it lost some.
    pub follow_buffer: usize,
}

impl Default for LogLimits {
    /// 10,000 lines and 4 MiB per stream, 10 minutes idle, 1024 streams, followers 1024 lines behind at most.
    fn default() -> Self {
        LogLimits {
            max_lines_per_stream: 10_000,
            max_bytes_per_stream: 4 << 20,
            idle_ttl: Duration::from_secs(10 * 60),
            max_streams: 1024,
            follow_buffer: 1024,
        }
    }
}

/// One line of a stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogLine {
    /// The line's position in its stream, from 0, without gaps: a follower sees a gap when lines were dropped.
    pub seq: u64,
    /// When the line was appended.
    pub at: jiff::Timestamp,
    /// The text, without a trailing newline.
    pub text: String,
}

/// What following a stream gives: everything kept so far, and the lines that come after.
#[derive(Debug)]
pub struct Follow {
    /// The lines the stream keeps, oldest first.
    pub backlog: Vec<LogLine>,
    /// How many lines the stream dropped (before the backlog) to stay within its bounds.
    pub dropped: u64,
    /// The lines appended after the backlog; it ends (`RecvError::Closed`) when the stream is closed or dropped,
    /// and says `RecvError::Lagged(n)` when this follower fell `n` lines behind.
    pub live: broadcast::Receiver<LogLine>,
    /// Whether the stream was already closed: then `live` ends at once.
    pub finished: bool,
}

/// An item of a followed stream, as [`Follow::into_stream`] yields them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FollowEvent {
    /// The next line.
    Line(LogLine),
    /// This many lines are missing here: dropped by the stream's bounds, or by this follower falling behind.
    Dropped(u64),
}

impl Follow {
    /// The followed stream as one sequence: `Dropped` if the stream dropped lines, the backlog, then the new lines
    /// as they come (with `Dropped` where this follower fell behind); it ends when the stream is closed.
    pub fn into_stream(self) -> impl Stream<Item = FollowEvent> + Send + 'static {
        use futures::StreamExt;

        let head = (self.dropped > 0)
            .then_some(FollowEvent::Dropped(self.dropped))
            .into_iter()
            .chain(self.backlog.into_iter().map(FollowEvent::Line));
        let live = futures::stream::unfold(self.live, |mut live| async move {
            match live.recv().await {
                Ok(line) => Some((FollowEvent::Line(line), live)),
                Err(RecvError::Lagged(missed)) => Some((FollowEvent::Dropped(missed), live)),
                Err(RecvError::Closed) => None,
            }
        });
        futures::stream::iter(head).chain(live)
    }
}

/// Bounded in-memory log streams, shared by cloning.
#[derive(Debug, Clone, Default)]
pub struct LogStore {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    limits: LogLimits,
    streams: Mutex<Streams>,
}

/// The streams, and when they were last swept.
#[derive(Debug, Default)]
struct Streams {
    by_name: HashMap<String, LogStream>,
    swept_at: Option<Instant>,
}

/// The longest time between two lazy sweeps.
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);

#[derive(Debug)]
struct LogStream {
    lines: VecDeque<LogLine>,
    bytes: usize,
    dropped: u64,
    next_seq: u64,
    closed: bool,
    /// Made for the first follower and dropped once no one follows, so unfollowed streams keep no channel.
    live: Option<broadcast::Sender<LogLine>>,
    last_active: Instant,
}

impl LogStream {
    fn new(now: Instant) -> Self {
        LogStream {
            lines: VecDeque::new(),
            bytes: 0,
            dropped: 0,
            next_seq: 0,
            closed: false,
            live: None,
            last_active: now,
        }
    }

    fn followed(&self) -> bool {
        self.live.as_ref().is_some_and(|tx| tx.receiver_count() > 0)
    }
}

impl LogStore {
    /// An empty store with these bounds (a bound of 0 is taken as 1).
    pub fn new(limits: LogLimits) -> Self {
        let limits = LogLimits {
            max_lines_per_stream: limits.max_lines_per_stream.max(1),
            max_bytes_per_stream: limits.max_bytes_per_stream.max(1),
            max_streams: limits.max_streams.max(1),
            follow_buffer: limits.follow_buffer.max(1),
            ..limits
        };
        LogStore {
            inner: Arc::new(Inner {
                limits,
                streams: Mutex::new(Streams::default()),
            }),
        }
    }

    /// The store's bounds.
    pub fn limits(&self) -> LogLimits {
        self.inner.limits
    }

    /// Creates `stream` if it does not exist, so that it can be followed before its first line.
    pub fn open(&self, stream: &str) {
        self.open_at(stream, Instant::now());
    }

    /// [`open`](Self::open) at a given time.
    pub fn open_at(&self, stream: &str, now: Instant) {
        let mut streams = self.lock();
        self.sweep_lazily(&mut streams, now, stream);
        self.entry(&mut streams.by_name, stream, now).last_active = now;
    }

    /// Appends a line to `stream`, creating it if needed. Lines appended after [`close`](Self::close) are
    /// discarded: a closed stream's followers have ended.
    pub fn append(&self, stream: &str, line: impl Into<String>) {
        self.append_at(stream, line, Instant::now());
    }

    /// [`append`](Self::append) at a given time.
    pub fn append_at(&self, stream: &str, line: impl Into<String>, now: Instant) {
        // Logs are followed by the app's tenants: no line carries the server's paths.
        let mut text = crate::redact::for_tenants(&line.into());
        let limits = self.inner.limits;
        truncate_at_char(&mut text, limits.max_bytes_per_stream);
        let mut streams = self.lock();
        self.sweep_lazily(&mut streams, now, stream);
        let log = self.entry(&mut streams.by_name, stream, now);
        if log.closed {
            tracing::debug!(stream, "a line for a closed log stream was discarded");
            return;
        }
        log.last_active = now;
        let line = LogLine {
            seq: log.next_seq,
            at: jiff::Timestamp::now(),
            text,
        };
        log.next_seq += 1;
        log.bytes += line.text.len();
        if let Some(live) = &log.live {
            if live.receiver_count() == 0 {
                log.live = None;
            } else {
                // Sent under the lock, like a follow's subscription: no line falls between backlog and live.
                let _ = live.send(line.clone());
            }
        }
        log.lines.push_back(line);
        while log.lines.len() > limits.max_lines_per_stream
            || log.bytes > limits.max_bytes_per_stream
        {
            let Some(old) = log.lines.pop_front() else {
                break;
            };
            log.bytes -= old.text.len();
            log.dropped += 1;
        }
    }

    /// Marks `stream` finished: its followers end after the lines they have, and it is swept once idle.
    pub fn close(&self, stream: &str) {
        self.close_at(stream, Instant::now());
    }

    /// [`close`](Self::close) at a given time.
    pub fn close_at(&self, stream: &str, now: Instant) {
        let mut streams = self.lock();
        if let Some(log) = streams.by_name.get_mut(stream) {
            log.closed = true;
            log.live = None;
            log.last_active = now;
        }
    }

    /// Follows `stream`: its backlog and a channel of the lines that come after, or `None` if there is no such
    /// stream (never opened, or swept).
    pub fn follow(&self, stream: &str) -> Option<Follow> {
        self.follow_at(stream, Instant::now())
    }

    /// [`follow`](Self::follow) at a given time.
    pub fn follow_at(&self, stream: &str, now: Instant) -> Option<Follow> {
        let mut streams = self.lock();
        self.sweep_lazily(&mut streams, now, stream);
        let log = streams.by_name.get_mut(stream)?;
        log.last_active = now;
        let live = if log.closed {
            // A receiver whose sender is gone: it ends at once.
            broadcast::channel(1).1
        } else {
            match &log.live {
                Some(live) => live.subscribe(),
                None => {
                    let (live, receiver) = broadcast::channel(self.inner.limits.follow_buffer);
                    log.live = Some(live);
                    receiver
                }
            }
        };
        Some(Follow {
            backlog: log.lines.iter().cloned().collect(),
            dropped: log.dropped,
            live,
            finished: log.closed,
        })
    }

    /// The lines `stream` keeps now, oldest first (none for an unknown stream).
    pub fn lines(&self, stream: &str) -> Vec<LogLine> {
        self.lock()
            .by_name
            .get(stream)
            .map(|log| log.lines.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Whether `stream` is kept.
    pub fn contains(&self, stream: &str) -> bool {
        self.lock().by_name.contains_key(stream)
    }

    /// How many streams are kept.
    pub fn len(&self) -> usize {
        self.lock().by_name.len()
    }

    /// Whether no stream is kept.
    pub fn is_empty(&self) -> bool {
        self.lock().by_name.is_empty()
    }

    /// Drops the streams nobody follows that have been idle for longer than the idle time-to-live at `now`. A
    /// followed stream counts as active at every sweep. Appending, opening and following sweep already; this is
    /// for callers that want to free memory without writing.
    pub fn sweep(&self, now: Instant) {
        let mut streams = self.lock();
        self.sweep_locked(&mut streams, now, None);
    }

    /// Sweeps if the last sweep was a sweep interval ago or more, keeping `keep` (the stream being written).
    fn sweep_lazily(&self, streams: &mut Streams, now: Instant, keep: &str) {
        let interval = SWEEP_INTERVAL.min(self.inner.limits.idle_ttl / 16);
        if streams
            .swept_at
            .is_none_or(|at| now.saturating_duration_since(at) >= interval)
        {
            self.sweep_locked(streams, now, Some(keep));
        }
    }

    fn sweep_locked(&self, streams: &mut Streams, now: Instant, keep: Option<&str>) {
        let ttl = self.inner.limits.idle_ttl;
        streams.swept_at = Some(now);
        streams.by_name.retain(|name, log| {
            if log.followed() {
                log.last_active = now;
                return true;
            }
            Some(name.as_str()) == keep || now.saturating_duration_since(log.last_active) <= ttl
        });
    }

    /// The stream named `stream`, made (evicting past the stream bound) if it does not exist.
    fn entry<'a>(
        &self,
        streams: &'a mut HashMap<String, LogStream>,
        stream: &str,
        now: Instant,
    ) -> &'a mut LogStream {
        if !streams.contains_key(stream) {
            while streams.len() >= self.inner.limits.max_streams {
                let evict = streams
                    .iter()
                    .min_by_key(|(_, log)| (log.followed(), log.last_active))
                    .map(|(name, _)| name.clone());
                match evict {
                    Some(name) => streams.remove(&name),
                    None => break,
                };
            }
        }
        streams
            .entry(stream.to_string())
            .or_insert_with(|| LogStream::new(now))
    }

    fn lock(&self) -> MutexGuard<'_, Streams> {
        // The map stays consistent even if a holder panicked: every change is made in one step.
        self.inner
            .streams
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Cuts `text` to at most `max` bytes, on a character boundary.
fn truncate_at_char(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::*;

    fn limits() -> LogLimits {
        LogLimits {
            max_lines_per_stream: 100,
            max_bytes_per_stream: 10_000,
            idle_ttl: Duration::from_secs(60),
            max_streams: 10,
            follow_buffer: 64,
        }
    }

    fn texts(events: &[FollowEvent]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                FollowEvent::Line(line) => format!("{}:{}", line.seq, line.text),
                FollowEvent::Dropped(n) => format!("dropped {n}"),
            })
            .collect()
    }

    #[tokio::test]
    async fn a_late_follower_sees_backlog_then_new_lines_once_in_order() {
        let store = LogStore::new(limits());
        store.append("build", "one");
        store.append("build", "two");
        let follow = store.follow("build").unwrap();
        assert!(!follow.finished);
        assert_eq!(follow.dropped, 0);
        store.append("build", "three");
        store.close("build");
        let events: Vec<FollowEvent> = follow.into_stream().collect().await;
        assert_eq!(texts(&events), ["0:one", "1:two", "2:three"]);
        assert_eq!(store.lines("build").len(), 3);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn following_while_lines_arrive_has_no_gap_and_no_duplicate() {
        const LINES: u64 = 2_000;
        // Bounds that keep every line (2,000 lines of ~9 bytes are over the usual test bound of 10,000 bytes: a
        // follower that came late saw the oldest lines dropped, which is the bound working, not a gap).
        let store = LogStore::new(LogLimits {
            follow_buffer: LINES as usize,
            max_lines_per_stream: LINES as usize,
            max_bytes_per_stream: 1_000_000,
            ..limits()
        });
        store.open("build");
        let writer = {
            let store = store.clone();
            tokio::task::spawn_blocking(move || {
                for i in 0..LINES {
                    store.append("build", format!("line {i}"));
                }
                store.close("build");
            })
        };
        // Follow again and again while the writer runs, until the stream is closed.
        let mut followers = Vec::new();
        loop {
            let follow = store.follow("build").unwrap();
            let finished = follow.finished;
            followers.push(follow);
            if finished || followers.len() >= 64 {
                break;
            }
            tokio::task::yield_now().await;
        }
        writer.await.unwrap();
        for follow in followers {
            let events: Vec<FollowEvent> = follow.into_stream().collect().await;
            let seqs: Vec<u64> = events
                .iter()
                .map(|e| match e {
                    FollowEvent::Line(line) => line.seq,
                    FollowEvent::Dropped(n) => panic!("dropped {n}"),
                })
                .collect();
            assert_eq!(seqs, (0..LINES).collect::<Vec<_>>());
        }
    }

    #[tokio::test]
    async fn bounds_drop_the_oldest_lines_and_count_them() {
        let store = LogStore::new(LogLimits {
            max_lines_per_stream: 3,
            ..limits()
        });
        for i in 0..5 {
            store.append("s", format!("l{i}"));
        }
        let kept: Vec<String> = store.lines("s").into_iter().map(|l| l.text).collect();
        assert_eq!(kept, ["l2", "l3", "l4"]);
        let follow = store.follow("s").unwrap();
        assert_eq!(follow.dropped, 2);
        store.close("s");
        let events: Vec<FollowEvent> = follow.into_stream().collect().await;
        assert_eq!(texts(&events), ["dropped 2", "2:l2", "3:l3", "4:l4"]);

        let store = LogStore::new(LogLimits {
            max_bytes_per_stream: 10,
            ..limits()
        });
        for text in ["aaaa", "bbbb", "cccc", "dddd"] {
            store.append("s", text);
        }
        let kept: Vec<String> = store.lines("s").into_iter().map(|l| l.text).collect();
        assert_eq!(kept, ["cccc", "dddd"]);
        assert_eq!(store.follow("s").unwrap().dropped, 2);
        // A line longer than the bound is cut on a character boundary and replaces everything.
        store.append("s", "ééééééé");
        let kept: Vec<String> = store.lines("s").into_iter().map(|l| l.text).collect();
        assert_eq!(kept, ["ééééé"]);
        assert_eq!(store.follow("s").unwrap().dropped, 4);
    }

    #[tokio::test]
    async fn close_ends_followers_and_later_follows() {
        let store = LogStore::new(limits());
        store.append("s", "a");
        let mut follow = store.follow("s").unwrap();
        store.close("s");
        assert!(matches!(follow.live.recv().await, Err(RecvError::Closed)));

        let late = store.follow("s").unwrap();
        assert!(late.finished);
        let events: Vec<FollowEvent> = late.into_stream().collect().await;
        assert_eq!(texts(&events), ["0:a"]);

        // Lines after close are discarded.
        store.append("s", "b");
        assert_eq!(store.lines("s").len(), 1);
    }

    #[tokio::test]
    async fn a_follower_that_falls_behind_is_told() {
        let store = LogStore::new(LogLimits {
            follow_buffer: 2,
            ..limits()
        });
        store.open("s");
        let follow = store.follow("s").unwrap();
        for i in 0..5 {
            store.append("s", format!("l{i}"));
        }
        store.close("s");
        let events: Vec<FollowEvent> = follow.into_stream().collect().await;
        assert_eq!(texts(&events), ["dropped 3", "3:l3", "4:l4"]);
        // The store itself kept every line.
        assert_eq!(store.lines("s").len(), 5);
    }

    #[test]
    fn unknown_streams_cannot_be_followed() {
        let store = LogStore::new(limits());
        assert!(store.follow("nope").is_none());
        assert!(store.lines("nope").is_empty());
        store.open("early");
        let follow = store.follow("early").unwrap();
        assert!(follow.backlog.is_empty() && !follow.finished);
    }

    #[test]
    fn idle_streams_nobody_follows_are_swept() {
        let store = LogStore::new(limits());
        let ttl = limits().idle_ttl;
        let t0 = Instant::now();
        store.append_at("old", "x", t0);
        store.append_at("closed", "x", t0);
        store.close_at("closed", t0 + ttl / 2);
        let held = store.follow_at("held", t0);
        assert!(held.is_none());
        store.append_at("held", "x", t0);
        let held = store.follow_at("held", t0).unwrap();

        // Within the time-to-live everything stays.
        store.append_at("new", "x", t0 + ttl);
        assert_eq!(store.len(), 4);

        // Past it, the idle stream goes; the closed one lives ttl after its close; the followed one stays.
        store.append_at("new", "y", t0 + ttl + Duration::from_secs(1));
        assert!(!store.contains("old"));
        assert!(store.contains("closed"));
        assert!(store.contains("held"));
        store.sweep(t0 + ttl + ttl / 2 + Duration::from_secs(1));
        assert!(!store.contains("closed"));
        assert!(store.contains("held"));

        // Once its follower is gone, it lives ttl after the last sweep that saw the follower.
        drop(held);
        let last_seen = t0 + ttl + ttl / 2 + Duration::from_secs(1);
        store.sweep(last_seen + ttl);
        assert!(store.contains("held"));
        store.sweep(last_seen + ttl + Duration::from_secs(1));
        assert!(!store.contains("held"));
    }

    #[test]
    fn appends_sweep_at_most_once_per_sweep_interval() {
        let store = LogStore::new(limits());
        let ttl = limits().idle_ttl;
        let t0 = Instant::now();
        store.append_at("old", "x", t0);
        // A sweep at t0 + ttl keeps "old" (idle for exactly the time-to-live).
        store.append_at("busy", "a", t0 + ttl);
        assert!(store.contains("old"));
        // A millisecond later "old" is past it, but the last sweep was a millisecond ago: no sweep yet.
        store.append_at("busy", "b", t0 + ttl + Duration::from_millis(1));
        assert!(store.contains("old"));
        // A sweep interval (a second, for a minute's time-to-live) after the last sweep, the next append sweeps.
        store.append_at("busy", "c", t0 + ttl + Duration::from_secs(1));
        assert!(!store.contains("old"));
        assert!(store.contains("busy"));
    }

    #[test]
    fn a_quiet_stream_is_not_swept_by_its_own_write() {
        let store = LogStore::new(limits());
        let t0 = Instant::now();
        store.append_at("quiet", "before", t0);
        store.append_at("quiet", "after", t0 + limits().idle_ttl * 5);
        let kept: Vec<String> = store.lines("quiet").into_iter().map(|l| l.text).collect();
        assert_eq!(kept, ["before", "after"]);
    }

    #[test]
    fn past_the_stream_bound_the_longest_idle_unfollowed_stream_goes() {
        let store = LogStore::new(LogLimits {
            max_streams: 2,
            ..limits()
        });
        let t0 = Instant::now();
        store.append_at("a", "x", t0);
        store.append_at("b", "x", t0 + Duration::from_secs(1));
        store.append_at("c", "x", t0 + Duration::from_secs(2));
        assert!(!store.contains("a"));
        assert!(store.contains("b") && store.contains("c"));

        // b is older but followed, so c goes.
        let _follow = store.follow_at("b", t0 + Duration::from_secs(3)).unwrap();
        store.append_at("c", "y", t0 + Duration::from_secs(4));
        store.append_at("d", "x", t0 + Duration::from_secs(5));
        assert!(store.contains("b") && store.contains("d") && !store.contains("c"));
    }
}
