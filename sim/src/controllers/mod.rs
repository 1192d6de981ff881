//! Simulated controllers: a loop that runs each controller in turn on the configured interval.

use std::sync::Arc;

use tokio::task::JoinHandle;

use crate::apiserver::ApiServer;

/// Starts the controller loop.
pub fn spawn(server: Arc<ApiServer>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(server.config().controller_interval);
        loop {
            ticker.tick().await;
        }
    })
}
