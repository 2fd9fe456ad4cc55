//! `rdmadump analyze --json`: the report model as one JSON document.

use std::io::{self, Write};

use crate::analyze::model::Report;

/// Writes the document, streamed: the flow list is produced row by row as it is written.
pub fn write(out: impl Write, report: &Report<'_>) -> io::Result<()> {
    let mut twins = NanosTwins::new(io::BufWriter::with_capacity(1 << 16, out));
    serde_json::to_writer(&mut twins, report)?;
    twins.finish()?;
    twins.out.write_all(b"\n")?;
    twins.out.flush()
}

/// The timestamp keys the model writes in seconds (`S.NNNNNNNNN`), each followed in the
/// document by its twin in integer nanoseconds, which a double-based JSON reader cannot
/// mangle. (`start` and `duration` come with `start_ns` and `duration_ns` from the model.)
const TWINS: [(&[u8], &[u8]); 5] = [
    (b"\"ts", b",\"ts_ns\":"),
    (b"\"first_ts", b",\"first_ts_ns\":"),
    (b"\"last_ts", b",\"last_ts_ns\":"),
    (b"\"start_ts", b",\"start_ts_ns\":"),
    (b"\"nak_ts", b",\"nak_ts_ns\":"),
];

/// How every key of `TWINS` ends, with the `:` after it.
const KEY_END: &[u8] = b"ts\":";

/// Bytes kept from what was written, for the start of a key whose end comes later.
const CONTEXT: usize = 16;

/// Gathered before looking for keys.
const CHUNK: usize = 1 << 16;

/// Adds the `*_ns` twin of each seconds timestamp as serde_json writes the document.
/// The model belongs to the analysis and serializes its times in seconds only; the keys
/// are added on the way out rather than by buffering the document, which for a million
/// flows runs to hundreds of megabytes. It relies on what serde_json writes: compact JSON
/// in which a `"` followed by `:` always closes a key, as a string value is followed by
/// `,`, `}` or `]` and a quote inside a string is escaped; and the report's keys hold no
/// escapes. Keys are found with memchr's vectorised substring search: a byte-by-byte JSON
/// scan made a 200,000-flow report cost 2.5 times the instructions; this costs 19% more.
struct NanosTwins<W: Write> {
    out: W,
    /// `[..context]` has been written and is kept only to look back at; the rest is not.
    pending: Vec<u8>,
    context: usize,
    finder: memchr::memmem::Finder<'static>,
    /// `pending` is worked through when it holds this much.
    chunk: usize,
}

impl<W: Write> NanosTwins<W> {
    fn new(out: W) -> Self {
        Self::with_chunk(out, CHUNK)
    }

    fn with_chunk(out: W, chunk: usize) -> Self {
        NanosTwins {
            out,
            pending: Vec::with_capacity(2 * chunk),
            context: 0,
            finder: memchr::memmem::Finder::new(KEY_END),
            chunk,
        }
    }

    /// Writes what is left: the document is complete.
    fn finish(&mut self) -> io::Result<()> {
        self.process(true)
    }

    /// Writes `pending` with the twins added; a time whose digits may go on in the next
    /// write waits for it, unless `at_end`.
    fn process(&mut self, at_end: bool) -> io::Result<()> {
        let data = &self.pending;
        let mut written = self.context;
        let mut waiting = false;
        // A key end that began in the context (its `ts"` written last time) is found too.
        let from = self.context.saturating_sub(KEY_END.len());
        for found in self.finder.find_iter(&data[from..]) {
            let key_end = from + found + 2;
            let value_start = key_end + 2;
            let Some(twin) = TWINS
                .iter()
                .find(|(key, _)| data[..key_end].ends_with(key))
                .map(|(_, twin)| *twin)
            else {
                continue;
            };
            let digits = data[value_start..]
                .iter()
                .position(|&b| !b.is_ascii_digit() && b != b'.');
            let value_end = match digits {
                Some(len) => value_start + len,
                None if at_end => data.len(),
                None => {
                    // The number may go on: it waits, with its key, for the next write.
                    self.out.write_all(&data[written..value_start])?;
                    written = value_start;
                    waiting = true;
                    break;
                }
            };
            let Some(ns) = nanoseconds(&data[value_start..value_end]) else {
                continue;
            };
            self.out.write_all(&data[written..value_end])?;
            self.out.write_all(twin)?;
            self.out
                .write_all(itoa::Buffer::new().format(ns).as_bytes())?;
            written = value_end;
        }
        if !waiting {
            self.out.write_all(&data[written..])?;
            written = data.len();
        }
        let keep = written.saturating_sub(CONTEXT);
        self.pending.drain(..keep);
        self.context = written - keep;
        Ok(())
    }
}

impl<W: Write> Write for NanosTwins<W> {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    /// serde_json writes a token or less at a time, through `write_all`: the default's
    /// loop around `write` cost more than the rest of this writer.
    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.pending.extend_from_slice(buf);
        if self.pending.len() >= self.chunk {
            self.process(false)?;
        }
        Ok(())
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
        // Worked through at every write, so that keys and numbers are cut where the
        // chunks are.
        let mut twins = NanosTwins::with_chunk(&mut out, 1);
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
            for second in cut..doc.len() {
                let three = [&doc[..cut], &doc[cut..second], &doc[second..]];
                assert_eq!(twinned(&three), want, "cut at {cut} and {second}");
            }
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
