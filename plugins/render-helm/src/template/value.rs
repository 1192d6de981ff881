//! Template values: the dynamic values Go's templates see in a Helm chart (`interface{}` holding nil, a bool, an
//! int, a float64, a string, a slice, a `map[string]interface{}` or one of Helm's objects).
//!
//! Maps are shared and mutable, as Go maps are: `set`, `unset` and `merge` change a map every reference sees.
//! Lists and strings are immutable and cheap to clone.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// The entries of a map, in key order (Go's templates and encoders visit maps in sorted key order).
pub type Map = BTreeMap<String, Value>;

/// A map shared by reference, like a Go map.
pub type SharedMap = Rc<RefCell<Map>>;

/// An object with fields and methods of its own (Helm's `.Files`, `.Capabilities.APIVersions`, ...).
pub trait HostObject: fmt::Debug {
    /// The Go type name, as `typeOf` prints it.
    fn type_name(&self) -> &str;

    /// The Go kind, as `kindOf` prints it: "map", "slice", "struct" or "ptr".
    fn kind_name(&self) -> &'static str {
        "ptr"
    }

    /// A field or a method call; `None` when the object has no member of that name.
    fn member(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>>;

    /// Whether `name` is a method (which may take arguments) rather than a field.
    fn is_method(&self, name: &str) -> bool;

    /// How `{{ . }}` prints it (a value's `String` method, which Go's templates find through its address).
    fn display(&self) -> String;

    /// How `fmt` prints it as a function's operand (`print`, `printf`, Sprig's `toString`): functions get a copy
    /// of a struct, whose pointer-receiver `String` method is lost, so Helm's `KubeVersion` prints its fields.
    fn operand_display(&self) -> String {
        self.display()
    }

    /// The object as plain data, for `toYaml`, `toJson` and `deepCopy`.
    fn to_data(&self) -> Value;

    /// Key/value pairs when `range` can iterate the object (Helm's `.Files` is a map).
    fn entries(&self) -> Option<Vec<(String, Value)>> {
        None
    }

    /// What Go's `len` reports when the object is a map or a slice (Helm's `.Files` is a `map[string][]byte`,
    /// `.Capabilities.APIVersions` a `[]string`); `None` for a struct.
    fn go_len(&self) -> Option<usize> {
        self.entries().map(|entries| entries.len())
    }
}

/// One dynamic value.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// Go's untyped nil: a missing key, a null in YAML.
    #[default]
    Nil,
    /// A bool.
    Bool(bool),
    /// An int or int64.
    Int(i64),
    /// A float64 (every number that comes from YAML or JSON).
    Float(f64),
    /// A string.
    String(Rc<str>),
    /// A slice (`[]interface{}`).
    List(Rc<Vec<Value>>),
    /// A `map[string]interface{}`.
    Map(SharedMap),
    /// One of the host's objects.
    Object(Rc<dyn HostObject>),
}

impl Value {
    /// A string value.
    pub fn string(text: impl Into<Rc<str>>) -> Value {
        Value::String(text.into())
    }

    /// A list value.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(items))
    }

    /// A map value owning `entries`.
    pub fn map(entries: Map) -> Value {
        Value::Map(Rc::new(RefCell::new(entries)))
    }

    /// An empty map.
    pub fn empty_map() -> Value {
        Value::map(Map::new())
    }

    /// Whether this is nil.
    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }

    /// The string, when this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Go's truth: false, 0, nil and empty strings, slices and maps are false.
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::List(items) => !items.is_empty(),
            Value::Map(map) => !map.borrow().is_empty(),
            // A map- or slice-typed object (an empty `.Files.Glob`) is false when empty; a struct pointer is true.
            Value::Object(object) => object.go_len().is_none_or(|n| n > 0),
        }
    }

    /// The Go type name (`typeOf`).
    pub fn type_name(&self) -> String {
        match self {
            Value::Nil => "<nil>".into(),
            Value::Bool(_) => "bool".into(),
            Value::Int(_) => "int".into(),
            Value::Float(_) => "float64".into(),
            Value::String(_) => "string".into(),
            Value::List(_) => "[]interface {}".into(),
            Value::Map(_) => "map[string]interface {}".into(),
            Value::Object(object) => object.type_name().into(),
        }
    }

    /// The Go kind name (`kindOf`, `kindIs`).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Nil => "invalid",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float64",
            Value::String(_) => "string",
            Value::List(_) => "slice",
            Value::Map(_) => "map",
            Value::Object(object) => object.kind_name(),
        }
    }

    /// A copy that shares nothing mutable with this value (Sprig's `deepCopy`); host objects become data.
    pub fn deep_copy(&self) -> Value {
        match self {
            Value::List(items) => Value::list(items.iter().map(Value::deep_copy).collect()),
            Value::Map(map) => Value::map(
                map.borrow()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.deep_copy()))
                    .collect(),
            ),
            Value::Object(object) => object.to_data().deep_copy(),
            other => other.clone(),
        }
    }

    /// A snapshot of a map's entries (an empty vector for anything else).
    pub fn map_entries(&self) -> Vec<(String, Value)> {
        match self {
            Value::Map(map) => map
                .borrow()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A map's value at `key`, `None` when absent or not a map.
    pub fn get(&self, key: &str) -> Option<Value> {
        match self {
            Value::Map(map) => map.borrow().get(key).cloned(),
            _ => None,
        }
    }
}

impl PartialEq for Value {
    /// Structural equality (numbers of different types are different, as in Go).
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::List(a), Value::List(b)) => a == b,
            (Value::Map(a), Value::Map(b)) => Rc::ptr_eq(a, b) || *a.borrow() == *b.borrow(),
            (Value::Object(a), Value::Object(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl From<&str> for Value {
    fn from(text: &str) -> Value {
        Value::string(text)
    }
}

impl From<String> for Value {
    fn from(text: String) -> Value {
        Value::string(text)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_follows_go() {
        assert!(!Value::Nil.is_truthy());
        assert!(!Value::Int(0).is_truthy());
        assert!(!Value::Float(0.0).is_truthy());
        assert!(!Value::string("").is_truthy());
        assert!(!Value::empty_map().is_truthy());
        assert!(Value::list(vec![Value::Nil]).is_truthy());
        assert!(Value::string("false").is_truthy());
    }

    #[test]
    fn objects_that_are_maps_or_slices_are_false_when_empty() {
        use crate::chart::objects::{ApiVersions, Files, KubeVersion};
        let object = |o: Rc<dyn HostObject>| Value::Object(o);
        // An empty `.Files.Glob` is an empty map[string][]byte: false for `if`, `and`, `not`, `empty`, `default`.
        assert!(!object(Rc::new(Files::new(&[]))).is_truthy());
        assert!(object(Rc::new(Files::new(&[("a".into(), Vec::new())]))).is_truthy());
        assert!(!object(Rc::new(ApiVersions::new(Vec::new()))).is_truthy());
        // A struct pointer is always true.
        assert!(object(Rc::new(KubeVersion::parse("v1.30.0").unwrap())).is_truthy());
    }

    #[test]
    fn objects_have_helm_type_and_kind_names() {
        use crate::chart::objects::{ApiVersions, Files, KubeVersion};
        let files = Value::Object(Rc::new(Files::new(&[])));
        assert_eq!(
            (files.type_name().as_str(), files.kind_name()),
            ("engine.files", "map")
        );
        let apis = Value::Object(Rc::new(ApiVersions::new(Vec::new())));
        assert_eq!(
            (apis.type_name().as_str(), apis.kind_name()),
            ("common.VersionSet", "slice")
        );
        let kube = Value::Object(Rc::new(KubeVersion::parse("v1.30.0").unwrap()));
        assert_eq!(
            (kube.type_name().as_str(), kube.kind_name()),
            ("common.KubeVersion", "struct")
        );
    }

    #[test]
    fn maps_are_shared_and_deep_copies_are_not() {
        let original = Value::empty_map();
        let alias = original.clone();
        let copy = original.deep_copy();
        if let Value::Map(map) = &alias {
            map.borrow_mut().insert("k".into(), Value::Int(1));
        }
        assert_eq!(original.get("k"), Some(Value::Int(1)));
        assert_eq!(copy.get("k"), None);
        assert!(Value::Int(1) != Value::Float(1.0));
    }
}
