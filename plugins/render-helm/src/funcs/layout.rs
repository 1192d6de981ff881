//! Go's time layouts (the reference time `Mon Jan 2 15:04:05 MST 2006`): the chunking that formatting
//! ([`super::clock::go_format`]) and parsing share, as Go's `nextStdChunk`, and Go's `time.ParseInLocation` with
//! `time.Local` (Sprig's `toDate`). `time.Local` is UTC here: a render must not depend on the server's zone.

use thiserror::Error;

/// One element of a layout: Go's `std*` constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Std {
    /// `January`
    LongMonth,
    /// `Jan`
    Month,
    /// `1`
    NumMonth,
    /// `01`
    ZeroMonth,
    /// `Monday`
    LongWeekDay,
    /// `Mon`
    WeekDay,
    /// `2`
    Day,
    /// `_2`
    UnderDay,
    /// `02`
    ZeroDay,
    /// `__2`
    UnderYearDay,
    /// `002`
    ZeroYearDay,
    /// `15`
    Hour,
    /// `3`
    Hour12,
    /// `03`
    ZeroHour12,
    /// `4`
    Minute,
    /// `04`
    ZeroMinute,
    /// `5`
    Second,
    /// `05`
    ZeroSecond,
    /// `2006`
    LongYear,
    /// `06`
    Year,
    /// `PM`
    UpperPm,
    /// `pm`
    LowerPm,
    /// `MST`
    ZoneName,
    /// `Z0700`
    Iso8601Tz,
    /// `Z070000`
    Iso8601SecondsTz,
    /// `Z07`
    Iso8601ShortTz,
    /// `Z07:00`
    Iso8601ColonTz,
    /// `Z07:00:00`
    Iso8601ColonSecondsTz,
    /// `-0700`
    NumTz,
    /// `-070000`
    NumSecondsTz,
    /// `-07`
    NumShortTz,
    /// `-07:00`
    NumColonTz,
    /// `-07:00:00`
    NumColonSecondsTz,
    /// `.000` (or `,000`): exactly `digits` digits of the second.
    FracSecond0 { digits: usize, separator: u8 },
    /// `.999` (or `,999`): up to `digits` digits, trailing zeros (and the separator) dropped.
    FracSecond9 { digits: usize, separator: u8 },
}

impl Std {
    /// Whether this is a numeric zone offset (with `Z` for UTC or not).
    fn offset_shape(self) -> Option<OffsetShape> {
        use OffsetShape::*;
        Some(match self {
            Std::Iso8601Tz | Std::NumTz => HoursMinutes,
            Std::Iso8601SecondsTz | Std::NumSecondsTz => HoursMinutesSeconds,
            Std::Iso8601ShortTz | Std::NumShortTz => Hours,
            Std::Iso8601ColonTz | Std::NumColonTz => ColonHoursMinutes,
            Std::Iso8601ColonSecondsTz | Std::NumColonSecondsTz => ColonHoursMinutesSeconds,
            _ => return None,
        })
    }

    /// Whether a zero offset prints (and parses) as `Z`.
    pub fn is_iso8601(self) -> bool {
        matches!(
            self,
            Std::Iso8601Tz
                | Std::Iso8601SecondsTz
                | Std::Iso8601ShortTz
                | Std::Iso8601ColonTz
                | Std::Iso8601ColonSecondsTz
        )
    }
}

/// How a numeric zone offset is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetShape {
    /// `-07`
    Hours,
    /// `-0700`
    HoursMinutes,
    /// `-070000`
    HoursMinutesSeconds,
    /// `-07:00`
    ColonHoursMinutes,
    /// `-07:00:00`
    ColonHoursMinutesSeconds,
}

impl OffsetShape {
    /// The shape of a numeric zone element, if `std` is one.
    pub fn of(std: Std) -> Option<OffsetShape> {
        std.offset_shape()
    }

    /// Whether hours, minutes and seconds are separated by colons.
    pub fn colons(self) -> bool {
        matches!(
            self,
            OffsetShape::ColonHoursMinutes | OffsetShape::ColonHoursMinutesSeconds
        )
    }

    /// Whether minutes are written.
    pub fn minutes(self) -> bool {
        self != OffsetShape::Hours
    }

    /// Whether seconds are written.
    pub fn seconds(self) -> bool {
        matches!(
            self,
            OffsetShape::HoursMinutesSeconds | OffsetShape::ColonHoursMinutesSeconds
        )
    }
}

/// Go's `nextStdChunk`: the literal text before the first layout element, that element (none at the end), and the
/// rest of the layout.
pub fn next_std_chunk(layout: &str) -> (&str, Option<Std>, &str) {
    let bytes = layout.as_bytes();
    let at =
        |i: usize, text: &str| bytes.len() >= i + text.len() && &layout[i..i + text.len()] == text;
    let starts_lower = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_lowercase);
    for i in 0..bytes.len() {
        let found = |std: Std, len: usize| (&layout[..i], Some(std), &layout[i + len..]);
        match bytes[i] {
            b'J' if at(i, "Jan") => {
                if at(i, "January") {
                    return found(Std::LongMonth, 7);
                }
                if !starts_lower(i + 3) {
                    return found(Std::Month, 3);
                }
            }
            b'M' => {
                if at(i, "Mon") {
                    if at(i, "Monday") {
                        return found(Std::LongWeekDay, 6);
                    }
                    if !starts_lower(i + 3) {
                        return found(Std::WeekDay, 3);
                    }
                }
                if at(i, "MST") {
                    return found(Std::ZoneName, 3);
                }
            }
            b'0' => {
                if let Some(next @ b'1'..=b'6') = bytes.get(i + 1) {
                    let std = [
                        Std::ZeroMonth,
                        Std::ZeroDay,
                        Std::ZeroHour12,
                        Std::ZeroMinute,
                        Std::ZeroSecond,
                        Std::Year,
                    ][usize::from(next - b'1')];
                    return found(std, 2);
                }
                if at(i, "002") {
                    return found(Std::ZeroYearDay, 3);
                }
            }
            b'1' => {
                if at(i, "15") {
                    return found(Std::Hour, 2);
                }
                return found(Std::NumMonth, 1);
            }
            b'2' => {
                if at(i, "2006") {
                    return found(Std::LongYear, 4);
                }
                return found(Std::Day, 1);
            }
            b'_' => {
                if at(i, "_2") {
                    // `_2006` is a literal `_` followed by the year.
                    if at(i, "_2006") {
                        return (&layout[..i + 1], Some(Std::LongYear), &layout[i + 5..]);
                    }
                    return found(Std::UnderDay, 2);
                }
                if at(i, "__2") {
                    return found(Std::UnderYearDay, 3);
                }
            }
            b'3' => return found(Std::Hour12, 1),
            b'4' => return found(Std::Minute, 1),
            b'5' => return found(Std::Second, 1),
            b'P' if at(i, "PM") => return found(Std::UpperPm, 2),
            b'p' if at(i, "pm") => return found(Std::LowerPm, 2),
            b'-' | b'Z' => {
                let iso = bytes[i] == b'Z';
                for (shape, numeric, zulu) in [
                    ("070000", Std::NumSecondsTz, Std::Iso8601SecondsTz),
                    (
                        "07:00:00",
                        Std::NumColonSecondsTz,
                        Std::Iso8601ColonSecondsTz,
                    ),
                    ("0700", Std::NumTz, Std::Iso8601Tz),
                    ("07:00", Std::NumColonTz, Std::Iso8601ColonTz),
                    ("07", Std::NumShortTz, Std::Iso8601ShortTz),
                ] {
                    if at(i + 1, shape) {
                        return found(if iso { zulu } else { numeric }, 1 + shape.len());
                    }
                }
            }
            separator @ (b'.' | b',') => {
                if let Some(digit @ (b'0' | b'9')) = bytes.get(i + 1).copied() {
                    let mut j = i + 1;
                    while bytes.get(j) == Some(&digit) {
                        j += 1;
                    }
                    // The digits must end here: only then are they a fractional second.
                    if !bytes.get(j).is_some_and(u8::is_ascii_digit) {
                        let digits = j - (i + 1);
                        let std = if digit == b'0' {
                            Std::FracSecond0 { digits, separator }
                        } else {
                            Std::FracSecond9 { digits, separator }
                        };
                        return (&layout[..i], Some(std), &layout[j..]);
                    }
                }
            }
            _ => {}
        }
    }
    (layout, None, "")
}

/// A time as `time.ParseInLocation(layout, value, time.Local)` makes it, with `time.Local` UTC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// Seconds since the Unix epoch.
    pub seconds: i64,
    /// Nanoseconds within the second.
    pub nanos: u32,
    /// The zone Go records when it is not UTC: a fixed zone's name (possibly empty) and offset in seconds.
    pub zone: Option<(String, i32)>,
}

/// Go's `time.Time{}`: January 1 of year 1, 00:00:00 UTC, in seconds since the Unix epoch.
pub const ZERO_TIME_SECONDS: i64 = -62_135_596_800;

/// Go's `*time.ParseError`, worded as its `Error` method words it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// An element of the layout did not match the value.
    #[error("parsing time {} as {}: cannot parse {} as {}", quote(.value), quote(.layout), quote(.value_elem), quote(.layout_elem))]
    Mismatch {
        layout: String,
        value: String,
        layout_elem: String,
        value_elem: String,
    },
    /// Extra text, or a field out of range (`message` starts with `: `).
    #[error("parsing time {}{message}", quote(.value))]
    Invalid { value: String, message: String },
}

/// Go's `time.quote`: ASCII as is (with `"` and `\` escaped), every byte of anything else as `\xNN`.
fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut buffer = [0u8; 4];
            for byte in c.encode_utf8(&mut buffer).bytes() {
                out.push_str(&format!("\\x{byte:02x}"));
            }
        }
    }
    out.push('"');
    out
}

/// Go's short day names, Sunday first.
pub(crate) const SHORT_DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
/// Go's day names, Sunday first.
pub(crate) const LONG_DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
/// Go's short month names.
pub(crate) const SHORT_MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
/// Go's month names.
pub(crate) const LONG_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// Days before each month of a common year (and 365 before the next January).
const DAYS_BEFORE: [i64; 13] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

/// Why one layout element did not parse (Go's `errBad` and friends carry nothing more).
struct Bad;

fn is_digit(value: &[u8], i: usize) -> bool {
    value.get(i).is_some_and(u8::is_ascii_digit)
}

/// Go's `getnum`: one or two digits (two when `fixed`).
fn getnum(value: &[u8], fixed: bool) -> Result<(i64, &[u8]), Bad> {
    if !is_digit(value, 0) {
        return Err(Bad);
    }
    let first = i64::from(value[0] - b'0');
    if !is_digit(value, 1) {
        if fixed {
            return Err(Bad);
        }
        return Ok((first, &value[1..]));
    }
    Ok((first * 10 + i64::from(value[1] - b'0'), &value[2..]))
}

/// Go's `getnum3`: one to three digits (three when `fixed`).
fn getnum3(value: &[u8], fixed: bool) -> Result<(i64, &[u8]), Bad> {
    let mut n = 0;
    let mut i = 0;
    while i < 3 && is_digit(value, i) {
        n = n * 10 + i64::from(value[i] - b'0');
        i += 1;
    }
    if i == 0 || fixed && i != 3 {
        return Err(Bad);
    }
    Ok((n, &value[i..]))
}

/// Go's `leadingInt`: the leading decimal digits and the rest; fails past 2^63.
fn leading_int(value: &[u8]) -> Result<(u64, &[u8]), Bad> {
    let mut x: u64 = 0;
    let mut i = 0;
    while let Some(c @ b'0'..=b'9') = value.get(i).copied() {
        if x > (1 << 63) / 10 {
            return Err(Bad);
        }
        x = x * 10 + u64::from(c - b'0');
        if x > 1 << 63 {
            return Err(Bad);
        }
        i += 1;
    }
    Ok((x, &value[i..]))
}

/// Go's `time.atoi`: an optional sign and digits, nothing else.
fn atoi(value: &[u8]) -> Result<i64, Bad> {
    let (negative, digits) = match value.first() {
        Some(b'-') => (true, &value[1..]),
        Some(b'+') => (false, &value[1..]),
        _ => (false, value),
    };
    let (x, rest) = leading_int(digits)?;
    if !rest.is_empty() {
        return Err(Bad);
    }
    let x = x as i64;
    Ok(if negative { x.wrapping_neg() } else { x })
}

/// Go's `lookup`: the first name of `table` the value starts with, ignoring ASCII case.
fn lookup<'v>(table: &[&str], value: &'v [u8]) -> Result<(usize, &'v [u8]), Bad> {
    for (i, name) in table.iter().enumerate() {
        let name = name.as_bytes();
        if value.len() >= name.len() && value[..name.len()].eq_ignore_ascii_case(name) {
            return Ok((i, &value[name.len()..]));
        }
    }
    Err(Bad)
}

/// Go's `skip`: removes `prefix` from the value, a run of spaces matching any run of spaces; on a mismatch, the
/// value where it stopped.
fn skip<'v>(mut value: &'v [u8], mut prefix: &[u8]) -> Result<&'v [u8], &'v [u8]> {
    let cut = |s: &'v [u8]| -> &'v [u8] {
        let n = s.iter().take_while(|c| **c == b' ').count();
        &s[n..]
    };
    while let Some(&first) = prefix.first() {
        if first == b' ' {
            if value.first().is_some_and(|c| *c != b' ') {
                return Err(value);
            }
            let n = prefix.iter().take_while(|c| **c == b' ').count();
            prefix = &prefix[n..];
            value = cut(value);
            continue;
        }
        if value.first() != Some(&first) {
            return Err(value);
        }
        prefix = &prefix[1..];
        value = &value[1..];
    }
    Ok(value)
}

/// Go's `parseSignedOffset`: the length of a `+N`/`-N` hour offset (at most 12), or 0.
fn signed_offset_len(value: &[u8]) -> usize {
    if !matches!(value.first(), Some(b'-' | b'+')) {
        return 0;
    }
    match leading_int(&value[1..]) {
        Ok((x, rest)) if rest.len() != value.len() - 1 && x <= 12 => value.len() - rest.len(),
        _ => 0,
    }
}

/// Go's `parseTimeZone`: the length of a zone abbreviation at the start of the value.
fn zone_name_len(value: &[u8]) -> Option<usize> {
    if value.len() < 3 {
        return None;
    }
    if value.starts_with(b"ChST") || value.starts_with(b"MeST") {
        return Some(4);
    }
    if value.starts_with(b"GMT") {
        let rest = &value[3..];
        return Some(if rest.is_empty() {
            3
        } else {
            3 + signed_offset_len(rest)
        });
    }
    if matches!(value[0], b'+' | b'-') {
        let len = signed_offset_len(value);
        return (len > 0).then_some(len);
    }
    let upper = value
        .iter()
        .take(6)
        .take_while(|c| c.is_ascii_uppercase())
        .count();
    match upper {
        5 if value[4] == b'T' => Some(5),
        4 if value[3] == b'T' || value.starts_with(b"WITA") => Some(4),
        3 => Some(3),
        _ => None,
    }
}

/// Go's `parseNanoseconds`: a separator and digits (at most nine count) as nanoseconds, or a range error.
fn nanoseconds(value: &[u8], bytes: usize) -> Result<Result<i64, &'static str>, Bad> {
    if !matches!(value.first(), Some(b'.' | b',')) {
        return Err(Bad);
    }
    let bytes = bytes.min(10);
    let mut ns = atoi(&value[1..bytes])?;
    if ns < 0 {
        return Ok(Err("fractional second"));
    }
    for _ in 0..10 - bytes {
        ns *= 10;
    }
    Ok(Ok(ns))
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in(month: i64, year: i64) -> i64 {
    if month == 2 && is_leap(year) {
        29
    } else {
        DAYS_BEFORE[month as usize] - DAYS_BEFORE[month as usize - 1]
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Go's `time.ParseInLocation(layout, value, time.Local)` with `time.Local` UTC: the same fields, defaults, range
/// checks, zones and messages.
pub fn parse_in_utc(layout: &str, value: &str) -> Result<Parsed, ParseError> {
    let (whole_layout, whole_value) = (layout, value);
    let lossy = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let mismatch = |layout_elem: &str, value_elem: &[u8]| ParseError::Mismatch {
        layout: whole_layout.to_string(),
        value: whole_value.to_string(),
        layout_elem: layout_elem.to_string(),
        value_elem: lossy(value_elem),
    };
    let invalid = |message: String| ParseError::Invalid {
        value: whole_value.to_string(),
        message,
    };
    let mut layout = layout;
    let mut value = value.as_bytes();
    let (mut am, mut pm) = (false, false);
    let (mut year, mut month, mut day, mut yday) = (0i64, -1i64, -1i64, -1i64);
    let (mut hour, mut min, mut sec, mut nsec) = (0i64, 0i64, 0i64, 0i64);
    let mut utc = false;
    let mut zone_offset: i64 = -1;
    let mut zone_name: &[u8] = b"";
    loop {
        let (prefix, std, suffix) = next_std_chunk(layout);
        let std_text = &layout[prefix.len()..layout.len() - suffix.len()];
        value = skip(value, prefix.as_bytes()).map_err(|rest| mismatch(prefix, rest))?;
        let Some(std) = std else {
            if !value.is_empty() {
                return Err(invalid(format!(": extra text: {}", quote(&lossy(value)))));
            }
            break;
        };
        layout = suffix;
        let hold = value;
        let mut range: Option<&'static str> = None;
        let step: Result<(), Bad> = (|| {
            match std {
                Std::Year => {
                    if value.len() < 2 {
                        return Err(Bad);
                    }
                    let digits;
                    (digits, value) = value.split_at(2);
                    year = atoi(digits)?;
                    year += if year >= 69 { 1900 } else { 2000 };
                }
                Std::LongYear => {
                    if value.len() < 4 || !is_digit(value, 0) {
                        return Err(Bad);
                    }
                    let digits;
                    (digits, value) = value.split_at(4);
                    year = atoi(digits)?;
                }
                Std::Month | Std::LongMonth => {
                    let table = if std == Std::Month {
                        &SHORT_MONTHS
                    } else {
                        &LONG_MONTHS
                    };
                    let (index, rest) = lookup(table, value)?;
                    (month, value) = (index as i64 + 1, rest);
                }
                Std::NumMonth | Std::ZeroMonth => {
                    (month, value) = getnum(value, std == Std::ZeroMonth)?;
                    if !(1..=12).contains(&month) {
                        range = Some("month");
                    }
                }
                Std::WeekDay => value = lookup(&SHORT_DAYS, value)?.1,
                Std::LongWeekDay => value = lookup(&LONG_DAYS, value)?.1,
                Std::Day | Std::UnderDay | Std::ZeroDay => {
                    if std == Std::UnderDay && value.first() == Some(&b' ') {
                        value = &value[1..];
                    }
                    (day, value) = getnum(value, std == Std::ZeroDay)?;
                }
                Std::UnderYearDay | Std::ZeroYearDay => {
                    for _ in 0..2 {
                        if std == Std::UnderYearDay && value.first() == Some(&b' ') {
                            value = &value[1..];
                        }
                    }
                    (yday, value) = getnum3(value, std == Std::ZeroYearDay)?;
                }
                Std::Hour => {
                    (hour, value) = getnum(value, false)?;
                    if hour >= 24 {
                        range = Some("hour");
                    }
                }
                Std::Hour12 | Std::ZeroHour12 => {
                    (hour, value) = getnum(value, std == Std::ZeroHour12)?;
                    if hour > 12 {
                        range = Some("hour");
                    }
                }
                Std::Minute | Std::ZeroMinute => {
                    (min, value) = getnum(value, std == Std::ZeroMinute)?;
                    if min >= 60 {
                        range = Some("minute");
                    }
                }
                Std::Second | Std::ZeroSecond => {
                    (sec, value) = getnum(value, std == Std::ZeroSecond)?;
                    if sec >= 60 {
                        range = Some("second");
                        return Ok(());
                    }
                    // A fractional second in the value that the layout does not ask for is read anyway.
                    if value.len() >= 2 && matches!(value[0], b'.' | b',') && is_digit(value, 1) {
                        if let (_, Some(Std::FracSecond0 { .. } | Std::FracSecond9 { .. }), _) =
                            next_std_chunk(layout)
                        {
                            return Ok(());
                        }
                        let mut n = 2;
                        while is_digit(value, n) {
                            n += 1;
                        }
                        let parsed = nanoseconds(value, n);
                        value = &value[n..];
                        match parsed? {
                            Ok(ns) => nsec = ns,
                            Err(what) => range = Some(what),
                        }
                    }
                }
                Std::UpperPm | Std::LowerPm => {
                    if value.len() < 2 {
                        return Err(Bad);
                    }
                    let marker;
                    (marker, value) = value.split_at(2);
                    match (std, marker) {
                        (Std::UpperPm, b"PM") | (Std::LowerPm, b"pm") => pm = true,
                        (Std::UpperPm, b"AM") | (Std::LowerPm, b"am") => am = true,
                        _ => return Err(Bad),
                    }
                }
                Std::ZoneName => {
                    if value.starts_with(b"UTC") {
                        utc = true;
                        value = &value[3..];
                        return Ok(());
                    }
                    let len = zone_name_len(value).ok_or(Bad)?;
                    (zone_name, value) = value.split_at(len);
                }
                Std::FracSecond0 { digits, .. } => {
                    let width = 1 + digits;
                    if value.len() < width {
                        return Err(Bad);
                    }
                    let parsed = nanoseconds(value, width);
                    value = &value[width..];
                    match parsed? {
                        Ok(ns) => nsec = ns,
                        Err(what) => range = Some(what),
                    }
                }
                Std::FracSecond9 { .. } => {
                    if value.len() < 2
                        || !matches!(value[0], b'.' | b',')
                        || !value[1].is_ascii_digit()
                    {
                        // The fraction is optional.
                        return Ok(());
                    }
                    let mut i = 0;
                    while is_digit(value, i + 1) {
                        i += 1;
                    }
                    let parsed = nanoseconds(value, 1 + i);
                    value = &value[1 + i..];
                    match parsed? {
                        Ok(ns) => nsec = ns,
                        Err(what) => range = Some(what),
                    }
                }
                numeric => {
                    if numeric.is_iso8601() && value.first() == Some(&b'Z') {
                        value = &value[1..];
                        utc = true;
                        return Ok(());
                    }
                    let shape = OffsetShape::of(numeric).ok_or(Bad)?;
                    let (width, fields): (usize, [(usize, usize); 3]) = match shape {
                        OffsetShape::ColonHoursMinutes => (6, [(1, 3), (4, 6), (0, 0)]),
                        OffsetShape::Hours => (3, [(1, 3), (0, 0), (0, 0)]),
                        OffsetShape::ColonHoursMinutesSeconds => (9, [(1, 3), (4, 6), (7, 9)]),
                        OffsetShape::HoursMinutesSeconds => (7, [(1, 3), (3, 5), (5, 7)]),
                        OffsetShape::HoursMinutes => (5, [(1, 3), (3, 5), (0, 0)]),
                    };
                    if value.len() < width {
                        return Err(Bad);
                    }
                    if shape.colons() && (value[3] != b':' || shape.seconds() && value[6] != b':') {
                        return Err(Bad);
                    }
                    let sign = value[0];
                    let number = |(from, to): (usize, usize)| -> Result<i64, Bad> {
                        if from == to {
                            Ok(0)
                        } else {
                            getnum(&value[from..to], true).map(|(n, _)| n)
                        }
                    };
                    let hh = number(fields[0]);
                    let mm = hh.as_ref().ok().map(|_| number(fields[1]));
                    let ss = mm
                        .as_ref()
                        .and_then(|m| m.as_ref().ok())
                        .map(|_| number(fields[2]));
                    let failed =
                        hh.is_err() || matches!(mm, Some(Err(_))) || matches!(ss, Some(Err(_)));
                    let (hh, mm, ss) = (
                        hh.unwrap_or(0),
                        mm.and_then(Result::ok).unwrap_or(0),
                        ss.and_then(Result::ok).unwrap_or(0),
                    );
                    value = &value[width..];
                    // `>`, not `>=`: some write offsets of 24 hours or 60 minutes.
                    if hh > 24 {
                        range = Some("time zone offset hour");
                    }
                    if mm > 60 {
                        range = Some("time zone offset minute");
                    }
                    if ss > 60 {
                        range = Some("time zone offset second");
                    }
                    zone_offset = (hh * 60 + mm) * 60 + ss;
                    match sign {
                        b'+' => {}
                        b'-' => zone_offset = -zone_offset,
                        _ => return Err(Bad),
                    }
                    if failed {
                        return Err(Bad);
                    }
                }
            }
            Ok(())
        })();
        if let Some(what) = range {
            return Err(invalid(format!(": {what} out of range")));
        }
        if step.is_err() {
            return Err(mismatch(std_text, hold));
        }
    }
    if pm && hour < 12 {
        hour += 12;
    } else if am && hour == 12 {
        hour = 0;
    }
    if yday >= 0 {
        let (mut m, mut d) = (0, 0);
        if is_leap(year) {
            if yday == 31 + 29 {
                (m, d) = (2, 29);
            } else if yday > 31 + 29 {
                yday -= 1;
            }
        }
        if !(1..=365).contains(&yday) {
            return Err(invalid(": day-of-year out of range".into()));
        }
        if m == 0 {
            m = (yday - 1) / 31 + 1;
            if DAYS_BEFORE[m as usize] < yday {
                m += 1;
            }
            d = yday - DAYS_BEFORE[m as usize - 1];
        }
        if month >= 0 && month != m {
            return Err(invalid(": day-of-year does not match month".into()));
        }
        month = m;
        if day >= 0 && day != d {
            return Err(invalid(": day-of-year does not match day".into()));
        }
        day = d;
    } else {
        if month < 0 {
            month = 1;
        }
        if day < 0 {
            day = 1;
        }
    }
    if day < 1 || day > days_in(month, year) {
        return Err(invalid(": day out of range".into()));
    }
    let wall = days_from_civil(year, month, day) * 86_400 + hour * 3600 + min * 60 + sec;
    let nanos = nsec as u32;
    if utc {
        return Ok(Parsed {
            seconds: wall,
            nanos,
            zone: None,
        });
    }
    let name = lossy(zone_name);
    if zone_offset != -1 {
        // Local (UTC) has this offset under this name: the time is Local's. Otherwise Go makes a fixed zone.
        let zone = (zone_offset != 0 || !(name.is_empty() || name == "UTC"))
            .then_some((name, zone_offset as i32));
        return Ok(Parsed {
            seconds: wall - zone_offset,
            nanos,
            zone,
        });
    }
    if !name.is_empty() {
        // A name Local does not know: the wall clock is read as UTC, and shown in a zone of that name whose offset
        // is known only for `GMT+N`.
        let offset = match name.strip_prefix("GMT") {
            Some(hours) if !hours.is_empty() => atoi(hours.as_bytes()).unwrap_or(0) * 3600,
            _ => 0,
        };
        return Ok(Parsed {
            seconds: wall,
            nanos,
            zone: Some((name, offset as i32)),
        });
    }
    Ok(Parsed {
        seconds: wall,
        nanos,
        zone: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(layout: &str, value: &str) -> Result<Parsed, String> {
        parse_in_utc(layout, value).map_err(|e| e.to_string())
    }

    #[test]
    fn layouts_split_into_gos_elements() {
        assert_eq!(
            next_std_chunk("x 2006-01"),
            ("x ", Some(Std::LongYear), "-01")
        );
        assert_eq!(next_std_chunk("_2006"), ("_", Some(Std::LongYear), ""));
        assert_eq!(next_std_chunk("Month"), ("Month", None, ""));
        assert_eq!(next_std_chunk("Janx"), ("Janx", None, ""));
        assert_eq!(next_std_chunk("Jan x").1, Some(Std::Month));
        assert_eq!(
            next_std_chunk(".000Z"),
            (
                "",
                Some(Std::FracSecond0 {
                    digits: 3,
                    separator: b'.'
                }),
                "Z"
            )
        );
        assert_eq!(next_std_chunk(".09"), (".09", None, ""));
        assert_eq!(next_std_chunk("Z07:00").1, Some(Std::Iso8601ColonTz));
        assert_eq!(next_std_chunk("-07").1, Some(Std::NumShortTz));
    }

    #[test]
    fn dates_parse_to_the_instant_go_reads() {
        assert_eq!(
            parse("2006-01-02", "2017-12-31"),
            Ok(Parsed {
                seconds: 1_514_678_400,
                nanos: 0,
                zone: None
            })
        );
        assert_eq!(
            parse("2006-01-02T15:04:05Z07:00", "2023-11-14T22:13:20Z"),
            Ok(Parsed {
                seconds: 1_700_000_000,
                nanos: 0,
                zone: None
            })
        );
        assert_eq!(
            parse(
                "2006-01-02T15:04:05.000Z07:00",
                "2023-11-15T00:13:20.250+02:00"
            ),
            Ok(Parsed {
                seconds: 1_700_000_000,
                nanos: 250_000_000,
                zone: Some((String::new(), 7200))
            })
        );
        assert_eq!(
            parse(
                "Mon Jan _2 15:04:05 MST 2006",
                "Tue Nov 14 10:13:20 UTC 2023"
            )
            .map(|p| p.seconds),
            Ok(1_699_956_800)
        );
        // Without a year, the year is 0 (a leap year), as in Go.
        assert_eq!(
            parse("Jan 2 3:04PM", "Feb 29 12:00AM").map(|p| p.seconds),
            Ok(days_from_civil(0, 2, 29) * 86_400)
        );
        assert_eq!(
            parse("Jan 2 3:04PM", "feb 30 12:00AM").unwrap_err(),
            "parsing time \"feb 30 12:00AM\": day out of range"
        );
        assert_eq!(
            parse("2006 002", "2024 060").map(|p| p.seconds),
            Ok(days_from_civil(2024, 2, 29) * 86_400)
        );
        // A fraction the layout does not ask for is read after the seconds.
        assert_eq!(
            parse("15:04:05", "01:02:03.5").map(|p| p.nanos),
            Ok(500_000_000)
        );
        // A zone name Go does not know keeps the wall clock as UTC.
        assert_eq!(
            parse("2006-01-02 15:04 MST", "2020-01-01 00:00 PST"),
            Ok(Parsed {
                seconds: 1_577_836_800,
                nanos: 0,
                zone: Some(("PST".into(), 0))
            })
        );
        assert_eq!(
            parse("2006-01-02 MST", "2020-01-01 GMT+3").map(|p| p.zone),
            Ok(Some(("GMT+3".into(), 10_800)))
        );
        assert_eq!(
            parse("06", "99").map(|p| p.seconds),
            Ok(days_from_civil(1999, 1, 1) * 86_400)
        );
    }

    #[test]
    fn parse_errors_are_worded_as_gos() {
        assert_eq!(
            parse("2006-01-02", "2017-13-01").unwrap_err(),
            "parsing time \"2017-13-01\": month out of range"
        );
        assert_eq!(
            parse("2006-01-02", "not a date").unwrap_err(),
            "parsing time \"not a date\" as \"2006-01-02\": cannot parse \"not a date\" as \"2006\""
        );
        assert_eq!(
            parse("2006-01-02", "2017/01/02").unwrap_err(),
            "parsing time \"2017/01/02\" as \"2006-01-02\": cannot parse \"/01/02\" as \"-\""
        );
        assert_eq!(
            parse("2006-01-02", "2017-01-02 extra").unwrap_err(),
            "parsing time \"2017-01-02 extra\": extra text: \" extra\""
        );
        assert_eq!(
            parse("2006-01-02", "2017-02-30").unwrap_err(),
            "parsing time \"2017-02-30\": day out of range"
        );
        assert_eq!(
            parse("3:04PM", "3:04am").unwrap_err(),
            "parsing time \"3:04am\" as \"3:04PM\": cannot parse \"am\" as \"PM\""
        );
        assert_eq!(
            parse("15:04", "25:00").unwrap_err(),
            "parsing time \"25:00\": hour out of range"
        );
        assert_eq!(
            parse("Jan", "é").unwrap_err(),
            "parsing time \"\\xc3\\xa9\" as \"Jan\": cannot parse \"\\xc3\\xa9\" as \"Jan\""
        );
    }
}
