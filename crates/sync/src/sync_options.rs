//! Argo CD's sync options (`Name=true|false`) read as Weft's app sync settings: the one reading, for an
//! Application's `spec.syncPolicy.syncOptions` and for `weft app create|set --sync-option`.

/// The sync options Weft has, each with the app sync setting it sets; `ServerSideApply` sets none (Weft always
/// applies server-side, so only `=true` is accepted).
pub const SYNC_OPTIONS: [(&str, Option<&str>); 5] = [
    ("CreateNamespace", Some("create_namespace")),
    ("Replace", Some("replace")),
    ("Force", Some("force")),
    (
        "RespectIgnoreDifferences",
        Some("respect_ignore_differences"),
    ),
    ("ServerSideApply", None),
];

/// Why a sync option was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyncOptionError {
    /// The text is not `Name=value`.
    #[error("{given:?} is not Name=true|false")]
    NotNameValue {
        /// What was given.
        given: String,
    },
    /// The value is neither `true` nor `false`.
    #[error("{value:?} is neither true nor false")]
    NotBoolean {
        /// The value given.
        value: String,
    },
    /// `ServerSideApply=false`, which Weft cannot do.
    #[error(
        "ServerSideApply=false is not possible: Weft always applies server-side, as field manager weft"
    )]
    ServerSideApplyOff,
    /// A sync option Weft does not have.
    #[error("{name:?} is not a sync option Weft knows (known: {})", known_names())]
    Unknown {
        /// The option's name.
        name: String,
    },
}

fn known_names() -> String {
    SYNC_OPTIONS.map(|(name, _)| name).join(", ")
}

/// One `Name=true|false` sync option (name and value trimmed) as the app sync setting it sets and its value;
/// `None` for `ServerSideApply=true`, which changes nothing.
pub fn parse_sync_option(given: &str) -> Result<Option<(&'static str, bool)>, SyncOptionError> {
    let (name, value) = given
        .split_once('=')
        .ok_or_else(|| SyncOptionError::NotNameValue {
            given: given.to_string(),
        })?;
    let value = match value.trim() {
        "true" => true,
        "false" => false,
        other => {
            return Err(SyncOptionError::NotBoolean {
                value: other.to_string(),
            });
        }
    };
    match SYNC_OPTIONS.iter().find(|(known, _)| *known == name.trim()) {
        Some((_, Some(setting))) => Ok(Some((setting, value))),
        Some((_, None)) if value => Ok(None),
        Some((_, None)) => Err(SyncOptionError::ServerSideApplyOff),
        None => Err(SyncOptionError::Unknown {
            name: name.trim().to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_option_sets_its_setting_to_its_value() {
        assert_eq!(
            parse_sync_option("CreateNamespace=true"),
            Ok(Some(("create_namespace", true)))
        );
        assert_eq!(
            parse_sync_option(" RespectIgnoreDifferences = false "),
            Ok(Some(("respect_ignore_differences", false)))
        );
        assert_eq!(parse_sync_option("ServerSideApply=true"), Ok(None));
    }

    #[test]
    fn what_is_not_an_option_weft_has_is_refused_saying_why() {
        assert_eq!(
            parse_sync_option("CreateNamespace")
                .unwrap_err()
                .to_string(),
            "\"CreateNamespace\" is not Name=true|false"
        );
        assert_eq!(
            parse_sync_option("Force=yes").unwrap_err().to_string(),
            "\"yes\" is neither true nor false"
        );
        assert_eq!(
            parse_sync_option("ServerSideApply=false"),
            Err(SyncOptionError::ServerSideApplyOff)
        );
        assert_eq!(
            parse_sync_option("PruneLast=true").unwrap_err().to_string(),
            "\"PruneLast\" is not a sync option Weft knows (known: CreateNamespace, Replace, Force, \
             RespectIgnoreDifferences, ServerSideApply)"
        );
    }
}
