//! Who a caller is once authenticated — the server's admin, or a member of one org with a role in it — and what
//! that lets them do.
//!
//! Roles, each including the one before, all scoped to the member's own org:
//! - `viewer`: reads the org's apps, their objects, operations, history and logs.
//! - `deployer`: also syncs, refreshes (reconciles now) and rolls back the org's apps, and runs resource actions
//!   ([`Permission::Operate`]).
//! - `org-admin`: also overrides gates on the org's apps, rotates their render seeds and manages the org's tokens.
//!
//! Only the server's `admin` creates, replaces or deletes API apps, adopts orphans, confirms an ApplicationSet's
//! deletions, manages admin tokens and sees apps without an org ([`Permission::Administer`]).

use serde::Serialize;

/// The stored form of an admin principal.
const ADMIN: &str = "admin";
/// The prefix of the stored form of a viewer made before roles existed (`org:NAME`), still read as a viewer.
const ORG_PREFIX: &str = "org:";
/// The longest org name accepted.
const MAX_ORG_LEN: usize = 253;

/// A member's role in its org.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Reads the org's apps.
    Viewer,
    /// Also syncs, refreshes, rolls back and runs resource actions on the org's apps.
    Deployer,
    /// Also overrides gates, rotates render seeds and manages the org's tokens.
    OrgAdmin,
}

impl Role {
    /// Every role, least first.
    pub const ALL: [Role; 3] = [Role::Viewer, Role::Deployer, Role::OrgAdmin];

    /// Its name in `weft.toml`, the API and the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Deployer => "deployer",
            Role::OrgAdmin => "org-admin",
        }
    }

    /// The role of that name.
    pub fn parse(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.as_str() == name)
    }

    /// Whether this role grants `permission` (on its own org's apps).
    pub fn grants(self, permission: Permission) -> bool {
        match permission {
            Permission::Read => true,
            Permission::Operate => self >= Role::Deployer,
            Permission::OverrideGates | Permission::RotateSeeds | Permission::ManageTokens => {
                self >= Role::OrgAdmin
            }
            Permission::Administer => false,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something a caller may be allowed to do to an app (or, for tokens, within an org).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Permission {
    /// Read the app, its objects, operations, history and logs.
    Read,
    /// Sync, refresh (reconcile now), roll back, and run resource actions on its objects.
    Operate,
    /// Sync past what the gates denied, naming a reason.
    OverrideGates,
    /// Rotate the app's render seed.
    RotateSeeds,
    /// Create, list and revoke the org's (non-admin) tokens.
    ManageTokens,
    /// What only the server's admin does: API apps' definitions, adoption, ApplicationSet confirmations, admin
    /// tokens, apps without an org.
    Administer,
}

impl Permission {
    /// Every permission, for listing what a caller may do.
    pub const ALL: [Permission; 6] = [
        Permission::Read,
        Permission::Operate,
        Permission::OverrideGates,
        Permission::RotateSeeds,
        Permission::ManageTokens,
        Permission::Administer,
    ];
}

/// An authenticated caller.
///
/// Serializes as `{"kind":"admin","subject":"...","actor":"..."}` or
/// `{"kind":"member","subject":"...","actor":"...","org":"...","role":"deployer"}`. It is deliberately not
/// deserializable: a principal is only ever made by [`Principal::from_stored`], [`Principal::admin`],
/// [`Principal::member`] or [`Principal::with_role`], which check it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Principal {
    /// Sees and changes everything.
    Admin {
        /// Who it is, uniquely (`token:ID` for a token, `sub@issuer` for a JWT): for rate limits and stream limits.
        subject: String,
        /// Who it is, for people: recorded as the actor of what it does (`deploy-bot`, `alice@idp`).
        actor: String,
    },
    /// Sees the apps of one org and does what its role allows there.
    Member {
        /// Who it is, uniquely (`token:ID` for a token, `sub@issuer` for a JWT): for rate limits and stream limits.
        subject: String,
        /// Who it is, for people: recorded as the actor of what it does (`deploy-bot`, `alice@idp`).
        actor: String,
        /// The org whose apps it sees.
        org: String,
        /// What it may do there.
        role: Role,
    },
}

/// Why a principal cannot be made from a string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrincipalError {
    /// The stored form is neither `admin`, `org:NAME` nor `ROLE:NAME`.
    #[error(
        "principal {0:?}: expected \"admin\", \"org:NAME\" (a viewer) or \"ROLE:NAME\" (ROLE: viewer, deployer or org-admin)"
    )]
    Unrecognised(String),
    /// The org name is empty, padded with spaces, too long or holds control characters.
    #[error(
        "org name {0:?}: must be non-empty, at most {MAX_ORG_LEN} bytes, without surrounding spaces or control characters"
    )]
    InvalidOrg(String),
}

impl Principal {
    /// An admin (its actor is its subject until [`Principal::with_actor`] names it).
    pub fn admin(subject: impl Into<String>) -> Principal {
        let subject = subject.into();
        Principal::Admin {
            actor: subject.clone(),
            subject,
        }
    }

    /// A viewer of `org`, if `org` is a usable org name.
    pub fn member(
        subject: impl Into<String>,
        org: impl Into<String>,
    ) -> Result<Principal, PrincipalError> {
        Principal::with_role(subject, org, Role::Viewer)
    }

    /// A member of `org` with `role`, if `org` is a usable org name.
    pub fn with_role(
        subject: impl Into<String>,
        org: impl Into<String>,
        role: Role,
    ) -> Result<Principal, PrincipalError> {
        let org = org.into();
        if !is_org_name(&org) {
            return Err(PrincipalError::InvalidOrg(org));
        }
        let subject = subject.into();
        Ok(Principal::Member {
            actor: subject.clone(),
            subject,
            org,
            role,
        })
    }

    /// The same principal recorded under another actor name.
    pub fn with_actor(mut self, name: impl Into<String>) -> Principal {
        match &mut self {
            Principal::Admin { actor, .. } | Principal::Member { actor, .. } => {
                *actor = name.into()
            }
        }
        self
    }

    /// Whether it is the server's admin.
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

    /// The role of a member; `None` for an admin.
    pub fn role(&self) -> Option<Role> {
        match self {
            Principal::Admin { .. } => None,
            Principal::Member { role, .. } => Some(*role),
        }
    }

    /// Who it is, uniquely: the key of its rate limit.
    pub fn subject(&self) -> &str {
        match self {
            Principal::Admin { subject, .. } | Principal::Member { subject, .. } => subject,
        }
    }

    /// Who it is for people: what records name as the actor.
    pub fn actor(&self) -> &str {
        match self {
            Principal::Admin { actor, .. } | Principal::Member { actor, .. } => actor,
        }
    }

    /// Whether it may do `permission` to an app owned by `app_org`: admins everything; members only what their
    /// role grants, and only on their own org's apps (an app without an org is for admins only).
    pub fn can(&self, permission: Permission, app_org: Option<&str>) -> bool {
        match self {
            Principal::Admin { .. } => true,
            Principal::Member { org, role, .. } => {
                app_org == Some(org.as_str()) && role.grants(permission)
            }
        }
    }

    /// Whether it may read an app owned by `app_org`.
    pub fn can_read(&self, app_org: Option<&str>) -> bool {
        self.can(Permission::Read, app_org)
    }

    /// What it may do on its own org's apps (everything for an admin), for the console and `whoami`.
    pub fn permissions(&self) -> Vec<Permission> {
        Permission::ALL
            .into_iter()
            .filter(|permission| self.can(*permission, self.org()))
            .collect()
    }

    /// The store's form of what it may do: `admin`, `org:NAME` for a viewer (as before roles existed, so older
    /// stores and configurations read the same), `deployer:NAME` or `org-admin:NAME` (the subject is not part of
    /// it).
    pub fn to_stored(&self) -> String {
        match self {
            Principal::Admin { .. } => ADMIN.to_string(),
            Principal::Member {
                org,
                role: Role::Viewer,
                ..
            } => format!("{ORG_PREFIX}{org}"),
            Principal::Member { org, role, .. } => format!("{role}:{org}"),
        }
    }

    /// The principal a stored form (`admin`, `org:NAME`, `viewer:NAME`, `deployer:NAME`, `org-admin:NAME`)
    /// grants to `subject`; anything else is an error, so an unreadable grant never lets a caller in.
    pub fn from_stored(
        stored: &str,
        subject: impl Into<String>,
    ) -> Result<Principal, PrincipalError> {
        if stored == ADMIN {
            return Ok(Principal::admin(subject));
        }
        if let Some(org) = stored.strip_prefix(ORG_PREFIX) {
            return Principal::member(subject, org);
        }
        let (role, org) = stored
            .split_once(':')
            .and_then(|(role, org)| Some((Role::parse(role)?, org)))
            .ok_or_else(|| PrincipalError::Unrecognised(stored.to_string()))?;
        Principal::with_role(subject, org, role)
    }
}

/// Whether `org` is usable as an org name.
pub fn is_org_name(org: &str) -> bool {
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
        for permission in Permission::ALL {
            assert!(admin.can(permission, Some("acme")));
            assert!(admin.can(permission, None));
        }
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
        for permission in Permission::ALL {
            assert_eq!(
                member.can(permission, Some("acme")),
                permission == Permission::Read,
                "{permission:?}"
            );
        }
    }

    #[test]
    fn each_role_grants_what_the_one_below_does_and_more_only_on_its_own_org() {
        let expected = [
            (Role::Viewer, vec![Permission::Read]),
            (Role::Deployer, vec![Permission::Read, Permission::Operate]),
            (
                Role::OrgAdmin,
                vec![
                    Permission::Read,
                    Permission::Operate,
                    Permission::OverrideGates,
                    Permission::RotateSeeds,
                    Permission::ManageTokens,
                ],
            ),
        ];
        for (role, allowed) in expected {
            let member = Principal::with_role("s", "acme", role).unwrap();
            assert_eq!(member.permissions(), allowed, "{role}");
            for permission in Permission::ALL {
                assert!(
                    !member.can(permission, Some("other")),
                    "{role} {permission:?}"
                );
                assert!(!member.can(permission, None), "{role} {permission:?}");
            }
            assert!(!member.can(Permission::Administer, Some("acme")));
        }
        assert_eq!(
            Principal::admin("root").permissions(),
            Permission::ALL.to_vec()
        );
    }

    #[test]
    fn the_actor_is_the_subject_until_named() {
        let admin = Principal::admin("token:tok_1");
        assert_eq!(admin.actor(), "token:tok_1");
        let named = admin.with_actor("deploy-bot");
        assert_eq!(named.actor(), "deploy-bot");
        assert_eq!(named.subject(), "token:tok_1", "rate limits stay per token");
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
        assert_eq!(
            Principal::from_stored("viewer:acme", "token:m").unwrap(),
            member,
            "viewer:NAME is org:NAME"
        );
        for role in [Role::Deployer, Role::OrgAdmin] {
            let member = Principal::with_role("token:m", "acme", role).unwrap();
            assert_eq!(member.to_stored(), format!("{role}:acme"));
            assert_eq!(
                Principal::from_stored(&member.to_stored(), "token:m").unwrap(),
                member
            );
        }
        // An org name may hold a colon: only the first one separates the role.
        assert_eq!(
            Principal::from_stored("deployer:a:b", "s").unwrap().org(),
            Some("a:b")
        );
    }

    #[test]
    fn anything_else_stored_is_refused() {
        for stored in [
            "",
            "Admin",
            "admin ",
            "root",
            "org",
            "acme",
            "member:acme",
            "Deployer:acme",
            "orgadmin:acme",
            "admin:acme",
        ] {
            assert_eq!(
                Principal::from_stored(stored, "s"),
                Err(PrincipalError::Unrecognised(stored.to_string())),
                "{stored:?}"
            );
        }
        for stored in [
            "org:",
            "org: acme",
            "org:acme\n",
            "org:a\u{0}b",
            "deployer:",
            "org-admin: acme",
        ] {
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
            serde_json::json!({"kind": "member", "subject": "alice", "actor": "alice", "org": "acme", "role": "viewer"})
        );
        assert_eq!(
            serde_json::to_value(Principal::admin("root").with_actor("ops")).unwrap(),
            serde_json::json!({"kind": "admin", "subject": "root", "actor": "ops"})
        );
        let deployer = Principal::with_role("s", "acme", Role::OrgAdmin).unwrap();
        assert_eq!(
            serde_json::to_value(&deployer).unwrap()["role"],
            "org-admin"
        );
    }
}
