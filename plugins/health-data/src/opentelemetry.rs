//! OpenTelemetry operator (`opentelemetry.io`): an OpenTelemetryCollector reports its replicas as
//! `status.scale.statusReplicas`, text such as `2/3` (ready/desired).

use weft_sdk::{Health, Object};

use crate::lua::{is_set, text};

/// An OpenTelemetryCollector: all replicas ready is healthy, none degraded (except a DaemonSet with no eligible
/// node, which has none to run), some progressing. A sidecar collector has no replicas of its own.
pub(crate) fn collector(obj: &Object) -> Health {
    if !is_set(obj, "status") {
        return Health::progressing("Waiting for OpenTelemetry Collector status");
    }
    let mode = obj.str("spec.mode");
    let Some(replicas) = obj
        .get("status.scale.statusReplicas")
        .filter(|v| !v.is_null())
    else {
        return if mode == Some("sidecar") {
            Health::healthy("Collector is running in sidecar mode")
        } else {
            Health::progressing("Scale status not available")
        };
    };
    match ready_of_total(&text(Some(replicas))) {
        Some((0, 0)) if mode == Some("daemonset") => {
            Health::healthy("DaemonSet has no eligible nodes (0/0)")
        }
        Some((0, _)) => Health::degraded("No replicas are ready"),
        Some((ready, total)) if ready == total => Health::healthy("All replicas are ready"),
        Some(_) => Health::progressing("Replicas are starting up"),
        None => Health::progressing(format!(
            "Unable to parse replica status: {}",
            text(Some(replicas))
        )),
    }
}

/// The first `<digits>/<digits>` in `text`, as Lua's `string.match(text, "(%d+)/(%d+)")` finds it.
fn ready_of_total(text: &str) -> Option<(u64, u64)> {
    let bytes = text.as_bytes();
    let digits_from = |at: usize| {
        bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    (0..bytes.len()).find_map(|start| {
        let ready_len = digits_from(start);
        let slash = start + ready_len;
        if ready_len == 0 || bytes.get(slash) != Some(&b'/') {
            return None;
        }
        let total_len = digits_from(slash + 1);
        if total_len == 0 {
            return None;
        }
        let ready = text[start..slash].parse().ok()?;
        let total = text[slash + 1..slash + 1 + total_len].parse().ok()?;
        Some((ready, total))
    })
}

#[cfg(test)]
mod tests {
    use super::ready_of_total;
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::DataHealth;

    fn verdict(rest: &str) -> Health {
        let yaml = format!(
            "apiVersion: opentelemetry.io/v1beta1\nkind: OpenTelemetryCollector\nmetadata: {{name: o}}\n{rest}"
        );
        assess_yaml::<DataHealth>(&yaml).unwrap().unwrap()
    }

    #[test]
    fn parses_like_lua() {
        assert_eq!(ready_of_total("2/3"), Some((2, 3)));
        assert_eq!(ready_of_total("pods 10/12 ready"), Some((10, 12)));
        assert_eq!(ready_of_total("1x/2 3/4"), Some((3, 4)));
        assert_eq!(ready_of_total("n/a"), None);
    }

    #[test]
    fn none_ready_unparsable_and_waiting() {
        assert_eq!(
            verdict("spec: {mode: deployment}\nstatus: {scale: {statusReplicas: 0/2}}"),
            Health::degraded("No replicas are ready")
        );
        assert_eq!(
            verdict("spec: {mode: deployment}\nstatus: {scale: {statusReplicas: 0/0}}"),
            Health::degraded("No replicas are ready")
        );
        assert_eq!(
            verdict("status: {scale: {statusReplicas: unknown}}"),
            Health::progressing("Unable to parse replica status: unknown")
        );
        assert_eq!(
            verdict("spec: {mode: deployment}\nstatus: {version: '1'}"),
            Health::progressing("Scale status not available")
        );
        assert_eq!(
            verdict("spec: {}"),
            Health::progressing("Waiting for OpenTelemetry Collector status")
        );
    }
}
