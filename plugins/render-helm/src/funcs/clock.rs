//! Sprig's clock functions (`now`, `date`, `dateInZone`, `htmlDate`, `htmlDateInZone`, `unixEpoch`, `ago`,
//! `dateModify`) over a fixed clock: `now` is the rendered revision's commit time ([`super::entropy`]), so a revision
//! renders the same bytes every time. Go's `time.Local` is UTC here, as in a container without a zone.

use std::rc::Rc;

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::duration::{go_duration, parse_go_duration};
use super::entropy::revision_time;
use super::{arity, string_arg};
use crate::template::{Budget, FunctionTable, HostObject, Value};

/// Registers the clock functions.
pub fn register(table: &mut FunctionTable) {
    table.insert("now", |_, args| {
        arity("now", &args, 0)?;
        Ok(Time::value(revision_time(), 0))
    });
    table.insert("date", date);
    table.insert("dateInZone", date_in_zone);
    table.insert("date_in_zone", date_in_zone);
    table.insert("htmlDate", |_, args| {
        arity("htmlDate", &args, 1)?;
        format_in_zone("2006-01-02", &args[0], "Local")
    });
    table.insert("htmlDateInZone", |_, args| {
        arity("htmlDateInZone", &args, 2)?;
        format_in_zone("2006-01-02", &args[0], string_arg(&args, 1)?)
    });
    table.insert("unixEpoch", |_, args| {
        arity("unixEpoch", &args, 1)?;
        let (seconds, _) = time_arg("unixEpoch", &args[0])?;
        Ok(Value::string(seconds.to_string()))
    });
    table.insert("ago", |_, args| {
        arity("ago", &args, 1)?;
        let (seconds, nanos) = time_arg("ago", &args[0])?;
        let since =
            (i128::from(revision_time()) - i128::from(seconds)) * 1_000_000_000 - i128::from(nanos);
        // Rounded to the second, half away from zero, as Go's Duration.Round.
        let rounded = (since + since.signum() * 500_000_000) / 1_000_000_000 * 1_000_000_000;
        Ok(Value::string(go_duration(rounded)))
    });
    for name in [
        "dateModify",
        "date_modify",
        "mustDateModify",
        "must_date_modify",
    ] {
        table.insert(name, date_modify);
    }
}

/// A Go `time.Time`: seconds and nanoseconds since the Unix epoch, shown in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Time {
    seconds: i64,
    nanos: u32,
}

impl Time {
    /// A template value holding this time.
    pub fn value(seconds: i64, nanos: u32) -> Value {
        Value::Object(Rc::new(Time { seconds, nanos }))
    }
}

impl HostObject for Time {
    fn type_name(&self) -> &str {
        "time.Time"
    }

    fn kind_name(&self) -> &'static str {
        "struct"
    }

    fn member(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        let utc = TimeZone::UTC;
        Some(match name {
            "Unix" => Ok(Value::Int(self.seconds)),
            "UnixNano" => Ok(Value::Int(
                self.seconds
                    .saturating_mul(1_000_000_000)
                    .saturating_add(i64::from(self.nanos)),
            )),
            "UnixMilli" => Ok(Value::Int(
                self.seconds
                    .saturating_mul(1_000)
                    .saturating_add(i64::from(self.nanos / 1_000_000)),
            )),
            "Nanosecond" => Ok(Value::Int(i64::from(self.nanos))),
            "UTC" | "Local" => Ok(Time::value(self.seconds, self.nanos)),
            "Year" => zoned(self.seconds, self.nanos, &utc).map(|z| Value::Int(z.year().into())),
            "YearDay" => {
                zoned(self.seconds, self.nanos, &utc).map(|z| Value::Int(z.day_of_year().into()))
            }
            "Day" => zoned(self.seconds, self.nanos, &utc).map(|z| Value::Int(z.day().into())),
            "Hour" => zoned(self.seconds, self.nanos, &utc).map(|z| Value::Int(z.hour().into())),
            "Minute" => {
                zoned(self.seconds, self.nanos, &utc).map(|z| Value::Int(z.minute().into()))
            }
            "Second" => {
                zoned(self.seconds, self.nanos, &utc).map(|z| Value::Int(z.second().into()))
            }
            "Format" => match args {
                [Value::String(layout)] => {
                    go_format(self.seconds, self.nanos, &utc, layout).map(Value::string)
                }
                _ => Err("Format: want one string argument".into()),
            },
            "String" => Ok(Value::string(self.display())),
            _ => return None,
        })
    }

    fn is_method(&self, _name: &str) -> bool {
        true
    }

    fn display(&self) -> String {
        go_format(
            self.seconds,
            self.nanos,
            &TimeZone::UTC,
            "2006-01-02 15:04:05.999999999 -0700 MST",
        )
        .unwrap_or_default()
    }

    fn to_data(&self) -> Value {
        // encoding/json marshals a time as RFC 3339 with nanoseconds.
        Value::string(
            go_format(
                self.seconds,
                self.nanos,
                &TimeZone::UTC,
                "2006-01-02T15:04:05.999999999Z07:00",
            )
            .unwrap_or_default(),
        )
    }
}

/// A time argument: a `time.Time` or, as Sprig's `date` accepts, whole seconds since the epoch.
fn time_arg(name: &str, value: &Value) -> Result<(i64, u32), String> {
    match value {
        Value::Int(seconds) => Ok((*seconds, 0)),
        Value::Object(object) if object.type_name() == "time.Time" => {
            let seconds = match object.member("Unix", &[]) {
                Some(Ok(Value::Int(seconds))) => seconds,
                _ => return Err(format!("{name}: unreadable time")),
            };
            let nanos = match object.member("Nanosecond", &[]) {
                Some(Ok(Value::Int(nanos))) => u32::try_from(nanos).unwrap_or(0),
                _ => 0,
            };
            Ok((seconds, nanos))
        }
        other => Err(format!(
            "wrong type for value; expected time.Time; got {}",
            other.type_name()
        )),
    }
}

/// `date FORMAT TIME`: Sprig formats a time, an int of seconds, or (for anything else) now.
fn date(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("date", &args, 2)?;
    format_in_zone(string_arg(&args, 0)?, &args[1], "Local")
}

/// `dateInZone FORMAT TIME ZONE`.
fn date_in_zone(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("dateInZone", &args, 3)?;
    format_in_zone(string_arg(&args, 0)?, &args[1], string_arg(&args, 2)?)
}

/// Sprig's `formatDate`: anything that is not a time or a number of seconds is now; an unknown zone is UTC.
fn format_in_zone(layout: &str, value: &Value, zone: &str) -> Result<Value, String> {
    let (seconds, nanos) = time_arg("date", value).unwrap_or((revision_time(), 0));
    let zone = match zone {
        "" | "UTC" | "Local" => TimeZone::UTC,
        name => jiff::tz::db().get(name).unwrap_or(TimeZone::UTC),
    };
    go_format(seconds, nanos, &zone, layout).map(Value::string)
}

/// `dateModify DURATION TIME`: the time moved by a Go duration (`-1.5h`).
fn date_modify(_: &mut Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("dateModify", &args, 2)?;
    let text = string_arg(&args, 0)?;
    let delta =
        parse_go_duration(text).ok_or_else(|| format!("time: invalid duration {text:?}"))?;
    let (seconds, nanos) = time_arg("dateModify", &args[1])?;
    let total = i128::from(seconds) * 1_000_000_000 + i128::from(nanos) + delta;
    let seconds =
        i64::try_from(total.div_euclid(1_000_000_000)).map_err(|_| "time out of range")?;
    Ok(Time::value(seconds, total.rem_euclid(1_000_000_000) as u32))
}

fn zoned(seconds: i64, nanos: u32, zone: &TimeZone) -> Result<jiff::Zoned, String> {
    let timestamp = Timestamp::new(seconds, nanos as i32).map_err(|e| e.to_string())?;
    Ok(timestamp.to_zoned(zone.clone()))
}

/// Formats a time as Go's `Time.Format` does with `layout` (the reference time `Mon Jan 2 15:04:05 MST 2006`).
pub fn go_format(
    seconds: i64,
    nanos: u32,
    zone: &TimeZone,
    layout: &str,
) -> Result<String, String> {
    let z = zoned(seconds, nanos, zone)?;
    let offset = z.offset().seconds();
    let abbreviation = zone
        .to_offset_info(z.timestamp())
        .abbreviation()
        .to_string();
    const MONTHS: [&str; 12] = [
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
    const DAYS: [&str; 7] = [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ];
    let month = MONTHS[(z.month() - 1) as usize];
    let weekday = DAYS[z.weekday().to_monday_zero_offset() as usize];
    let hour = i32::from(z.hour());
    let numeric_offset = |colon: bool, seconds_too: bool, hours_only: bool| {
        let sign = if offset < 0 { '-' } else { '+' };
        let abs = offset.abs();
        let (h, m, s) = (abs / 3600, abs / 60 % 60, abs % 60);
        let sep = if colon { ":" } else { "" };
        let mut out = format!("{sign}{h:02}");
        if !hours_only {
            out.push_str(&format!("{sep}{m:02}"));
        }
        if seconds_too {
            out.push_str(&format!("{sep}{s:02}"));
        }
        out
    };
    let mut out = String::new();
    let mut rest = layout;
    // Go's nextStdChunk, longest tokens first where they share a prefix.
    const TOKENS: [&str; 40] = [
        "January",
        "Jan",
        "Monday",
        "Mon",
        "MST",
        "2006",
        "2",
        "_2",
        "__2",
        "002",
        "01",
        "1",
        "02",
        "06",
        "15",
        "03",
        "3",
        "04",
        "4",
        "05",
        "5",
        "PM",
        "pm",
        "-070000",
        "-07:00:00",
        "-0700",
        "-07:00",
        "-07",
        "Z070000",
        "Z07:00:00",
        "Z0700",
        "Z07:00",
        "Z07",
        ".000",
        ".999",
        ",000",
        ",999",
        "_2006",
        "Z",
        "-",
    ];
    'outer: while !rest.is_empty() {
        // Fractional seconds of any width: .0+ or .9+ (also with a comma).
        if let Some(first) = rest.chars().next()
            && (first == '.' || first == ',')
        {
            let digits: String = rest[1..]
                .chars()
                .take_while(|c| *c == '0' || *c == '9')
                .collect();
            let after = rest[1 + digits.len()..].chars().next();
            let uniform = digits
                .chars()
                .next()
                .is_some_and(|first| digits.chars().all(|c| c == first));
            if uniform && !after.is_some_and(|c| c.is_ascii_digit()) {
                let full = format!("{nanos:09}");
                let width = digits.len().min(9);
                if digits.starts_with('0') {
                    out.push(first);
                    out.push_str(&full[..width]);
                } else {
                    let trimmed = full[..width].trim_end_matches('0');
                    if !trimmed.is_empty() {
                        out.push(first);
                        out.push_str(trimmed);
                    }
                }
                rest = &rest[1 + digits.len()..];
                continue;
            }
        }
        let mut candidates: Vec<&str> = TOKENS
            .iter()
            .copied()
            .filter(|t| !matches!(*t, ".000" | ".999" | ",000" | ",999" | "Z" | "-" | "_2006"))
            .filter(|t| rest.starts_with(t))
            .collect();
        candidates.sort_by_key(|t| std::cmp::Reverse(t.len()));
        for token in candidates {
            let text = match token {
                "January" => month.to_string(),
                "Jan" => month[..3].to_string(),
                "Monday" => weekday.to_string(),
                "Mon" => weekday[..3].to_string(),
                "MST" => {
                    if abbreviation.is_empty() {
                        numeric_offset(false, false, false)
                    } else {
                        abbreviation.clone()
                    }
                }
                "2006" => format!("{:04}", z.year()),
                "06" => format!("{:02}", z.year().rem_euclid(100)),
                "01" => format!("{:02}", z.month()),
                "1" => z.month().to_string(),
                "02" => format!("{:02}", z.day()),
                "2" => z.day().to_string(),
                "_2" => format!("{:>2}", z.day()),
                "__2" => format!("{:>3}", z.day_of_year()),
                "002" => format!("{:03}", z.day_of_year()),
                "15" => format!("{hour:02}"),
                "03" => format!("{:02}", if hour % 12 == 0 { 12 } else { hour % 12 }),
                "3" => (if hour % 12 == 0 { 12 } else { hour % 12 }).to_string(),
                "04" => format!("{:02}", z.minute()),
                "4" => z.minute().to_string(),
                "05" => format!("{:02}", z.second()),
                "5" => z.second().to_string(),
                "PM" => (if hour >= 12 { "PM" } else { "AM" }).to_string(),
                "pm" => (if hour >= 12 { "pm" } else { "am" }).to_string(),
                "-070000" => numeric_offset(false, true, false),
                "-07:00:00" => numeric_offset(true, true, false),
                "-0700" => numeric_offset(false, false, false),
                "-07:00" => numeric_offset(true, false, false),
                "-07" => numeric_offset(false, false, true),
                z_token if z_token.starts_with('Z') => {
                    if offset == 0 {
                        "Z".to_string()
                    } else {
                        match z_token {
                            "Z070000" => numeric_offset(false, true, false),
                            "Z07:00:00" => numeric_offset(true, true, false),
                            "Z0700" => numeric_offset(false, false, false),
                            "Z07:00" => numeric_offset(true, false, false),
                            _ => numeric_offset(false, false, true),
                        }
                    }
                }
                _ => continue,
            };
            out.push_str(&text);
            rest = &rest[token.len()..];
            continue 'outer;
        }
        let c = rest.chars().next().unwrap_or_default();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::entropy::with_render_context;
    use super::*;

    fn call(name: &str, args: Vec<Value>) -> Result<Value, String> {
        let mut table = FunctionTable::new();
        register(&mut table);
        let function = table[name];
        // 2023-11-14T22:13:20Z, a Tuesday.
        with_render_context(None, Some(1_700_000_000), || {
            function(&mut Budget::new(1_000), args)
        })
    }

    fn text(value: Result<Value, String>) -> String {
        match value.unwrap() {
            Value::String(s) => s.to_string(),
            Value::Object(o) => o.display(),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn now_is_the_revisions_time_and_prints_as_go_prints_a_time() {
        assert_eq!(text(call("now", vec![])), "2023-11-14 22:13:20 +0000 UTC");
    }

    #[test]
    fn date_formats_with_gos_layouts() {
        let now = call("now", vec![]).unwrap();
        for (layout, expected) in [
            ("2006-01-02", "2023-11-14"),
            (
                "Mon Jan _2 15:04:05 MST 2006",
                "Tue Nov 14 22:13:20 UTC 2023",
            ),
            ("2006-01-02T15:04:05Z07:00", "2023-11-14T22:13:20Z"),
            (
                "January 2, 06 3:04PM -0700",
                "November 14, 23 10:13PM +0000",
            ),
            ("15:04:05.000", "22:13:20.000"),
            ("002 Monday", "318 Tuesday"),
        ] {
            assert_eq!(
                text(call("date", vec![Value::string(layout), now.clone()])),
                expected,
                "{layout}"
            );
        }
        assert_eq!(
            text(call("date", vec![Value::string("2006"), Value::Int(0)])),
            "1970"
        );
    }

    #[test]
    fn date_in_zone_reads_the_zone_database() {
        let now = call("now", vec![]).unwrap();
        assert_eq!(
            text(call(
                "dateInZone",
                vec![
                    Value::string("2006-01-02 15:04 MST -07:00"),
                    now,
                    Value::string("Europe/Berlin")
                ]
            )),
            "2023-11-14 23:13 CET +01:00"
        );
    }

    #[test]
    fn unix_epoch_ago_and_date_modify_follow_sprig() {
        let now = call("now", vec![]).unwrap();
        assert_eq!(text(call("unixEpoch", vec![now.clone()])), "1700000000");
        assert_eq!(text(call("ago", vec![Value::Int(1_699_996_400)])), "1h0m0s");
        let later = call("dateModify", vec![Value::string("1.5h"), now]).unwrap();
        assert_eq!(text(call("unixEpoch", vec![later])), "1700005400");
    }
}
