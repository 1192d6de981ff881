//! Which live replica reconciles which app: rendezvous (highest random weight) hashing of the app's name with each
//! member's, so every replica computes the same owner from the same members, and a member leaving moves only its
//! own apps. Pure.

use sha2::{Digest, Sha256};

/// What one replica knows of the members: its own name and the live members' (sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Membership {
    /// This replica.
    pub me: String,
    /// The live members, this one among them.
    pub members: Vec<String>,
}

impl Membership {
    /// A replica alone (no store shared, or before its first heartbeat): it owns every app.
    pub fn alone(me: impl Into<String>) -> Membership {
        let me = me.into();
        Membership {
            members: vec![me.clone()],
            me,
        }
    }

    /// Whether this replica reconciles `app`.
    pub fn owns(&self, app: &str) -> bool {
        owner(app, &self.members).is_none_or(|owner| owner == self.me)
    }
}

/// The member that reconciles `app`: the one whose hash with the app's name is highest; `None` without members.
pub fn owner<'a>(app: &str, members: &'a [String]) -> Option<&'a str> {
    members
        .iter()
        .max_by_key(|member| weight(app, member))
        .map(String::as_str)
}

fn weight(app: &str, member: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(app.as_bytes());
    hasher.update([0]);
    hasher.update(member.as_bytes());
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn members(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn every_app_has_exactly_one_owner_and_the_apps_spread_over_the_members() {
        let three = members(&["a", "b", "c"]);
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for index in 0..3000 {
            let app = format!("app-{index}");
            let owners: Vec<&str> = three
                .iter()
                .filter(|m| {
                    Membership {
                        me: m.to_string(),
                        members: three.clone(),
                    }
                    .owns(&app)
                })
                .map(String::as_str)
                .collect();
            assert_eq!(owners.len(), 1, "{app}: {owners:?}");
            *counts.entry(owners[0]).or_default() += 1;
        }
        for (member, count) in counts {
            assert!(
                (800..1200).contains(&count),
                "{member} owns {count} of 3000"
            );
        }
    }

    #[test]
    fn a_member_leaving_moves_only_its_own_apps() {
        let three = members(&["a", "b", "c"]);
        let two = members(&["a", "b"]);
        for index in 0..1000 {
            let app = format!("app-{index}");
            let before = owner(&app, &three).unwrap();
            let after = owner(&app, &two).unwrap();
            if before != "c" {
                assert_eq!(before, after, "{app} moved though its owner stayed");
            }
        }
    }

    #[test]
    fn a_replica_alone_owns_everything() {
        assert!(Membership::alone("a").owns("anything"));
        assert!(
            Membership {
                me: "a".into(),
                members: vec![]
            }
            .owns("anything")
        );
    }
}
