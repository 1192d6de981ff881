//! What an object declares, as opposed to what its controllers report about it: every field but `status`, and of
//! `metadata` every field but `resourceVersion` and `managedFields` (which move with every status update). One
//! definition for the live cache (which tells a status update from a change) and the dry-run memory (which keys on
//! the live object as a dry run's prediction depends on it).

use std::io::Write;

use serde_json::Value;

/// Writes what `object` declares to `out`, as a sequence of JSON keys and values (self-delimiting, so two different
/// declarations never write the same bytes); anything but an object is written whole.
pub fn write_declared(object: &Value, out: &mut impl Write) -> std::io::Result<()> {
    let Some(fields) = object.as_object() else {
        return serde_json::to_writer(out, object).map_err(std::io::Error::other);
    };
    for (key, value) in fields {
        if key == "status" {
            continue;
        }
        serde_json::to_writer(&mut *out, key)?;
        match value.as_object() {
            Some(metadata) if key == "metadata" => {
                for (field, value) in metadata {
                    if field == "resourceVersion" || field == "managedFields" {
                        continue;
                    }
                    serde_json::to_writer(&mut *out, field)?;
                    serde_json::to_writer(&mut *out, value)?;
                }
                // The end of metadata, so that its last value and the next key cannot run together.
                out.write_all(b"}")?;
            }
            _ => serde_json::to_writer(&mut *out, value)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn declared(object: &Value) -> String {
        let mut out = Vec::new();
        write_declared(object, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn status_resource_version_and_managed_fields_are_left_out_and_everything_else_kept() {
        let object = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "resourceVersion": "7", "managedFields": [{}], "labels": {"x": "1"}},
            "data": {"k": "v"}, "status": {"ready": true},
        });
        let mut moved = object.clone();
        moved["metadata"]["resourceVersion"] = json!("8");
        moved["status"] = json!({"ready": false});
        assert_eq!(declared(&object), declared(&moved));
        for change in [
            json!({"metadata": {"name": "a", "labels": {"x": "2"}}}),
            json!({"data": {"k": "w"}}),
        ] {
            let mut changed = object.clone();
            for (key, value) in change.as_object().unwrap() {
                changed[key] = value.clone();
            }
            assert_ne!(declared(&object), declared(&changed), "{change}");
        }
        assert!(!declared(&object).contains("resourceVersion"));
        assert_eq!(declared(&json!("text")), "\"text\"");
    }
}
