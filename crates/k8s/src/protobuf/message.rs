//! The shape of the generated message table (`table.rs`): messages, their fields, the scalar types, and
//! when a field appears in the JSON form.

/// One protobuf message of a built-in kind (or of a type it holds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message {
    /// The full name, such as `k8s.io.api.apps.v1.Deployment`.
    pub name: &'static str,
    /// How the message is written as JSON.
    pub shape: Shape,
    /// Its fields, by field number.
    pub fields: &'static [Field],
}

/// How a message is written as JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// An object with one member per field.
    Struct,
    /// A Go slice type wrapped in a message (`ExtraValue`, `Verbs`): the array of its `items` field.
    List,
}

/// One field: its number, its JSON name, its type, how many values it holds, and when it is written. An empty JSON
/// name marks a message embedded inline (`json:",inline"`, such as a Volume's `VolumeSource`): its fields are
/// written as the parent's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field(
    pub u32,
    pub &'static str,
    pub FieldType,
    pub Cardinality,
    pub Emit,
);

/// The type of a field's values (a map's values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// A message: its position in the table.
    Message(u16),
    /// A scalar.
    Scalar(Scalar),
}

/// How many values a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cardinality {
    /// At most one.
    One,
    /// A list.
    Repeated,
    /// A map with keys of this scalar type.
    Map(Scalar),
}

/// When a field is written as JSON, as Go's `encoding/json` writes the Go field the message stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emit {
    /// Always (a Go value field without `omitempty`): a missing scalar is written as its zero value.
    Always,
    /// Unless it is the zero value (a Go value field with `omitempty`).
    OmitZero,
    /// Whenever the body has it, zero or not (a Go pointer field).
    Present,
}

/// A scalar type of protobuf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// UTF-8 text.
    String,
    /// Bytes, written as base64 in JSON.
    Bytes,
    /// A boolean.
    Bool,
    /// A 32-bit signed integer.
    Int32,
    /// A 64-bit signed integer.
    Int64,
    /// A 32-bit unsigned integer.
    Uint32,
    /// A 64-bit unsigned integer.
    Uint64,
    /// A 64-bit float.
    Double,
    /// A 32-bit float.
    Float,
}

/// Kubernetes' own types whose JSON form is not their message shape: a timestamp, a duration or a quantity as a
/// string, an int-or-string as either, an embedded object or field set as the JSON it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownType {
    /// `meta.v1.Time`: an RFC 3339 timestamp in whole seconds (`null` when zero).
    Time,
    /// `meta.v1.MicroTime`: an RFC 3339 timestamp with microseconds (`null` when zero).
    MicroTime,
    /// `meta.v1.Duration`: Go's duration text (`1h0m0s`).
    Duration,
    /// `api.resource.Quantity`: its text (`500m`).
    Quantity,
    /// `util.intstr.IntOrString`: a number or a string.
    IntOrString,
    /// `runtime.RawExtension`: the embedded object.
    RawExtension,
    /// `meta.v1.FieldsV1`: the field set's JSON.
    FieldsV1,
}

impl KnownType {
    /// The known type a message of the table is, by its full name.
    pub fn of(message: &str) -> Option<KnownType> {
        Some(match message {
            "k8s.io.apimachinery.pkg.apis.meta.v1.Time" => KnownType::Time,
            "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime" => KnownType::MicroTime,
            "k8s.io.apimachinery.pkg.apis.meta.v1.Duration" => KnownType::Duration,
            "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1" => KnownType::FieldsV1,
            "k8s.io.apimachinery.pkg.api.resource.Quantity" => KnownType::Quantity,
            "k8s.io.apimachinery.pkg.util.intstr.IntOrString" => KnownType::IntOrString,
            "k8s.io.apimachinery.pkg.runtime.RawExtension" => KnownType::RawExtension,
            _ => return None,
        })
    }
}
