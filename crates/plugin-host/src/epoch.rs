//! The clock behind plugin deadlines: a thread that advances the engines' epochs at a fixed period.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use wasmtime::Engine;

/// Advances the epoch of some engines every `period` until dropped.
#[derive(Debug)]
pub(crate) struct EpochTicker {
    period: Duration,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl EpochTicker {
    /// Starts the ticker thread.
    pub(crate) fn start(engines: Vec<Engine>, period: Duration) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("weft-epoch".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    std::thread::park_timeout(period);
                    for engine in &engines {
                        engine.increment_epoch();
                    }
                }
            })?;
        Ok(EpochTicker {
            period,
            stop,
            thread: Some(thread),
        })
    }

    /// Ticks to wait for a deadline of `timeout`: rounded up, plus one because the current tick is partly gone.
    pub(crate) fn ticks_for(&self, timeout: Duration) -> u64 {
        let period = self.period.as_nanos().max(1);
        let ticks = timeout.as_nanos().div_ceil(period);
        u64::try_from(ticks).unwrap_or(u64::MAX - 1).max(1) + 1
    }
}

impl Drop for EpochTicker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_round_up_and_add_one() {
        let ticker =
            EpochTicker::start(vec![Engine::default()], Duration::from_millis(10)).unwrap();
        assert_eq!(ticker.ticks_for(Duration::from_millis(100)), 11);
        assert_eq!(ticker.ticks_for(Duration::from_millis(101)), 12);
        assert_eq!(ticker.ticks_for(Duration::ZERO), 2);
    }
}
