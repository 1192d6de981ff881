//! Five-field cron schedules (`*/5 * * * *`): numbers, ranges, lists, steps and `*`, plus `@hourly`-style
//! shortcuts, evaluated in UTC.

/// A parsed schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    fields: [Vec<u32>; 5],
}

const LIMITS: [(u32, u32); 5] = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 6)];

impl Schedule {
    /// Parses a schedule, or `None` when it is not valid.
    pub fn parse(text: &str) -> Option<Self> {
        let text = match text.trim() {
            "@yearly" | "@annually" => "0 0 1 1 *",
            "@monthly" => "0 0 1 * *",
            "@weekly" => "0 0 * * 0",
            "@daily" | "@midnight" => "0 0 * * *",
            "@hourly" => "0 * * * *",
            other => other,
        };
        let parts: Vec<&str> = text.split_whitespace().collect();
        if parts.len() != 5 {
            return None;
        }
        let mut fields: [Vec<u32>; 5] = Default::default();
        for (index, part) in parts.iter().enumerate() {
            fields[index] = parse_field(part, LIMITS[index])?;
        }
        Some(Self { fields })
    }

    /// Whether the schedule fires in the minute starting at `unix_seconds` (UTC).
    pub fn matches(&self, unix_seconds: i64) -> bool {
        let Ok(timestamp) = jiff::Timestamp::from_second(unix_seconds) else {
            return false;
        };
        let time = timestamp.to_zoned(jiff::tz::TimeZone::UTC);
        let values = [
            time.minute() as u32,
            time.hour() as u32,
            time.day() as u32,
            time.month() as u32,
            time.weekday().to_sunday_zero_offset() as u32,
        ];
        values
            .iter()
            .zip(&self.fields)
            .all(|(value, allowed)| allowed.contains(value))
    }
}

fn parse_field(text: &str, (low, high): (u32, u32)) -> Option<Vec<u32>> {
    let mut values = Vec::new();
    for item in text.split(',') {
        let (range, step) = match item.split_once('/') {
            Some((range, step)) => (range, step.parse::<u32>().ok().filter(|step| *step > 0)?),
            None => (item, 1),
        };
        let (start, end) = if range == "*" {
            (low, high)
        } else if let Some((start, end)) = range.split_once('-') {
            (start.parse().ok()?, end.parse().ok()?)
        } else {
            let value: u32 = range.parse().ok()?;
            (value, if item.contains('/') { high } else { value })
        };
        if start < low || end > high || start > end {
            return None;
        }
        values.extend((start..=end).step_by(step as usize));
    }
    Some(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_matches() {
        let every_five = Schedule::parse("*/5 * * * *").expect("valid");
        assert!(every_five.matches(1_700_000_100)); // 22:15 UTC
        assert!(!every_five.matches(1_700_000_160)); // 22:16 UTC
        let weekdays = Schedule::parse("0 9 * * 1-5").expect("valid");
        assert!(!weekdays.matches(1_700_000_100));
        assert!(Schedule::parse("@hourly").is_some());
        assert!(Schedule::parse("61 * * * *").is_none());
        assert!(Schedule::parse("* * *").is_none());
    }
}
