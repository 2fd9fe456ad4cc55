//! `--since` and `--until`: the time window a run selects packets from. A bound is absolute
//! (RFC 3339, `YYYY-MM-DD HH:MM:SS[.frac]` in UTC, or epoch seconds) or relative to the
//! first packet of the capture (`+1.5s`, `+200ms`), which is only known once reading starts.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// One end of the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeBound {
    /// Nanoseconds since the Unix epoch.
    Absolute(u64),
    /// Nanoseconds after the first packet's time.
    Relative(u64),
}

impl TimeBound {
    /// Parses the forms `--since` and `--until` take; the error says which forms exist.
    pub fn parse(text: &str) -> Result<TimeBound, String> {
        let t = text.trim();
        let parsed = if let Some(rest) = t.strip_prefix('+') {
            parse_offset(rest).map(TimeBound::Relative)
        } else if t.contains('-') || t.contains(':') {
            parse_date(t).map(TimeBound::Absolute)
        } else {
            parse_seconds(t).map(TimeBound::Absolute)
        };
        parsed.ok_or_else(|| {
            format!(
                "`{text}` is not a time: use 2024-05-01T12:00:00Z (RFC 3339), \
                 '2024-05-01 12:00:00.5' (UTC), epoch seconds like 1714564800.5, or a time \
                 after the first packet like +1.5s, +200ms, +10us"
            )
        })
    }
}

impl fmt::Display for TimeBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeBound::Absolute(ns) => {
                write!(f, "{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
            }
            TimeBound::Relative(ns) => {
                write!(f, "+{}.{:09}s", ns / 1_000_000_000, ns % 1_000_000_000)
            }
        }
    }
}

/// No first packet seen yet.
const UNANCHORED: u64 = u64::MAX;

/// The packets from `since` (inclusive) to `until` (exclusive), so that consecutive windows
/// (`--until X`, then `--since X`) split a capture without overlap or gap. A packet without
/// a timestamp (pcapng Simple Packet Block) is outside any window that has a bound.
#[derive(Debug)]
pub struct TimeWindow {
    since: Option<TimeBound>,
    until: Option<TimeBound>,
    /// Worked out once: without bounds every packet is inside, at the cost of one branch.
    unbounded: bool,
    relative: bool,
    /// The first packet's time, which relative bounds count from; shared by the threads
    /// that filter, set once.
    anchor: AtomicU64,
}

impl TimeWindow {
    pub fn new(since: Option<TimeBound>, until: Option<TimeBound>) -> Self {
        TimeWindow {
            since,
            until,
            unbounded: since.is_none() && until.is_none(),
            relative: [since, until]
                .iter()
                .any(|b| matches!(b, Some(TimeBound::Relative(_)))),
            anchor: AtomicU64::new(UNANCHORED),
        }
    }

    /// True when neither bound is given: every packet is inside.
    #[inline]
    pub fn is_unbounded(&self) -> bool {
        self.unbounded
    }

    /// True when a bound counts from the first packet.
    #[inline]
    pub fn is_relative(&self) -> bool {
        self.relative
    }

    /// Sets the first packet's time, unless it is already set: call it with every packet's
    /// time in capture order (or once, ahead, with the earliest first record).
    #[inline]
    pub fn anchor(&self, ts_ns: Option<u64>) {
        if self.relative
            && let Some(ts) = ts_ns
            && self.anchor.load(Ordering::Relaxed) == UNANCHORED
        {
            let _ = self.anchor.compare_exchange(
                UNANCHORED,
                ts.min(UNANCHORED - 1),
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        }
    }

    #[inline]
    pub fn contains(&self, ts_ns: Option<u64>) -> bool {
        if self.is_unbounded() {
            return true;
        }
        let Some(ts) = ts_ns else {
            return false;
        };
        let anchor = self.anchor.load(Ordering::Relaxed);
        let at = |bound: TimeBound| match bound {
            TimeBound::Absolute(ns) => ns,
            // Before any packet is seen nothing is inside; a first packet sets the anchor.
            TimeBound::Relative(_) if anchor == UNANCHORED => u64::MAX,
            TimeBound::Relative(ns) => anchor.saturating_add(ns),
        };
        self.since.is_none_or(|since| ts >= at(since))
            && self.until.is_none_or(|until| ts < at(until))
    }
}

/// `1.5s`, `200ms`, `10us`, `7ns`, or plain seconds.
fn parse_offset(text: &str) -> Option<u64> {
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let scale: u32 = match unit {
        "" | "s" => 9,
        "ms" => 6,
        "us" | "µs" => 3,
        "ns" => 0,
        _ => return None,
    };
    decimal(number, scale)
}

/// Epoch seconds with up to nine decimals.
fn parse_seconds(text: &str) -> Option<u64> {
    decimal(text, 9)
}

/// `digits[.digits]` × 10^scale, exactly, refusing digits finer than a nanosecond.
fn decimal(text: &str, scale: u32) -> Option<u64> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && frac.is_empty()
        || !whole
            .bytes()
            .chain(frac.bytes())
            .all(|b| b.is_ascii_digit())
        || frac.len() > scale as usize
    {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut frac_units: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    frac_units *= 10u64.pow(scale - frac.len() as u32);
    whole.checked_mul(10u64.pow(scale))?.checked_add(frac_units)
}

/// Wireshark's absolute-time literal, `frame.time >= "2024-05-01 10:00:00"`: the ISO form
/// (`YYYY-MM-DD HH:MM:SS[.frac]`, `T` and a zone allowed) or Wireshark's own (`May  1, 2024
/// 10:00:00[.frac]`), either with an optional ` UTC`. Wireshark reads one without a zone as
/// local time; rdmadump as UTC, as `--since` does, so that a filter means the same anywhere.
pub fn absolute(text: &str) -> Option<u64> {
    let text = text.trim();
    let text = text.strip_suffix("UTC").map_or(text, str::trim_end);
    parse_date(text).or_else(|| wireshark_date(text))
}

/// `May  1, 2024 10:00:00[.frac]`, as Wireshark prints `frame.time`.
fn wireshark_date(text: &str) -> Option<u64> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let mut words = text.split_whitespace();
    let month = words.next()?.get(..3)?.to_ascii_lowercase();
    let month = MONTHS.iter().position(|m| *m == month)? + 1;
    let day: u32 = words.next()?.strip_suffix(',')?.parse().ok()?;
    let year: u32 = words.next()?.parse().ok()?;
    let clock = words.next()?;
    if words.next().is_some() {
        return None;
    }
    parse_date(&format!("{year:04}-{month:02}-{day:02} {clock}"))
}

/// `YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|±HH:MM]`; without a zone, UTC.
fn parse_date(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let s = text.get(range)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut rest = &text[19..];
    let mut frac_ns = 0u64;
    if let Some(after) = rest.strip_prefix('.') {
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        frac_ns = decimal(&format!("0.{}", &after[..digits]), 9)?;
        rest = &after[digits..];
    }
    let offset_s: i64 = match rest {
        "" | "Z" | "z" => 0,
        zone => {
            let sign = match zone.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (h, m) = zone[1..].split_once(':')?;
            if h.len() != 2 || m.len() != 2 {
                return None;
            }
            let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
            if h > 23 || m > 59 {
                return None;
            }
            sign * (h * 3600 + m * 60)
        }
    };
    let secs =
        days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset_s;
    u64::try_from(secs)
        .ok()?
        .checked_mul(1_000_000_000)?
        .checked_add(frac_ns)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's
/// `days_from_civil`, public domain).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn abs(text: &str) -> Option<u64> {
        match TimeBound::parse(text) {
            Ok(TimeBound::Absolute(ns)) => Some(ns),
            _ => None,
        }
    }

    #[test]
    fn absolute_forms() {
        // `date -u -d '2023-11-14 22:15:00' +%s` = 1700000100.
        assert_eq!(abs("2023-11-14 22:15:00"), Some(1_700_000_100_000_000_000));
        assert_eq!(abs("2023-11-14T22:15:00Z"), Some(1_700_000_100_000_000_000));
        assert_eq!(
            abs("2023-11-14T23:15:00+01:00"),
            Some(1_700_000_100_000_000_000)
        );
        assert_eq!(
            abs("2023-11-14t21:15:00-01:00"),
            Some(1_700_000_100_000_000_000)
        );
        assert_eq!(
            abs("2023-11-14 22:15:00.0015"),
            Some(1_700_000_100_001_500_000)
        );
        assert_eq!(abs("1700000100.000000001"), Some(1_700_000_100_000_000_001));
        assert_eq!(abs("1700000100"), Some(1_700_000_100_000_000_000));
        // 2024 is a leap year, 2023 and 1900 are not; 2000 is.
        assert_eq!(abs("2024-02-29 00:00:00"), Some(1_709_164_800_000_000_000));
        assert_eq!(abs("2000-02-29 00:00:00"), Some(951_782_400_000_000_000));
        assert_eq!(abs("1970-01-01 00:00:00"), Some(0));
        for bad in [
            "2023-02-29 00:00:00",
            "1900-02-29 00:00:00",
            "2023-13-01 00:00:00",
            "2023-11-14 24:00:00",
            "2023-11-14",
            "2023-11-14 22:15:00.",
            "2023-11-14 22:15:00+1",
            "1969-12-31 23:59:59",
            "1.0000000001",
            "soon",
            "",
        ] {
            assert!(TimeBound::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn relative_forms() {
        let rel = |t| TimeBound::parse(t).ok();
        assert_eq!(rel("+1.5s"), Some(TimeBound::Relative(1_500_000_000)));
        assert_eq!(rel("+200ms"), Some(TimeBound::Relative(200_000_000)));
        assert_eq!(rel("+2.5us"), Some(TimeBound::Relative(2_500)));
        assert_eq!(rel("+7ns"), Some(TimeBound::Relative(7)));
        assert_eq!(rel("+3"), Some(TimeBound::Relative(3_000_000_000)));
        assert_eq!(rel("+1.5ns"), None, "finer than a nanosecond");
        assert_eq!(rel("+1h"), None);
        assert_eq!(rel("+"), None);
    }

    #[test]
    fn window_is_half_open_and_relative_bounds_follow_the_anchor() {
        let w = TimeWindow::new(
            Some(TimeBound::Relative(1_000)),
            Some(TimeBound::Absolute(10_000)),
        );
        assert!(!w.contains(Some(5_000)), "no anchor yet: nothing is inside");
        w.anchor(None);
        w.anchor(Some(2_000));
        w.anchor(Some(1));
        assert!(!w.contains(Some(2_999)));
        assert!(w.contains(Some(3_000)));
        assert!(w.contains(Some(9_999)));
        assert!(!w.contains(Some(10_000)));
        assert!(!w.contains(None));
        let all = TimeWindow::new(None, None);
        assert!(all.is_unbounded() && all.contains(None));
    }
}
