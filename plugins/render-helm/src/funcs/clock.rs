//! Sprig's clock functions (`now`, `date`, `dateInZone`, `htmlDate`, `htmlDateInZone`, `unixEpoch`, `ago`,
//! `dateModify`) over a fixed clock: `now` is the rendered revision's commit time ([`super::entropy`]), so a revision
//! renders the same bytes every time. Go's `time.Local` is UTC here, as in a container without a zone: a render
//! must not depend on the server's zone. `toDate` and `mustToDate` parse with Go's layouts ([`super::layout`]).

use std::rc::Rc;

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::duration::{go_duration, parse_go_duration};
use super::entropy::revision_time;
use super::layout::{OffsetShape, Std, ZERO_TIME_SECONDS, next_std_chunk, parse_in_utc};
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
    table.insert("toDate", |_, args| {
        arity("toDate", &args, 2)?;
        // Sprig drops the error: a value that does not parse is Go's zero time.
        Ok(parse_in_utc(string_arg(&args, 0)?, string_arg(&args, 1)?)
            .map(Time::parsed)
            .unwrap_or_else(|_| Time::value(ZERO_TIME_SECONDS, 0)))
    });
    table.insert("mustToDate", |_, args| {
        arity("mustToDate", &args, 2)?;
        parse_in_utc(string_arg(&args, 0)?, string_arg(&args, 1)?)
            .map(Time::parsed)
            .map_err(|e| e.to_string())
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

/// A Go `time.Time`: seconds and nanoseconds since the Unix epoch, shown in UTC (Local) or, for a time parsed
/// with an offset or a zone name Local does not have, in the fixed zone Go records for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Time {
    seconds: i64,
    nanos: u32,
    /// A fixed zone's name (possibly empty) and offset in seconds; `None` is UTC.
    zone: Option<(Rc<str>, i32)>,
}

/// The member through which the clock functions read a time's fixed zone: not a Go identifier, so templates
/// cannot reach it.
const ZONE_MEMBER: &str = "weft:zone";

impl Time {
    /// A template value holding this time, in UTC.
    pub fn value(seconds: i64, nanos: u32) -> Value {
        Time::in_zone(seconds, nanos, None)
    }

    /// A template value holding this time in `zone` (a fixed zone's name and offset; `None` is UTC).
    fn in_zone(seconds: i64, nanos: u32, zone: Option<(Rc<str>, i32)>) -> Value {
        Value::Object(Rc::new(Time {
            seconds,
            nanos,
            zone,
        }))
    }

    /// A parsed time as a template value.
    fn parsed(parsed: super::layout::Parsed) -> Value {
        Time::in_zone(
            parsed.seconds,
            parsed.nanos,
            parsed.zone.map(|(name, offset)| (name.into(), offset)),
        )
    }

    /// The time's own zone, for its fields.
    fn time_zone(&self) -> TimeZone {
        match &self.zone {
            Some((_, offset)) => jiff::tz::Offset::from_seconds(*offset)
                .map(TimeZone::fixed)
                .unwrap_or(TimeZone::UTC),
            None => TimeZone::UTC,
        }
    }

    /// Go's `Time.Format`, in the time's own zone.
    fn format(&self, layout: &str) -> Result<String, String> {
        match &self.zone {
            Some((name, _)) => {
                let z = zoned(self.seconds, self.nanos, &self.time_zone())?;
                Ok(format_zoned(&z, name, layout))
            }
            None => go_format(self.seconds, self.nanos, &TimeZone::UTC, layout),
        }
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
        let own = self.time_zone();
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
            ZONE_MEMBER => Ok(match &self.zone {
                Some((name, offset)) => Value::list(vec![
                    Value::String(name.clone()),
                    Value::Int((*offset).into()),
                ]),
                None => Value::Nil,
            }),
            "Year" => zoned(self.seconds, self.nanos, &own).map(|z| Value::Int(z.year().into())),
            "YearDay" => {
                zoned(self.seconds, self.nanos, &own).map(|z| Value::Int(z.day_of_year().into()))
            }
            "Day" => zoned(self.seconds, self.nanos, &own).map(|z| Value::Int(z.day().into())),
            "Hour" => zoned(self.seconds, self.nanos, &own).map(|z| Value::Int(z.hour().into())),
            "Minute" => {
                zoned(self.seconds, self.nanos, &own).map(|z| Value::Int(z.minute().into()))
            }
            "Second" => {
                zoned(self.seconds, self.nanos, &own).map(|z| Value::Int(z.second().into()))
            }
            "Format" => match args {
                [Value::String(layout)] => self.format(layout).map(Value::string),
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
        self.format("2006-01-02 15:04:05.999999999 -0700 MST")
            .unwrap_or_default()
    }

    fn to_data(&self) -> Value {
        // encoding/json marshals a time as RFC 3339 with nanoseconds.
        Value::string(
            self.format("2006-01-02T15:04:05.999999999Z07:00")
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
    // Go's Time.Add keeps the time's zone.
    Ok(Time::in_zone(
        seconds,
        total.rem_euclid(1_000_000_000) as u32,
        fixed_zone(&args[1]),
    ))
}

/// A time argument's fixed zone, if it has one.
fn fixed_zone(value: &Value) -> Option<(Rc<str>, i32)> {
    let Value::Object(object) = value else {
        return None;
    };
    match object.member(ZONE_MEMBER, &[]) {
        Some(Ok(Value::List(items))) => match (items.first(), items.get(1)) {
            (Some(Value::String(name)), Some(Value::Int(offset))) => {
                Some((name.clone(), i32::try_from(*offset).ok()?))
            }
            _ => None,
        },
        _ => None,
    }
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
    let abbreviation = zone
        .to_offset_info(z.timestamp())
        .abbreviation()
        .to_string();
    Ok(format_zoned(&z, &abbreviation, layout))
}

/// Go's `appendInt`: `x` in decimal, zero-padded to `width` digits after any sign.
fn padded(x: i64, width: usize) -> String {
    let digits = format!("{:0width$}", x.unsigned_abs());
    if x < 0 { format!("-{digits}") } else { digits }
}

/// Formats a zoned time with `layout`, its zone called `abbreviation` (`MST`; empty: the numeric offset).
fn format_zoned(z: &jiff::Zoned, abbreviation: &str, layout: &str) -> String {
    let offset = z.offset().seconds();
    let month = super::layout::LONG_MONTHS[(z.month() - 1) as usize];
    let weekday = super::layout::LONG_DAYS[z.weekday().to_sunday_zero_offset() as usize];
    let hour = i64::from(z.hour());
    let hour12 = if hour % 12 == 0 { 12 } else { hour % 12 };
    let nanos = z.subsec_nanosecond();
    let mut out = String::new();
    let mut rest = layout;
    loop {
        let (prefix, std, suffix) = next_std_chunk(rest);
        out.push_str(prefix);
        let Some(std) = std else { break };
        rest = suffix;
        match std {
            Std::LongMonth => out.push_str(month),
            Std::Month => out.push_str(&month[..3]),
            Std::LongWeekDay => out.push_str(weekday),
            Std::WeekDay => out.push_str(&weekday[..3]),
            Std::LongYear => out.push_str(&padded(z.year().into(), 4)),
            Std::Year => out.push_str(&padded(i64::from(z.year()).rem_euclid(100), 2)),
            Std::NumMonth => out.push_str(&z.month().to_string()),
            Std::ZeroMonth => out.push_str(&padded(z.month().into(), 2)),
            Std::Day => out.push_str(&z.day().to_string()),
            Std::UnderDay => out.push_str(&format!("{:>2}", z.day())),
            Std::ZeroDay => out.push_str(&padded(z.day().into(), 2)),
            Std::UnderYearDay => out.push_str(&format!("{:>3}", z.day_of_year())),
            Std::ZeroYearDay => out.push_str(&padded(z.day_of_year().into(), 3)),
            Std::Hour => out.push_str(&padded(hour, 2)),
            Std::Hour12 => out.push_str(&hour12.to_string()),
            Std::ZeroHour12 => out.push_str(&padded(hour12, 2)),
            Std::Minute => out.push_str(&z.minute().to_string()),
            Std::ZeroMinute => out.push_str(&padded(z.minute().into(), 2)),
            Std::Second => out.push_str(&z.second().to_string()),
            Std::ZeroSecond => out.push_str(&padded(z.second().into(), 2)),
            Std::UpperPm => out.push_str(if hour >= 12 { "PM" } else { "AM" }),
            Std::LowerPm => out.push_str(if hour >= 12 { "pm" } else { "am" }),
            Std::ZoneName if !abbreviation.is_empty() => out.push_str(abbreviation),
            Std::ZoneName => {
                // No name: Go prints the offset as -0700.
                let minutes = offset / 60;
                out.push(if minutes < 0 { '-' } else { '+' });
                out.push_str(&padded(i64::from(minutes.abs() / 60), 2));
                out.push_str(&padded(i64::from(minutes.abs() % 60), 2));
            }
            Std::FracSecond0 { digits, separator } | Std::FracSecond9 { digits, separator } => {
                let trim = matches!(std, Std::FracSecond9 { .. });
                if trim && (digits == 0 || nanos == 0) {
                    continue;
                }
                let full = format!("{nanos:09}");
                let shown = &full[..digits.min(9)];
                let shown = if trim {
                    shown.trim_end_matches('0')
                } else {
                    shown
                };
                if !(trim && shown.is_empty()) {
                    out.push(char::from(separator));
                    out.push_str(shown);
                }
            }
            numeric => {
                if numeric.is_iso8601() && offset == 0 {
                    out.push('Z');
                    continue;
                }
                let Some(shape) = OffsetShape::of(numeric) else {
                    continue;
                };
                // Go takes the sign from the offset in whole minutes.
                let minutes = offset / 60;
                out.push(if minutes < 0 { '-' } else { '+' });
                let minutes = minutes.abs();
                out.push_str(&padded(i64::from(minutes / 60), 2));
                if shape.colons() {
                    out.push(':');
                }
                if shape.minutes() {
                    out.push_str(&padded(i64::from(minutes % 60), 2));
                }
                if shape.seconds() {
                    if shape.colons() {
                        out.push(':');
                    }
                    out.push_str(&padded(i64::from(offset.abs() % 60), 2));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::entropy::with_render_context;
    use super::*;

    fn call(name: &str, args: Vec<Value>) -> Result<Value, String> {
        let mut table = FunctionTable::default();
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
    fn to_date_parses_with_gos_layouts_into_a_time_the_date_functions_take() {
        let parsed = |layout: &str, value: &str| {
            call("toDate", vec![Value::string(layout), Value::string(value)])
        };
        // Printed by Helm 4's library for the same calls.
        for (layout, value, printed) in [
            ("2006-01-02", "2017-12-31", "2017-12-31 00:00:00 +0000 UTC"),
            (
                "2006-01-02T15:04:05Z07:00",
                "2023-01-01T10:00:00+02:00",
                "2023-01-01 10:00:00 +0200 +0200",
            ),
            ("2006-01-02", "garbage", "0001-01-01 00:00:00 +0000 UTC"),
            (
                "2006-01-02 15:04 MST",
                "2020-01-01 00:00 PST",
                "2020-01-01 00:00:00 +0000 PST",
            ),
            (
                "2006-01-02 MST",
                "2020-01-01 GMT+3",
                "2020-01-01 03:00:00 +0300 GMT+3",
            ),
            (
                "2006-01-02T15:04:05.000Z07:00",
                "2023-11-15T00:13:20.250-00:30",
                "2023-11-15 00:13:20.25 -0030 -0030",
            ),
            (
                "2006-01-02 -07",
                "2023-11-15 -00",
                "2023-11-15 00:00:00 +0000 UTC",
            ),
            (
                "Jan 2 3:04PM",
                "Feb 29 12:00AM",
                "0000-02-29 00:00:00 +0000 UTC",
            ),
        ] {
            assert_eq!(text(parsed(layout, value)), printed, "{layout} {value}");
        }
        let day = parsed("2006-01-02", "2017-12-31").unwrap();
        assert_eq!(text(call("unixEpoch", vec![day.clone()])), "1514678400");
        assert_eq!(
            text(call("date", vec![Value::string("Mon Jan _2 2006"), day])),
            "Sun Dec 31 2017"
        );
        let east = parsed("2006-01-02T15:04:05Z07:00", "2023-01-01T10:00:00+02:00").unwrap();
        // Go's Time.Add and the time's fields keep its zone; JSON writes its offset.
        let later = call("dateModify", vec![Value::string("1h"), east.clone()]);
        assert_eq!(text(later), "2023-01-01 11:00:00 +0200 +0200");
        let Value::Object(object) = &east else {
            panic!("not a time")
        };
        assert_eq!(object.member("Hour", &[]), Some(Ok(Value::Int(10))));
        assert_eq!(object.to_data(), Value::string("2023-01-01T10:00:00+02:00"));
        let day = parsed("Jan _2 2006", "Mar  3 2020").unwrap();
        assert_eq!(
            text(call(
                "date",
                vec![Value::string("_2006 __2 002 Z07 PM"), day]
            )),
            "_2020  63 063 Z AM"
        );
    }

    #[test]
    fn must_to_date_fails_with_gos_message() {
        assert_eq!(
            call(
                "mustToDate",
                vec![Value::string("2006-01-02"), Value::string("2017-13-01")]
            )
            .unwrap_err(),
            "parsing time \"2017-13-01\": month out of range"
        );
        assert_eq!(
            text(call(
                "mustToDate",
                vec![Value::string("15:04:05"), Value::string("01:02:03.5")]
            )),
            "0000-01-01 01:02:03.5 +0000 UTC"
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
