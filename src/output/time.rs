//! Timestamp formats for text output, as tcpdump and tshark users know them.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeFormat {
    #[default]
    Absolute,
    Relative,
    Delta,
    UtcDate,
    Epoch,
}

impl TimeFormat {
    /// Every format, in the order `--help` lists them; `about` says what each shows.
    pub const ALL: [TimeFormat; 5] = [
        TimeFormat::Absolute,
        TimeFormat::Relative,
        TimeFormat::Delta,
        TimeFormat::UtcDate,
        TimeFormat::Epoch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TimeFormat::Absolute => "absolute",
            TimeFormat::Relative => "relative",
            TimeFormat::Delta => "delta",
            TimeFormat::UtcDate => "ud",
            TimeFormat::Epoch => "epoch",
        }
    }

    pub fn about(self) -> &'static str {
        match self {
            TimeFormat::Absolute => "Wall-clock time of day, UTC, to the nanosecond",
            TimeFormat::Relative => "Seconds since the first packet shown",
            TimeFormat::Delta => "Seconds since the previous packet shown",
            TimeFormat::UtcDate => "UTC date and time of day, to the nanosecond (as tshark -t ud)",
            TimeFormat::Epoch => "Seconds since the epoch, to the nanosecond (as tshark -t e)",
        }
    }

    /// What tshark's `-t` calls the format. tshark's `a` and `ad` are local time; rdmadump
    /// shows UTC, whatever the machine's zone, so they are `u` and `ud` here as well.
    pub fn tshark_names(self) -> &'static [&'static str] {
        match self {
            TimeFormat::Absolute => &["a", "u"],
            TimeFormat::Relative => &["r"],
            TimeFormat::Delta => &["d", "dd"],
            TimeFormat::UtcDate => &["ad"],
            TimeFormat::Epoch => &["e"],
        }
    }

    /// Whether a packet's time depends on the packets shown before it.
    pub fn is_relative(self) -> bool {
        matches!(self, TimeFormat::Relative | TimeFormat::Delta)
    }
}

/// Turns packet timestamps into the chosen format, remembering what relative and delta need.
#[derive(Debug, Default)]
pub struct Clock {
    format: TimeFormat,
    first: Option<u64>,
    previous: Option<u64>,
}

impl Clock {
    pub fn new(format: TimeFormat) -> Self {
        Clock {
            format,
            ..Clock::default()
        }
    }

    pub fn write(&mut self, out: &mut Vec<u8>, ts_ns: Option<u64>) {
        use std::io::Write;
        let Some(ts) = ts_ns else {
            out.extend_from_slice(b"-");
            return;
        };
        let first = *self.first.get_or_insert(ts);
        let previous = self.previous.replace(ts).unwrap_or(ts);
        let _ = match self.format {
            TimeFormat::Absolute => write!(out, "{}", TimeOfDay(ts)),
            TimeFormat::UtcDate => write!(out, "{}", UtcDateTime(ts)),
            TimeFormat::Epoch => write!(out, "{}.{:09}", ts / 1_000_000_000, ts % 1_000_000_000),
            TimeFormat::Relative => write!(out, "{}", Signed(ts as i128 - first as i128)),
            TimeFormat::Delta => write!(out, "{}", Signed(ts as i128 - previous as i128)),
        };
    }
}

const NS_PER_DAY: u64 = 86_400_000_000_000;

/// Epoch nanoseconds as the UTC time of day, `HH:MM:SS.NNNNNNNNN`.
pub struct TimeOfDay(pub u64);

impl fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let day_ns = self.0 % NS_PER_DAY;
        let secs = day_ns / 1_000_000_000;
        write!(
            f,
            "{:02}:{:02}:{:02}.{:09}",
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            day_ns % 1_000_000_000
        )
    }
}

/// Epoch nanoseconds as a UTC date and time, `YYYY-MM-DD HH:MM:SS.NNNNNNNNN`: tshark's
/// `-t ud` layout, with all nine decimals whatever the capture's resolution, as the
/// other formats here.
pub struct UtcDateTime(pub u64);

impl fmt::Display for UtcDateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (year, month, day) = civil_from_days(self.0 / NS_PER_DAY);
        write!(f, "{year:04}-{month:02}-{day:02} {}", TimeOfDay(self.0))
    }
}

/// Epoch nanoseconds as a UTC date, `YYYY-MM-DD`.
pub struct UtcDate(pub u64);

impl fmt::Display for UtcDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (year, month, day) = civil_from_days(self.0 / NS_PER_DAY);
        write!(f, "{year:04}-{month:02}-{day:02}")
    }
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for non-negative days), so that no date crate is needed for this.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// Merged or unordered captures can step back in time; show that as a negative delta.
struct Signed(i128);

impl fmt::Display for Signed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        write!(
            f,
            "{sign}{}.{:09}",
            abs / 1_000_000_000,
            abs % 1_000_000_000
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let mut out = Vec::new();
        let mut clock = Clock::new(TimeFormat::Absolute);
        clock.write(&mut out, Some(1_700_000_000_123_456_789));
        assert_eq!(out, b"22:13:20.123456789");
        let mut clock = Clock::new(TimeFormat::Delta);
        out.clear();
        clock.write(&mut out, Some(5_000_000_000));
        out.push(b' ');
        clock.write(&mut out, Some(4_500_000_000));
        assert_eq!(out, b"0.000000000 -0.500000000");
    }

    #[test]
    fn utc_dates() {
        // Expected dates from `date -u -d @SECONDS '+%F %T'`.
        let cases = [
            (0, "1970-01-01 00:00:00.000000000"),
            (1_700_000_000_123_456_789, "2023-11-14 22:13:20.123456789"),
            (951_782_400_000_000_001, "2000-02-29 00:00:00.000000001"),
            (4_107_542_399_999_999_999, "2100-02-28 23:59:59.999999999"),
            (u64::MAX, "2554-07-21 23:34:33.709551615"),
        ];
        for (ns, want) in cases {
            assert_eq!(UtcDateTime(ns).to_string(), want, "{ns}");
        }
    }
}
