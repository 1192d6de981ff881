//! Go's `fmt` as templates use it: `%v` printing of values, float formatting, `strconv.Quote`, and `Sprintf`,
//! `Sprint` and `Sprintln`.

use super::value::Value;

/// `fmt.Sprint("%v", value)`.
pub fn display(value: &Value) -> String {
    let mut out = String::new();
    write_display(&mut out, value);
    out
}

fn write_display(out: &mut String, value: &Value) {
    match value {
        Value::Nil => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&format_float_g(*f)),
        Value::String(s) => out.push_str(s),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_display(out, item);
            }
            out.push(']');
        }
        Value::Map(map) => {
            out.push_str("map[");
            for (i, (key, item)) in map.borrow().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(key);
                out.push(':');
                write_display(out, item);
            }
            out.push(']');
        }
        Value::Object(object) => out.push_str(&object.operand_display()),
    }
}

/// The shortest decimal digits of a finite, non-zero float and its decimal point position: the value is
/// `0.DIGITS × 10^point`.
fn shortest_digits(f: f64) -> (String, i32) {
    let scientific = format!("{:e}", f.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i32 = exponent.parse().unwrap_or(0);
    (digits, exponent + 1)
}

fn special_float(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".into())
    } else if f.is_infinite() {
        Some(if f > 0.0 { "+Inf" } else { "-Inf" }.into())
    } else if f == 0.0 {
        Some(if f.is_sign_negative() { "-0" } else { "0" }.into())
    } else {
        None
    }
}

fn exponent_suffix(exp: i32) -> String {
    let sign = if exp < 0 { '-' } else { '+' };
    format!("e{sign}{:02}", exp.abs())
}

/// Shortest digits laid out as `%e` (`d.ddde±XX`).
fn layout_exponent(negative: bool, digits: &str, point: i32) -> String {
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    out.push_str(&exponent_suffix(point - 1));
    out
}

/// Shortest digits laid out as `%f` (no exponent, no trailing zeros).
fn layout_fixed(negative: bool, digits: &str, point: i32) -> String {
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if point <= 0 {
        out.push_str("0.");
        out.push_str(&"0".repeat(point.unsigned_abs() as usize));
        out.push_str(digits);
    } else {
        let point = point as usize;
        if digits.len() <= point {
            out.push_str(digits);
            out.push_str(&"0".repeat(point - digits.len()));
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
    out
}

/// Go's `%v` (shortest `%g`) for a float64: `1e+06`, `1.5`, `123456`.
pub fn format_float_g(f: f64) -> String {
    if let Some(special) = special_float(f) {
        return special;
    }
    let (digits, point) = shortest_digits(f);
    let exp = point - 1;
    if !(-4..6).contains(&exp) {
        layout_exponent(f < 0.0, &digits, point)
    } else {
        layout_fixed(f < 0.0, &digits, point)
    }
}

/// `encoding/json`'s float64 format: fixed notation unless very small or very large.
pub fn format_float_json(f: f64) -> String {
    if f == 0.0 {
        return "0".into();
    }
    let (digits, point) = shortest_digits(f);
    let abs = f.abs();
    if !(1e-6..1e21).contains(&abs) {
        let text = layout_exponent(f < 0.0, &digits, point);
        // encoding/json writes e-7, not e-07.
        match text.split_once("e-0") {
            Some((mantissa, exp)) => format!("{mantissa}e-{exp}"),
            None => text,
        }
    } else {
        layout_fixed(f < 0.0, &digits, point)
    }
}

/// Whether Go's `unicode.IsPrint` would print the character as is.
fn is_printable(c: char) -> bool {
    if c.is_ascii() {
        // Of ASCII, the space and the visible characters (the rest are control characters or white space).
        return (' '..='~').contains(&c);
    }
    !(c.is_control()
        || c.is_whitespace()
        || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}'))
}

/// `strconv.Quote`: a double-quoted Go string literal.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_printable(c) => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// `fmt.Sprint`: operands printed with `%v`, a space between two operands when neither is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, arg) in args.iter().enumerate() {
        let is_string = matches!(arg, Value::String(_));
        if i > 0 && !is_string && !matches!(args[i - 1], Value::String(_)) {
            out.push(' ');
        }
        write_display(&mut out, arg);
    }
    out
}

/// `fmt.Sprintln`: operands printed with `%v`, separated by spaces, and a newline.
pub fn sprintln(args: &[Value]) -> String {
    let parts: Vec<String> = args.iter().map(display).collect();
    format!("{}\n", parts.join(" "))
}

/// One `%` directive's flags, width and precision.
#[derive(Debug, Default, Clone, Copy)]
struct Spec {
    minus: bool,
    plus: bool,
    sharp: bool,
    zero: bool,
    space: bool,
    width: Option<usize>,
    precision: Option<usize>,
}

impl Spec {
    /// Pads `body` to the width; zero padding goes after a sign.
    fn pad(&self, body: String, numeric: bool) -> String {
        let Some(width) = self.width else {
            return body;
        };
        let len = body.chars().count();
        if len >= width {
            return body;
        }
        let fill = width - len;
        if self.minus {
            format!("{body}{}", " ".repeat(fill))
        } else if self.zero && numeric {
            let (sign, digits) = match body.strip_prefix(['-', '+']) {
                Some(rest) => (&body[..1], rest),
                None => ("", body.as_str()),
            };
            format!("{sign}{}{digits}", "0".repeat(fill))
        } else {
            format!("{}{body}", " ".repeat(fill))
        }
    }

    fn sign(&self, negative: bool) -> &'static str {
        if negative {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        }
    }
}

/// The `%!verb(type=value)` text Go prints for a verb that does not fit its operand (the value printed with
/// `%v` and the same flags).
fn bad_verb(spec: &Spec, verb: char, value: &Value) -> String {
    match value {
        Value::Nil => format!("%!{verb}(<nil>)"),
        other => format!(
            "%!{verb}({}={})",
            other.type_name(),
            format_operand(spec, 'v', other)
        ),
    }
}

fn format_int(spec: &Spec, verb: char, i: i64) -> Option<String> {
    let negative = i < 0;
    let magnitude = i.unsigned_abs();
    let digits = match verb {
        'd' | 'v' => magnitude.to_string(),
        'x' => format!("{magnitude:x}"),
        'X' => format!("{magnitude:X}"),
        'o' => format!("{magnitude:o}"),
        'b' => format!("{magnitude:b}"),
        'c' => {
            return Some(
                spec.pad(
                    char::from_u32(u32::try_from(i).ok()?)
                        .unwrap_or('\u{fffd}')
                        .to_string(),
                    false,
                ),
            );
        }
        'q' => {
            let c = char::from_u32(u32::try_from(i).ok()?).unwrap_or('\u{fffd}');
            return Some(spec.pad(format!("'{c}'"), false));
        }
        'U' => return Some(spec.pad(format!("U+{magnitude:04X}"), false)),
        _ => return None,
    };
    let prefix = match (spec.sharp, verb) {
        (true, 'x') => "0x",
        (true, 'X') => "0X",
        (true, 'o') => "0",
        _ => "",
    };
    let digits = match spec.precision {
        Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits,
    };
    Some(spec.pad(
        format!("{}{prefix}{digits}", spec.sign(negative)),
        spec.precision.is_none(),
    ))
}

fn format_float(spec: &Spec, verb: char, f: f64) -> Option<String> {
    if f.is_nan() || f.is_infinite() {
        return Some(spec.pad(format_float_g(f), false));
    }
    let negative = f.is_sign_negative() && f != 0.0;
    let abs = f.abs();
    let body = match (verb, spec.precision) {
        ('v' | 'g' | 'G', None) => format_float_g(abs),
        ('f' | 'F', precision) => format!("{:.*}", precision.unwrap_or(6), abs),
        ('e' | 'E', precision) => go_exponent(&format!("{:.*e}", precision.unwrap_or(6), abs)),
        ('g' | 'G' | 'v', Some(precision)) => format_g_precision(abs, precision.max(1)),
        _ => return None,
    };
    let body = if verb.is_ascii_uppercase() {
        body.to_uppercase()
    } else {
        body
    };
    Some(spec.pad(format!("{}{body}", spec.sign(negative)), true))
}

/// Rust's `1.5e3` becomes Go's `1.5e+03`.
fn go_exponent(rust: &str) -> String {
    match rust.split_once('e') {
        Some((mantissa, exp)) => {
            let exp: i32 = exp.parse().unwrap_or(0);
            format!("{mantissa}{}", exponent_suffix(exp))
        }
        None => rust.to_string(),
    }
}

/// `%.Ng`: N significant digits, exponent form for large or small exponents, trailing zeros trimmed.
fn format_g_precision(abs: f64, precision: usize) -> String {
    if abs == 0.0 {
        return "0".into();
    }
    let scientific = format!("{:.*e}", precision - 1, abs);
    let (mantissa, exp) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |text: &str| -> String {
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text.to_string()
        }
    };
    if exp < -4 || exp >= precision as i32 {
        format!("{}{}", trim(mantissa), exponent_suffix(exp))
    } else {
        let decimals = (precision as i32 - 1 - exp).max(0) as usize;
        trim(&format!("{abs:.decimals$}"))
    }
}

fn format_string(spec: &Spec, verb: char, text: &str) -> Option<String> {
    let text = match spec.precision {
        Some(p) => text.chars().take(p).collect(),
        None => text.to_string(),
    };
    let body = match verb {
        's' | 'v' => text,
        'q' => quote(&text),
        'x' => text.bytes().map(|b| format!("{b:02x}")).collect(),
        'X' => text.bytes().map(|b| format!("{b:02X}")).collect(),
        _ => return None,
    };
    Some(spec.pad(body, false))
}

/// Formats one operand with one verb.
fn format_operand(spec: &Spec, verb: char, value: &Value) -> String {
    if verb == 'T' {
        // The operand's Go type.
        return spec.pad(value.type_name(), false);
    }
    let formatted = match value {
        Value::Nil if verb == 'v' => Some(spec.pad("<nil>".into(), false)),
        Value::Bool(b) if matches!(verb, 'v' | 't') => Some(spec.pad(b.to_string(), false)),
        Value::Int(i) => format_int(spec, verb, *i),
        Value::Float(f) => format_float(spec, verb, *f),
        Value::String(s) => format_string(spec, verb, s),
        Value::List(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|item| format_operand(spec, verb, item))
                .collect();
            Some(format!("[{}]", parts.join(" ")))
        }
        Value::Map(map) => {
            let parts: Vec<String> = map
                .borrow()
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}:{}",
                        format_operand(spec, verb, &Value::string(k.as_str())),
                        format_operand(spec, verb, v)
                    )
                })
                .collect();
            Some(format!("map[{}]", parts.join(" ")))
        }
        Value::Object(object) if matches!(verb, 'v' | 's') => {
            Some(spec.pad(object.operand_display(), false))
        }
        _ => None,
    };
    formatted.unwrap_or_else(|| bad_verb(spec, verb, value))
}

/// Reads a decimal number at `chars[*i..]`.
fn read_number(chars: &[char], i: &mut usize) -> Option<usize> {
    let start = *i;
    while *i < chars.len() && chars[*i].is_ascii_digit() {
        *i += 1;
    }
    if *i == start {
        return None;
    }
    chars[start..*i].iter().collect::<String>().parse().ok()
}

/// `fmt.Sprintf` for the verbs charts use: `%v %s %d %f %e %g %q %t %x %X %o %b %c %U %%`, with flags, width
/// and precision; misuse prints Go's `%!verb(...)` forms.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let chars: Vec<char> = format.chars().collect();
    let mut out = String::new();
    let mut next_arg = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = Spec::default();
        while i < chars.len() {
            match chars[i] {
                '-' => spec.minus = true,
                '+' => spec.plus = true,
                '#' => spec.sharp = true,
                '0' => spec.zero = true,
                ' ' => spec.space = true,
                _ => break,
            }
            i += 1;
        }
        spec.width = read_number(&chars, &mut i);
        if i < chars.len() && chars[i] == '.' {
            i += 1;
            spec.precision = Some(read_number(&chars, &mut i).unwrap_or(0));
        }
        let Some(&verb) = chars.get(i) else {
            out.push_str("%!(NOVERB)");
            break;
        };
        i += 1;
        if verb == '%' {
            out.push('%');
            continue;
        }
        if verb == 'v' {
            // `%+v` and `%#v` select Go syntax and field names, not a sign or a prefix.
            spec.plus = false;
            spec.sharp = false;
        }
        match args.get(next_arg) {
            Some(arg) => out.push_str(&format_operand(&spec, verb, arg)),
            None => out.push_str(&format!("%!{verb}(MISSING)")),
        }
        next_arg += 1;
    }
    if next_arg < args.len() {
        let extra: Vec<String> = args[next_arg..]
            .iter()
            .map(|arg| match arg {
                Value::Nil => "<nil>".to_string(),
                other => format!("{}={}", other.type_name(), display(other)),
            })
            .collect();
        out.push_str(&format!("%!(EXTRA {})", extra.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_go() {
        assert_eq!(format_float_g(1_000_000.0), "1e+06");
        assert_eq!(format_float_g(123_456.0), "123456");
        assert_eq!(format_float_g(1_234_567.0), "1.234567e+06");
        assert_eq!(format_float_g(1.5), "1.5");
        assert_eq!(format_float_g(0.0001), "0.0001");
        assert_eq!(format_float_g(0.00001), "1e-05");
        assert_eq!(format_float_g(-2.0), "-2");
        assert_eq!(format_float_json(1_000_000.0), "1000000");
        assert_eq!(format_float_json(1e21), "1e+21");
        assert_eq!(format_float_json(1e-7), "1e-7");
        assert_eq!(format_float_json(0.5), "0.5");
    }

    #[test]
    fn values_print_like_fmt() {
        let list = Value::list(vec![Value::string("a"), Value::Int(1), Value::Nil]);
        assert_eq!(display(&list), "[a 1 <nil>]");
        let mut map = crate::template::value::Map::new();
        map.insert("b".into(), Value::Float(2.0));
        map.insert("a".into(), Value::Bool(true));
        assert_eq!(display(&Value::map(map)), "map[a:true b:2]");
    }

    #[test]
    fn sprintf_handles_verbs_flags_and_misuse() {
        let s = |f: &str, args: &[Value]| sprintf(f, args);
        assert_eq!(s("%s-%d", &["a".into(), Value::Int(3)]), "a-3");
        assert_eq!(
            s("%05d|%-4s|%4s", &[Value::Int(42), "ab".into(), "cd".into()]),
            "00042|ab  |  cd"
        );
        assert_eq!(
            s("%.2f %v", &[Value::Float(1.23456), Value::Float(2.0)]),
            "1.23 2"
        );
        assert_eq!(s("%q", &["a\"b".into()]), "\"a\\\"b\"");
        assert_eq!(s("%d", &["x".into()]), "%!d(string=x)");
        assert_eq!(s("%d", &[Value::Float(1.5)]), "%!d(float64=1.5)");
        assert_eq!(s("%5d", &[Value::Float(42.0)]), "%!d(float64=   42)");
        assert_eq!(s("%s %s", &["x".into()]), "x %!s(MISSING)");
        assert_eq!(s("%s", &["x".into(), Value::Int(2)]), "x%!(EXTRA int=2)");
        assert_eq!(
            s(
                "%x %X %o %%",
                &[Value::Int(255), Value::Int(255), Value::Int(8)]
            ),
            "ff FF 10 %"
        );
        assert_eq!(s("%t %v", &[Value::Bool(true), Value::Nil]), "true <nil>");
        assert_eq!(
            s("%e %g", &[Value::Float(1500.0), Value::Float(1e-7)]),
            "1.500000e+03 1e-07"
        );
    }

    #[test]
    fn sprint_spaces_between_non_strings() {
        assert_eq!(
            sprint(&[Value::Int(1), Value::Int(2), "a".into(), Value::Int(3)]),
            "1 2a3"
        );
        assert_eq!(sprintln(&["a".into(), Value::Int(1)]), "a 1\n");
        assert_eq!(quote("tab\there ✓"), "\"tab\\there ✓\"");
    }
}
