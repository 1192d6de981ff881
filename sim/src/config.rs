//! Settings for a simulator: timings of the simulated cluster and sizes of its buffers.

use std::time::Duration;

/// How the simulated cluster behaves. `SimConfig::default()` suits interactive use; tests usually shorten
/// the delays with [`SimConfig::fast`].
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// How long a scheduled pod stays `Pending`/`ContainerCreating` before its containers run.
    pub pod_start_delay: Duration,
    /// How long a running pod takes to become Ready.
    pub pod_ready_delay: Duration,
    /// How long a Job's pod runs before it succeeds.
    pub job_run_time: Duration,
    /// How long a crash-looping container runs before it crashes again.
    pub crash_loop_period: Duration,
    /// How often the simulated controllers run.
    pub controller_interval: Duration,
    /// How often the simulated controllers visit every object, not only what changed (kube-controller-manager's
    /// resync period): a guard against work the change-driven queue missed.
    pub resync_interval: Duration,
    /// Whether the simulated controllers run at all.
    pub run_controllers: bool,
    /// How many worker nodes the cluster has (DaemonSets place one pod on each).
    pub node_count: usize,
    /// How many past events are kept so that watches can resume; older resourceVersions get 410 Gone.
    pub watch_history: usize,
    /// How many events a slow watcher may fall behind before its stream is closed.
    pub watch_channel_capacity: usize,
    /// How often watches that asked for bookmarks get one.
    pub bookmark_interval: Duration,
    /// The Kubernetes version reported by `/version`.
    pub kubernetes_version: (u32, u32, u32),
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            pod_start_delay: Duration::from_millis(500),
            pod_ready_delay: Duration::from_secs(1),
            job_run_time: Duration::from_secs(2),
            crash_loop_period: Duration::from_secs(2),
            controller_interval: Duration::from_millis(100),
            resync_interval: Duration::from_secs(600),
            run_controllers: true,
            node_count: 3,
            watch_history: 50_000,
            watch_channel_capacity: 16_384,
            bookmark_interval: Duration::from_secs(5),
            kubernetes_version: (1, 34, 0),
        }
    }
}

impl SimConfig {
    /// Short delays for tests: pods run after 50 ms and are Ready 150 ms later.
    pub fn fast() -> Self {
        Self {
            pod_start_delay: Duration::from_millis(50),
            pod_ready_delay: Duration::from_millis(150),
            job_run_time: Duration::from_millis(300),
            crash_loop_period: Duration::from_millis(200),
            controller_interval: Duration::from_millis(25),
            bookmark_interval: Duration::from_millis(500),
            ..Self::default()
        }
    }
}
