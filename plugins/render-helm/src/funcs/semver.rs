//! Sprig's `semverCompare` and `semver`, on the SDK's Masterminds/semver v3 implementation.

pub use weft_sdk::semver::{Version, matches};

use super::{arity, string_arg};
use crate::template::{FunctionTable, Value};

pub fn register(table: &mut FunctionTable) {
    table.insert("semverCompare", |_, a| {
        arity("semverCompare", &a, 2)?;
        let constraint = string_arg(&a, 0)?;
        let version = Version::parse(string_arg(&a, 1)?)
            .ok_or_else(|| "Invalid Semantic Version".to_string())?;
        Ok(Value::Bool(matches(constraint, &version)?))
    });
    table.insert("semver", |_, a| {
        arity("semver", &a, 1)?;
        let text = string_arg(&a, 0)?;
        let parsed =
            SemverObject::parse(text).ok_or_else(|| "Invalid Semantic Version".to_string())?;
        Ok(Value::Object(std::rc::Rc::new(parsed)))
    });
}

/// What Sprig's `semver` returns (Masterminds' `*semver.Version`): `Major`, `Minor`, `Patch`, `Prerelease`,
/// `Metadata`, `Original`, and the canonical version when printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SemverObject {
    version: Version,
    metadata: String,
    original: String,
}

impl SemverObject {
    /// Parses a version as `semver` does; `None` when it is not one.
    pub fn parse(text: &str) -> Option<SemverObject> {
        let version = Version::parse(text)?;
        let metadata = text
            .trim()
            .split_once('+')
            .map(|(_, m)| m.to_string())
            .unwrap_or_default();
        Some(SemverObject {
            version,
            metadata,
            original: text.to_string(),
        })
    }

    fn canonical(&self) -> String {
        let v = &self.version;
        let mut text = format!("{}.{}.{}", v.major(), v.minor(), v.patch());
        if !v.prerelease().is_empty() {
            text.push('-');
            text.push_str(v.prerelease());
        }
        if !self.metadata.is_empty() {
            text.push('+');
            text.push_str(&self.metadata);
        }
        text
    }
}

impl crate::template::HostObject for SemverObject {
    fn type_name(&self) -> &str {
        "*semver.Version"
    }

    fn is_method(&self, _name: &str) -> bool {
        true
    }

    fn member(&self, name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        let v = &self.version;
        Some(Ok(match name {
            "Major" => Value::Int(v.major() as i64),
            "Minor" => Value::Int(v.minor() as i64),
            "Patch" => Value::Int(v.patch() as i64),
            "Prerelease" => Value::string(v.prerelease()),
            "Metadata" => Value::string(self.metadata.as_str()),
            "Original" => Value::string(self.original.as_str()),
            "String" => Value::string(self.canonical()),
            _ => return None,
        }))
    }

    fn display(&self) -> String {
        self.canonical()
    }

    fn to_data(&self) -> Value {
        Value::string(self.canonical())
    }
}
