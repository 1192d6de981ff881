//! What the two Helm parity harnesses share: random fields compared by shape, objects normalised and named,
//! messages clipped, and Helm's own renders read from `render_with_helm.py`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// One field a chart fills with a random value (or a value derived from one, such as a checksum annotation).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct RandomField {
    /// `Kind/name` of the object; `*` stands for any characters (a name with a random part).
    pub object: String,
    /// A JSON pointer to the field (`/data/password`).
    pub pointer: String,
    /// What its characters are drawn from: `alnum`, `alpha`, `digits`, `ascii` (printable), `hex`, `hex-uuid`,
    /// `base64`, `pem` (PEM blocks, or base64 of them: their types are compared) or `bytes` (only the length is
    /// compared). A value under `/data/` is decoded from base64 first.
    pub alphabet: String,
}

/// A case's release when it names none.
pub fn default_release() -> String {
    "release".into()
}

/// A case's namespace when it names none.
pub fn default_namespace() -> String {
    "default".into()
}

/// Numbers compared as numbers, whatever JSON type they came as.
pub fn normalize(value: &Value) -> Value {
    match value {
        Value::Number(n) => serde_json::json!(n.as_f64().unwrap_or(0.0)),
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
        }
        other => other.clone(),
    }
}

/// An object's name for comparing: apiVersion, kind, namespace/name.
pub fn identity(object: &Value) -> String {
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    format!(
        "{} {} {}/{}",
        text(&object["apiVersion"]),
        text(&object["kind"]),
        text(&object["metadata"]["namespace"]),
        text(&object["metadata"]["name"])
    )
}

/// `text` on one line, cut after `limit` characters.
pub fn clip(text: &str, limit: usize) -> String {
    let one_line = text.replace('\n', "\\n");
    if one_line.chars().count() <= limit {
        one_line
    } else {
        format!("{}…", one_line.chars().take(limit).collect::<String>())
    }
}

/// The shape of a random value: its length and whether every character is in `alphabet` (PEM: its block types).
fn shape(pointer: &str, value: &Value, alphabet: &str) -> String {
    use base64::Engine as _;
    let text = value
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| value.to_string());
    let bytes = if pointer.starts_with("/data/") {
        base64::engine::general_purpose::STANDARD
            .decode(&text)
            .unwrap_or_else(|_| text.as_bytes().to_vec())
    } else {
        text.as_bytes().to_vec()
    };
    if alphabet == "pem" {
        // PEM, or base64 of PEM (a webhook's `caBundle`).
        let bytes = if bytes.starts_with(b"-----BEGIN ") {
            bytes
        } else {
            base64::engine::general_purpose::STANDARD
                .decode(&bytes)
                .unwrap_or(bytes)
        };
        let decoded = String::from_utf8_lossy(&bytes);
        let blocks: Vec<&str> = decoded
            .lines()
            .filter(|line| line.starts_with("-----BEGIN "))
            .collect();
        return format!("PEM {blocks:?}");
    }
    let allowed = |b: u8| match alphabet {
        "alnum" => b.is_ascii_alphanumeric(),
        "alpha" => b.is_ascii_alphabetic(),
        "digits" => b.is_ascii_digit(),
        "ascii" => (b' '..=b'~').contains(&b),
        "hex" => b.is_ascii_hexdigit(),
        "hex-uuid" => b == b'-' || b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
        "base64" => b.is_ascii_alphanumeric() || b"+/=".contains(&b),
        _ => true,
    };
    let fits = bytes.iter().all(|b| allowed(*b));
    format!(
        "{} bytes, {}in {alphabet}",
        bytes.len(),
        if fits { "" } else { "not " }
    )
}

/// Whether `text` matches `pattern`, where `*` stands for any characters.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Checks each random field's shape in both renders, then gives ours Helm's value so the rest compares exactly.
pub fn compare_random_fields(
    fields: &[RandomField],
    helm: &[Value],
    ours: &mut [Value],
) -> Vec<String> {
    let find = |objects: &[Value], wanted: &str| {
        objects.iter().position(|o| {
            glob_match(
                wanted,
                &format!(
                    "{}/{}",
                    o["kind"].as_str().unwrap_or_default(),
                    o["metadata"]["name"].as_str().unwrap_or_default()
                ),
            )
        })
    };
    let mut problems = Vec::new();
    for field in fields {
        let (Some(h), Some(o)) = (find(helm, &field.object), find(ours, &field.object)) else {
            problems.push(format!("random field {}: object missing", field.object));
            continue;
        };
        let Some(theirs) = helm[h].pointer(&field.pointer).cloned() else {
            problems.push(format!(
                "random field {}{}: not in Helm's",
                field.object, field.pointer
            ));
            continue;
        };
        let Some(mine) = ours[o].pointer_mut(&field.pointer) else {
            problems.push(format!(
                "random field {}{}: not in ours",
                field.object, field.pointer
            ));
            continue;
        };
        let (ours_shape, helms_shape) = (
            shape(&field.pointer, mine, &field.alphabet),
            shape(&field.pointer, &theirs, &field.alphabet),
        );
        if ours_shape != helms_shape || ours_shape.contains("not in") {
            problems.push(format!(
                "random field {}{}: ours is {ours_shape}, Helm's {helms_shape}",
                field.object, field.pointer
            ));
        }
        *mine = theirs;
    }
    problems
}

/// Helm's results, by case file, from one run of `script` (`render_with_helm.py`) over the cases, with `options`.
pub fn helm_results(
    script: &Path,
    options: &[&str],
    cases: &[PathBuf],
) -> Result<BTreeMap<String, serde_json::Map<String, Value>>, String> {
    let output = Command::new("python3")
        .arg(script)
        .args(options)
        .args(cases)
        .output()
        .map_err(|e| format!("python3 cannot run: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "render_with_helm.py failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let mut results = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let parsed: serde_json::Map<String, Value> = serde_json::from_str(line)
            .map_err(|e| format!("not a JSON line from the script ({e}): {}", clip(line, 200)))?;
        let case = parsed["case"].as_str().unwrap_or_default().to_string();
        results.insert(case, parsed);
    }
    Ok(results)
}
