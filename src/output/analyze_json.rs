//! `rdmadump analyze --json`: the report model as one JSON document.

use std::io::{self, Write};

use crate::analyze::model::Report;

/// Writes the document, streamed: the flow list is produced row by row as it is written.
pub fn write(out: impl Write, report: &Report<'_>) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let mut twins = NanosTwins::new(&mut out);
    serde_json::to_writer(&mut twins, report)?;
    twins.finish()?;
    out.write_all(b"\n")?;
    out.flush()
}

/// The timestamp keys the model writes in seconds (`S.NNNNNNNNN`), each followed in the
/// document by its twin in integer nanoseconds, which a double-based JSON reader cannot
/// mangle. (`start` and `duration` come with `start_ns` and `duration_ns` from the model.)
const TWINS: [(&[u8], &[u8]); 5] = [
    (b"ts", b",\"ts_ns\":"),
    (b"first_ts", b",\"first_ts_ns\":"),
    (b"last_ts", b",\"last_ts_ns\":"),
    (b"start_ts", b",\"start_ts_ns\":"),
    (b"nak_ts", b",\"nak_ts_ns\":"),
];

/// Longest key worth remembering: the longest in `TWINS`.
const KEY_MAX: usize = 8;

/// Digits of the largest `S.NNNNNNNNN` a u64 of nanoseconds makes, and then some.
const NUMBER_MAX: usize = 24;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Between,
    InString,
    Escaped,
    /// Just after a closing quote: a `:` next makes that string a key.
    AfterString,
    /// Inside the value of a key in `TWINS`; `twin` indexes it.
    Number {
        twin: usize,
    },
}

/// Adds the `*_ns` twin of each seconds timestamp as serde_json writes the document.
/// The model belongs to the analysis and serializes its times in seconds only; the keys
/// are added on the way out, to the compact JSON serde_json writes (no whitespace, keys
/// unescaped), rather than by buffering the document, which for a million flows runs to
/// hundreds of megabytes.
struct NanosTwins<W: Write> {
    out: W,
    state: State,
    key: [u8; KEY_MAX],
    /// Length of the string being read; past `KEY_MAX` it is no key of interest.
    key_len: usize,
    number: [u8; NUMBER_MAX],
    number_len: usize,
}

impl<W: Write> NanosTwins<W> {
    fn new(out: W) -> Self {
        NanosTwins {
            out,
            state: State::Between,
            key: [0; KEY_MAX],
            key_len: 0,
            number: [0; NUMBER_MAX],
            number_len: 0,
        }
    }

    /// Writes the twin of a number that ends the document (not the case for a report,
    /// whose times are inside objects; kept so the writer is right on any input).
    fn finish(&mut self) -> io::Result<()> {
        if let State::Number { twin } = self.state {
            self.write_twin(twin)?;
            self.state = State::Between;
        }
        Ok(())
    }

    fn write_twin(&mut self, twin: usize) -> io::Result<()> {
        let Some(ns) = nanoseconds(&self.number[..self.number_len]) else {
            return Ok(());
        };
        self.out.write_all(TWINS[twin].1)?;
        self.out
            .write_all(itoa::Buffer::new().format(ns).as_bytes())
    }
}

impl<W: Write> Write for NanosTwins<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut start = 0;
        for (i, &byte) in buf.iter().enumerate() {
            self.state = match self.state {
                State::Between if byte == b'"' => {
                    self.key_len = 0;
                    State::InString
                }
                State::Between => State::Between,
                State::InString => match byte {
                    b'"' => State::AfterString,
                    b'\\' => {
                        self.key_len = KEY_MAX + 1;
                        State::Escaped
                    }
                    _ => {
                        if self.key_len < KEY_MAX {
                            self.key[self.key_len] = byte;
                        }
                        self.key_len += 1;
                        State::InString
                    }
                },
                State::Escaped => State::InString,
                State::AfterString => {
                    let key = &self.key[..self.key_len.min(KEY_MAX)];
                    match TWINS.iter().position(|(name, _)| *name == key) {
                        Some(twin) if byte == b':' && self.key_len <= KEY_MAX => {
                            self.number_len = 0;
                            State::Number { twin }
                        }
                        _ if byte == b'"' => {
                            self.key_len = 0;
                            State::InString
                        }
                        _ => State::Between,
                    }
                }
                State::Number { twin } if byte.is_ascii_digit() || byte == b'.' => {
                    if self.number_len < NUMBER_MAX {
                        self.number[self.number_len] = byte;
                    }
                    self.number_len += 1;
                    State::Number { twin }
                }
                State::Number { twin } => {
                    // The value ends here: its twin goes between it and this byte.
                    self.out.write_all(&buf[start..i])?;
                    start = i;
                    self.write_twin(twin)?;
                    if byte == b'"' {
                        self.key_len = 0;
                        State::InString
                    } else {
                        State::Between
                    }
                }
            };
        }
        self.out.write_all(&buf[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// `S.NNNNNNNNN` as nanoseconds; `None` for anything else (a value is left without a
/// twin rather than given a wrong one).
fn nanoseconds(text: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(text).ok()?;
    let (secs, frac) = text.split_once('.')?;
    if frac.len() != 9 {
        return None;
    }
    secs.parse::<u64>()
        .ok()?
        .checked_mul(1_000_000_000)?
        .checked_add(frac.parse().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twinned(chunks: &[&str]) -> String {
        let mut out = Vec::new();
        let mut twins = NanosTwins::new(&mut out);
        for chunk in chunks {
            twins.write_all(chunk.as_bytes()).expect("write");
        }
        twins.finish().expect("finish");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn seconds_keys_gain_their_twin() {
        let doc = r#"{"capture":{"first_ts":1700000000.123456789,"last_ts":1700000001.000000000},"a":[{"frame":3,"ts":0.000000001}],"nak_ts":5.000000000}"#;
        let want = r#"{"capture":{"first_ts":1700000000.123456789,"first_ts_ns":1700000000123456789,"last_ts":1700000001.000000000,"last_ts_ns":1700000001000000000},"a":[{"frame":3,"ts":0.000000001,"ts_ns":1}],"nak_ts":5.000000000,"nak_ts_ns":5000000000}"#;
        assert_eq!(twinned(&[doc]), want);
        // Split anywhere, across keys and numbers alike, the result is the same.
        for cut in 0..doc.len() {
            assert_eq!(twinned(&[&doc[..cut], &doc[cut..]]), want, "cut at {cut}");
        }
    }

    #[test]
    fn other_strings_and_keys_are_left_alone() {
        for doc in [
            r#"{"file":"ts","ts_ns":5,"first_ts_ns":1,"x":"a\"ts\":1.000000000"}"#,
            r#"{"first_tss":1.000000000,"name":"first_ts","ts":"1.0"}"#,
            r#"["ts",1.000000000]"#,
        ] {
            assert_eq!(twinned(&[doc]), doc);
        }
        assert_eq!(twinned(&[r#"{"ts":1.5}"#]), r#"{"ts":1.5}"#);
    }
}
