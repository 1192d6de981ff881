//! Who holds a claim on an operation: a replica's name and the start of the process that runs under it (its
//! incarnation), so claims are fenced per process, not per name.

use std::fmt;

/// The holder of claims: a replica's name (stable across restarts, e.g. a StatefulSet pod's) and an incarnation
/// drawn afresh each time a process starts under it. Every write that needs a claim matches both, so a process
/// restarted under the same name never renews, updates or finishes what its predecessor held.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Claimant {
    replica: String,
    incarnation: String,
}

impl Claimant {
    /// A new incarnation of `replica`: 64 random bits, in hex.
    pub fn new(replica: impl Into<String>) -> Self {
        let mut bytes = [0u8; 8];
        // The clock and process id stand in should the system's randomness be unavailable: an incarnation
        // only has to differ from the previous start's.
        let incarnation = match getrandom::fill(&mut bytes) {
            Ok(()) => u64::from_le_bytes(bytes),
            Err(_) => {
                jiff::Timestamp::now().as_nanosecond() as u64 ^ u64::from(std::process::id()) << 32
            }
        };
        Claimant::with_incarnation(replica, format!("{incarnation:016x}"))
    }

    /// A claimant with a given incarnation (tests, and reading one back).
    pub fn with_incarnation(replica: impl Into<String>, incarnation: impl Into<String>) -> Self {
        Claimant {
            replica: replica.into(),
            incarnation: incarnation.into(),
        }
    }

    /// The replica's name.
    pub fn replica(&self) -> &str {
        &self.replica
    }

    /// This start of the replica.
    pub fn incarnation(&self) -> &str {
        &self.incarnation
    }
}

impl fmt::Display for Claimant {
    /// `weft-0 (start 3fa2…)`: the name and the first eight hex digits of the incarnation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let short: String = self.incarnation.chars().take(8).collect();
        write!(f, "{} (start {short})", self.replica)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_start_of_a_replica_is_a_new_incarnation_under_the_same_name() {
        let first = Claimant::new("weft-0");
        let second = Claimant::new("weft-0");
        assert_eq!(first.replica(), second.replica());
        assert_ne!(first.incarnation(), second.incarnation());
        assert_ne!(first, second);
        assert_eq!(first.incarnation().len(), 16);
        assert_eq!(
            Claimant::with_incarnation("weft-0", "3fa2c0ffee000001").to_string(),
            "weft-0 (start 3fa2c0ff)"
        );
    }
}
