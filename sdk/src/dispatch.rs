//! Choosing the check for an object inside a plugin that serves many kinds, with Argo CD's lookup rule: the exact
//! `group/Kind` key first, then the wildcard keys in sorted order, the first that matches.

use crate::check::Context;
use crate::health::{Health, PluginError};
use crate::object::Object;

/// A check for one key of a [`KindTable`].
pub type Check = fn(&Object, &Context<'_>) -> Result<Option<Health>, PluginError>;

/// Keys (`group/Kind`, `*` matching any run of characters, e.g. `*.crossplane.io/*`; the core group is empty,
/// `/Pod`) and their checks.
#[derive(Debug, Clone, Copy)]
pub struct KindTable {
    entries: &'static [(&'static str, Check)],
}

impl KindTable {
    /// A table over `entries`.
    pub const fn new(entries: &'static [(&'static str, Check)]) -> Self {
        KindTable { entries }
    }

    /// Every key, in table order: what the plugin's manifest must list.
    pub fn keys(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.entries.iter().map(|(key, _)| *key)
    }

    /// The check for a group and kind: an exact key, else the first matching wildcard key in sorted order.
    pub fn lookup(&self, group: &str, kind: &str) -> Option<Check> {
        let key = format!("{group}/{kind}");
        if let Some((_, check)) = self.entries.iter().find(|(k, _)| *k == key) {
            return Some(*check);
        }
        let mut wildcards: Vec<&(&str, Check)> = self
            .entries
            .iter()
            .filter(|(k, _)| k.contains('*'))
            .collect();
        wildcards.sort_by_key(|(k, _)| *k);
        wildcards
            .into_iter()
            .find(|(pattern, _)| glob_matches(pattern, &key))
            .map(|(_, check)| *check)
    }

    /// Assesses `obj` with the check its group and kind select; `unsupported` when none does.
    pub fn assess(&self, obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        match self.lookup(obj.group(), obj.kind()) {
            Some(check) => check(obj, cx),
            None => Err(PluginError::unsupported(format!(
                "no check for {}/{}",
                obj.group(),
                obj.kind()
            ))),
        }
    }
}

/// Adapts a rule that always has a verdict, `fn(&Object) -> Health`, to a [`Check`] for a [`KindTable`].
#[macro_export]
macro_rules! rule {
    ($rule:path) => {{
        fn check(
            obj: &$crate::Object,
            _cx: &$crate::Context<'_>,
        ) -> ::std::result::Result<::std::option::Option<$crate::Health>, $crate::PluginError>
        {
            ::std::result::Result::Ok(::std::option::Option::Some($rule(obj)))
        }
        check as $crate::Check
    }};
}

/// Adapts a rule that may have no opinion, `fn(&Object) -> Option<Health>`, to a [`Check`] for a [`KindTable`].
#[macro_export]
macro_rules! optional_rule {
    ($rule:path) => {{
        fn check(
            obj: &$crate::Object,
            _cx: &$crate::Context<'_>,
        ) -> ::std::result::Result<::std::option::Option<$crate::Health>, $crate::PluginError>
        {
            ::std::result::Result::Ok($rule(obj))
        }
        check as $crate::Check
    }};
}

/// Whether `text` matches `pattern`, where `*` matches any run of characters (including none) and every other
/// character matches itself (the kind-key dialect of [`crate::glob`]).
pub use crate::glob::star_matches as glob_matches;

#[cfg(test)]
mod tests {
    use super::*;

    fn named(_: &Object, _: &Context<'_>) -> Result<Option<Health>, PluginError> {
        Ok(Some(Health::healthy("exact")))
    }

    fn wild(_: &Object, _: &Context<'_>) -> Result<Option<Health>, PluginError> {
        Ok(Some(Health::healthy("wild")))
    }

    #[test]
    fn globs() {
        assert!(glob_matches(
            "*.crossplane.io/*",
            "rds.aws.crossplane.io/DBInstance"
        ));
        assert!(!glob_matches("*.crossplane.io/*", "crossplane.io/X"));
        assert!(glob_matches("*", ""));
        assert!(glob_matches("a*b*c", "abbbc"));
        assert!(!glob_matches("a*b", "abc"));
    }

    #[test]
    fn exact_key_wins_over_wildcards() {
        static TABLE: KindTable = KindTable::new(&[
            ("*.crossplane.io/*", wild),
            ("pkg.crossplane.io/Provider", named),
        ]);
        let cx = Context::empty();
        let provider =
            Object::from_json(r#"{"apiVersion":"pkg.crossplane.io/v1","kind":"Provider"}"#)
                .unwrap();
        let other =
            Object::from_json(r#"{"apiVersion":"pkg.crossplane.io/v1","kind":"Other"}"#).unwrap();
        let none = Object::from_json(r#"{"apiVersion":"v1","kind":"Pod"}"#).unwrap();
        assert_eq!(
            TABLE.assess(&provider, &cx).unwrap().unwrap().message,
            "exact"
        );
        assert_eq!(TABLE.assess(&other, &cx).unwrap().unwrap().message, "wild");
        assert!(TABLE.assess(&none, &cx).is_err());
    }
}
