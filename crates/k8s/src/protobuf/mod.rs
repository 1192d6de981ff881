//! Kubernetes' protobuf encoding of the built-in kinds (`application/vnd.kubernetes.protobuf`), which client-go's
//! typed clients send (`kubectl create`, `kubectl auth can-i`, Helm's release Secrets): a body is the `k8s\0`
//! magic and a `runtime.Unknown` envelope naming the apiVersion and kind, around the object's message. A body
//! decodes to the JSON value kube-apiserver would have stored for it ([`decode_object`]), and an object encodes to
//! the body kube-apiserver would answer with ([`encode_object`]).
//!
//! The messages are a generated table (`table.rs`, from `gen/proto_table.py`: the `generated.proto` files for field
//! numbers and types, the Go types for JSON names, `omitempty` and pointers) of the GA versions of every built-in
//! group and of apimachinery's types. The same table says which fields each built-in kind has ([`fields`]).

mod decode;
mod encode;
pub mod fields;
pub mod message;
mod table;
mod wire;

use serde_json::Value;

pub use decode::decode_message;
pub use encode::{encode_message, encode_object};
pub use fields::{prune_unknown_fields, unknown_fields};
use message::Message;
use table::{MESSAGES, PACKAGES};
use wire::{Records, WireValue};

/// The media type of Kubernetes' protobuf encoding.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The four bytes every Kubernetes protobuf body starts with.
pub const MAGIC: &[u8] = b"k8s\0";

/// A protobuf body that could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtobufError {
    /// The body does not start with the `k8s\0` magic.
    #[error("not a Kubernetes protobuf object: the body does not start with \"k8s\\x00\"")]
    NoMagic,
    /// A record runs past the end of its message.
    #[error("truncated protobuf: a record runs past the end of its message")]
    Truncated,
    /// A varint is longer than ten bytes or overflows 64 bits.
    #[error("malformed protobuf: a varint is too long")]
    BadVarint,
    /// A record has a wire type protobuf 3 does not use (groups).
    #[error("malformed protobuf: field {number} has wire type {wire_type}")]
    BadWireType {
        /// The field number.
        number: u32,
        /// The wire type.
        wire_type: u8,
    },
    /// A field's record has another wire type than its type needs.
    #[error("malformed protobuf: {field} has the wrong wire type")]
    WrongWireType {
        /// The message and field.
        field: String,
    },
    /// A string field is not UTF-8.
    #[error("malformed protobuf: {field} is not UTF-8")]
    InvalidUtf8 {
        /// The message and field.
        field: String,
    },
    /// The envelope's content encoding is not the plain one.
    #[error("unsupported protobuf content encoding {0:?}")]
    ContentEncoding(String),
    /// No message of a built-in kind is known for the envelope's apiVersion and kind.
    #[error("no protobuf message is known for kind {kind} in {api_version}: send it as JSON")]
    UnknownKind {
        /// The envelope's apiVersion.
        api_version: String,
        /// The envelope's kind.
        kind: String,
    },
    /// A table index out of range (a generated-table defect).
    #[error("protobuf message {0} is not in the table")]
    UnknownMessage(u16),
    /// A `RawExtension` or `FieldsV1` holds bytes that are not JSON.
    #[error("an embedded object is not JSON: {0}")]
    EmbeddedJson(String),
}

/// Whether a `Content-Type` is Kubernetes' protobuf encoding.
pub fn is_protobuf(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|media_type| media_type.trim().eq_ignore_ascii_case(MEDIA_TYPE))
}

/// The message for `kind` in `api_version` (a built-in kind, or one of apimachinery's such as `DeleteOptions`).
pub fn message_for(api_version: &str, kind: &str) -> Option<(u16, &'static Message)> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let package = PACKAGES
        .iter()
        .find(|(g, v, _)| *g == group && *v == version)
        .map(|(_, _, package)| *package);
    let candidates = package
        .into_iter()
        .chain(["k8s.io.apimachinery.pkg.apis.meta.v1"]);
    for package in candidates {
        let name = format!("{package}.{kind}");
        if let Ok(index) = MESSAGES.binary_search_by(|message| message.name.cmp(&name)) {
            let index = u16::try_from(index).ok()?;
            return Some((index, &MESSAGES[usize::from(index)]));
        }
    }
    None
}

/// Decodes a Kubernetes protobuf body (magic, `runtime.Unknown` envelope, object) into the object's JSON value, with
/// its `apiVersion` and `kind`.
pub fn decode_object(body: &[u8]) -> Result<Value, ProtobufError> {
    let envelope = body.strip_prefix(MAGIC).ok_or(ProtobufError::NoMagic)?;
    let mut api_version = String::new();
    let mut kind = String::new();
    let mut raw: &[u8] = &[];
    let mut encoding = String::new();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    for record in Records::new(envelope) {
        match record? {
            (1, WireValue::Bytes(type_meta)) => {
                for field in Records::new(type_meta) {
                    match field? {
                        (1, WireValue::Bytes(bytes)) => api_version = text(bytes),
                        (2, WireValue::Bytes(bytes)) => kind = text(bytes),
                        _ => {}
                    }
                }
            }
            (2, WireValue::Bytes(bytes)) => raw = bytes,
            (3, WireValue::Bytes(bytes)) => encoding = text(bytes),
            _ => {}
        }
    }
    if !encoding.is_empty() {
        return Err(ProtobufError::ContentEncoding(encoding));
    }
    let (index, _) =
        message_for(&api_version, &kind).ok_or_else(|| ProtobufError::UnknownKind {
            api_version: api_version.clone(),
            kind: kind.clone(),
        })?;
    let mut object = decode_message(index, raw)?;
    if let Value::Object(map) = &mut object {
        map.insert("apiVersion".to_owned(), Value::String(api_version));
        map.insert("kind".to_owned(), Value::String(kind));
    }
    Ok(object)
}

#[cfg(test)]
mod tests;
