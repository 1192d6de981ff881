//! Process-wide Prometheus metrics: reconcile durations, queue depth, plugin calls and errors, API requests.
//! One registry per process, as a metrics recorder is; `/metrics` encodes it.

use std::sync::LazyLock;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// Labels of one API request.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// The route template, e.g. `/v1/deploy/{name}/tree`.
    pub route: String,
    /// The method.
    pub method: String,
    /// The status code.
    pub status: u16,
}

/// Labels of one plugin.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PluginLabels {
    /// The plugin's name.
    pub plugin: String,
}

/// Weft's metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// Seconds each app's reconcile took.
    pub reconcile_seconds: Histogram,
    /// Full comparisons of an app with the cluster.
    pub comparisons: Counter,
    /// Reconciles that reused the last comparison: nothing the app depends on had changed.
    pub comparisons_skipped: Counter,
    /// Server-side dry-run applies made to compare an object.
    pub dry_runs: Counter,
    /// Objects compared without a dry run: desired, live version and ignore rules as when one last found them in
    /// sync.
    pub dry_runs_skipped: Counter,
    /// Objects read from the API server because the watch cache was behind a dry run's prediction.
    pub reads_through: Counter,
    /// Times the reconciler fell behind the watch feed and had to compare every app again.
    pub watch_events_missed: Counter,
    /// Operations pending in the queue.
    pub queue_depth: Gauge,
    /// How late each renewal of this replica's leases came, beyond the interval it is due at (a third of the
    /// lease): a store or a process too slow to keep its claims.
    pub lease_renewal_lateness_seconds: Histogram,
    /// Renewals late enough to be warned about (more than half a lease after the one before).
    pub lease_renewals_late: Counter,
    /// Operations finished, by phase.
    pub operations: Family<PhaseLabels, Counter>,
    /// Plugin calls.
    pub plugin_calls: Family<PluginLabels, Counter>,
    /// Plugin calls that failed (trap, deadline, memory, bad output).
    pub plugin_errors: Family<PluginLabels, Counter>,
    /// API requests.
    pub requests: Family<RequestLabels, Counter>,
}

/// Labels of a finished operation.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PhaseLabels {
    /// `succeeded`, `failed` or `error`.
    pub phase: String,
}

impl Metrics {
    fn new() -> Self {
        let mut registry = Registry::with_prefix("weft");
        let reconcile_seconds = Histogram::new(exponential_buckets(0.005, 2.0, 14));
        let queue_depth = Gauge::default();
        let lease_renewal_lateness_seconds = Histogram::new(exponential_buckets(0.01, 2.0, 14));
        let lease_renewals_late = Counter::default();
        let comparisons = Counter::default();
        let comparisons_skipped = Counter::default();
        let dry_runs = Counter::default();
        let dry_runs_skipped = Counter::default();
        let watch_events_missed = Counter::default();
        let reads_through = Counter::default();
        let operations = Family::<PhaseLabels, Counter>::default();
        let plugin_calls = Family::<PluginLabels, Counter>::default();
        let plugin_errors = Family::<PluginLabels, Counter>::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "reconcile_duration_seconds",
            "How long reconciling one app took",
            reconcile_seconds.clone(),
        );
        registry.register(
            "comparisons",
            "Full comparisons of an app's render with the cluster",
            comparisons.clone(),
        );
        registry.register(
            "comparisons_skipped",
            "Reconciles that reused the last comparison (nothing the app depends on changed)",
            comparisons_skipped.clone(),
        );
        registry.register(
            "dry_runs",
            "Server-side dry-run applies made to compare an object",
            dry_runs.clone(),
        );
        registry.register(
            "dry_runs_skipped",
            "Objects compared without a dry run (nothing it rests on changed since one found them in sync)",
            dry_runs_skipped.clone(),
        );
        registry.register(
            "reads_through",
            "Objects read from the API server because the watch cache was behind a dry run's prediction",
            reads_through.clone(),
        );
        registry.register(
            "watch_events_missed",
            "Times the reconciler fell behind the watch feed (every app is then compared again)",
            watch_events_missed.clone(),
        );
        registry.register(
            "queue_depth",
            "Operations pending in the queue",
            queue_depth.clone(),
        );
        registry.register(
            "lease_renewal_lateness_seconds",
            "How late each renewal of this replica's leases came, beyond the third of a lease it is due every",
            lease_renewal_lateness_seconds.clone(),
        );
        registry.register(
            "lease_renewals_late",
            "Lease renewals more than half a lease after the one before (another replica may take the operations)",
            lease_renewals_late.clone(),
        );
        registry.register(
            "operations",
            "Operations finished, by phase",
            operations.clone(),
        );
        registry.register(
            "plugin_calls",
            "Calls into Wasm plugins",
            plugin_calls.clone(),
        );
        registry.register(
            "plugin_errors",
            "Plugin calls that failed",
            plugin_errors.clone(),
        );
        registry.register("api_requests", "API requests", requests.clone());
        Metrics {
            registry,
            reconcile_seconds,
            comparisons,
            comparisons_skipped,
            dry_runs,
            dry_runs_skipped,
            reads_through,
            watch_events_missed,
            queue_depth,
            lease_renewal_lateness_seconds,
            lease_renewals_late,
            operations,
            plugin_calls,
            plugin_errors,
            requests,
        }
    }

    /// The metrics in Prometheus' text format.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// The process's metrics.
pub fn metrics() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);
    &METRICS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_encode_in_the_text_format() {
        let m = metrics();
        m.plugin_calls
            .get_or_create(&PluginLabels {
                plugin: "health-core".into(),
            })
            .inc();
        m.reconcile_seconds.observe(0.02);
        let text = m.encode();
        assert!(
            text.contains("weft_plugin_calls_total{plugin=\"health-core\"}"),
            "{text}"
        );
        assert!(
            text.contains("weft_reconcile_duration_seconds_bucket"),
            "{text}"
        );
        assert!(text.contains("# EOF"), "{text}");
    }
}
