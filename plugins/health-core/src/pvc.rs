//! PersistentVolumeClaims: the phase decides, with no message: bound is healthy, pending progressing, lost degraded,
//! anything else unknown.

use weft_sdk::{Context, Health, Object, PluginError};

/// Assesses a core PersistentVolumeClaim (`v1` only, as upstream).
pub(crate) fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
    if obj.version() != "v1" {
        return Ok(Some(crate::unsupported_gvk(obj, "PersistentVolumeClaim")));
    }
    Ok(Some(match obj.str("status.phase").unwrap_or("") {
        "Bound" => Health::healthy(""),
        "Pending" => Health::progressing(""),
        "Lost" => Health::degraded(""),
        _ => Health::unknown(""),
    }))
}

#[cfg(test)]
mod tests {
    use weft_sdk::Health;
    use weft_sdk::testing::assess_yaml;

    use crate::CoreHealth;

    #[test]
    fn phases() {
        let verdict = |status: &str| {
            let yaml = format!(
                "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: c}}\nstatus: {status}"
            );
            assess_yaml::<CoreHealth>(&yaml).unwrap().unwrap()
        };
        assert_eq!(verdict("{phase: Bound}"), Health::healthy(""));
        assert_eq!(verdict("{phase: Pending}"), Health::progressing(""));
        assert_eq!(verdict("{phase: Lost}"), Health::degraded(""));
        assert_eq!(verdict("{}"), Health::unknown(""));
    }
}
