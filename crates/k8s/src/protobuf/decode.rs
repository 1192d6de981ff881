//! Decodes a message of the generated table into the JSON value kube-apiserver would have written for it: fields
//! under their JSON names, written or left out as Go's `encoding/json` does ([`Emit`]), and Kubernetes' own types
//! (`Time`, `MicroTime`, `Duration`, `Quantity`, `IntOrString`, `RawExtension`, `FieldsV1`) in their JSON forms.

use base64::Engine as _;
use serde_json::{Map, Number, Value};

use super::message::{Cardinality, Emit, Field, FieldType, KnownType, Message, Scalar, Shape};
use super::table::MESSAGES;
use super::wire::{Records, WireValue};
use super::{ProtobufError, decode_object};

/// Decodes the bytes of the message at `index` of the table.
pub fn decode_message(index: u16, bytes: &[u8]) -> Result<Value, ProtobufError> {
    let message = MESSAGES
        .get(usize::from(index))
        .ok_or(ProtobufError::UnknownMessage(index))?;
    if let Some(value) = well_known(message.name, bytes)? {
        return Ok(value);
    }
    match message.shape {
        Shape::List => {
            let mut items = Vec::new();
            for record in Records::new(bytes) {
                let (number, value) = record?;
                if let Some(field) = message.fields.iter().find(|field| field.0 == number) {
                    push_values(message, field, value, &mut items)?;
                }
            }
            Ok(Value::Array(items))
        }
        Shape::Struct => decode_struct(message, bytes),
    }
}

fn decode_struct(message: &Message, bytes: &[u8]) -> Result<Value, ProtobufError> {
    let mut object = Map::new();
    for record in Records::new(bytes) {
        let (number, value) = record?;
        // Fields this release does not know are skipped, as protobuf readers do.
        let Some(field) = message.fields.iter().find(|field| field.0 == number) else {
            continue;
        };
        let Field(_, name, ty, cardinality, _) = *field;
        match cardinality {
            // A message embedded inline: its fields are this object's.
            Cardinality::One if name.is_empty() => {
                if let Value::Object(inlined) = single(message, field, ty, value)? {
                    object.extend(inlined);
                }
            }
            Cardinality::One => {
                let decoded = single(message, field, ty, value)?;
                object.insert(name.to_owned(), decoded);
            }
            Cardinality::Repeated => {
                let slot = object
                    .entry(name.to_owned())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(items) = slot {
                    push_values(message, field, value, items)?;
                }
            }
            Cardinality::Map(key_type) => {
                let WireValue::Bytes(entry) = value else {
                    return Err(wrong_wire(message, field));
                };
                let (key, entry_value) = map_entry(message, field, key_type, ty, entry)?;
                let slot = object
                    .entry(name.to_owned())
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(map) = slot {
                    map.insert(key, entry_value);
                }
            }
        }
    }
    for field in message.fields {
        let Field(_, name, ty, cardinality, emit) = *field;
        match (cardinality, emit, object.get(name)) {
            (Cardinality::One, Emit::OmitZero, Some(value)) if is_zero_scalar(ty, value) => {
                object.remove(name);
            }
            (Cardinality::One, Emit::Always, None) => {
                if let FieldType::Scalar(scalar) = ty {
                    object.insert(name.to_owned(), zero(scalar));
                }
            }
            _ => {}
        }
    }
    Ok(Value::Object(object))
}

fn wrong_wire(message: &Message, field: &Field) -> ProtobufError {
    ProtobufError::WrongWireType {
        field: format!("{}.{}", message.name, field.1),
    }
}

/// One value of a field.
fn single(
    message: &Message,
    field: &Field,
    ty: FieldType,
    value: WireValue<'_>,
) -> Result<Value, ProtobufError> {
    match ty {
        FieldType::Message(index) => match value {
            WireValue::Bytes(bytes) => decode_message(index, bytes),
            _ => Err(wrong_wire(message, field)),
        },
        FieldType::Scalar(scalar) => scalar_value(message, field, scalar, value),
    }
}

/// Appends a repeated field's value (or packed values) to `items`.
fn push_values(
    message: &Message,
    field: &Field,
    value: WireValue<'_>,
    items: &mut Vec<Value>,
) -> Result<(), ProtobufError> {
    let ty = field.2;
    match (ty, value) {
        (
            FieldType::Scalar(
                scalar @ (Scalar::Bool
                | Scalar::Int32
                | Scalar::Int64
                | Scalar::Uint32
                | Scalar::Uint64),
            ),
            WireValue::Bytes(packed),
        ) => {
            let mut reader = Records::new(packed);
            while !reader.is_empty() {
                let number = reader.varint()?;
                items.push(scalar_value(
                    message,
                    field,
                    scalar,
                    WireValue::Varint(number),
                )?);
            }
            Ok(())
        }
        _ => {
            items.push(single(message, field, ty, value)?);
            Ok(())
        }
    }
}

/// A map entry: key field 1, value field 2.
fn map_entry(
    message: &Message,
    field: &Field,
    key_type: Scalar,
    value_type: FieldType,
    bytes: &[u8],
) -> Result<(String, Value), ProtobufError> {
    let mut key = None;
    let mut value = None;
    for record in Records::new(bytes) {
        match record? {
            (1, raw) => key = Some(scalar_value(message, field, key_type, raw)?),
            (2, raw) => value = Some(single(message, field, value_type, raw)?),
            _ => {}
        }
    }
    let key = match key.unwrap_or_else(|| zero(key_type)) {
        Value::String(text) => text,
        other => other.to_string(),
    };
    let value = value.unwrap_or_else(|| match value_type {
        FieldType::Scalar(scalar) => zero(scalar),
        FieldType::Message(_) => Value::Object(Map::new()),
    });
    Ok((key, value))
}

fn scalar_value(
    message: &Message,
    field: &Field,
    scalar: Scalar,
    value: WireValue<'_>,
) -> Result<Value, ProtobufError> {
    Ok(match (scalar, value) {
        (Scalar::String, WireValue::Bytes(bytes)) => {
            Value::String(String::from_utf8(bytes.to_vec()).map_err(|_| {
                ProtobufError::InvalidUtf8 {
                    field: format!("{}.{}", message.name, field.1),
                }
            })?)
        }
        (Scalar::Bytes, WireValue::Bytes(bytes)) => {
            Value::String(base64::engine::general_purpose::STANDARD.encode(bytes))
        }
        (Scalar::Bool, WireValue::Varint(number)) => Value::Bool(number != 0),
        // Negative int32s are sign-extended to ten bytes on the wire; the low 32 bits are the value.
        (Scalar::Int32, WireValue::Varint(number)) => Value::from(number as u32 as i32),
        (Scalar::Int64, WireValue::Varint(number)) => Value::from(number as i64),
        (Scalar::Uint32, WireValue::Varint(number)) => Value::from(number as u32),
        (Scalar::Uint64, WireValue::Varint(number)) => Value::from(number),
        (Scalar::Double, WireValue::Fixed64(bits)) => float(f64::from_bits(bits)),
        (Scalar::Float, WireValue::Fixed32(bits)) => float(f64::from(f32::from_bits(bits))),
        _ => return Err(wrong_wire(message, field)),
    })
}

fn float(number: f64) -> Value {
    Number::from_f64(number).map_or(Value::Null, Value::Number)
}

fn zero(scalar: Scalar) -> Value {
    match scalar {
        Scalar::String | Scalar::Bytes => Value::String(String::new()),
        Scalar::Bool => Value::Bool(false),
        Scalar::Double | Scalar::Float => float(0.0),
        _ => Value::from(0),
    }
}

fn is_zero_scalar(ty: FieldType, value: &Value) -> bool {
    match ty {
        FieldType::Message(_) => false,
        FieldType::Scalar(scalar) => match value {
            Value::String(text) => text.is_empty(),
            Value::Bool(flag) => !flag,
            Value::Number(number) => number.as_f64() == Some(0.0),
            Value::Null => true,
            _ => value == &zero(scalar),
        },
    }
}

/// The JSON form of Kubernetes' own types, which is not their message shape.
fn well_known(name: &str, bytes: &[u8]) -> Result<Option<Value>, ProtobufError> {
    let Some(known) = KnownType::of(name) else {
        return Ok(None);
    };
    let mut fields: [Option<WireValue<'_>>; 4] = [None; 4];
    for record in Records::new(bytes) {
        let (number, value) = record?;
        if let Some(slot) = fields.get_mut(number as usize) {
            *slot = Some(value);
        }
    }
    let varint = |slot: Option<WireValue<'_>>| match slot {
        Some(WireValue::Varint(number)) => number,
        _ => 0,
    };
    let text = |slot: Option<WireValue<'_>>| match slot {
        Some(WireValue::Bytes(bytes)) => String::from_utf8_lossy(bytes).into_owned(),
        _ => String::new(),
    };
    let raw_json = |slot: Option<WireValue<'_>>| -> Result<Value, ProtobufError> {
        match slot {
            Some(WireValue::Bytes(raw)) if raw.starts_with(super::MAGIC) => decode_object(raw),
            Some(WireValue::Bytes(raw)) if !raw.is_empty() => serde_json::from_slice(raw)
                .map_err(|error| ProtobufError::EmbeddedJson(error.to_string())),
            _ => Ok(Value::Null),
        }
    };
    Ok(Some(match known {
        KnownType::Time | KnownType::MicroTime => {
            let seconds = varint(fields[1]) as i64;
            let nanos = varint(fields[2]) as u32 as i32;
            if seconds == 0 && nanos == 0 {
                Value::Null
            } else {
                Value::String(rfc3339(seconds, nanos, known == KnownType::MicroTime))
            }
        }
        KnownType::Duration => Value::String(go_duration(varint(fields[1]) as i64)),
        KnownType::Quantity => Value::String(text(fields[1])),
        KnownType::IntOrString => {
            if varint(fields[1]) == 1 {
                Value::String(text(fields[3]))
            } else {
                Value::from(varint(fields[2]) as u32 as i32)
            }
        }
        KnownType::RawExtension | KnownType::FieldsV1 => raw_json(fields[1])?,
    }))
}

/// `2006-01-02T15:04:05Z`, or with microseconds for a `MicroTime`, written by jiff (a time beyond jiff's years
/// -9999 to 9999 as the nearest it can write).
fn rfc3339(seconds: i64, nanos: i32, micros: bool) -> String {
    // Microseconds are cut, not rounded.
    let nanos = if micros {
        nanos.clamp(0, 999_999_999) / 1_000 * 1_000
    } else {
        0
    };
    let timestamp = jiff::Timestamp::new(seconds, nanos).unwrap_or(if seconds < 0 {
        jiff::Timestamp::MIN
    } else {
        jiff::Timestamp::MAX
    });
    let format = if micros {
        "%Y-%m-%dT%H:%M:%S.%6fZ"
    } else {
        "%Y-%m-%dT%H:%M:%SZ"
    };
    timestamp.strftime(format).to_string()
}

/// Go's `time.Duration.String()`: `1h2m3.5s`, `1.5ms`, `0s`.
fn go_duration(nanos: i64) -> String {
    if nanos == 0 {
        return "0s".to_owned();
    }
    let sign = if nanos < 0 { "-" } else { "" };
    let value = nanos.unsigned_abs();
    let fraction = |value: u64, digits: u32| {
        let unit = 10u64.pow(digits);
        let whole = value / unit;
        let rest = format!("{:0width$}", value % unit, width = digits as usize);
        let rest = rest.trim_end_matches('0');
        if rest.is_empty() {
            whole.to_string()
        } else {
            format!("{whole}.{rest}")
        }
    };
    if value < 1_000 {
        return format!("{sign}{value}ns");
    }
    if value < 1_000_000 {
        return format!("{sign}{}µs", fraction(value, 3));
    }
    if value < 1_000_000_000 {
        return format!("{sign}{}ms", fraction(value, 6));
    }
    let hours = value / 3_600_000_000_000;
    let minutes = value / 60_000_000_000 % 60;
    let seconds = fraction(value % 60_000_000_000, 9);
    if hours > 0 {
        format!("{sign}{hours}h{minutes}m{seconds}s")
    } else if minutes > 0 {
        format!("{sign}{minutes}m{seconds}s")
    } else {
        format!("{sign}{seconds}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_in_utc() {
        assert_eq!(rfc3339(0, 0, false), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_764_667_845, 0, false), "2025-12-02T09:30:45Z");
        assert_eq!(
            rfc3339(951_782_400, 123_456_789, true),
            "2000-02-29T00:00:00.123456Z"
        );
        assert_eq!(rfc3339(0, 0, true), "1970-01-01T00:00:00.000000Z");
        assert_eq!(
            rfc3339(-1, 999_999_999, true),
            "1969-12-31T23:59:59.999999Z"
        );
    }

    #[test]
    fn durations_read_as_go_prints_them() {
        assert_eq!(go_duration(0), "0s");
        assert_eq!(go_duration(1_500_000), "1.5ms");
        assert_eq!(go_duration(3_600_000_000_000), "1h0m0s");
        assert_eq!(go_duration(90_500_000_000), "1m30.5s");
        assert_eq!(go_duration(-2_000_000_000), "-2s");
    }
}
