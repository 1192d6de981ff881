//! Sprig's word functions from goutils (`wrap`, `wrapWith`, `initials`, `abbrevboth`, `swapcase`), byte for byte
//! as Go computes them, and `seq`.

use super::{arity, int_arg, string_arg};
use crate::template::{FunctionTable, Value};

pub fn register(table: &mut FunctionTable) {
    table.insert("wrap", |_, a| {
        arity("wrap", &a, 2)?;
        Ok(Value::string(wrap(
            string_arg(&a, 1)?,
            int_arg(&a, 0)?,
            "\n",
            false,
        )))
    });
    table.insert("wrapWith", |_, a| {
        arity("wrapWith", &a, 3)?;
        Ok(Value::string(wrap(
            string_arg(&a, 2)?,
            int_arg(&a, 0)?,
            string_arg(&a, 1)?,
            true,
        )))
    });
    table.insert("initials", |_, a| {
        arity("initials", &a, 1)?;
        Ok(Value::string(initials(string_arg(&a, 0)?)))
    });
    table.insert("abbrevboth", |_, a| {
        arity("abbrevboth", &a, 3)?;
        let (left, right) = (int_arg(&a, 0)?, int_arg(&a, 1)?);
        let text = string_arg(&a, 2)?;
        if right < 4 || (left > 0 && right < 7) {
            return Ok(Value::string(text));
        }
        Ok(Value::string(abbreviate(text, left, right)))
    });
    table.insert("swapcase", |_, a| {
        arity("swapcase", &a, 1)?;
        Ok(Value::string(swapcase(string_arg(&a, 0)?)))
    });
    table.insert("seq", |b, a| {
        let mut numbers = Vec::new();
        for i in 0..a.len() {
            numbers.push(int_arg(&a, i)?);
        }
        let items = seq(&numbers);
        b.charge(items.len() as u64)?;
        Ok(Value::string(
            items
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(" "),
        ))
    });
}

fn slice(bytes: &[u8], from: usize, to: usize) -> String {
    String::from_utf8_lossy(&bytes[from.min(bytes.len())..to.min(bytes.len())]).into_owned()
}

/// goutils' `WrapCustom`: lines of at most `width` bytes broken at spaces; a longer word is cut (`long_words`) or
/// left whole.
fn wrap(text: &str, width: i64, newline: &str, long_words: bool) -> String {
    if text.is_empty() {
        return String::new();
    }
    let newline = if newline.is_empty() { "\n" } else { newline };
    let width = width.max(1) as usize;
    let bytes = text.as_bytes();
    let length = bytes.len();
    let mut offset = 0;
    let mut out = String::new();
    while length - offset > width {
        if bytes[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = (width + offset + 1).min(length);
        match bytes[offset..end].iter().rposition(|b| *b == b' ') {
            Some(space) => {
                out.push_str(&slice(bytes, offset, offset + space));
                out.push_str(newline);
                offset += space + 1;
            }
            None if long_words => {
                out.push_str(&slice(bytes, offset, offset + width));
                out.push_str(newline);
                offset += width;
            }
            None => {
                let end = width + offset;
                match bytes[end..].iter().position(|b| *b == b' ') {
                    None => {
                        out.push_str(&slice(bytes, offset, length));
                        offset = length;
                    }
                    Some(index) => {
                        out.push_str(&slice(bytes, offset, end + index));
                        out.push_str(newline);
                        offset = end + index + 1;
                    }
                }
            }
        }
    }
    out.push_str(&slice(bytes, offset, length));
    out
}

/// goutils' `Initials`: the first byte after each run of whitespace.
fn initials(text: &str) -> String {
    let mut out = String::new();
    let mut after_gap = true;
    for byte in text.bytes() {
        if matches!(
            byte,
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0x85 | 0xa0
        ) {
            after_gap = true;
        } else if after_gap {
            out.push(char::from(byte));
            after_gap = false;
        }
    }
    out
}

/// goutils' `AbbreviateFull`: `...` on the side(s) cut, at most `width` bytes.
fn abbreviate(text: &str, offset: i64, width: i64) -> String {
    let bytes = text.as_bytes();
    let length = bytes.len() as i64;
    if text.is_empty() || length <= width {
        return text.to_string();
    }
    let mut offset = offset.min(length);
    if length - offset < width - 3 {
        offset = length - (width - 3);
    }
    if offset <= 4 {
        return format!("{}...", slice(bytes, 0, (width - 3) as usize));
    }
    if width < 7 {
        return String::new();
    }
    if offset + width - 3 < length {
        let rest = slice(bytes, offset as usize, length as usize);
        return format!("...{}", abbreviate(&rest, 0, width - 3));
    }
    format!(
        "...{}",
        slice(bytes, (length - (width - 3)) as usize, length as usize)
    )
}

/// Unicode's title-case letters (category Lt), which Go's `SwapCase` lowers.
fn is_title(c: char) -> bool {
    matches!(c, '\u{1c5}' | '\u{1c8}' | '\u{1cb}' | '\u{1f2}' | '\u{1f88}'..='\u{1f8f}' | '\u{1f98}'..='\u{1f9f}'
        | '\u{1fa8}'..='\u{1faf}' | '\u{1fbc}' | '\u{1fcc}' | '\u{1ffc}')
}

/// One rune to one rune, as Go's `unicode.ToUpper`/`ToLower` map (a mapping that would expand keeps the rune).
fn single(mapped: impl Iterator<Item = char>, original: char) -> char {
    let mapped: Vec<char> = mapped.collect();
    if mapped.len() == 1 {
        mapped[0]
    } else {
        original
    }
}

/// goutils' `SwapCase`: upper and title case lowered, lower case raised.
fn swapcase(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_uppercase() || is_title(c) {
                single(c.to_lowercase(), c)
            } else if c.is_lowercase() {
                single(c.to_uppercase(), c)
            } else {
                c
            }
        })
        .collect()
}

/// Sprig's `seq` (as the shell's): `seq END`, `seq START END`, `seq START STEP END`.
fn seq(params: &[i64]) -> Vec<i64> {
    let until_step = |start: i64, stop: i64, step: i64| -> Vec<i64> {
        let mut out = Vec::new();
        if step == 0 {
            return out;
        }
        let mut i = start;
        while (step > 0 && i < stop) || (step < 0 && i > stop) {
            out.push(i);
            i += step;
        }
        out
    };
    match params {
        [end] => {
            let increment = if *end < 1 { -1 } else { 1 };
            until_step(1, end + increment, increment)
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            until_step(*start, end + step, step)
        }
        [start, step, end] => {
            let increment = if end < start { -1 } else { 1 };
            if end < start && *step > 0 {
                return Vec::new();
            }
            until_step(*start, end + increment, *step)
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "The quick brown fox jumps over the lazy dog, again and again.";

    #[test]
    fn words_wrap_and_abbreviate_as_goutils() {
        assert_eq!(
            wrap(TEXT, 20, "\n", false),
            "The quick brown fox\njumps over the lazy\ndog, again and\nagain."
        );
        assert_eq!(
            wrap(TEXT, 10, "<br>", true),
            "The quick<br>brown fox<br>jumps over<br>the lazy<br>dog, again<br>and again."
        );
        assert_eq!(
            wrap("abcdefghijklmnop qr", 5, "\n", true),
            "abcde\nfghij\nklmno\np qr"
        );
        assert_eq!(initials(TEXT), "Tqbfjotldaaa");
        assert_eq!(abbreviate(TEXT, 5, 20), "...uick brown fox...");
        assert_eq!(swapcase("Hello World ÄÖ ǅ ß"), "hELLO wORLD äö ǆ ß");
    }

    #[test]
    fn seq_counts_like_the_shell() {
        assert_eq!(seq(&[5]), vec![1, 2, 3, 4, 5]);
        assert_eq!(seq(&[3, -2]), vec![3, 2, 1, 0, -1, -2]);
        assert_eq!(seq(&[0, 3, 10]), vec![0, 3, 6, 9]);
        assert_eq!(seq(&[0]), vec![1, 0]);
        assert_eq!(seq(&[5, 1, 1]), Vec::<i64>::new());
    }
}
