//! A minimal JSON writer into a reusable byte buffer. Packets are written field by field
//! with no intermediate value tree, so a JSON line costs no allocation once the buffer has
//! grown to the longest line.

use std::fmt::Display;
use std::io::Write;

/// An object being written; commas are placed automatically.
pub struct Obj<'b> {
    out: &'b mut Vec<u8>,
    first: bool,
}

/// An array being written.
pub struct Arr<'b> {
    out: &'b mut Vec<u8>,
    first: bool,
}

impl<'b> Obj<'b> {
    pub fn new(out: &'b mut Vec<u8>) -> Self {
        out.push(b'{');
        Obj { out, first: true }
    }

    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        write_str(self.out, key);
        self.out.push(b':');
    }

    pub fn u64(&mut self, key: &str, value: u64) -> &mut Self {
        self.key(key);
        let mut digits = itoa::Buffer::new();
        self.out.extend_from_slice(digits.format(value).as_bytes());
        self
    }

    pub fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.key(key);
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
        self
    }

    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        self.key(key);
        write_str(self.out, value);
        self
    }

    /// A string produced by `Display`, escaped on the way, with no temporary `String`.
    pub fn display(&mut self, key: &str, value: impl Display) -> &mut Self {
        self.key(key);
        self.out.push(b'"');
        let _ = std::fmt::Write::write_fmt(&mut Escaper(self.out), format_args!("{value}"));
        self.out.push(b'"');
        self
    }

    /// A number written verbatim, for values already formatted as JSON numbers.
    pub fn raw_number(&mut self, key: &str, value: impl Display) -> &mut Self {
        self.key(key);
        let _ = write!(self.out, "{value}");
        self
    }

    pub fn obj(&mut self, key: &str) -> Obj<'_> {
        self.key(key);
        Obj::new(self.out)
    }

    pub fn arr(&mut self, key: &str) -> Arr<'_> {
        self.key(key);
        self.out.push(b'[');
        Arr {
            out: self.out,
            first: true,
        }
    }
}

impl Drop for Obj<'_> {
    fn drop(&mut self) {
        self.out.push(b'}');
    }
}

impl Arr<'_> {
    fn sep(&mut self) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
    }

    pub fn u64(&mut self, value: u64) -> &mut Self {
        self.sep();
        let mut digits = itoa::Buffer::new();
        self.out.extend_from_slice(digits.format(value).as_bytes());
        self
    }

    pub fn obj(&mut self) -> Obj<'_> {
        self.sep();
        Obj::new(self.out)
    }

    pub fn str(&mut self, value: &str) -> &mut Self {
        self.sep();
        write_str(self.out, value);
        self
    }

    pub fn display(&mut self, value: impl Display) -> &mut Self {
        self.sep();
        self.out.push(b'"');
        let _ = std::fmt::Write::write_fmt(&mut Escaper(self.out), format_args!("{value}"));
        self.out.push(b'"');
        self
    }
}

impl Drop for Arr<'_> {
    fn drop(&mut self) {
        self.out.push(b']');
    }
}

fn write_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    escape_into(out, s);
    out.push(b'"');
}

fn escape_into(out: &mut Vec<u8>, s: &str) {
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
            o.u64("a", 1).str("s", "q\"\n").bool("b", true);
            {
                let mut inner = o.obj("o");
                inner.display("ip", std::net::Ipv4Addr::new(10, 0, 0, 1));
            }
            let mut arr = o.arr("list");
            arr.u64(1).u64(2);
            arr.obj().u64("x", 3);
        }
        let parsed: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(
            parsed,
            serde_json::json!({"a":1,"s":"q\"\n","b":true,"o":{"ip":"10.0.0.1"},"list":[1,2,{"x":3}]})
        );
    }
}
