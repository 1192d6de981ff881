//! The safe `os` library: `os.time`, `os.clock` and `os.date`, written here instead of taken from the engine's `os`
//! (which cannot be built without its `io` library, and whose other functions reach files, processes and the
//! environment). Time comes from the host: `os.time()` is when the call started, `os.clock()` how long it has run.
//! There is no time zone in the sandbox: local time is UTC, as on a server whose zone is UTC.

use omnilua::{Lua, LuaError, Table, Value};

/// Builds the `os` table.
pub(crate) fn library(lua: &Lua) -> omnilua::Result<Table> {
    let os = lua.create_table()?;
    os.raw_set(
        "time",
        lua.create_function(|_, table: Option<Table>| match table {
            None => Ok(weft_sdk::clock::call_started().0 as f64),
            Some(table) => time_of_table(&table).map(|t| t as f64),
        })?,
    )?;
    os.raw_set(
        "clock",
        lua.create_function(|_, ()| Ok(weft_sdk::clock::elapsed().as_secs_f64()))?,
    )?;
    os.raw_set(
        "date",
        lua.create_function(|lua, (format, time): (Option<String>, Option<f64>)| {
            let time = match time {
                Some(t) if t.is_finite() => t.floor() as i64,
                Some(_) => {
                    return Err(runtime(
                        "bad argument #2 to 'date' (number has no integer representation)",
                    ));
                }
                None => weft_sdk::clock::call_started().0,
            };
            let format = format.unwrap_or_else(|| "%c".to_string());
            let format = format.strip_prefix('!').unwrap_or(&format);
            let civil = Civil::from_unix(time);
            if format.starts_with("*t") {
                let table = lua.create_table()?;
                for (key, value) in [
                    ("year", civil.year),
                    ("month", civil.month),
                    ("day", civil.day),
                    ("hour", civil.hour),
                    ("min", civil.min),
                    ("sec", civil.sec),
                    ("wday", civil.weekday + 1),
                    ("yday", civil.yday),
                ] {
                    table.raw_set(key, value as f64)?;
                }
                table.raw_set("isdst", false)?;
                return Ok(Value::Table(table));
            }
            Ok(Value::String(lua.create_string(strftime(format, &civil)?)?))
        })?,
    )?;
    Ok(os)
}

fn runtime(message: &str) -> omnilua::Error {
    LuaError::runtime(format_args!("{message}")).into()
}

/// `os.time{...}`: the fields as UTC, normalised like C's `mktime` (month 13 is January of the next year, day 0 the
/// last day of the previous month, and so on).
fn time_of_table(table: &Table) -> omnilua::Result<i64> {
    let field = |name: &str, default: Option<i64>| -> omnilua::Result<i64> {
        match table.raw_get::<_, Value>(name)? {
            Value::Number(n) if n.is_finite() => Ok(n.floor() as i64),
            Value::Integer(i) => Ok(i),
            Value::String(s) => s
                .to_str()?
                .trim()
                .parse::<f64>()
                .map(|n| n.floor() as i64)
                .map_err(|_| runtime(&format!("field '{name}' is not an integer"))),
            Value::Nil => {
                default.ok_or_else(|| runtime(&format!("field '{name}' missing in date table")))
            }
            _ => Err(runtime(&format!("field '{name}' is not an integer"))),
        }
    };
    let year = field("year", None)?;
    let month = field("month", None)?;
    let day = field("day", None)?;
    let (hour, min, sec) = (
        field("hour", Some(12))?,
        field("min", Some(0))?,
        field("sec", Some(0))?,
    );
    let month0 = month - 1;
    let year = year + month0.div_euclid(12);
    let month = month0.rem_euclid(12) + 1;
    let days = days_from_civil(year, month, 1) + day - 1;
    Ok(days * 86_400 + hour * 3_600 + min * 60 + sec)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A broken-down UTC time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Civil {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    min: i64,
    sec: i64,
    /// 0 = Sunday.
    weekday: i64,
    /// 1 = January 1st.
    yday: i64,
}

impl Civil {
    fn from_unix(time: i64) -> Civil {
        let days = time.div_euclid(86_400);
        let secs = time.rem_euclid(86_400);
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        Civil {
            year,
            month,
            day,
            hour: secs / 3_600,
            min: secs % 3_600 / 60,
            sec: secs % 60,
            weekday: (days + 4).rem_euclid(7),
            yday: days - days_from_civil(year, 1, 1) + 1,
        }
    }
}

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
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

/// C's `strftime` in the C locale, for the conversions Lua 5.2 accepts.
fn strftime(format: &str, t: &Civil) -> omnilua::Result<String> {
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else {
            return Err(runtime(
                "bad argument #1 to 'date' (invalid conversion specifier '%')",
            ));
        };
        let day_name = DAYS[t.weekday as usize];
        let month_name = MONTHS[(t.month - 1) as usize];
        let hour12 = if t.hour % 12 == 0 { 12 } else { t.hour % 12 };
        let piece = match spec {
            'a' => day_name[..3].to_string(),
            'A' => day_name.to_string(),
            'b' | 'h' => month_name[..3].to_string(),
            'B' => month_name.to_string(),
            'c' => format!(
                "{} {} {:>2} {:02}:{:02}:{:02} {}",
                &day_name[..3],
                &month_name[..3],
                t.day,
                t.hour,
                t.min,
                t.sec,
                t.year
            ),
            'C' => format!("{:02}", t.year.div_euclid(100)),
            'd' => format!("{:02}", t.day),
            'D' => format!("{:02}/{:02}/{:02}", t.month, t.day, t.year.rem_euclid(100)),
            'e' => format!("{:>2}", t.day),
            'F' => format!("{}-{:02}-{:02}", t.year, t.month, t.day),
            'H' => format!("{:02}", t.hour),
            'I' => format!("{hour12:02}"),
            'j' => format!("{:03}", t.yday),
            'm' => format!("{:02}", t.month),
            'M' => format!("{:02}", t.min),
            'n' => "\n".to_string(),
            'p' => (if t.hour < 12 { "AM" } else { "PM" }).to_string(),
            'r' => format!(
                "{hour12:02}:{:02}:{:02} {}",
                t.min,
                t.sec,
                if t.hour < 12 { "AM" } else { "PM" }
            ),
            'R' => format!("{:02}:{:02}", t.hour, t.min),
            'S' => format!("{:02}", t.sec),
            't' => "\t".to_string(),
            'T' | 'X' => format!("{:02}:{:02}:{:02}", t.hour, t.min, t.sec),
            'u' => format!("{}", if t.weekday == 0 { 7 } else { t.weekday }),
            'w' => format!("{}", t.weekday),
            'x' => format!("{:02}/{:02}/{:02}", t.month, t.day, t.year.rem_euclid(100)),
            'y' => format!("{:02}", t.year.rem_euclid(100)),
            'Y' => t.year.to_string(),
            'z' => "+0000".to_string(),
            'Z' => "UTC".to_string(),
            '%' => "%".to_string(),
            other => {
                return Err(runtime(&format!(
                    "bad argument #1 to 'date' (invalid conversion specifier '%{other}')"
                )));
            }
        };
        out.push_str(&piece);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_round_trip() {
        for time in [0i64, 951_782_400, 1_704_164_645, -86_400, 4_102_444_800] {
            let c = Civil::from_unix(time);
            let back = days_from_civil(c.year, c.month, c.day) * 86_400
                + c.hour * 3_600
                + c.min * 60
                + c.sec;
            assert_eq!(back, time, "{c:?}");
        }
        let leap = Civil::from_unix(951_782_400);
        assert_eq!(
            (leap.year, leap.month, leap.day, leap.weekday, leap.yday),
            (2000, 2, 29, 2, 60)
        );
    }

    #[test]
    fn strftime_covers_the_c_locale() {
        let t = Civil::from_unix(1_704_164_645);
        assert_eq!(
            strftime("%Y-%m-%dT%H:%M:%SZ %a %b %j %p %I %y %%", &t).unwrap(),
            "2024-01-02T03:04:05Z Tue Jan 002 AM 03 24 %"
        );
        assert_eq!(strftime("%c", &t).unwrap(), "Tue Jan  2 03:04:05 2024");
        assert!(strftime("%Q", &t).is_err());
    }
}
