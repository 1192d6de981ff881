//! A server-sent events parser (the WHATWG `text/event-stream` format): bytes in, events out, whatever the chunking.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field; `message` when the server sent none.
    pub(crate) event: String,
    /// The `data:` lines, joined with `\n`.
    pub(crate) data: String,
    /// The last `id:` field seen, if any.
    pub(crate) id: Option<String>,
}

/// Turns chunks of an event stream into events. Comments (keep-alives) and unknown fields are skipped; a line split
/// across chunks, or a UTF-8 character split across chunks, is kept until its end arrives.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    /// Bytes of the current, unfinished line.
    line: Vec<u8>,
    /// The previous chunk ended with `\r`: a `\n` at the start of the next one belongs to that line end.
    after_cr: bool,
    /// The event being assembled.
    event: Option<String>,
    data: Option<String>,
    id: Option<String>,
}

impl SseParser {
    /// Feeds a chunk; returns the events it completed, in order.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in chunk {
            if std::mem::take(&mut self.after_cr) && byte == b'\n' {
                continue;
            }
            match byte {
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(event) = self.line_done(&String::from_utf8_lossy(&line)) {
                        events.push(event);
                    }
                }
                _ => self.line.push(byte),
            }
        }
        events
    }

    fn line_done(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            let data = self.data.take();
            let event = self.event.take();
            return data.map(|data| SseEvent {
                event: event.unwrap_or_else(|| "message".to_string()),
                data,
                id: self.id.clone(),
            });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "id" if !value.contains('\0') => self.id = Some(value.to_string()),
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::default();
        chunks.iter().flat_map(|c| parser.feed(c)).collect()
    }

    #[test]
    fn parses_named_events_with_ids() {
        let events =
            all(&[b"event: line\nid: 0\ndata: {\"seq\":0}\n\nevent: dropped\ndata: 3\n\n"]);
        assert_eq!(
            events,
            vec![
                SseEvent {
                    event: "line".into(),
                    data: "{\"seq\":0}".into(),
                    id: Some("0".into())
                },
                SseEvent {
                    event: "dropped".into(),
                    data: "3".into(),
                    id: Some("0".into())
                },
            ]
        );
    }

    #[test]
    fn the_same_events_whatever_the_chunking() {
        let stream = "event: line\r\ndata: first\r\ndata: second\r\n\r\n: keep-alive\n\ndata:x\n\n";
        let whole = all(&[stream.as_bytes()]);
        assert_eq!(whole.len(), 2);
        assert_eq!(whole[0].data, "first\nsecond");
        assert_eq!(whole[1].event, "message");
        assert_eq!(whole[1].data, "x");
        let bytes = stream.as_bytes();
        for split in 0..bytes.len() {
            assert_eq!(
                all(&[&bytes[..split], &bytes[split..]]),
                whole,
                "split at {split}"
            );
        }
        let one_by_one: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(all(&one_by_one), whole);
    }

    #[test]
    fn a_character_split_across_chunks_survives() {
        let text = "data: héllo\n\n".as_bytes();
        let at = text.iter().position(|&b| b >= 0x80).unwrap() + 1;
        let events = all(&[&text[..at], &text[at..]]);
        assert_eq!(events[0].data, "héllo");
    }

    #[test]
    fn comments_and_events_without_data_dispatch_nothing() {
        assert!(all(&[b": ping\n\nevent: line\n\n"]).is_empty());
        assert!(all(&[b"data: unfinished"]).is_empty());
    }
}
