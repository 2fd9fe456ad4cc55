//! A minimal JSON writer into a reusable byte buffer. Packets are written field by field
//! with no intermediate value tree, so a JSON line costs no allocation once the buffer has
//! grown to the longest line.

use crate::dissect::scalars;
use std::fmt::Display;
use std::io::Write;

/// Where JSON text goes: a plain buffer, or one that spills to a writer between array
/// elements, so that a document as large as a million-flow report never sits in memory.
pub trait Sink {
    fn buf(&mut self) -> &mut Vec<u8>;
    /// Called between array elements.
    #[inline(always)]
    fn spill(&mut self) {}
}

impl Sink for Vec<u8> {
    #[inline(always)]
    fn buf(&mut self) -> &mut Vec<u8> {
        self
    }
}

/// A buffer written out to `W` whenever it passes 64 KiB; the first write error is kept.
pub struct Spilling<W: Write> {
    buf: Vec<u8>,
    out: W,
    error: Option<std::io::Error>,
}

const SPILL_AT: usize = 1 << 16;

impl<W: Write> Spilling<W> {
    pub fn new(out: W) -> Self {
        Spilling {
            buf: Vec::with_capacity(2 * SPILL_AT),
            out,
            error: None,
        }
    }

    /// Writes what is left and reports the first error met on the way.
    pub fn finish(mut self) -> std::io::Result<()> {
        if let Some(err) = self.error.take() {
            return Err(err);
        }
        self.out.write_all(&self.buf)?;
        self.out.flush()
    }
}

impl<W: Write> Sink for Spilling<W> {
    #[inline(always)]
    fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    fn spill(&mut self) {
        if self.buf.len() >= SPILL_AT {
            if self.error.is_none()
                && let Err(err) = self.out.write_all(&self.buf)
            {
                self.error = Some(err);
            }
            self.buf.clear();
        }
    }
}

/// An object being written; commas are placed automatically.
pub struct Obj<'b, S: Sink + ?Sized = Vec<u8>> {
    out: &'b mut S,
    first: bool,
}

/// An array being written.
pub struct Arr<'b, S: Sink + ?Sized = Vec<u8>> {
    out: &'b mut S,
    first: bool,
}

/// Longest key written in a [`Field`]'s room; longer ones are written ahead of it.
const KEY_MAX: usize = 24;
/// `,"` before a key and `":` after it.
const KEY_FRAME: usize = 4;
/// Room in a field for a key, its punctuation and a value of `value_max` bytes.
const fn field_size(value_max: usize) -> usize {
    KEY_MAX + KEY_FRAME + value_max
}
/// Longest name that goes into a field with its key (the longest opcode name is 33 bytes).
const NAME_MAX: usize = 40;
/// Room for a key and a `u64`, also enough for a MAC or an IPv4 address with their quotes.
const SMALL: usize = field_size(scalars::U64_MAX_LEN);

/// One field (key and value) written into `N` bytes of room at the end of the buffer, then
/// cut back to the bytes used. Making the room is a constant-size store of zeros where
/// appending each piece would check the capacity again, and a piece of variable length
/// (a number's digits) is written with stores of constant size over the room rather than
/// through a call into `memcpy`. The pieces go straight into the buffer: assembled on the
/// stack and copied (as tried), the copy's wide loads stall on the narrow stores just
/// before them, and the field costs more time for fewer instructions.
struct Field<'o, const N: usize> {
    out: &'o mut Vec<u8>,
    start: usize,
    len: usize,
}

impl<'o, const N: usize> Field<'o, N> {
    #[inline(always)]
    fn new(out: &'o mut Vec<u8>) -> Self {
        let start = out.len();
        out.extend_from_slice(&[0; N]);
        Field { out, start, len: 0 }
    }

    #[inline(always)]
    fn push(&mut self, byte: u8) {
        self.slot::<1>()[0] = byte;
        self.len += 1;
    }

    /// Bytes of a length known only when running, through `memcpy` after all.
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        let at = self.start + self.len;
        self.out[at..at + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    /// The next `M` bytes of the room, for a formatter that fills what it needs of them.
    #[inline(always)]
    fn slot<const M: usize>(&mut self) -> &mut [u8; M] {
        assert!(self.len + M <= N, "a field's pieces overflow its room");
        self.out[self.start + self.len..]
            .first_chunk_mut()
            .expect("the room is in the buffer")
    }

    #[inline(always)]
    fn finish(self) {
        self.out.truncate(self.start + self.len);
    }
}

impl<'b, S: Sink + ?Sized> Obj<'b, S> {
    /// The `{` is written with the first key (or by `drop` for an empty object), so that
    /// it and every comma are the same one byte in front of a key.
    pub fn new(out: &'b mut S) -> Self {
        Obj { out, first: true }
    }

    /// Starts a field of `N` bytes with its key. Keys are this program's own ASCII names
    /// and never need escaping.
    #[inline(always)]
    fn field<const N: usize>(&mut self, key: &str) -> Field<'_, N> {
        let lead = if self.first { b'{' } else { b',' };
        self.first = false;
        let out = self.out.buf();
        if key.len() > KEY_MAX {
            out.push(lead);
            out.push(b'"');
            out.extend_from_slice(key.as_bytes());
            out.extend_from_slice(b"\":");
            return Field::new(out);
        }
        let mut f = Field::new(out);
        let key_end = 2 + key.len();
        let room = f.slot::<{ KEY_MAX + KEY_FRAME }>();
        room[..2].copy_from_slice(&[lead, b'"']);
        room[2..key_end].copy_from_slice(key.as_bytes());
        room[key_end..key_end + 2].copy_from_slice(b"\":");
        f.len = key_end + 2;
        f
    }

    #[inline(always)]
    fn key(&mut self, key: &str) {
        self.field::<{ field_size(0) }>(key).finish();
    }

    /// A MAC address, formatted by table lookup rather than `fmt`.
    #[inline(always)]
    pub fn mac(&mut self, key: &str, mac: [u8; 6]) -> &mut Self {
        let mut f = self.field::<SMALL>(key);
        f.push(b'"');
        f.len += scalars::mac(f.slot(), mac);
        f.push(b'"');
        f.finish();
        self
    }

    /// An IP address, formatted as its `Display` does but without `fmt`.
    #[inline(always)]
    pub fn ip(&mut self, key: &str, ip: std::net::IpAddr) -> &mut Self {
        match ip {
            std::net::IpAddr::V4(v4) => {
                let mut f = self.field::<SMALL>(key);
                f.push(b'"');
                f.len += scalars::ipv4(f.slot(), v4);
                f.push(b'"');
                f.finish();
                self
            }
            std::net::IpAddr::V6(v6) => self.ipv6(key, v6),
        }
    }

    /// An IPv6 address (or a GID), formatted as its `Display` does but without `fmt`.
    pub fn ipv6(&mut self, key: &str, ip: std::net::Ipv6Addr) -> &mut Self {
        let mut f = self.field::<{ field_size(scalars::IPV6_MAX_LEN + 2) }>(key);
        f.push(b'"');
        f.len += scalars::ipv6(f.slot(), ip);
        f.push(b'"');
        f.finish();
        self
    }

    /// Nanoseconds since the epoch as seconds with exactly nine decimals.
    #[inline(always)]
    pub fn seconds(&mut self, key: &str, ns: u64) -> &mut Self {
        let mut f = self.field::<{ field_size(scalars::U64_MAX_LEN + 10) }>(key);
        f.len += scalars::u64_digits(f.slot(), ns / 1_000_000_000);
        f.push(b'.');
        scalars::nanos_digits(f.slot(), (ns % 1_000_000_000) as u32);
        f.len += 9;
        f.finish();
        self
    }

    /// `ns` twice: as seconds with nine decimals under `seconds_key`, and as an integer
    /// under `nanos_key`, written from the seconds and the fraction rather than as one
    /// 64-bit number, which would cost twice the divisions.
    #[inline(always)]
    pub fn timestamp(&mut self, seconds_key: &str, nanos_key: &str, ns: u64) -> &mut Self {
        self.seconds(seconds_key, ns);
        let (secs, fraction) = (ns / 1_000_000_000, (ns % 1_000_000_000) as u32);
        if secs == 0 {
            return self.u64(nanos_key, fraction);
        }
        let mut f = self.field::<{ field_size(scalars::U64_MAX_LEN) }>(nanos_key);
        f.len += scalars::u64_digits(f.slot(), secs);
        scalars::nanos_digits(f.slot(), fraction);
        f.len += 9;
        f.finish();
        self
    }

    #[inline(always)]
    pub fn u64(&mut self, key: &str, value: impl Into<u64>) -> &mut Self {
        let mut f = self.field::<SMALL>(key);
        f.len += scalars::u64_digits(f.slot(), value.into());
        f.finish();
        self
    }

    pub fn null(&mut self, key: &str) -> &mut Self {
        let mut f = self.field::<SMALL>(key);
        f.slot::<4>().copy_from_slice(b"null");
        f.len += 4;
        f.finish();
        self
    }

    #[inline(always)]
    pub fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        let mut f = self.field::<SMALL>(key);
        // Both words in one store of five bytes, so that there is no branch to mispredict.
        let (word, len) = if value { (b"true ", 4) } else { (b"false", 5) };
        f.slot::<5>().copy_from_slice(word);
        f.len += len;
        f.finish();
        self
    }

    #[inline(always)]
    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        let mut f = self.field::<SMALL>(key);
        f.push(b'"');
        f.finish();
        escape_into(self.out.buf(), value);
        self.out.buf().push(b'"');
        self
    }

    /// A name from the program's own tables (a packet kind, an opcode, a status): ASCII
    /// that never needs escaping, so it is not scanned for characters to escape.
    #[inline(always)]
    pub fn name(&mut self, key: &str, name: &'static str) -> &mut Self {
        debug_assert!(!needs_escape(name), "{name:?}");
        let mut f = self.field::<{ field_size(NAME_MAX + 2) }>(key);
        f.push(b'"');
        if name.len() <= NAME_MAX {
            f.put(name.as_bytes());
            f.push(b'"');
            f.finish();
        } else {
            f.finish();
            self.out.buf().extend_from_slice(name.as_bytes());
            self.out.buf().push(b'"');
        }
        self
    }

    /// A string produced by `Display`, escaped on the way, with no temporary `String`.
    pub fn display(&mut self, key: &str, value: impl Display) -> &mut Self {
        self.key(key);
        write_display(self.out.buf(), value);
        self
    }

    #[inline(always)]
    pub fn obj(&mut self, key: &str) -> Obj<'_, S> {
        self.key(key);
        Obj::new(&mut *self.out)
    }

    #[inline(always)]
    pub fn arr(&mut self, key: &str) -> Arr<'_, S> {
        let mut f = self.field::<SMALL>(key);
        f.push(b'[');
        f.finish();
        Arr {
            out: self.out,
            first: true,
        }
    }
}

impl<S: Sink + ?Sized> Drop for Obj<'_, S> {
    fn drop(&mut self) {
        if self.first {
            self.out.buf().extend_from_slice(b"{}");
        } else {
            self.out.buf().push(b'}');
        }
    }
}

impl<S: Sink + ?Sized> Arr<'_, S> {
    fn sep(&mut self) {
        self.out.spill();
        if !self.first {
            self.out.buf().push(b',');
        }
        self.first = false;
    }

    #[inline(always)]
    pub fn u64(&mut self, value: u64) -> &mut Self {
        self.sep();
        put_u64(self.out.buf(), value);
        self
    }

    #[inline(always)]
    pub fn obj(&mut self) -> Obj<'_, S> {
        self.sep();
        Obj::new(&mut *self.out)
    }

    #[inline(always)]
    pub fn str(&mut self, value: &str) -> &mut Self {
        self.sep();
        write_str(self.out.buf(), value);
        self
    }

    pub fn display(&mut self, value: impl Display) -> &mut Self {
        self.sep();
        write_display(self.out.buf(), value);
        self
    }
}

impl<S: Sink + ?Sized> Drop for Arr<'_, S> {
    fn drop(&mut self) {
        self.out.buf().push(b']');
    }
}

/// An array element: no key, but written in room as a field is.
#[inline]
fn put_u64(out: &mut Vec<u8>, value: u64) {
    let mut f = Field::<{ scalars::U64_MAX_LEN }>::new(out);
    f.len += scalars::u64_digits(f.slot(), value);
    f.finish();
}

/// A quoted string produced by `Display`, escaped on the way, with no temporary `String`.
fn write_display(out: &mut Vec<u8>, value: impl Display) {
    out.push(b'"');
    let _ = std::fmt::Write::write_fmt(&mut Escaper(out), format_args!("{value}"));
    out.push(b'"');
}

fn write_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    escape_into(out, s);
    out.push(b'"');
}

fn needs_escape(s: &str) -> bool {
    s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20)
}

fn escape_into(out: &mut Vec<u8>, s: &str) {
    if !needs_escape(s) {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    for &b in s.as_bytes() {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x00..=0x1f => {
                let _ = write!(out, "\\u{:04x}", b);
            }
            _ => out.push(b),
        }
    }
}

/// Escapes whatever a `Display` impl writes, straight into the output buffer.
struct Escaper<'b>(&'b mut Vec<u8>);

impl std::fmt::Write for Escaper<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        escape_into(self.0, s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_output_is_valid_json() {
        let mut buf = Vec::new();
        {
            let mut o = Obj::new(&mut buf);
            o.u64("a", 1u64).str("s", "q\"\n").bool("b", true);
            {
                let mut inner = o.obj("o");
                inner.display("ip", std::net::Ipv4Addr::new(10, 0, 0, 1));
            }
            let mut arr = o.arr("list");
            arr.u64(1).u64(2);
            arr.obj().u64("x", 3u64);
        }
        let parsed: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(
            parsed,
            serde_json::json!({"a":1,"s":"q\"\n","b":true,"o":{"ip":"10.0.0.1"},"list":[1,2,{"x":3}]})
        );
    }

    #[test]
    fn opcode_names_are_plain_and_short() {
        for op in 0..=u8::MAX {
            let name = crate::wire::opcode::info(op).name;
            assert!(!needs_escape(name) && name.len() <= NAME_MAX, "{name:?}");
        }
    }

    #[test]
    fn every_kind_of_field_as_written_by_hand() {
        let mut buf = Vec::new();
        {
            let mut o = Obj::new(&mut buf);
            o.obj("empty");
            o.u64("a_key_longer_than_twenty_four_bytes", u64::MAX)
                .u64("zero", 0u64)
                .null("nothing")
                .bool("yes", true)
                .bool("no", false)
                .seconds("ts", 1_700_000_000_000_000_001)
                .seconds("early", 5)
                .timestamp("t", "t_ns", 1_700_000_000_000_000_001)
                .timestamp("t0", "t0_ns", 999_999_999)
                .timestamp("tmax", "tmax_ns", u64::MAX)
                .mac("mac", [0x02, 0, 0xab, 0xcd, 0xef, 0xff])
                .ip("v4", std::net::Ipv4Addr::new(255, 0, 10, 1).into())
                .ip(
                    "v6",
                    "fe80::1:0:0:2"
                        .parse::<std::net::Ipv6Addr>()
                        .unwrap()
                        .into(),
                )
                .ipv6("gid", "::ffff:10.0.0.1".parse().unwrap())
                .str("s", "a\\b");
            o.arr("list").u64(0).u64(12_345);
            o.arr("none");
        }
        let want = concat!(
            r#"{"empty":{},"a_key_longer_than_twenty_four_bytes":18446744073709551615,"#,
            r#""zero":0,"nothing":null,"yes":true,"no":false,"#,
            r#""ts":1700000000.000000001,"early":0.000000005,"#,
            r#""t":1700000000.000000001,"t_ns":1700000000000000001,"#,
            r#""t0":0.999999999,"t0_ns":999999999,"#,
            r#""tmax":18446744073.709551615,"tmax_ns":18446744073709551615,"#,
            r#""mac":"02:00:ab:cd:ef:ff","#,
            r#""v4":"255.0.10.1","v6":"fe80::1:0:0:2","gid":"::ffff:10.0.0.1","#,
            r#""s":"a\\b","list":[0,12345],"none":[]}"#
        );
        assert_eq!(String::from_utf8(buf).unwrap(), want);
        let mut buf = Vec::new();
        Obj::new(&mut buf);
        assert_eq!(buf, b"{}");
    }
}
