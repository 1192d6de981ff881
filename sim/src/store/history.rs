//! Watch events and the bounded history that lets a watch resume from a recent resourceVersion.

use std::collections::VecDeque;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;

use super::StoredObject;
use crate::resource::ResourceKey;

/// The kind of change a watch event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// The object was created.
    Added,
    /// The object changed.
    Modified,
    /// The object was removed.
    Deleted,
}

impl EventType {
    /// The event type as sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Added => "ADDED",
            Self::Modified => "MODIFIED",
            Self::Deleted => "DELETED",
        }
    }
}

/// One change to one object.
#[derive(Debug)]
pub struct WatchEvent {
    /// The resourceVersion of the change.
    pub resource_version: u64,
    /// The object's resource.
    pub resource: ResourceKey,
    /// What happened.
    pub event_type: EventType,
    /// The object after the change (for a deletion: the last state, restamped).
    pub object: Arc<StoredObject>,
    /// The object before the change, if it existed.
    pub previous: Option<Arc<StoredObject>>,
    line: OnceLock<Bytes>,
}

impl WatchEvent {
    /// An event.
    pub fn new(
        resource_version: u64,
        resource: ResourceKey,
        event_type: EventType,
        object: Arc<StoredObject>,
        previous: Option<Arc<StoredObject>>,
    ) -> Self {
        Self {
            resource_version,
            resource,
            event_type,
            object,
            previous,
            line: OnceLock::new(),
        }
    }

    /// The event as one line of a watch stream, serialised once and shared by every watcher.
    pub fn line(&self) -> Bytes {
        self.line
            .get_or_init(|| encode_event(self.event_type.as_str(), &self.object.json))
            .clone()
    }
}

/// Encodes `{"type":TYPE,"object":OBJECT}` followed by a newline.
pub fn encode_event(event_type: &str, object_json: &[u8]) -> Bytes {
    let mut line = Vec::with_capacity(object_json.len() + 32);
    line.extend_from_slice(b"{\"type\":\"");
    line.extend_from_slice(event_type.as_bytes());
    line.extend_from_slice(b"\",\"object\":");
    line.extend_from_slice(object_json);
    line.extend_from_slice(b"}\n");
    Bytes::from(line)
}

/// A watch asked for a resourceVersion older than the retained history.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// Events after the requested version were already dropped.
    #[error("too old resource version: {requested} ({oldest})")]
    TooOld {
        /// The resourceVersion the watch asked for.
        requested: u64,
        /// The oldest resourceVersion a watch can start from.
        oldest: u64,
    },
}

/// The last events, oldest first.
#[derive(Debug)]
pub struct History {
    events: VecDeque<Arc<WatchEvent>>,
    capacity: usize,
    compacted_through: u64,
}

impl History {
    /// An empty history holding at most `capacity` events.
    pub fn new(capacity: usize) -> Self {
        Self {
            events: VecDeque::new(),
            capacity: capacity.max(1),
            compacted_through: 0,
        }
    }

    /// Appends an event, dropping the oldest when full.
    pub fn push(&mut self, event: Arc<WatchEvent>) {
        if self.events.len() == self.capacity
            && let Some(dropped) = self.events.pop_front()
        {
            self.compacted_through = dropped.resource_version;
        }
        self.events.push_back(event);
    }

    /// Events with a resourceVersion greater than `after`.
    pub fn since(&self, after: u64, current: u64) -> Result<Vec<Arc<WatchEvent>>, HistoryError> {
        if after >= current {
            return Ok(Vec::new());
        }
        if after < self.compacted_through {
            return Err(HistoryError::TooOld {
                requested: after,
                oldest: self.compacted_through,
            });
        }
        let start = self
            .events
            .partition_point(|event| event.resource_version <= after);
        Ok(self.events.range(start..).cloned().collect())
    }

    /// Forgets every event up to `through`.
    pub fn compact(&mut self, through: u64) {
        self.events.retain(|event| event.resource_version > through);
        self.compacted_through = self.compacted_through.max(through);
    }

    /// The resourceVersion of the newest dropped event.
    pub fn compacted_through(&self) -> u64 {
        self.compacted_through
    }
}
