//! Sprig's `snakecase` and `kebabcase`, which are huandu/xstrings' `ToSnakeCase` and `ToKebabCase`: the text split
//! into words (a run of capitals is one word, its last capital starting the next when lower case follows:
//! `HTTPServer` is `HTTP`, `Server`), numbers kept with the word they end (`Bld4Floor` is `bld4_floor`) or set apart
//! before lower case (`HTTP2xx` is `http_2xx`), connectors (`-`, `_`, space) made the connector, all lower case.

/// What a word is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Nothing left.
    Invalid,
    Number,
    Upper,
    Alphabet,
    Connector,
    Punct,
    Other,
}

fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || c.is_whitespace()
}

/// Go's `unicode.IsPunct` for ASCII (symbols such as `$`, `+`, `<`, `^`, `|` and `~` are not punctuation), and
/// the General Punctuation and CJK punctuation blocks beyond it.
fn is_punct(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation() && !"$+<=>^`|~".contains(c);
    }
    matches!(
        c,
        '\u{a1}' | '\u{a7}' | '\u{ab}' | '\u{b6}' | '\u{b7}' | '\u{bb}' | '\u{bf}'
    ) || ('\u{2010}'..='\u{2027}').contains(&c)
        || ('\u{2030}'..='\u{205e}').contains(&c)
        || ('\u{3001}'..='\u{3003}').contains(&c)
        || ('\u{3008}'..='\u{3011}').contains(&c)
}

/// A letter that is not a CJK ideograph.
fn is_alphabet(c: char) -> bool {
    c.is_alphabetic()
        && !(('\u{4e00}'..='\u{9fcc}').contains(&c)
            || ('\u{3400}'..='\u{4d85}').contains(&c)
            || ('\u{20000}'..='\u{2b81d}').contains(&c))
}

/// The next word: its kind, its text and the text after it.
fn next_word(text: &str) -> (Kind, &str, &str) {
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return (Kind::Invalid, "", "");
    };
    let mut end = first.len_utf8();
    let run = |end: &mut usize, keep: &dyn Fn(char) -> bool| {
        for c in text[*end..].chars() {
            if !keep(c) {
                break;
            }
            *end += c.len_utf8();
        }
    };
    let kind = if is_connector(first) {
        run(&mut end, &is_connector);
        Kind::Connector
    } else if is_punct(first) {
        run(&mut end, &is_punct);
        Kind::Punct
    } else if first.is_uppercase() {
        match text[end..].chars().next() {
            Some(second) if second.is_uppercase() => {
                let mut last_upper = second.len_utf8();
                end += last_upper;
                let mut stop = None;
                for c in text[end..].chars() {
                    if !c.is_uppercase() {
                        stop = Some(c);
                        break;
                    }
                    last_upper = c.len_utf8();
                    end += last_upper;
                }
                // "HTTPStatus": the capital before lower case starts the next word.
                if stop.is_some_and(is_alphabet) {
                    end -= last_upper;
                }
            }
            Some(second) if is_alphabet(second) => {
                end += second.len_utf8();
                run(&mut end, &|c| is_alphabet(c) && !c.is_uppercase());
            }
            _ => {}
        }
        Kind::Upper
    } else if is_alphabet(first) {
        run(&mut end, &|c| is_alphabet(c) && !c.is_uppercase());
        Kind::Alphabet
    } else if first.is_numeric() {
        run(&mut end, &char::is_numeric);
        Kind::Number
    } else {
        run(&mut end, &|c| {
            !(is_connector(c) || is_alphabet(c) || c.is_numeric() || is_punct(c))
        });
        Kind::Other
    };
    (kind, &text[..end], &text[end..])
}

/// Writes a word in lower case (capitals and connectors only change in capital and connector words).
fn write_lower(out: &mut String, kind: Kind, word: &str, connector: char) {
    if kind != Kind::Upper && kind != Kind::Connector {
        out.push_str(word);
        return;
    }
    for c in word.chars() {
        if is_connector(c) {
            out.push(connector);
        } else {
            out.extend(c.to_lowercase());
        }
    }
}

/// xstrings' `camelCaseToLowerCase`: the words of `text` in lower case, joined by `connector`.
pub fn lower_words(text: &str, connector: char) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let (mut kind, mut word, mut rest) = next_word(text);
    while !rest.is_empty() {
        if kind != Kind::Connector {
            write_lower(&mut out, kind, word, connector);
        }
        let (previous, last) = (kind, word);
        (kind, word, rest) = next_word(rest);
        match previous {
            Kind::Number => {
                while matches!(kind, Kind::Alphabet | Kind::Number) {
                    write_lower(&mut out, kind, word, connector);
                    (kind, word, rest) = next_word(rest);
                }
                if !matches!(kind, Kind::Invalid | Kind::Punct | Kind::Connector) {
                    out.push(connector);
                }
            }
            Kind::Connector => write_lower(&mut out, previous, last, connector),
            Kind::Punct => {}
            _ => {
                if kind != Kind::Number {
                    if !matches!(kind, Kind::Connector | Kind::Punct) {
                        out.push(connector);
                    }
                    continue;
                }
                if rest.is_empty() {
                    continue;
                }
                let number = word;
                (kind, word, rest) = next_word(rest);
                if kind != Kind::Alphabet {
                    // "Bld4Floor": the number ends the word before it.
                    write_lower(&mut out, Kind::Number, number, connector);
                    if !matches!(kind, Kind::Connector | Kind::Punct) {
                        out.push(connector);
                    }
                    continue;
                }
                // "HTTP2xx": a number followed by lower case starts a word.
                out.push(connector);
                write_lower(&mut out, Kind::Number, number, connector);
                while matches!(kind, Kind::Alphabet | Kind::Number) {
                    write_lower(&mut out, kind, word, connector);
                    (kind, word, rest) = next_word(rest);
                }
                if !matches!(kind, Kind::Invalid | Kind::Connector | Kind::Punct) {
                    out.push(connector);
                }
            }
        }
    }
    write_lower(&mut out, kind, word, connector);
    out
}

#[cfg(test)]
mod tests {
    use super::lower_words;

    #[test]
    fn words_split_as_xstrings_splits_them() {
        let kebab = |s: &str| lower_words(s, '-');
        assert_eq!(kebab("FirstName"), "first-name");
        assert_eq!(kebab("HTTPServer"), "http-server");
        assert_eq!(kebab("NoHTTPS"), "no-https");
        assert_eq!(kebab("GO_PATH"), "go-path");
        assert_eq!(kebab("GO PATH"), "go-path");
        assert_eq!(kebab("GO-PATH"), "go-path");
        assert_eq!(kebab("http2xx"), "http-2xx");
        assert_eq!(kebab("HTTP20xOK"), "http-20x-ok");
        assert_eq!(kebab("Duration2m3s"), "duration-2m3s");
        assert_eq!(kebab("Bld4Floor3rd"), "bld4-floor-3rd");
        assert_eq!(lower_words("HTTPServerName", '_'), "http_server_name");
        assert_eq!(lower_words("FooBar", '_'), "foo_bar");
        assert_eq!(lower_words("", '_'), "");
    }
}
