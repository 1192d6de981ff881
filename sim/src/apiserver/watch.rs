//! Starting a watch: the synthetic initial events or the replayed history, and a live event receiver,
//! taken together under the lock so that no event falls between them.

use std::sync::Arc;

use tokio::sync::broadcast;

use super::ApiServer;
use crate::api_error::ApiError;
use crate::resource::ResourceType;
use crate::store::{HistoryError, StoredObject, WatchEvent};

/// Where a watch starts.
#[derive(Debug)]
pub struct WatchStart {
    /// Existing objects to send as ADDED first (when the watch started without a resourceVersion, or with
    /// `sendInitialEvents`).
    pub initial: Vec<Arc<StoredObject>>,
    /// Past events to replay (when the watch started from a resourceVersion).
    pub replay: Vec<Arc<WatchEvent>>,
    /// Events from now on.
    pub receiver: broadcast::Receiver<Arc<WatchEvent>>,
    /// The resourceVersion the initial state corresponds to.
    pub revision: u64,
}

impl ApiServer {
    /// Starts a watch of a resource from a resourceVersion (`None` for "now, with the current state").
    pub fn start_watch(
        &self,
        resource: &ResourceType,
        namespace: Option<&str>,
        from: Option<u64>,
        send_initial_events: bool,
    ) -> Result<WatchStart, ApiError> {
        let state = self.lock();
        let receiver = state.store.subscribe();
        let revision = state.store.revision();
        let key = resource.key();
        let (initial, replay) = match from {
            Some(from) if !send_initial_events => {
                let replay = state
                    .store
                    .events_since(from)
                    .map_err(|error| match error {
                        HistoryError::TooOld { .. } => ApiError::Gone(error.to_string()),
                    })?;
                let replay = replay
                    .into_iter()
                    .filter(|event| event.resource == key)
                    .collect();
                (Vec::new(), replay)
            }
            _ => (
                state.store.scan(&key, namespace, None).cloned().collect(),
                Vec::new(),
            ),
        };
        Ok(WatchStart {
            initial,
            replay,
            receiver,
            revision,
        })
    }
}
