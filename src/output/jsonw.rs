//! A minimal JSON writer into a reusable byte buffer. Packets are written field by field
//! with no intermediate value tree, so a JSON line costs no allocation once the buffer has
//! grown to the longest line.

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

impl<'b, S: Sink + ?Sized> Obj<'b, S> {
    pub fn new(out: &'b mut S) -> Self {
        out.buf().push(b'{');
        Obj { out, first: true }
    }

    /// Keys are this program's own ASCII names and never need escaping.
    #[inline(always)]
    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.buf().push(b',');
        }
        self.first = false;
        self.out.buf().push(b'"');
        self.out.buf().extend_from_slice(key.as_bytes());
        self.out.buf().extend_from_slice(b"\":");
    }

    /// A MAC address, formatted by table lookup rather than `fmt`.
    #[inline(always)]
    pub fn mac(&mut self, key: &str, mac: [u8; 6]) -> &mut Self {
        self.key(key);
        self.out.buf().push(b'"');
        for (i, byte) in mac.iter().enumerate() {
            if i > 0 {
                self.out.buf().push(b':');
            }
            self.out.buf().push(HEX[usize::from(byte >> 4)]);
            self.out.buf().push(HEX[usize::from(byte & 0xf)]);
        }
        self.out.buf().push(b'"');
        self
    }

    /// An IP address; IPv4 without `fmt`, the rarer IPv6 through it.
    #[inline(always)]
    pub fn ip(&mut self, key: &str, ip: std::net::IpAddr) -> &mut Self {
        match ip {
            std::net::IpAddr::V4(v4) => {
                self.key(key);
                self.out.buf().push(b'"');
                let mut digits = itoa::Buffer::new();
                for (i, octet) in v4.octets().iter().enumerate() {
                    if i > 0 {
                        self.out.buf().push(b'.');
                    }
                    self.out
                        .buf()
                        .extend_from_slice(digits.format(*octet).as_bytes());
                }
                self.out.buf().push(b'"');
                self
            }
            std::net::IpAddr::V6(v6) => self.display(key, v6),
        }
    }

    /// Nanoseconds since the epoch as seconds with exactly nine decimals.
    #[inline(always)]
    pub fn seconds(&mut self, key: &str, ns: u64) -> &mut Self {
        self.key(key);
        let mut digits = itoa::Buffer::new();
        self.out
            .buf()
            .extend_from_slice(digits.format(ns / 1_000_000_000).as_bytes());
        self.out.buf().push(b'.');
        let fraction = digits.format(ns % 1_000_000_000 + 1_000_000_000);
        self.out.buf().extend_from_slice(&fraction.as_bytes()[1..]);
        self
    }

    #[inline(always)]
    pub fn u64(&mut self, key: &str, value: impl Into<u64>) -> &mut Self {
        let value = value.into();
        self.key(key);
        put_u64(self.out.buf(), value);
        self
    }

    pub fn null(&mut self, key: &str) -> &mut Self {
        self.key(key);
        self.out.buf().extend_from_slice(b"null");
        self
    }

    #[inline(always)]
    pub fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.key(key);
        self.out
            .buf()
            .extend_from_slice(if value { b"true" } else { b"false" });
        self
    }

    #[inline(always)]
    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        self.key(key);
        write_str(self.out.buf(), value);
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
        self.key(key);
        self.out.buf().push(b'[');
        Arr {
            out: self.out,
            first: true,
        }
    }
}

impl<S: Sink + ?Sized> Drop for Obj<'_, S> {
    fn drop(&mut self) {
        self.out.buf().push(b'}');
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

/// Most numbers in a packet are flags and small fields; writing those directly avoids a
/// call into `memcpy` for one or two bytes.
#[inline]
fn put_u64(out: &mut Vec<u8>, value: u64) {
    if value < 10 {
        out.push(b'0' + value as u8);
    } else if value < 100 {
        out.push(b'0' + (value / 10) as u8);
        out.push(b'0' + (value % 10) as u8);
    } else {
        let mut digits = itoa::Buffer::new();
        out.extend_from_slice(digits.format(value).as_bytes());
    }
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

const HEX: &[u8; 16] = b"0123456789abcdef";

fn escape_into(out: &mut Vec<u8>, s: &str) {
    if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
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
}
