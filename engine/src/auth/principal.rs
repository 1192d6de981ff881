//! Who a caller is once authenticated — an admin, or a member of one org — and what that lets them do.

use serde::Serialize;

/// The stored form of an admin principal.
const ADMIN: &str = "admin";
/// The prefix of a member principal's stored form (`org:NAME`).
const ORG_PREFIX: &str = "org:";
/// The longest org name accepted.
const MAX_ORG_LEN: usize = 253;

/// An authenticated caller.
///
/// Serializes as `{"kind":"admin","subject":"..."}` or `{"kind":"member","subject":"...","org":"..."}`. It is
/// deliberately not deserializable: a principal is only ever made by [`Principal::from_stored`],
/// [`Principal::admin`] or [`Principal::member`], which check it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Principal {
    /// Sees and changes everything.
    Admin {
        /// Who it is (`token:ID` for a token, the JWT's `sub` for a JWT): for logs and rate limits.
        subject: String,
    },
    /// Sees the apps of one org and changes nothing.
    Member {
        /// Who it is (`token:ID` for a token, the JWT's `sub` for a JWT): for logs and rate limits.
        subject: String,
        /// The org whose apps it sees.
        org: String,
    },
}

/// Why a principal cannot be made from a string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrincipalError {
    /// The stored form is neither `admin` nor `org:NAME`.
    #[error("principal {0:?}: expected \"admin\" or \"org:NAME\"")]
    Unrecognised(String),
    /// The org name is empty, padded with spaces, too long or holds control characters.
    #[error(
        "org name {0:?}: must be non-empty, at most {MAX_ORG_LEN} bytes, without surrounding spaces or control characters"
    )]
    InvalidOrg(String),
}

impl Principal {
    /// An admin.
    pub fn admin(subject: impl Into<String>) -> Principal {
        Principal::Admin {
            subject: subject.into(),
        }
    }

    /// A member of `org`, if `org` is a usable org name.
    pub fn member(
        subject: impl Into<String>,
        org: impl Into<String>,
    ) -> Result<Principal, PrincipalError> {
        let org = org.into();
        if !is_org_name(&org) {
            return Err(PrincipalError::InvalidOrg(org));
        }
        Ok(Principal::Member {
            subject: subject.into(),
            org,
        })
    }

    /// Whether it is an admin.
    pub fn is_admin(&self) -> bool {
        matches!(self, Principal::Admin { .. })
    }

    /// The org of a member; `None` for an admin.
    pub fn org(&self) -> Option<&str> {
        match self {
            Principal::Admin { .. } => None,
            Principal::Member { org, .. } => Some(org),
        }
    }

    /// Who it is.
    pub fn subject(&self) -> &str {
        match self {
            Principal::Admin { subject } | Principal::Member { subject, .. } => subject,
        }
    }

    /// Whether it may read an app owned by `app_org`: admins read everything, members only their org's apps,
    /// and an app without an org is for admins only.
    pub fn can_read(&self, app_org: Option<&str>) -> bool {
        match self {
            Principal::Admin { .. } => true,
            Principal::Member { org, .. } => app_org == Some(org.as_str()),
        }
    }

    /// Whether it may change anything (deploy, sync, roll back, manage tokens): admins only.
    pub fn can_write(&self) -> bool {
        self.is_admin()
    }

    /// The store's form of what it may do: `admin` or `org:NAME` (the subject is not part of it).
    pub fn to_stored(&self) -> String {
        match self {
            Principal::Admin { .. } => ADMIN.to_string(),
            Principal::Member { org, .. } => format!("{ORG_PREFIX}{org}"),
        }
    }

    /// The principal a stored form (`admin` or `org:NAME`) grants to `subject`; anything else is an error,
    /// so an unreadable grant never lets a caller in.
    pub fn from_stored(
        stored: &str,
        subject: impl Into<String>,
    ) -> Result<Principal, PrincipalError> {
        if stored == ADMIN {
            return Ok(Principal::admin(subject));
        }
        match stored.strip_prefix(ORG_PREFIX) {
            Some(org) => Principal::member(subject, org),
            None => Err(PrincipalError::Unrecognised(stored.to_string())),
        }
    }
}

/// Whether `org` is usable as an org name.
fn is_org_name(org: &str) -> bool {
    !org.is_empty()
        && org.len() <= MAX_ORG_LEN
        && org.trim() == org
        && !org.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admins_read_and_write_everything() {
        let admin = Principal::admin("token:t1");
        assert!(admin.is_admin());
        assert_eq!(admin.org(), None);
        assert_eq!(admin.subject(), "token:t1");
        assert!(admin.can_read(Some("acme")));
        assert!(admin.can_read(None));
        assert!(admin.can_write());
    }

    #[test]
    fn members_read_only_their_own_orgs_apps_and_never_write() {
        let member = Principal::member("alice", "acme").unwrap();
        assert!(!member.is_admin());
        assert_eq!(member.org(), Some("acme"));
        assert_eq!(member.subject(), "alice");
        assert!(member.can_read(Some("acme")));
        assert!(!member.can_read(Some("other")));
        assert!(!member.can_read(Some("acme ")));
        assert!(
            !member.can_read(None),
            "an app without an org is admin-only"
        );
        assert!(!member.can_write());
    }

    #[test]
    fn stored_forms_round_trip() {
        let admin = Principal::admin("token:a");
        assert_eq!(admin.to_stored(), "admin");
        assert_eq!(Principal::from_stored("admin", "token:a").unwrap(), admin);
        let member = Principal::member("token:m", "acme").unwrap();
        assert_eq!(member.to_stored(), "org:acme");
        assert_eq!(
            Principal::from_stored("org:acme", "token:m").unwrap(),
            member
        );
    }

    #[test]
    fn anything_else_stored_is_refused() {
        for stored in ["", "Admin", "admin ", "root", "org", "acme", "member:acme"] {
            assert_eq!(
                Principal::from_stored(stored, "s"),
                Err(PrincipalError::Unrecognised(stored.to_string())),
                "{stored:?}"
            );
        }
        for stored in ["org:", "org: acme", "org:acme\n", "org:a\u{0}b"] {
            assert!(
                matches!(
                    Principal::from_stored(stored, "s"),
                    Err(PrincipalError::InvalidOrg(_))
                ),
                "{stored:?}"
            );
        }
        let long = format!("org:{}", "a".repeat(MAX_ORG_LEN + 1));
        assert!(Principal::from_stored(&long, "s").is_err());
    }

    #[test]
    fn serializes_for_whoami() {
        let member = Principal::member("alice", "acme").unwrap();
        assert_eq!(
            serde_json::to_value(&member).unwrap(),
            serde_json::json!({"kind": "member", "subject": "alice", "org": "acme"})
        );
        assert_eq!(
            serde_json::to_value(Principal::admin("root")).unwrap(),
            serde_json::json!({"kind": "admin", "subject": "root"})
        );
    }
}
