//! Splitting a YAML stream into its documents, keeping where each starts so errors can name a line.
//!
//! A document starts at a `---` marker and ends at the next marker or at a `...` line. Markers are only markers at
//! the start of a line followed by a space, a tab or the end of the line; YAML forbids them at column 0 inside any
//! scalar, so a line-based split agrees with a full parser. Directives (`%YAML`, `%TAG`) belong to the document
//! that follows them.

/// One document of a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentText<'a> {
    /// 1-based position in the stream, counting empty documents (what a reader counts between `---` lines).
    pub number: usize,
    /// The 1-based line it starts on: its `---` marker, or its first content line when it has no marker.
    pub line: u32,
    /// Its text, marker line included (and any comment lines before it).
    pub text: &'a str,
    /// The 1-based line `text` starts on, to turn lines within `text` into lines of the stream.
    pub text_line: u32,
}

/// Splits a stream; a part holding only blank lines and comments (before the first `---`, say) is no document.
pub fn split_documents(stream: &str) -> Vec<DocumentText<'_>> {
    let stream = stream.strip_prefix('\u{feff}').unwrap_or(stream);
    let mut parts: Vec<Part> = Vec::new();
    let mut current = Part::new(0, 1);
    let mut offset = 0;
    for (index, line) in stream.split_inclusive('\n').enumerate() {
        let line_number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let content = line.trim_end_matches(['\n', '\r']);
        if is_marker(content, "---") && !current.only_directives() {
            parts.push(current);
            current = Part::new(offset, line_number);
        }
        current.absorb(content, line_number);
        current.end = offset + line.len();
        offset += line.len();
        if is_marker(content, "...") {
            parts.push(current);
            current = Part::new(offset, line_number + 1);
        }
    }
    parts.push(current);

    parts
        .into_iter()
        .filter(|part| part.has_marker || part.has_content)
        .enumerate()
        .map(|(i, part)| DocumentText {
            number: i + 1,
            line: part.first_line.unwrap_or(part.text_line),
            text: &stream[part.start..part.end],
            text_line: part.text_line,
        })
        .collect()
}

/// Whether a line is the marker `marker` (`---` or `...`) alone or followed by whitespace.
fn is_marker(line: &str, marker: &str) -> bool {
    line.strip_prefix(marker)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
}

/// A document being collected.
struct Part {
    start: usize,
    end: usize,
    text_line: u32,
    /// The first line holding a marker, a directive or content.
    first_line: Option<u32>,
    has_marker: bool,
    has_content: bool,
    has_directive: bool,
}

impl Part {
    fn new(start: usize, text_line: u32) -> Part {
        Part {
            start,
            end: start,
            text_line,
            first_line: None,
            has_marker: false,
            has_content: false,
            has_directive: false,
        }
    }

    /// Records what a line adds to the document.
    fn absorb(&mut self, line: &str, line_number: u32) {
        let trimmed = line.trim_start();
        if self.first_line.is_none()
            && !trimmed.is_empty()
            && !trimmed.starts_with('#')
            && !is_marker(line, "...")
        {
            self.first_line = Some(line_number);
        }
        if is_marker(line, "---") {
            self.has_marker = true;
            // Content after the marker on the same line (`--- {a: 1}`, `--- |`) is content.
            let after = line[3..].trim();
            if !after.is_empty() && !after.starts_with('#') {
                self.has_content = true;
            }
        } else if line.starts_with('%') && !self.has_marker && !self.has_content {
            self.has_directive = true;
        } else if !trimmed.is_empty() && !trimmed.starts_with('#') && !is_marker(line, "...") {
            self.has_content = true;
        }
    }

    /// Whether everything so far is directives, blank lines or comments: the next `---` opens this same document.
    fn only_directives(&self) -> bool {
        !self.has_marker && !self.has_content
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_and_texts(stream: &str) -> Vec<(usize, u32, &str)> {
        split_documents(stream)
            .into_iter()
            .map(|d| (d.number, d.line, d.text))
            .collect()
    }

    #[test]
    fn a_document_starts_at_its_marker_after_leading_comments() {
        let docs = split_documents("# header\n\n---\na: 1\n");
        assert_eq!((docs[0].line, docs[0].text_line), (3, 1));
    }

    #[test]
    fn splits_at_markers_with_start_lines() {
        let stream = "# header\n---\na: 1\n---\nb: 2\n";
        assert_eq!(
            lines_and_texts(stream),
            [(1, 2, "# header\n---\na: 1\n"), (2, 4, "---\nb: 2\n")]
        );
    }

    #[test]
    fn a_stream_without_markers_is_one_document() {
        assert_eq!(lines_and_texts("a: 1\nb: 2"), [(1, 1, "a: 1\nb: 2")]);
        assert_eq!(lines_and_texts(""), []);
        assert_eq!(lines_and_texts("# only a comment\n"), []);
    }

    #[test]
    fn empty_documents_are_counted() {
        let stream = "a: 1\n---\n---\nb: 2\n";
        let docs = lines_and_texts(stream);
        assert_eq!(docs.len(), 3);
        assert_eq!(docs[1], (2, 2, "---\n"));
        assert_eq!(docs[2], (3, 3, "---\nb: 2\n"));
    }

    #[test]
    fn only_real_markers_split() {
        let stream = "a: |\n  --- not a marker\n---x: 1\n";
        assert_eq!(lines_and_texts(stream).len(), 1);
        let stream = "--- {a: 1}\n--- |\n  text\n";
        assert_eq!(
            lines_and_texts(stream),
            [(1, 1, "--- {a: 1}\n"), (2, 2, "--- |\n  text\n")]
        );
    }

    #[test]
    fn directives_stay_with_their_document_and_dots_end_one() {
        let stream = "%YAML 1.2\n---\na: 1\n...\n%YAML 1.2\n---\nb: 2\n";
        assert_eq!(
            lines_and_texts(stream),
            [
                (1, 1, "%YAML 1.2\n---\na: 1\n...\n"),
                (2, 5, "%YAML 1.2\n---\nb: 2\n")
            ]
        );
    }

    #[test]
    fn crlf_and_bom_are_handled() {
        let stream = "\u{feff}a: 1\r\n---\r\nb: 2\r\n";
        assert_eq!(
            lines_and_texts(stream),
            [(1, 1, "a: 1\r\n"), (2, 2, "---\r\nb: 2\r\n")]
        );
    }
}
