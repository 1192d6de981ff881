//! The work budget of one render: every resource loaded, patched or transformed costs a step, so a runaway
//! build (a huge tree, patches multiplied over thousands of objects) fails with a clear error well before the
//! host's deadline.

use weft_sdk::RenderError;

/// Steps allowed when the `max-steps` parameter is not given.
pub const DEFAULT_MAX_STEPS: u64 = 2_000_000;

/// Steps left.
#[derive(Debug, Clone)]
pub struct Budget {
    limit: u64,
    used: u64,
}

impl Budget {
    /// A budget of `limit` steps.
    pub fn new(limit: u64) -> Budget {
        Budget { limit, used: 0 }
    }

    /// Spends `steps` on `what`; an error once the budget is exhausted.
    pub fn spend(&mut self, steps: u64, what: &str) -> Result<(), RenderError> {
        self.used = self.used.saturating_add(steps);
        if self.used > self.limit {
            return Err(RenderError::new(format!(
                "the build exceeded its budget of {} steps while {what}; raise the 'max-steps' parameter if \
                 the kustomization really is this large",
                self.limit
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fails_once_exhausted() {
        let mut budget = Budget::new(3);
        budget.spend(2, "a").unwrap();
        budget.spend(1, "b").unwrap();
        let err = budget.spend(1, "patching").unwrap_err();
        assert!(
            err.message.contains("budget of 3 steps while patching"),
            "{}",
            err.message
        );
    }
}
