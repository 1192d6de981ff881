//! The verdict a health check returns, and the error it returns when it cannot give one.

use std::fmt;

/// The health of one object, in Argo CD's vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// The object does what it was asked to do.
    Healthy,
    /// The object is moving towards the asked state and has not failed yet.
    Progressing,
    /// The object failed, or cannot reach the asked state without a change.
    Degraded,
    /// The object was paused or suspended on purpose.
    Suspended,
    /// The object that should exist does not.
    Missing,
    /// The check looked and could not tell.
    Unknown,
}

impl Status {
    /// All statuses, in declaration order.
    pub const ALL: [Status; 6] = [
        Status::Healthy,
        Status::Progressing,
        Status::Degraded,
        Status::Suspended,
        Status::Missing,
        Status::Unknown,
    ];

    /// The lowercase wire name (`healthy`, `progressing`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Healthy => "healthy",
            Status::Progressing => "progressing",
            Status::Degraded => "degraded",
            Status::Suspended => "suspended",
            Status::Missing => "missing",
            Status::Unknown => "unknown",
        }
    }

    /// Parses a status name in any case (`Healthy`, `healthy`, `HEALTHY`), as Argo CD's test files write them.
    pub fn parse(name: &str) -> Option<Status> {
        Status::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An assessment: a status and the reason a person reads next to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    /// The verdict.
    pub status: Status,
    /// Why; may be empty.
    pub message: String,
}

impl Health {
    /// A verdict with a message.
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Health {
            status,
            message: message.into(),
        }
    }

    /// `healthy` with a message.
    pub fn healthy(message: impl Into<String>) -> Self {
        Health::new(Status::Healthy, message)
    }

    /// `progressing` with a message.
    pub fn progressing(message: impl Into<String>) -> Self {
        Health::new(Status::Progressing, message)
    }

    /// `degraded` with a message.
    pub fn degraded(message: impl Into<String>) -> Self {
        Health::new(Status::Degraded, message)
    }

    /// `suspended` with a message.
    pub fn suspended(message: impl Into<String>) -> Self {
        Health::new(Status::Suspended, message)
    }

    /// `missing` with a message.
    pub fn missing(message: impl Into<String>) -> Self {
        Health::new(Status::Missing, message)
    }

    /// `unknown` with a message.
    pub fn unknown(message: impl Into<String>) -> Self {
        Health::new(Status::Unknown, message)
    }
}

/// Why a plugin could not do its job at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input was not what the plugin understands.
    InvalidInput,
    /// The plugin does not handle this input.
    Unsupported,
    /// The plugin failed while doing its work.
    Failed,
}

/// A plugin's own error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What happened, in words.
    pub message: String,
}

impl PluginError {
    /// An `invalid-input` error.
    pub fn invalid_input(message: impl Into<String>) -> Self {
        PluginError {
            kind: ErrorKind::InvalidInput,
            message: message.into(),
        }
    }

    /// An `unsupported` error.
    pub fn unsupported(message: impl Into<String>) -> Self {
        PluginError {
            kind: ErrorKind::Unsupported,
            message: message.into(),
        }
    }

    /// A `failed` error.
    pub fn failed(message: impl Into<String>) -> Self {
        PluginError {
            kind: ErrorKind::Failed,
            message: message.into(),
        }
    }
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ErrorKind::InvalidInput => "invalid input",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Failed => "failed",
        };
        write!(f, "{kind}: {}", self.message)
    }
}

impl std::error::Error for PluginError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_round_trip_in_any_case() {
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
            assert_eq!(Status::parse(&s.as_str().to_uppercase()), Some(s));
        }
        assert_eq!(Status::parse("Healthy"), Some(Status::Healthy));
        assert_eq!(Status::parse("fine"), None);
    }
}
