//! Writing YAML the way Helm's `toYaml` does (sigs.k8s.io/yaml: a JSON round trip, then go-yaml v2's emitter):
//! block style, two-space indent, sequences flush with their key, go-yaml's key order, its choice of plain,
//! quoted and literal scalars, and long plain lines folded at 80 columns.

use crate::template::Value;
use crate::template::format::{format_float_g, format_float_json};

/// go-yaml's preferred line width.
const BEST_WIDTH: usize = 80;

/// Where a sequence that is a map's value starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sequences {
    /// Flush with its key (go-yaml v2, `toYaml`).
    Flush,
    /// Two spaces in from its key (go-yaml v3 with an indent of 2, `toYamlPretty`).
    Indented,
}

/// YAML text for a value, ending in a newline (Helm's `toYaml` trims that newline itself).
pub fn to_yaml(value: &Value) -> String {
    to_yaml_with(value, Sequences::Flush)
}

/// YAML text for a value with sequences laid out as `sequences` says.
pub fn to_yaml_with(value: &Value, sequences: Sequences) -> String {
    let mut out = String::new();
    let value = plain_data(value);
    let style = sequences;
    match &value {
        Value::Map(_) if value.is_truthy() => {
            write_map(&mut out, &sorted_entries(&value), 0, false, style)
        }
        Value::List(items) if !items.is_empty() => write_list(&mut out, items, 0, false, style),
        // A scalar document is indented as go-yaml indents a node's content: a block scalar's lines and a long
        // plain scalar's continuation lines two spaces in.
        scalar => {
            write_scalar(&mut out, scalar, 2, false);
            out.push('\n');
        }
    }
    out
}

/// Host objects replaced by their data.
fn plain_data(value: &Value) -> Value {
    match value {
        Value::Object(object) => plain_data(&object.to_data()),
        Value::List(items) => Value::list(items.iter().map(plain_data).collect()),
        Value::Map(_) => Value::map(
            value
                .map_entries()
                .into_iter()
                .map(|(k, v)| (k, plain_data(&v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A map's entries in go-yaml's key order: runs of digits compare as numbers, non-letters before letters.
fn sorted_entries(value: &Value) -> Vec<(String, Value)> {
    let mut entries = value.map_entries();
    entries.sort_by(|a, b| compare_keys(&a.0, &b.0));
    entries
}

/// go-yaml v2's key comparison.
pub fn compare_keys(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let a_letter = ar[i].is_alphabetic();
        let b_letter = br[i].is_alphabetic();
        if a_letter && b_letter {
            return ar[i].cmp(&br[i]);
        }
        if a_letter || b_letter {
            return if b_letter {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        let (mut a_number, mut b_number) = (0i64, 0i64);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && ar[j - 1].is_ascii_digit() {
                j -= 1;
                if ar[j] != '0' {
                    a_number = 1;
                    b_number = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && ar[ai].is_ascii_digit() {
            a_number = a_number
                .saturating_mul(10)
                .saturating_add(i64::from(ar[ai] as u8 - b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && br[bi].is_ascii_digit() {
            b_number = b_number
                .saturating_mul(10)
                .saturating_add(i64::from(br[bi] as u8 - b'0'));
            bi += 1;
        }
        if a_number != b_number {
            return a_number.cmp(&b_number);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

fn indent(out: &mut String, width: usize) {
    out.extend(std::iter::repeat_n(' ', width));
}

fn write_map(
    out: &mut String,
    entries: &[(String, Value)],
    level: usize,
    inline_first: bool,
    style: Sequences,
) {
    for (i, (key, value)) in entries.iter().enumerate() {
        if i > 0 || !inline_first {
            indent(out, level);
        }
        write_string(out, key, level, true);
        out.push(':');
        write_value_after_key(out, value, level, style);
    }
}

fn write_value_after_key(out: &mut String, value: &Value, level: usize, style: Sequences) {
    match value {
        Value::Map(_) if value.is_truthy() => {
            out.push('\n');
            write_map(out, &sorted_entries(value), level + 2, false, style);
        }
        Value::List(items) if !items.is_empty() => {
            out.push('\n');
            let level = match style {
                Sequences::Flush => level,
                Sequences::Indented => level + 2,
            };
            write_list(out, items, level, false, style);
        }
        scalar => {
            out.push(' ');
            write_scalar(out, scalar, level + 2, false);
            out.push('\n');
        }
    }
}

fn write_list(
    out: &mut String,
    items: &[Value],
    level: usize,
    inline_first: bool,
    style: Sequences,
) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 || !inline_first {
            indent(out, level);
        }
        out.push_str("- ");
        match item {
            Value::Map(_) if item.is_truthy() => {
                write_map(out, &sorted_entries(item), level + 2, true, style)
            }
            Value::List(inner) if !inner.is_empty() => {
                write_list(out, inner, level + 2, true, style)
            }
            scalar => {
                write_scalar(out, scalar, level + 2, false);
                out.push('\n');
            }
        }
    }
}

/// A number as the JSON round trip leaves it: integral values print as ints.
fn write_float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str(".nan");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "+.inf" } else { "-.inf" });
    } else {
        let json = format_float_json(f);
        if json.parse::<i64>().is_ok() || json.parse::<u64>().is_ok() {
            out.push_str(&json);
        } else {
            out.push_str(&format_float_g(f));
        }
    }
}

fn write_scalar(out: &mut String, value: &Value, level: usize, is_key: bool) {
    match value {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => write_float(out, *f),
        Value::String(s) => write_string(out, s, level, is_key),
        Value::Map(_) => out.push_str("{}"),
        Value::List(_) => out.push_str("[]"),
        Value::Object(object) => write_scalar(out, &object.to_data(), level, is_key),
    }
}

/// What libyaml's scalar analysis finds in a string.
#[derive(Debug, Default)]
struct Analysis {
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
    multiline: bool,
}

/// go-yaml's `is_printable`: line feed, printable ASCII and the rest of the Basic Multilingual Plane but for
/// surrogates, the byte-order mark and U+FFFE/U+FFFF; NEL and characters beyond U+FFFF (emoji) are escaped.
fn is_yaml_printable(c: char) -> bool {
    c == '\n'
        || ('\u{20}'..='\u{7e}').contains(&c)
        || ('\u{a0}'..='\u{d7ff}').contains(&c)
        || (('\u{e000}'..='\u{fffd}').contains(&c) && c != '\u{feff}')
}

fn analyze(text: &str) -> Analysis {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Analysis {
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
            multiline: false,
        };
    }
    let mut block_indicators = text.starts_with("---") || text.starts_with("...");
    let mut flow_indicators = block_indicators;
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break, mut previous_space, mut previous_break) =
        (false, false, false, false);
    let (mut line_breaks, mut special) = (false, false);
    let mut preceded_by_whitespace = true;
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let followed_by_whitespace =
            next.is_none_or(|n| matches!(n, ' ' | '\t' | '\n' | '\r' | '\u{85}'));
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                '?' | ':' => {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                '-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match c {
                ',' | '?' | '[' | ']' | '{' | '}' => flow_indicators = true,
                ':' => {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                '#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        if !is_yaml_printable(c) {
            special = true;
        }
        let is_break = matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}');
        if is_break {
            line_breaks = true;
        }
        let last = i + 1 == chars.len();
        if c == ' ' {
            if i == 0 {
                leading_space = true;
            }
            if last {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break {
            if i == 0 {
                leading_break = true;
            }
            if last {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_break = true;
            previous_space = false;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = matches!(c, ' ' | '\t') || is_break;
    }
    let mut analysis = Analysis {
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
        multiline: line_breaks,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        analysis.block_plain_allowed = false;
    }
    if trailing_space {
        analysis.block_allowed = false;
    }
    if break_space {
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
    }
    if space_break || special {
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
        analysis.block_allowed = false;
    }
    if line_breaks {
        analysis.block_plain_allowed = false;
    }
    if block_indicators {
        analysis.block_plain_allowed = false;
    }
    let _ = flow_indicators;
    analysis
}

/// Whether go-yaml would read the plain text back as something other than a string.
fn resolves_to_non_string(text: &str) -> bool {
    !matches!(crate::yaml::parse::resolve_plain(text), Value::String(_))
        || is_base60_float(text)
        || is_timestamp(text)
}

/// go-yaml (v2, which Helm's `toYaml` uses) quotes strings it would resolve as a `!!timestamp`: those Go's
/// `time.Parse` accepts with one of the layouts `2006-1-2T15:4:5.999999999Z07:00` (also with a lower-case `t`),
/// `2006-1-2 15:4:5.999999999` or `2006-1-2`. (Reading YAML, a plain timestamp stays a string, as in Helm.)
fn is_timestamp(text: &str) -> bool {
    /// Go's `getnum`: one digit, or two when a second follows (exactly two when `fixed`).
    fn number(s: &[u8], fixed: bool) -> Option<(u32, &[u8])> {
        let digit = |i: usize| {
            s.get(i)
                .filter(|b| b.is_ascii_digit())
                .map(|b| u32::from(b - b'0'))
        };
        let first = digit(0)?;
        match digit(1) {
            Some(second) => Some((first * 10 + second, &s[2..])),
            None if fixed => None,
            None => Some((first, &s[1..])),
        }
    }
    fn literal(s: &[u8], c: u8) -> Option<&[u8]> {
        s.strip_prefix(&[c])
    }
    /// `15:4:5.999999999`: hour, minute and second in range, then an optional fraction (`.` or `,` and digits).
    fn time(s: &[u8]) -> Option<&[u8]> {
        let (hour, s) = number(s, false)?;
        let (minute, s) = number(literal(s, b':')?, false)?;
        let (second, s) = number(literal(s, b':')?, false)?;
        if hour >= 24 || minute >= 60 || second >= 60 {
            return None;
        }
        if s.len() >= 2 && matches!(s[0], b'.' | b',') && s[1].is_ascii_digit() {
            let digits = s[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            return Some(&s[1 + digits..]);
        }
        Some(s)
    }
    /// `Z07:00`: `Z`, or a sign and a two-digit hour (up to 24) and minute (up to 60).
    fn zone(s: &[u8]) -> Option<&[u8]> {
        if let Some(rest) = literal(s, b'Z') {
            return Some(rest);
        }
        if s.len() < 6 || !matches!(s[0], b'+' | b'-') || s[3] != b':' {
            return None;
        }
        let (hour, _) = number(&s[1..3], true)?;
        let (minute, _) = number(&s[4..6], true)?;
        (hour <= 24 && minute <= 60).then_some(&s[6..])
    }
    let bytes = text.as_bytes();
    // go-yaml's quick check: exactly four digits, then a dash.
    if bytes.iter().take_while(|b| b.is_ascii_digit()).count() != 4 || bytes.get(4) != Some(&b'-') {
        return false;
    }
    let year: u32 = text[..4].parse().unwrap_or_default();
    let date = number(&bytes[5..], false).and_then(|(month, s)| {
        let (day, s) = number(literal(s, b'-')?, false)?;
        let leap =
            year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let days = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            1..=12 => 31,
            _ => return None,
        };
        (1..=days).contains(&day).then_some(s)
    });
    let Some(rest) = date else {
        return false;
    };
    let end = match rest {
        [] => Some(rest),
        [b'T' | b't', time_and_zone @ ..] => time(time_and_zone).and_then(zone),
        // Go's layouts match a space with any run of spaces.
        [b' ', ..] => time(rest.trim_ascii_start()),
        _ => None,
    };
    end.is_some_and(<[u8]>::is_empty)
}

/// go-yaml quotes YAML 1.1 base-60 floats (`1:20`) too.
fn is_base60_float(text: &str) -> bool {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let Some((head, rest)) = body.split_once(':') else {
        return false;
    };
    let head_ok = !head.is_empty()
        && head.bytes().all(|b| b.is_ascii_digit() || b == b'_')
        && !head.starts_with('0');
    let mut parts = rest.split(':').peekable();
    let mut ok = head_ok;
    while let Some(part) = parts.next() {
        let (whole, fraction) = match parts.peek() {
            Some(_) => (part, None),
            None => match part.split_once('.') {
                Some((w, f)) => (w, Some(f)),
                None => (part, None),
            },
        };
        let digits_ok = !whole.is_empty()
            && whole.len() <= 2
            && whole.bytes().all(|b| b.is_ascii_digit())
            && whole.parse::<u32>().is_ok_and(|n| n < 60);
        ok &= digits_ok
            && fraction.is_none_or(|f| f.bytes().all(|b| b.is_ascii_digit() || b == b'_'));
    }
    ok
}

fn current_column(out: &str) -> usize {
    match out.rfind('\n') {
        Some(i) => out[i + 1..].chars().count(),
        None => out.chars().count(),
    }
}

fn write_string(out: &mut String, text: &str, level: usize, is_key: bool) {
    let analysis = analyze(text);
    if text.contains('\n') && !is_key {
        if analysis.block_allowed {
            write_literal(out, text, level);
        } else {
            write_double_quoted(out, text);
        }
        return;
    }
    if text.is_empty() || resolves_to_non_string(text) {
        write_double_quoted(out, text);
        return;
    }
    if analysis.block_plain_allowed && !analysis.multiline {
        write_folded_words(out, text, level, !is_key);
    } else if analysis.single_quoted_allowed {
        out.push('\'');
        write_folded_words(out, &text.replace('\'', "''"), level, !is_key);
        out.push('\'');
    } else {
        write_double_quoted(out, text);
    }
}

/// Writes words, breaking at a single space once past the line width, as go-yaml does for plain and
/// single-quoted scalars.
fn write_folded_words(out: &mut String, text: &str, level: usize, allow_breaks: bool) {
    let chars: Vec<char> = text.chars().collect();
    let mut column = current_column(out);
    let mut previous_space = false;
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let next_is_space = chars.get(i + 1) == Some(&' ');
            if allow_breaks
                && !previous_space
                && column > BEST_WIDTH
                && i != 0
                && i + 1 != chars.len()
                && !next_is_space
            {
                out.push('\n');
                indent(out, level);
                column = level;
            } else {
                out.push(' ');
                column += 1;
            }
            previous_space = true;
        } else {
            out.push(c);
            column += 1;
            previous_space = false;
        }
    }
}

fn write_literal(out: &mut String, text: &str, level: usize) {
    out.push('|');
    if text.starts_with([' ', '\n']) {
        out.push('2');
    }
    let trailing_breaks = text.len() - text.trim_end_matches('\n').len();
    match trailing_breaks {
        0 => out.push('-'),
        1 => {}
        _ => out.push('+'),
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            indent(out, level);
            out.push_str(line);
        }
    }
}

fn write_double_quoted(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '\0' => out.push_str("\\0"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{85}' => out.push_str("\\N"),
            '\u{a0}' => out.push_str("\\_"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if is_yaml_printable(c) => out.push(c),
            c if (c as u32) <= 0xff => out.push_str(&format!("\\x{:02X}", c as u32)),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push_str(&format!("\\U{:08X}", c as u32)),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_document;

    fn yaml(source: &str) -> String {
        to_yaml(&crate::yaml::parse::json_numbers(
            parse_document(source).unwrap(),
        ))
    }

    #[test]
    fn writes_block_style_like_go_yaml() {
        assert_eq!(
            yaml("b: {c: 1, a: [x, [w, z], {k: v, j: 2}]}\na: 1.5\ne: {}\nf: []\nm: null"),
            "a: 1.5\nb:\n  a:\n  - x\n  - - w\n    - z\n  - j: 2\n    k: v\n  c: 1\ne: {}\nf: []\nm: null\n"
        );
    }

    #[test]
    fn quotes_strings_like_go_yaml() {
        let cases = [
            ("'true'", "\"true\""),
            ("'123'", "\"123\""),
            ("''", "\"\""),
            ("'a: b'", "'a: b'"),
            ("-dash", "-dash"),
            ("'#hash'", "'#hash'"),
            ("'  leading'", "'  leading'"),
            ("\"a\\tb\"", "\"a\\tb\""),
            ("'*star'", "'*star'"),
            ("'yes'", "\"yes\""),
            ("'0x1F'", "\"0x1F\""),
            ("'1.0'", "\"1.0\""),
            ("'~'", "\"~\""),
            ("<html>&", "<html>&"),
            ("'a \"dq\"'", "a \"dq\""),
            ("'1:20'", "\"1:20\""),
        ];
        for (input, expected) in cases {
            assert_eq!(
                yaml(&format!("k: {input}")),
                format!("k: {expected}\n"),
                "{input}"
            );
        }
    }

    #[test]
    fn quotes_timestamps_like_go_yaml() {
        let quoted = [
            "2020-10-24",
            "2020-1-2",
            "2020-02-29",
            "2000-02-29",
            "0000-01-01",
            "2020-10-24T10:00:00Z",
            "2020-10-24t1:2:3+01:00",
            "2020-10-24 10:00:00",
            "2020-10-24   10:00:00.5",
            "2020-10-24 1:2:3",
            "2020-10-24T10:00:00,5+23:00",
            "2020-10-24T10:00:00+24:60",
            "2020-10-24T10:00:00.123456789012Z",
        ];
        for text in quoted {
            assert_eq!(
                yaml(&format!("k: '{text}'")),
                format!("k: \"{text}\"\n"),
                "{text}"
            );
        }
        let plain = [
            "2020-13-01",
            "2020-00-01",
            "2020-02-30",
            "2021-02-29",
            "1900-02-29",
            "2020-10-00",
            "2020-10-24T10:00:00",
            "2020-10-24 10:00:00Z",
            "20201-01-01",
            "2020-10-24x",
            "2020-1-022",
            "2020-10-24T24:00:00Z",
            "2020-10-24T23:60:00Z",
            "2020-10-24T23:59:60Z",
            "2020-10-24T10:00:00.Z",
            "2020-10-24T10:00:00,5+25:00",
            "2020-10-24T10:00:00+24:61",
            "2020-10-24T10:00:00-0100",
            "2020-10-24T10:00:00 Z",
            "2020-10-24 1:2",
            "2020-10-24T1:2:3z",
            "2020-10-24 10:00:00.5.5",
            "2020-10-24T10:00:00+01:0a",
            "2020-10-24T123:00:00Z",
            "-2020-10-24",
        ];
        for text in plain {
            assert_eq!(
                yaml(&format!("k: '{text}'")),
                format!("k: {text}\n"),
                "{text}"
            );
        }
        // Trailing spaces are quoted anyway (single quotes), as go-yaml does.
        assert_eq!(yaml("k: '2020-1-2 '"), "k: '2020-1-2 '\n");
    }

    #[test]
    fn characters_beyond_the_basic_plane_are_escaped_as_go_yaml_escapes_them() {
        assert_eq!(
            to_yaml(&Value::string("emoji 🎉")),
            "\"emoji \\U0001F389\"\n"
        );
        assert_eq!(to_yaml(&Value::string("unicode ✓")), "unicode ✓\n");
    }

    #[test]
    fn a_multi_line_string_alone_is_a_block_scalar_indented_as_go_yaml_indents_it() {
        let script = Value::string("#!/bin/sh\necho hi\n");
        assert_eq!(to_yaml(&script), "|\n  #!/bin/sh\n  echo hi\n");
        let long = Value::string(
            "this is a rather long line of text that goes well past eighty columns, so a YAML emitter could fold it",
        );
        assert_eq!(
            to_yaml(&long),
            "this is a rather long line of text that goes well past eighty columns, so a YAML emitter\n  could fold it\n"
        );
    }

    #[test]
    fn writes_literal_blocks_and_folds_long_lines() {
        assert_eq!(yaml("k: \"a\\nb\\n\""), "k: |\n  a\n  b\n");
        assert_eq!(yaml("k: \"a\\n\\nb\""), "k: |-\n  a\n\n  b\n");
        assert_eq!(yaml("k: \"  lead\\nx\""), "k: |2-\n    lead\n  x\n");
        let long = "this is a very long string that goes on and on and on and on and on and on and on and on and on and on and end";
        assert_eq!(
            yaml(&format!("s7: {long}")),
            "s7: this is a very long string that goes on and on and on and on and on and on and\n  on and on and on and on and end\n"
        );
    }

    #[test]
    fn orders_keys_like_go_yaml() {
        let mut keys = vec!["item10", "item9", "B", "_x", "a"];
        keys.sort_by(|a, b| compare_keys(a, b));
        assert_eq!(keys, vec!["_x", "B", "a", "item9", "item10"]);
        assert_eq!(yaml("big: 1000000\nf: 1e21\n"), "big: 1000000\nf: 1e+21\n");
    }
}
