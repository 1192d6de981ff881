//! Encodes a JSON object of a built-in kind as Kubernetes' protobuf body, the inverse of [`super::decode`]: the
//! fields of the generated table by number, Kubernetes' own types from their JSON forms, unknown JSON fields left
//! out (the Go type kube-apiserver decodes into has none).

use base64::Engine as _;
use serde_json::{Map, Value};

use super::message::{Cardinality, Field, FieldType, KnownType, Scalar, Shape};
use super::table::MESSAGES;
use super::{MAGIC, ProtobufError, message_for};

/// Encodes an object (with `apiVersion` and `kind`) as a Kubernetes protobuf body: magic, `runtime.Unknown`
/// envelope, object message.
pub fn encode_object(object: &Value) -> Result<Vec<u8>, ProtobufError> {
    let text = |field: &str| {
        object
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let (index, _) = message_for(api_version, kind).ok_or_else(|| ProtobufError::UnknownKind {
        api_version: api_version.to_owned(),
        kind: kind.to_owned(),
    })?;
    let mut raw = Vec::new();
    encode_message(index, object, &mut raw)?;
    let mut type_meta = Vec::new();
    put_bytes(&mut type_meta, 1, api_version.as_bytes());
    put_bytes(&mut type_meta, 2, kind.as_bytes());
    let mut body = MAGIC.to_vec();
    put_bytes(&mut body, 1, &type_meta);
    put_bytes(&mut body, 2, &raw);
    put_bytes(&mut body, 3, b"");
    put_bytes(&mut body, 4, b"");
    Ok(body)
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_key(out: &mut Vec<u8>, number: u32, wire_type: u8) {
    put_varint(out, u64::from(number) << 3 | u64::from(wire_type));
}

fn put_bytes(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    put_key(out, number, 2);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn mismatch(field: &str) -> ProtobufError {
    ProtobufError::WrongWireType {
        field: field.to_owned(),
    }
}

/// Encodes the message at `index` from its JSON value into `out`.
pub fn encode_message(index: u16, value: &Value, out: &mut Vec<u8>) -> Result<(), ProtobufError> {
    let message = MESSAGES
        .get(usize::from(index))
        .ok_or(ProtobufError::UnknownMessage(index))?;
    if well_known(message.name, value, out)? {
        return Ok(());
    }
    match message.shape {
        Shape::List => {
            if let (Some(field), Value::Array(items)) = (message.fields.first(), value) {
                for item in items {
                    put_value(field.1, field.0, field.2, item, out)?;
                }
            }
            Ok(())
        }
        Shape::Struct => {
            let Value::Object(map) = value else {
                return Err(mismatch(message.name));
            };
            for field in message.fields {
                put_field(field, map, out)?;
            }
            Ok(())
        }
    }
}

fn put_field(
    field: &Field,
    map: &Map<String, Value>,
    out: &mut Vec<u8>,
) -> Result<(), ProtobufError> {
    let Field(number, name, ty, cardinality, emit) = *field;
    if name.is_empty() {
        // Inline: the embedded message's fields are the parent's own.
        if let FieldType::Message(index) = ty {
            let mut inner = Vec::new();
            encode_message(index, &Value::Object(map.clone()), &mut inner)?;
            put_bytes(out, number, &inner);
        }
        return Ok(());
    }
    let Some(value) = map.get(name) else {
        return Ok(());
    };
    match (cardinality, value) {
        // A Go value (not pointer) struct is always written, a zero `Time` as `null`: an empty message.
        (Cardinality::One, Value::Null)
            if matches!(ty, FieldType::Message(_)) && emit != super::message::Emit::Present =>
        {
            put_bytes(out, number, &[]);
            Ok(())
        }
        (_, Value::Null) => Ok(()),
        (Cardinality::One, value) => put_value(name, number, ty, value, out),
        (Cardinality::Repeated, Value::Array(items)) => {
            for item in items {
                put_value(name, number, ty, item, out)?;
            }
            Ok(())
        }
        (Cardinality::Map(key_type), Value::Object(entries)) => {
            for (key, entry) in entries {
                let mut bytes = Vec::new();
                let key_value = match key_type {
                    Scalar::String => Value::String(key.clone()),
                    _ => key
                        .parse::<i64>()
                        .map(Value::from)
                        .map_err(|_| mismatch(name))?,
                };
                put_scalar(name, 1, key_type, &key_value, &mut bytes)?;
                put_value(name, 2, ty, entry, &mut bytes)?;
                put_bytes(out, number, &bytes);
            }
            Ok(())
        }
        _ => Err(mismatch(name)),
    }
}

/// One value of field `number` (`name` names it in errors): a message or a scalar.
fn put_value(
    name: &str,
    number: u32,
    ty: FieldType,
    value: &Value,
    out: &mut Vec<u8>,
) -> Result<(), ProtobufError> {
    match ty {
        FieldType::Message(index) => {
            let mut inner = Vec::new();
            encode_message(index, value, &mut inner)?;
            put_bytes(out, number, &inner);
            Ok(())
        }
        FieldType::Scalar(scalar) => put_scalar(name, number, scalar, value, out),
    }
}

fn put_scalar(
    name: &str,
    number: u32,
    scalar: Scalar,
    value: &Value,
    out: &mut Vec<u8>,
) -> Result<(), ProtobufError> {
    match (scalar, value) {
        (Scalar::String, Value::String(text)) => put_bytes(out, number, text.as_bytes()),
        (Scalar::Bytes, Value::String(text)) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|_| mismatch(name))?;
            put_bytes(out, number, &bytes);
        }
        (Scalar::Bool, Value::Bool(flag)) => {
            put_key(out, number, 0);
            put_varint(out, u64::from(*flag));
        }
        (Scalar::Int32 | Scalar::Int64, Value::Number(n)) => {
            let value = n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f as i64))
                .ok_or_else(|| mismatch(name))?;
            put_key(out, number, 0);
            put_varint(out, value as u64);
        }
        (Scalar::Uint32 | Scalar::Uint64, Value::Number(n)) => {
            put_key(out, number, 0);
            put_varint(out, n.as_u64().ok_or_else(|| mismatch(name))?);
        }
        (Scalar::Double, Value::Number(n)) => {
            put_key(out, number, 1);
            out.extend_from_slice(&n.as_f64().unwrap_or_default().to_le_bytes());
        }
        (Scalar::Float, Value::Number(n)) => {
            put_key(out, number, 5);
            out.extend_from_slice(&(n.as_f64().unwrap_or_default() as f32).to_le_bytes());
        }
        _ => return Err(mismatch(name)),
    }
    Ok(())
}

/// Kubernetes' own types, from their JSON forms; `false` for any other message.
fn well_known(name: &str, value: &Value, out: &mut Vec<u8>) -> Result<bool, ProtobufError> {
    let Some(known) = KnownType::of(name) else {
        return Ok(false);
    };
    match (known, value) {
        (KnownType::Time | KnownType::MicroTime, Value::String(text)) => {
            let (seconds, nanos) = parse_rfc3339(text).ok_or_else(|| mismatch(name))?;
            put_key(out, 1, 0);
            put_varint(out, seconds as u64);
            if nanos != 0 {
                put_key(out, 2, 0);
                put_varint(out, u64::from(nanos));
            }
        }
        (KnownType::Time | KnownType::MicroTime, Value::Null) => {}
        (KnownType::Duration, Value::String(text)) => {
            put_key(out, 1, 0);
            put_varint(
                out,
                parse_go_duration(text).ok_or_else(|| mismatch(name))? as u64,
            );
        }
        (KnownType::Quantity, Value::String(text)) => put_bytes(out, 1, text.as_bytes()),
        (KnownType::Quantity, Value::Number(number)) => {
            put_bytes(out, 1, number.to_string().as_bytes())
        }
        (KnownType::IntOrString, Value::Number(number)) => {
            put_key(out, 1, 0);
            put_varint(out, 0);
            put_key(out, 2, 0);
            put_varint(out, number.as_i64().unwrap_or_default() as u64);
        }
        (KnownType::IntOrString, Value::String(text)) => {
            put_key(out, 1, 0);
            put_varint(out, 1);
            put_bytes(out, 3, text.as_bytes());
        }
        (KnownType::RawExtension | KnownType::FieldsV1, value) => {
            let raw = serde_json::to_vec(value).map_err(|_| mismatch(name))?;
            put_bytes(out, 1, &raw);
        }
        _ => return Err(mismatch(name)),
    }
    Ok(true)
}

/// `2006-01-02T15:04:05Z` (or with a fraction, or an offset) as Unix seconds and nanoseconds (never negative, as
/// a protobuf `Timestamp` has them), read by jiff.
fn parse_rfc3339(text: &str) -> Option<(i64, u32)> {
    let timestamp: jiff::Timestamp = text.parse().ok()?;
    let (seconds, nanos) = (timestamp.as_second(), timestamp.subsec_nanosecond());
    if nanos < 0 {
        Some((seconds - 1, (nanos + 1_000_000_000).unsigned_abs()))
    } else {
        Some((seconds, nanos.unsigned_abs()))
    }
}

/// Go's duration syntax (`1h2m3.5s`, `300ms`, `-2s`) as nanoseconds.
fn parse_go_duration(text: &str) -> Option<i64> {
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if rest == "0" {
        return Some(0);
    }
    let mut total = 0f64;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let amount: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_length = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_length] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[unit_length..];
        total += amount * scale;
    }
    let nanos = total.round() as i64;
    Some(if negative { -nanos } else { nanos })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::decode_object;
    use super::*;

    #[test]
    fn built_in_objects_round_trip_through_protobuf() {
        for object in [
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"},
                    "creationTimestamp": "2025-12-02T09:30:45Z", "generation": 3,
                    "managedFields": [{"manager": "kubectl", "operation": "Apply", "apiVersion": "apps/v1",
                        "time": "2025-12-02T09:30:45Z", "fieldsType": "FieldsV1",
                        "fieldsV1": {"f:spec": {"f:replicas": {}}}}]},
                "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}, "creationTimestamp": null},
                        "spec": {"volumes": [{"name": "config", "configMap": {"name": "settings"}}],
                            "containers": [{"name": "app", "image": "nginx", "resources": {"limits": {"cpu": "500m"}},
                                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                                "livenessProbe": {"httpGet": {"path": "/", "port": "http"}, "periodSeconds": 5}}]}},
                    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}}},
                "status": {"replicas": 2, "conditions": [{"type": "Available", "status": "True",
                    "lastUpdateTime": "2025-12-02T09:30:45Z", "lastTransitionTime": "2025-12-02T09:30:45Z",
                    "reason": "MinimumReplicasAvailable", "message": "ok"}]}}),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "type": "Opaque",
                "data": {"key": "AP9yYXc="}}),
            json!({"apiVersion": "v1", "kind": "ConfigMapList", "metadata": {"resourceVersion": "7"},
                "items": [{"metadata": {"name": "a"}, "data": {"x": "1", "empty": ""}}]}),
        ] {
            let body = encode_object(&object).expect("encodes");
            let decoded = decode_object(&body).expect("decodes");
            assert_eq!(decoded, object);
        }
    }

    #[test]
    fn times_and_durations_parse_as_go_writes_them() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some((0, 0)));
        assert_eq!(
            parse_rfc3339("2025-12-02T09:30:45Z"),
            Some((1_764_667_845, 0))
        );
        assert_eq!(
            parse_rfc3339("2000-02-29T00:00:00.123456Z"),
            Some((951_782_400, 123_456_000))
        );
        assert_eq!(
            parse_rfc3339("2025-12-02T10:30:45+01:00"),
            Some((1_764_667_845, 0))
        );
        assert_eq!(
            parse_rfc3339("1969-12-31T23:59:59.5Z"),
            Some((-1, 500_000_000))
        );
        assert_eq!(parse_rfc3339("yesterday"), None);
        assert_eq!(parse_go_duration("1h0m0s"), Some(3_600_000_000_000));
        assert_eq!(parse_go_duration("1m30.5s"), Some(90_500_000_000));
        assert_eq!(parse_go_duration("1.5ms"), Some(1_500_000));
        assert_eq!(parse_go_duration("-2s"), Some(-2_000_000_000));
        assert_eq!(parse_go_duration("2 days"), None);
    }
}
