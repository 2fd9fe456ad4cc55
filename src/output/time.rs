//! Timestamp formats for text output, as tcpdump and tshark users know them.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeFormat {
    #[default]
    Absolute,
    Relative,
    Delta,
}

impl TimeFormat {
    /// Every format, in the order `--help` lists them; `about` says what each shows.
    pub const ALL: [TimeFormat; 3] = [
        TimeFormat::Absolute,
        TimeFormat::Relative,
        TimeFormat::Delta,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TimeFormat::Absolute => "absolute",
            TimeFormat::Relative => "relative",
            TimeFormat::Delta => "delta",
        }
    }

    pub fn about(self) -> &'static str {
        match self {
            TimeFormat::Absolute => "Wall-clock time of day, UTC, to the nanosecond",
            TimeFormat::Relative => "Seconds since the first packet shown",
            TimeFormat::Delta => "Seconds since the previous packet shown",
        }
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
            TimeFormat::Absolute => {
                let day_ns = ts % 86_400_000_000_000;
                let secs = day_ns / 1_000_000_000;
                write!(
                    out,
                    "{:02}:{:02}:{:02}.{:09}",
                    secs / 3600,
                    secs / 60 % 60,
                    secs % 60,
                    day_ns % 1_000_000_000
                )
            }
            TimeFormat::Relative => write!(out, "{}", Signed(ts as i128 - first as i128)),
            TimeFormat::Delta => write!(out, "{}", Signed(ts as i128 - previous as i128)),
        };
    }
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
}
