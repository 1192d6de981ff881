//! A fast reader for the YAML that templates emit: block mappings and sequences, plain and single-line quoted
//! scalars, literal block scalars and single-line flow collections, read straight into the JSON value a manifest
//! becomes. Anything outside that subset (anchors, tags, merge keys, folded or multi-line scalars, ...) makes it
//! answer `None`, and the full reader ([`super::parse`]) reads the document instead: for the subset both give the
//! same value, so which one read a document never shows.

use serde_json::{Map, Value};

use super::parse::{key_string, resolve_plain_typed};
use crate::json::to_serde;

/// How deeply collections may nest before the full reader takes over (it refuses past 256 with its own error).
const MAX_DEPTH: usize = 200;

/// The longest implicit key YAML allows.
const MAX_KEY_BYTES: usize = 1024;

/// The value of one YAML document (as Helm emits it, ending in a line break) whose top is a block mapping;
/// `Null` for a document of only comments and blank lines; `None` when the document leaves the subset.
pub fn read_document(text: &str) -> Option<Value> {
    if !text.ends_with('\n') || !plain_characters(text) {
        return None;
    }
    let mut reader = Reader {
        text,
        pos: 0,
        last_line: std::cell::Cell::new((usize::MAX, 0)),
    };
    let Some(first) = reader.peek()? else {
        return Some(Value::Null);
    };
    let value = reader.mapping(first.start, first.indent, 0)?;
    match reader.peek()? {
        None => Some(Value::Object(value)),
        Some(_) => None,
    }
}

/// Whether the text holds none of the characters the subset leaves to the full reader: tabs, carriage returns,
/// other control characters, a byte-order mark, and the line breaks of YAML 1.1 (NEL, LS, PS).
fn plain_characters(text: &str) -> bool {
    let ascii_ok = |b: u8| b == b'\n' || (0x20..0x7f).contains(&b);
    if text.bytes().all(ascii_ok) {
        return true;
    }
    text.chars().all(|c| {
        c == '\n'
            || !(c.is_control()
                || matches!(
                    c,
                    '\u{feff}' | '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}'
                ))
    })
}

/// A line that holds content (not blank, not a comment).
#[derive(Clone, Copy)]
struct ContentLine {
    /// Byte offset of the line's start.
    start: usize,
    /// Leading spaces.
    indent: usize,
}

/// Reads one document; `pos` is the start of the first line not yet read.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
    /// The start and end of the line last looked up: each line is asked for several times in a row.
    last_line: std::cell::Cell<(usize, usize)>,
}

impl<'a> Reader<'a> {
    /// The line starting at `start`, without its line break.
    fn line(&self, start: usize) -> &'a str {
        let (last_start, last_end) = self.last_line.get();
        if last_start == start {
            return &self.text[start..last_end];
        }
        let rest = &self.text.as_bytes()[start..];
        let end = start + rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        self.last_line.set((start, end));
        &self.text[start..end]
    }

    /// Marks the line starting at `start` read.
    fn consume(&mut self, start: usize) {
        self.pos = start + self.line(start).len() + 1;
    }

    /// The next content line, skipping blank and comment lines without reading them; `None` inside when the
    /// document has no more content; outer `None` for a document marker (`---`, `...`), left to the full reader.
    fn peek(&mut self) -> Option<Option<ContentLine>> {
        let mut start = self.pos;
        while start < self.text.len() {
            let line = self.line(start);
            let indent = line.len() - line.trim_start_matches(' ').len();
            let rest = &line[indent..];
            if !rest.is_empty() && !rest.starts_with('#') {
                if indent == 0 && (rest.starts_with("---") || rest.starts_with("...")) {
                    return None;
                }
                return Some(Some(ContentLine { start, indent }));
            }
            start += line.len() + 1;
            self.pos = start;
        }
        Some(None)
    }

    /// A block mapping whose first key starts at column `col` of the line at `start`, and whose further keys
    /// start lines indented by `col`.
    fn mapping(&mut self, start: usize, col: usize, depth: usize) -> Option<Map<String, Value>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut map = Map::new();
        let mut line_start = start;
        loop {
            let content = &self.line(line_start)[col..];
            let (key, after) = mapping_key(content)?;
            let rest = content[after..].trim_start_matches(' ');
            let value = if rest.is_empty() || rest.starts_with('#') {
                self.consume(line_start);
                self.block_value(col, true, depth)?
            } else {
                let rest_col = col + (content.len() - rest.len());
                self.inline_value(line_start, rest_col, col, depth)?
            };
            map.insert(key, value);
            match self.peek()? {
                Some(next) if next.indent == col => line_start = next.start,
                Some(next) if next.indent > col => return None,
                _ => return Some(map),
            }
        }
    }

    /// A block sequence whose first `-` is at column `col` of the line at `start`, the next ones starting lines
    /// indented by `col`.
    fn sequence(&mut self, start: usize, col: usize, depth: usize) -> Option<Vec<Value>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut items = Vec::new();
        let mut line_start = start;
        loop {
            let content = &self.line(line_start)[col..];
            let item = content.strip_prefix('-')?;
            if !(item.is_empty() || item.starts_with(' ')) {
                return None;
            }
            let rest = item.trim_start_matches(' ');
            let value = if rest.is_empty() || rest.starts_with('#') {
                self.consume(line_start);
                self.block_value(col, false, depth)?
            } else {
                let rest_col = col + (content.len() - rest.len());
                self.node(line_start, rest_col, col, depth)?
            };
            items.push(value);
            match self.peek()? {
                Some(next) if next.indent == col && is_entry(&self.line(next.start)[col..]) => {
                    line_start = next.start;
                }
                Some(next) if next.indent > col => return None,
                _ => return Some(items),
            }
        }
    }

    /// The value of a key or entry with nothing after it on its line: the node on the lines below, indented past
    /// `parent` (or, for a mapping's key, a sequence at the key's own indent); null when there is none.
    fn block_value(&mut self, parent: usize, in_mapping: bool, depth: usize) -> Option<Value> {
        match self.peek()? {
            Some(next) if next.indent > parent => {
                self.node(next.start, next.indent, parent, depth + 1)
            }
            Some(next)
                if in_mapping
                    && next.indent == parent
                    && is_entry(&self.line(next.start)[parent..]) =>
            {
                self.sequence(next.start, parent, depth + 1)
                    .map(Value::Array)
            }
            _ => Some(Value::Null),
        }
    }

    /// A node starting at column `col` of the line at `start`: a sequence, a mapping, or a scalar or flow
    /// collection that ends on this line (or a block scalar on the lines below); `parent` is the indent of the
    /// collection holding it.
    fn node(&mut self, start: usize, col: usize, parent: usize, depth: usize) -> Option<Value> {
        let content = &self.line(start)[col..];
        if is_entry(content) {
            return self.sequence(start, col, depth + 1).map(Value::Array);
        }
        if starts_mapping_key(content) {
            return self.mapping(start, col, depth + 1).map(Value::Object);
        }
        self.inline_value(start, col, parent, depth)
    }

    /// A value that starts at column `col` of the line at `start` and is not a block collection: a block scalar,
    /// a flow collection, a quoted or a plain scalar; `parent` is the indent of the collection holding it.
    fn inline_value(
        &mut self,
        start: usize,
        col: usize,
        parent: usize,
        depth: usize,
    ) -> Option<Value> {
        let content = &self.line(start)[col..];
        self.consume(start);
        match content.as_bytes()[0] {
            b'|' => self.literal(&content[1..], parent).map(Value::String),
            b'[' | b'{' => {
                let mut flow = Flow {
                    text: content,
                    at: 0,
                };
                let value = flow.node(depth + 1)?;
                rest_is_comment(&content[flow.at..]).then_some(value)
            }
            b'\'' | b'"' => {
                let (text, used) = quoted(content)?;
                rest_is_comment(&content[used..]).then_some(Value::String(text))
            }
            _ => block_plain(content),
        }
    }

    /// A literal block scalar (`|`, `|-`, `|+`) whose header, after the `|`, is `header`, its lines indented past
    /// `parent`, read as yaml-rust2 reads it.
    fn literal(&mut self, header: &str, parent: usize) -> Option<String> {
        let (chomping, rest) = match header.as_bytes().first() {
            Some(b'-') => (Chomping::Strip, &header[1..]),
            Some(b'+') => (Chomping::Keep, &header[1..]),
            _ => (Chomping::Clip, header),
        };
        let trimmed = rest.trim_start_matches(' ');
        if !(trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())) {
            return None;
        }
        // The indentation is the first line's; leading blank lines and an empty scalar are left to the full reader.
        if self.pos >= self.text.len() {
            return None;
        }
        let first = self.line(self.pos);
        let indent = first.len() - first.trim_start_matches(' ').len();
        if indent == first.len() || indent <= parent {
            return None;
        }
        let mut text = String::new();
        let mut breaks = 0usize;
        let mut content_seen = false;
        while self.pos < self.text.len() {
            let line = self.line(self.pos);
            let spaces = line.len() - line.trim_start_matches(' ').len();
            if spaces.min(indent) == line.len() {
                breaks += 1;
            } else if spaces < indent {
                break;
            } else {
                if content_seen {
                    text.push('\n');
                }
                text.extend(std::iter::repeat_n('\n', breaks));
                breaks = 0;
                text.push_str(&line[indent..]);
                content_seen = true;
            }
            self.pos += line.len() + 1;
        }
        if chomping != Chomping::Strip {
            text.push('\n');
        }
        if chomping == Chomping::Keep {
            text.extend(std::iter::repeat_n('\n', breaks));
        }
        Some(text)
    }
}

/// What a block scalar does with its final line breaks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomping {
    /// `|`: one line break kept.
    Clip,
    /// `|-`: none kept.
    Strip,
    /// `|+`: all kept.
    Keep,
}

/// Where the two ASCII bytes `first` and `second` first stand next to each other in `text` (a plain loop: the
/// standard library's substring search sets up more than these short lines repay).
fn find_pair(text: &str, first: u8, second: u8) -> Option<usize> {
    text.as_bytes()
        .windows(2)
        .position(|pair| pair[0] == first && pair[1] == second)
}

/// Whether a line's content (from its indent) is a block sequence entry: `-` then a space or the line's end.
fn is_entry(content: &str) -> bool {
    content
        .strip_prefix('-')
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// Whether what is left of a line after a value is only spaces and perhaps a comment.
fn rest_is_comment(rest: &str) -> bool {
    let trimmed = rest.trim_start_matches(' ');
    trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())
}

/// Characters a plain scalar may not start with (`-`, `?` and `:` only followed by a space, but the subset leaves
/// those to the full reader too).
fn starts_plain(text: &str) -> bool {
    !matches!(
        text.as_bytes().first(),
        None | Some(
            b'-' | b'?'
                | b':'
                | b','
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'#'
                | b'&'
                | b'*'
                | b'!'
                | b'|'
                | b'>'
                | b'\''
                | b'"'
                | b'%'
                | b'@'
                | b'`'
        )
    ) || text.starts_with('-') && text.len() > 1 && !text[1..].starts_with(' ')
}

/// A block mapping's key at the start of `content` and the offset just past its `:`; `None` when the content is
/// not a key the subset reads (not a key at all, a merge key `<<`, a key longer than YAML allows).
fn mapping_key(content: &str) -> Option<(String, usize)> {
    let bytes = content.as_bytes();
    let (key, end) = match bytes.first()? {
        b'\'' | b'"' => {
            let (text, used) = quoted(content)?;
            let after =
                used + (content.len() - used - content[used..].trim_start_matches(' ').len());
            (text, after)
        }
        _ => {
            let (text, colon) = plain_key(content)?;
            let key = match resolve_plain_typed(text) {
                Some(value) => key_string(&value),
                None => text.to_string(),
            };
            (key, colon)
        }
    };
    if bytes.get(end) != Some(&b':')
        || bytes.get(end + 1).is_some_and(|&b| b != b' ')
        || key == "<<"
        || end > MAX_KEY_BYTES
    {
        return None;
    }
    Some((key, end + 1))
}

/// Whether `content` starts with a key [`mapping_key`] reads, found without making the key (a block node is
/// asked this before its mapping reads the same key).
fn starts_mapping_key(content: &str) -> bool {
    match content.as_bytes().first() {
        Some(b'\'' | b'"') => mapping_key(content).is_some(),
        _ => plain_key(content).is_some_and(|(text, colon)| text != "<<" && colon <= MAX_KEY_BYTES),
    }
}

/// A plain key at the start of `content`: its text (trailing spaces dropped) and the offset of the `:` after it,
/// followed by a space or the line's end; `None` when the content does not start so, or a comment comes first.
fn plain_key(content: &str) -> Option<(&str, usize)> {
    if !starts_plain(content) {
        return None;
    }
    let bytes = content.as_bytes();
    let colon = (0..bytes.len())
        .find(|&i| bytes[i] == b':' && bytes.get(i + 1).is_none_or(|&b| b == b' '))?;
    let text = &content[..colon];
    if find_pair(text, b' ', b'#').is_some() {
        return None;
    }
    Some((text.trim_end_matches(' '), colon))
}

/// A plain scalar that fills the rest of a block line (a comment after it dropped), resolved as go-yaml v2 does.
fn block_plain(content: &str) -> Option<Value> {
    if !starts_plain(content) {
        return None;
    }
    let text = match find_pair(content, b' ', b'#') {
        Some(comment) => &content[..comment],
        None => content,
    }
    .trim_end_matches(' ');
    if find_pair(text, b':', b' ').is_some() || text.ends_with(':') {
        return None;
    }
    Some(plain_value(text))
}

/// A plain scalar's JSON value.
fn plain_value(text: &str) -> Value {
    match resolve_plain_typed(text) {
        Some(value) => to_serde(&value),
        None => Value::String(text.to_string()),
    }
}

/// A quoted scalar at the start of `text`, closed on the same line: its value and the bytes it took.
fn quoted(text: &str) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    if bytes[0] == b'\'' {
        let mut from = 1;
        loop {
            let close = from + text[from..].find('\'')?;
            out.push_str(&text[from..close]);
            if bytes.get(close + 1) == Some(&b'\'') {
                out.push('\'');
                from = close + 2;
            } else {
                return Some((out, close + 1));
            }
        }
    }
    let mut from = 1;
    loop {
        let stop = from + text[from..].find(['"', '\\'])?;
        out.push_str(&text[from..stop]);
        if bytes[stop] == b'"' {
            return Some((out, stop + 1));
        }
        let (c, used) = escape(&text[stop + 1..])?;
        out.push(c);
        from = stop + 1 + used;
    }
}

/// The character a double-quoted scalar's escape stands for (what follows the backslash) and the bytes it took;
/// `None` for the escapes the subset leaves to the full reader.
fn escape(text: &str) -> Option<(char, usize)> {
    let hex = |digits: usize| {
        let code = u32::from_str_radix(text.get(1..1 + digits)?, 16).ok()?;
        char::from_u32(code).map(|c| (c, 1 + digits))
    };
    let simple = match text.as_bytes().first()? {
        b'0' => '\0',
        b'a' => '\u{7}',
        b'b' => '\u{8}',
        b't' => '\t',
        b'n' => '\n',
        b'v' => '\u{b}',
        b'f' => '\u{c}',
        b'r' => '\r',
        b'e' => '\u{1b}',
        b' ' => ' ',
        b'"' => '"',
        b'/' => '/',
        b'\\' => '\\',
        b'x' => return hex(2),
        b'u' => return hex(4),
        b'U' => return hex(8),
        _ => return None,
    };
    Some((simple, 1))
}

/// A flow collection on one line.
struct Flow<'a> {
    /// The line from the collection's opening bracket on.
    text: &'a str,
    /// Where reading has got to: always at an ASCII character (a delimiter or a space) or the end.
    at: usize,
}

impl<'a> Flow<'a> {
    fn skip_spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// The rest of the line.
    fn text(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or("")
    }

    /// A node inside (or at the top of) a flow collection.
    fn node(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_spaces();
        match self.peek()? {
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.skip_spaces();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Some(Value::Array(items));
                }
                loop {
                    items.push(self.node(depth + 1)?);
                    self.skip_spaces();
                    match self.peek()? {
                        b',' => {
                            self.at += 1;
                            self.skip_spaces();
                            if self.peek()? == b']' {
                                return None;
                            }
                        }
                        b']' => {
                            self.at += 1;
                            return Some(Value::Array(items));
                        }
                        _ => return None,
                    }
                }
            }
            b'{' => {
                self.at += 1;
                let mut map = Map::new();
                self.skip_spaces();
                if self.peek() == Some(b'}') {
                    self.at += 1;
                    return Some(Value::Object(map));
                }
                loop {
                    let key = self.key()?;
                    self.skip_spaces();
                    if matches!(self.peek()?, b',' | b'}') {
                        return None;
                    }
                    let value = self.node(depth + 1)?;
                    map.insert(key, value);
                    self.skip_spaces();
                    match self.peek()? {
                        b',' => {
                            self.at += 1;
                            self.skip_spaces();
                            if self.peek()? == b'}' {
                                return None;
                            }
                        }
                        b'}' => {
                            self.at += 1;
                            return Some(Value::Object(map));
                        }
                        _ => return None,
                    }
                }
            }
            b'\'' | b'"' => {
                let (text, used) = quoted(self.text())?;
                self.at += used;
                Some(Value::String(text))
            }
            _ => {
                let text = self.plain()?;
                if text.contains(':') {
                    return None;
                }
                Some(plain_value(text))
            }
        }
    }

    /// A plain scalar in a flow collection, up to the next flow indicator, trailing spaces dropped.
    fn plain(&mut self) -> Option<&'a str> {
        let rest = self.text();
        if !starts_plain(rest) {
            return None;
        }
        let end = rest.find([',', '[', ']', '{', '}']).unwrap_or(rest.len());
        let text = rest[..end].trim_end_matches(' ');
        if text.is_empty() || find_pair(text, b' ', b'#').is_some() {
            return None;
        }
        self.at += end;
        Some(text)
    }

    /// A flow mapping's key and its `: `.
    fn key(&mut self) -> Option<String> {
        self.skip_spaces();
        let key = match self.peek()? {
            b'\'' | b'"' => {
                let (text, used) = quoted(self.text())?;
                self.at += used;
                self.skip_spaces();
                text
            }
            _ => {
                let rest = self.text();
                if !starts_plain(rest) {
                    return None;
                }
                let colon = find_pair(rest, b':', b' ')?;
                let text = rest[..colon].trim_end_matches(' ');
                if text.is_empty() || text.contains([',', '[', ']', '{', '}', '#', ':']) {
                    return None;
                }
                let key = match resolve_plain_typed(text) {
                    Some(value) => key_string(&value),
                    None => text.to_string(),
                };
                self.at += colon;
                key
            }
        };
        if key == "<<"
            || self.peek()? != b':'
            || self.text.as_bytes().get(self.at + 1) != Some(&b' ')
        {
            return None;
        }
        self.at += 2;
        Some(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::into_serde;
    use crate::yaml::parse_document;

    /// The full reader's value for a document, as a manifest's JSON.
    fn full(text: &str) -> Value {
        into_serde(parse_document(text).unwrap())
    }

    /// Reads `text` with the subset reader, which must take it and agree with the full reader.
    fn same_as_full(text: &str) -> Value {
        let subset = read_document(text).unwrap_or_else(|| panic!("left the subset: {text:?}"));
        assert_eq!(subset, full(text), "{text:?}");
        subset
    }

    #[test]
    fn block_collections_and_plain_scalars_read_as_the_full_reader_reads_them() {
        let value = same_as_full(
            "# leading comment\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web # trailing\n  \
             labels:\n    app: web\n\n    tier: front\nspec:\n  replicas: 2\n  paused: no\n  ratio: 0.5\n  \
             mode: 0777\n  big: 18446744073709551615\n  none: ~\n  empty:\n  template:\n    spec:\n      \
             containers:\n        - name: c\n          image: \"img:1\"\n          args:\n          - --flag=a:b\n          \
             - 'it''s'\n          -\n          - - nested\n            - seq\n        -   name: d\n            \
             ports: []\n  1: one\n  true: yes\n  key with spaces  : v\n",
        );
        assert_eq!(value["spec"]["replicas"], 2);
        assert_eq!(value["spec"]["mode"], 511);
        assert_eq!(value["spec"]["1"], "one");
        assert_eq!(value["spec"]["true"], true);
        assert_eq!(
            value["spec"]["template"]["spec"]["containers"][0]["args"][1],
            "it's"
        );
    }

    #[test]
    fn literal_block_scalars_keep_their_lines_as_each_chomping_says() {
        for header in ["|", "|-", "|+", "| # why"] {
            same_as_full(&format!(
                "data:\n  script: {header}\n    #!/bin/sh\n\n      indented\n    last\n\n  \n  next: x\nend: |\n  a\n\n\n"
            ));
        }
        same_as_full("items:\n- |\n  text\n- key: |-\n    more\n   \n");
    }

    #[test]
    fn flow_collections_and_quoted_scalars_read_as_the_full_reader_reads_them() {
        same_as_full(
            "spec:\n  selector: {matchLabels: {app: api-1}}\n  ports: [{port: 80}, {port: 81, name: \"b\"}]\n  \
             list: [a b, 'c,d', 1, null, [x]]  # c\n  esc: \"tab\\there \\u00e9 \\x41 \\\" \\\\ \\/\"\n  \
             empty: {}\n  e: ''\n",
        );
    }

    #[test]
    fn the_render_benchs_documents_stay_in_the_subset() {
        // One document of each template of the render bench's charts (engine/benches/render.rs), as rendered.
        for document in [
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-0\n  labels:\n    app: large\n    \
             team: a\n    tier: b\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n        \
             - name: c\n          image: \"img:0\"\n          resources:\n            limits:\n              cpu: 1\n",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api-0\nspec:\n  selector: {matchLabels: \
             {app: api-0}}\n  template:\n    metadata: {labels: {app: api-0}}\n    spec:\n      containers:\n        \
             - {name: api, image: \"api:0\"}\n",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: jobs-0\nspec:\n  ports: [{port: 80}]\n",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: large-umbrella-0\n  labels:\n    \
             app.kubernetes.io/name: umbrella\n    app.kubernetes.io/instance: large\n    \
             app.kubernetes.io/managed-by: Helm\ndata:\n  index: \"0\"\n",
        ] {
            same_as_full(document);
        }
    }

    #[test]
    fn a_document_of_comments_is_null() {
        assert_eq!(read_document("# only\n\n  # comments\n"), Some(Value::Null));
    }

    #[test]
    fn what_the_subset_does_not_cover_is_left_to_the_full_reader() {
        for text in [
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a:\n  <<: {b: 1}\n",
            "a: >\n  folded\n",
            "a: |2\n   indented\n",
            "a: |\n\n  leading blank\n",
            "a: plain\n  continued\n",
            "a: \"multi\n  line\"\n",
            "a: [1,\n  2]\n",
            "a: b: c\n",
            "a:\tb\n",
            "a: b\r\n",
            "- a\n",
            "scalar\n",
            "a: 1\n...\n",
            "? complex\n: key\n",
            "a: {b: c}: d\n",
            "a: \"\\N\"\n",
            "a: 1",
            "a:\n    b: 1\n  c: 2\n",
            "a: 1\n- b\n",
        ] {
            assert_eq!(read_document(text), None, "{text:?}");
        }
    }
}
