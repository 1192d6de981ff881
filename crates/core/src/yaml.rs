//! YAML as Weft prints it (`weft render`, diffs): block style, and every string that a YAML 1.1 or 1.2 reader could
//! take for something else — `yes`/`no`/`on`/`off`/`y`/`n` in any case, `~` and `null`, numbers in any base or
//! form, `.inf`/`.nan`, timestamps, `<<`, `=`, leading or trailing spaces, indicator characters — double-quoted,
//! as go-yaml and sigs.k8s.io/yaml do, so `weft render | kubectl apply -f -` sends exactly the JSON that was meant.

use serde_json::{Map, Value};

/// A JSON value as a YAML document (no leading `---`), ending with a newline.
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => write_map(&mut out, map, 0),
        Value::Array(items) if !items.is_empty() => write_seq(&mut out, items, 0),
        scalar => {
            write_scalar(&mut out, scalar, 0);
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, level: usize) {
    out.extend(std::iter::repeat_n(' ', level));
}

fn write_map(out: &mut String, map: &Map<String, Value>, level: usize) {
    for (key, value) in map {
        indent(out, level);
        write_string(out, key, level, true);
        out.push(':');
        write_child(out, value, level);
    }
}

fn write_seq(out: &mut String, items: &[Value], level: usize) {
    for item in items {
        indent(out, level);
        out.push('-');
        match item {
            // A map in a list starts on the dash's line, as kubectl writes it.
            Value::Object(map) if !map.is_empty() => {
                let mut nested = String::new();
                write_map(&mut nested, map, level + 2);
                out.push(' ');
                out.push_str(&nested[level + 2..]);
            }
            // A list in a list is indented under its dash.
            Value::Array(inner) if !inner.is_empty() => {
                out.push('\n');
                write_seq(out, inner, level + 2);
            }
            other => write_child(out, other, level),
        }
    }
}

/// What follows a key's colon or a list's dash: a nested block on the next lines, or ` scalar` on this one.
fn write_child(out: &mut String, value: &Value, level: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            write_map(out, map, level + 2);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            write_seq(out, items, level);
        }
        scalar => {
            out.push(' ');
            write_scalar(out, scalar, level);
            out.push('\n');
        }
    }
}

fn write_scalar(out: &mut String, value: &Value, level: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => write_string(out, s, level, false),
        Value::Object(_) => out.push_str("{}"),
        Value::Array(_) => out.push_str("[]"),
    }
}

/// A number as both YAML 1.1 and 1.2 read it: a float in exponent form gets a `.` in its mantissa and a sign in
/// its exponent (`1e300` is a string to a YAML 1.1 reader; `1.0e+300` is a float to both).
fn number(n: &serde_json::Number) -> String {
    let text = n.to_string();
    let Some((mantissa, exponent)) = text.split_once(['e', 'E']) else {
        return text;
    };
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    let exponent = if exponent.starts_with(['+', '-']) {
        exponent.to_string()
    } else {
        format!("+{exponent}")
    };
    format!("{mantissa}e{exponent}")
}

fn write_string(out: &mut String, text: &str, level: usize, is_key: bool) {
    if is_plain_safe(text) {
        out.push_str(text);
    } else if !is_key && literal_block_fits(text) {
        write_literal(out, text, level);
    } else {
        // JSON's string syntax is a YAML double-quoted scalar, in 1.1 and 1.2 alike.
        out.push_str(&serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into()));
    }
}

/// A multi-line string as a literal block (`|`, `|-` or `|+` for its trailing newlines), when it has no
/// characters a block cannot hold and does not start with a space (which would need an indentation indicator).
fn literal_block_fits(text: &str) -> bool {
    text.contains('\n')
        && !text.starts_with(' ')
        && !text.starts_with('\n')
        && text
            .chars()
            .all(|c| c == '\n' || c == '\t' || !c.is_control())
        && !text.contains('\u{feff}')
        && !text
            .lines()
            .any(|line| line.ends_with(' ') || line.ends_with('\t'))
}

fn write_literal(out: &mut String, text: &str, level: usize) {
    let body = text.trim_end_matches('\n');
    let trailing = text.len() - body.len();
    out.push_str(match trailing {
        0 => "|-",
        1 => "|",
        _ => "|+",
    });
    let content_indent = level + 2;
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            indent(out, content_indent);
            out.push_str(line);
        }
    }
    // `|+` keeps every trailing newline: the extra ones are empty lines of the block.
    for _ in 1..trailing {
        out.push('\n');
    }
}

/// Whether `text` reads back as this same string, plain, in YAML 1.1 and 1.2.
fn is_plain_safe(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    if text.trim() != text || text.contains(['\n', '\r', '\t']) {
        return false;
    }
    // Indicator characters cannot start a plain scalar (`-`, `?`, `:` only when followed by a space, but never
    // mind: quoting costs nothing).
    if "-?:,[]{}#&*!|>'\"%@`=~<.+0123456789".contains(first) {
        return false;
    }
    if text.contains(": ") || text.contains(" #") || text.ends_with(':') {
        return false;
    }
    if text.chars().any(|c| c.is_control() || c == '\u{feff}') {
        return false;
    }
    !is_special_word(text)
}

/// The words YAML 1.1 and 1.2 read as booleans, nulls or special floats, in every case they accept.
fn is_special_word(text: &str) -> bool {
    matches!(
        text.to_ascii_lowercase().as_str(),
        "y" | "yes" | "n" | "no" | "true" | "false" | "on" | "off" | "null" | "~" | "nan" | "inf"
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn strings_other_readers_would_retype_are_quoted() {
        for word in [
            "yes",
            "Yes",
            "YES",
            "no",
            "No",
            "on",
            "ON",
            "off",
            "Off",
            "y",
            "Y",
            "n",
            "N",
            "true",
            "False",
            "null",
            "NULL",
            "~",
            "",
            " padded",
            "trailing ",
            "0x1F",
            "0o17",
            "0755",
            "017",
            "1_000",
            "1e3",
            "-1",
            "+1",
            ".5",
            "1.",
            ".inf",
            "-.inf",
            ".NaN",
            "2001-12-14",
            "2001-12-14t21:59:43.10-05:00",
            "1:20",
            "<<",
            "=",
            "a: b",
            "a #b",
            "key:",
            "- item",
            "[x]",
            "{x}",
            "*alias",
            "&anchor",
            "!tag",
            "%directive",
            "@at",
            "`tick",
            "'single",
            "\"double",
            "line\nbreak",
            "tab\there",
        ] {
            let yaml = to_yaml(&json!({"k": word}));
            assert!(
                yaml.starts_with("k: \"") || yaml.starts_with("k: |"),
                "{word:?} printed as {yaml:?}"
            );
        }
        for plain in [
            "hello",
            "app.kubernetes.io/name",
            "nginx:1.27",
            "a-b_c",
            "Yesterday",
            "none",
            "v1",
        ] {
            assert_eq!(to_yaml(&json!({"k": plain})), format!("k: {plain}\n"));
        }
    }

    #[test]
    fn documents_are_block_style_as_kubectl_writes_them() {
        let object = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "labels": {"generated": "yes"}},
            "data": {"script": "#!/bin/sh\necho hi\n", "empty": "", "list": []},
            "spec": {"ports": [{"port": 80, "name": "http"}, {"port": 443}], "args": ["--a", "b"], "none": null}
        });
        // Keys in the order of the map (serde_json keeps them sorted).
        assert_eq!(
            to_yaml(&object),
            "apiVersion: v1\ndata:\n  empty: \"\"\n  list: []\n  script: |\n    #!/bin/sh\n    echo hi\n\
             kind: ConfigMap\nmetadata:\n  labels:\n    generated: \"yes\"\n  name: c\n\
             spec:\n  args:\n  - \"--a\"\n  - b\n  none: null\n  ports:\n  - name: http\n    port: 80\n  - port: 443\n"
        );
    }

    #[test]
    fn lists_in_lists_and_exponents_read_back_the_same() {
        assert_eq!(
            to_yaml(&json!({"k": [[1, 2], []]})),
            "k:\n-\n  - 1\n  - 2\n- []\n"
        );
        assert_eq!(to_yaml(&json!({"k": 1e300})), "k: 1.0e+300\n");
        assert_eq!(to_yaml(&json!({"k": 1.5})), "k: 1.5\n");
    }

    #[test]
    fn literal_blocks_keep_their_trailing_newlines() {
        assert_eq!(to_yaml(&json!({"k": "a\nb"})), "k: |-\n  a\n  b\n");
        assert_eq!(to_yaml(&json!({"k": "a\nb\n"})), "k: |\n  a\n  b\n");
        assert_eq!(
            to_yaml(&json!({"k": "a\n\nb\n\n"})),
            "k: |+\n  a\n\n  b\n\n"
        );
    }
}
