//! A serde serializer that writes the same bytes as `serde_json::to_writer`, faster for
//! documents made of many small objects: `analyze --json` of 10,000 connections is 19 MB of
//! some 1.5 million keys, and serde_json scans every key byte by byte for characters to
//! escape, which took half the time of writing the report. Here a string is tested for
//! anything to escape in one pass the compiler vectorises, and written whole when, as for
//! every key of the report, there is nothing.
//!
//! Numbers, escapes and raw values go through serde_json's own [`CompactFormatter`], so the
//! two cannot disagree on them; `tests` compares the two on every kind of value.

use std::fmt;
use std::io::{self, Write};

use serde::ser::{self, Serialize};
use serde_json::ser::{CharEscape, CompactFormatter, Formatter};

/// serde_json's name for its raw value, whose one field is written as it is.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Bytes held before they are handed to the writer, at the end of an element or entry.
const SPILL_AT: usize = 1 << 16;

#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

impl From<io::Error> for Error {
    fn from(err: io::Error) -> Self {
        Error(err.to_string())
    }
}

impl From<Error> for io::Error {
    fn from(err: Error) -> Self {
        io::Error::other(err.0)
    }
}

type Result<T> = std::result::Result<T, Error>;

/// Writes `value` as compact JSON to `out`.
pub fn to_writer<W: Write, T: Serialize + ?Sized>(out: W, value: &T) -> io::Result<()> {
    let mut ser = Serializer {
        buf: Vec::with_capacity(2 * SPILL_AT),
        out,
    };
    value.serialize(&mut ser)?;
    ser.out.write_all(&ser.buf)?;
    Ok(())
}

/// Writes `value` as compact JSON into a string, as `serde_json::to_string` does.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> io::Result<String> {
    let mut out = Vec::new();
    to_writer(&mut out, value)?;
    String::from_utf8(out).map_err(io::Error::other)
}

pub struct Serializer<W> {
    buf: Vec<u8>,
    out: W,
}

impl<W: Write> Serializer<W> {
    fn spill(&mut self) -> Result<()> {
        if self.buf.len() >= SPILL_AT {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn string(&mut self, value: &str) {
        self.buf.push(b'"');
        escape_into(&mut self.buf, value);
        self.buf.push(b'"');
    }
}

/// `value`, escaped as serde_json escapes it: quote, backslash and control characters.
fn escape_into(buf: &mut Vec<u8>, value: &str) {
    let bytes = value.as_bytes();
    if is_clean(bytes) {
        buf.extend_from_slice(bytes);
        return;
    }
    let mut run = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        if !needs_escape(byte) {
            continue;
        }
        buf.extend_from_slice(&bytes[run..i]);
        run = i + 1;
        let escape = match byte {
            b'"' => CharEscape::Quote,
            b'\\' => CharEscape::ReverseSolidus,
            0x08 => CharEscape::Backspace,
            b'\t' => CharEscape::Tab,
            b'\n' => CharEscape::LineFeed,
            0x0c => CharEscape::FormFeed,
            b'\r' => CharEscape::CarriageReturn,
            other => CharEscape::AsciiControl(other),
        };
        // Writing into a Vec cannot fail.
        let _ = CompactFormatter.write_char_escape(buf, escape);
    }
    buf.extend_from_slice(&bytes[run..]);
}

/// Whether `bytes` hold nothing to escape, eight at a time: a byte below 0x20, a quote or
/// a backslash in a word shows as a high bit of the tests below (exact as to whether there
/// is one, which is all that is asked). The last word overlaps the one before it rather
/// than falling back to single bytes.
#[inline]
fn is_clean(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let dirty = |word: u64| {
        let below_space = word.wrapping_sub(ONES * 0x20) & !word;
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        let zero = |x: u64| x.wrapping_sub(ONES) & !x;
        (below_space | zero(quote) | zero(backslash)) & HIGH != 0
    };
    let word_at = |at: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(word)
    };
    if bytes.len() < 8 {
        return !bytes.iter().any(|&b| needs_escape(b));
    }
    let mut at = 0;
    while at + 8 <= bytes.len() {
        if dirty(word_at(at)) {
            return false;
        }
        at += 8;
    }
    at == bytes.len() || !dirty(word_at(bytes.len() - 8))
}

#[inline(always)]
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Text written through [`fmt::Write`], escaped on the way: `collect_str` without a String.
struct Escaping<'b>(&'b mut Vec<u8>);

impl fmt::Write for Escaping<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        escape_into(self.0, s);
        Ok(())
    }
}

macro_rules! integer {
    ($($method:ident: $ty:ty => $write:ident),*) => {$(
        fn $method(self, value: $ty) -> Result<()> {
            let _ = CompactFormatter.$write(&mut self.buf, value);
            Ok(())
        }
    )*};
}

impl<'s, W: Write> ser::Serializer for &'s mut Serializer<W> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'s, W>;
    type SerializeTuple = Compound<'s, W>;
    type SerializeTupleStruct = Compound<'s, W>;
    type SerializeTupleVariant = Compound<'s, W>;
    type SerializeMap = Compound<'s, W>;
    type SerializeStruct = Compound<'s, W>;
    type SerializeStructVariant = Compound<'s, W>;

    fn serialize_bool(self, value: bool) -> Result<()> {
        self.buf
            .extend_from_slice(if value { b"true" } else { b"false" });
        Ok(())
    }

    integer!(
        serialize_i8: i8 => write_i8, serialize_i16: i16 => write_i16,
        serialize_i32: i32 => write_i32, serialize_i64: i64 => write_i64,
        serialize_i128: i128 => write_i128, serialize_u8: u8 => write_u8,
        serialize_u16: u16 => write_u16, serialize_u32: u32 => write_u32,
        serialize_u64: u64 => write_u64, serialize_u128: u128 => write_u128
    );

    fn serialize_f32(self, value: f32) -> Result<()> {
        if value.is_finite() {
            let _ = CompactFormatter.write_f32(&mut self.buf, value);
        } else {
            self.buf.extend_from_slice(b"null");
        }
        Ok(())
    }

    fn serialize_f64(self, value: f64) -> Result<()> {
        if value.is_finite() {
            let _ = CompactFormatter.write_f64(&mut self.buf, value);
        } else {
            self.buf.extend_from_slice(b"null");
        }
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<()> {
        self.string(value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, value: &str) -> Result<()> {
        self.string(value);
        Ok(())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<()> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(value.len()))?;
        for byte in value {
            seq.serialize_element(byte)?;
        }
        seq.end()
    }

    fn serialize_none(self) -> Result<()> {
        self.buf.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<()> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.serialize_none()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.buf.push(b'{');
        self.string(variant);
        self.buf.push(b':');
        value.serialize(&mut *self)?;
        self.buf.push(b'}');
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'s, W>> {
        self.buf.push(b'[');
        Ok(Compound::new(self, b']', None))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'s, W>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'s, W>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'s, W>> {
        self.buf.push(b'{');
        self.string(variant);
        self.buf.extend_from_slice(b":[");
        Ok(Compound::new(self, b']', Some(b'}')))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'s, W>> {
        self.buf.push(b'{');
        Ok(Compound::new(self, b'}', None))
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'s, W>> {
        if name == RAW_VALUE_TOKEN {
            return Ok(Compound::raw(self));
        }
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'s, W>> {
        self.buf.push(b'{');
        self.string(variant);
        self.buf.extend_from_slice(b":{");
        Ok(Compound::new(self, b'}', Some(b'}')))
    }

    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result<()> {
        use fmt::Write as _;
        self.buf.push(b'"');
        write!(Escaping(&mut self.buf), "{value}").map_err(<Error as ser::Error>::custom)?;
        self.buf.push(b'"');
        Ok(())
    }
}

/// An array or object being written: whether a comma goes before the next member, and what
/// closes it (and the object around a variant).
pub struct Compound<'s, W> {
    ser: &'s mut Serializer<W>,
    first: bool,
    close: u8,
    outer: Option<u8>,
    /// serde_json's raw value: its one field is written as it is.
    raw: bool,
}

impl<'s, W: Write> Compound<'s, W> {
    fn new(ser: &'s mut Serializer<W>, close: u8, outer: Option<u8>) -> Self {
        Compound {
            ser,
            first: true,
            close,
            outer,
            raw: false,
        }
    }

    fn raw(ser: &'s mut Serializer<W>) -> Self {
        Compound {
            raw: true,
            ..Compound::new(ser, 0, None)
        }
    }

    fn comma(&mut self) {
        if !std::mem::take(&mut self.first) {
            self.ser.buf.push(b',');
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.comma();
        value.serialize(&mut *self.ser)?;
        self.ser.spill()
    }

    fn finish(self) -> Result<()> {
        if !self.raw {
            self.ser.buf.push(self.close);
        }
        if let Some(outer) = self.outer {
            self.ser.buf.push(outer);
        }
        Ok(())
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        if self.raw {
            return value.serialize(RawWriter(&mut self.ser.buf));
        }
        self.comma();
        self.ser.string(key);
        self.ser.buf.push(b':');
        value.serialize(&mut *self.ser)?;
        self.ser.spill()
    }
}

impl<W: Write> ser::SerializeSeq for Compound<'_, W> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: Write> ser::SerializeTuple for Compound<'_, W> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: Write> ser::SerializeTupleStruct for Compound<'_, W> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: Write> ser::SerializeTupleVariant for Compound<'_, W> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: Write> ser::SerializeMap for Compound<'_, W> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.comma();
        key.serialize(KeyWriter(&mut self.ser.buf))
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.ser.buf.push(b':');
        value.serialize(&mut *self.ser)?;
        self.ser.spill()
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: Write> ser::SerializeStruct for Compound<'_, W> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.field(key, value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: Write> ser::SerializeStructVariant for Compound<'_, W> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.field(key, value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

fn key_must_be_a_string() -> Error {
    Error("key must be a string".into())
}

/// A map key, as serde_json writes one: a string, or a number, bool or char in quotes.
struct KeyWriter<'b>(&'b mut Vec<u8>);

macro_rules! quoted_key {
    ($($method:ident: $ty:ty => $write:ident),*) => {$(
        fn $method(self, value: $ty) -> Result<()> {
            self.0.push(b'"');
            let _ = CompactFormatter.$write(self.0, value);
            self.0.push(b'"');
            Ok(())
        }
    )*};
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, value: &str) -> Result<()> {
        self.0.push(b'"');
        escape_into(self.0, value);
        self.0.push(b'"');
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<()> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_bool(self, value: bool) -> Result<()> {
        self.serialize_str(if value { "true" } else { "false" })
    }

    quoted_key!(
        serialize_i8: i8 => write_i8, serialize_i16: i16 => write_i16,
        serialize_i32: i32 => write_i32, serialize_i64: i64 => write_i64,
        serialize_i128: i128 => write_i128, serialize_u8: u8 => write_u8,
        serialize_u16: u16 => write_u16, serialize_u32: u32 => write_u32,
        serialize_u64: u64 => write_u64, serialize_u128: u128 => write_u128
    );

    fn serialize_f32(self, value: f32) -> Result<()> {
        if !value.is_finite() {
            return Err(Error("float key must be finite".into()));
        }
        self.0.push(b'"');
        let _ = CompactFormatter.write_f32(self.0, value);
        self.0.push(b'"');
        Ok(())
    }

    fn serialize_f64(self, value: f64) -> Result<()> {
        if !value.is_finite() {
            return Err(Error("float key must be finite".into()));
        }
        self.0.push(b'"');
        let _ = CompactFormatter.write_f64(self.0, value);
        self.0.push(b'"');
        Ok(())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }

    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result<()> {
        use fmt::Write as _;
        self.0.push(b'"');
        write!(Escaping(self.0), "{value}").map_err(<Error as ser::Error>::custom)?;
        self.0.push(b'"');
        Ok(())
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_must_be_a_string())
    }
}

/// The one field of serde_json's raw value: JSON text already, written as it is.
struct RawWriter<'b>(&'b mut Vec<u8>);

fn not_raw() -> Error {
    Error("a raw value holds a string".into())
}

impl ser::Serializer for RawWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, value: &str) -> Result<()> {
        self.0.extend_from_slice(value.as_bytes());
        Ok(())
    }

    fn serialize_bool(self, _: bool) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_i8(self, _: i8) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_i16(self, _: i16) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_i32(self, _: i32) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_i64(self, _: i64) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_u8(self, _: u8) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_u16(self, _: u16) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_u32(self, _: u32) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_u64(self, _: u64) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_f32(self, _: f32) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_f64(self, _: f64) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_char(self, _: char) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_none(self) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_unit(self) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<()> {
        Err(not_raw())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(not_raw())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(not_raw())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(not_raw())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(not_raw())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(not_raw())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(not_raw())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(not_raw())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use serde_json::value::RawValue;

    use super::to_string;

    #[derive(Serialize)]
    enum Kind {
        Unit,
        Newtype(u8),
        Tuple(u8, i64),
        Struct { a: Option<f64>, b: &'static str },
    }

    #[derive(Serialize)]
    struct Unit;

    #[derive(Serialize)]
    struct Newtype(i16);

    #[derive(Serialize)]
    struct Everything<'a> {
        text: &'a str,
        control: String,
        unicode: &'a str,
        char_: char,
        bools: (bool, bool),
        ints: (i8, i16, i32, i64, i128, u8, u16, u32, u64, u128),
        extremes: (i64, u64, i128, u128),
        floats: Vec<f64>,
        float32: (f32, f32, f32),
        none: Option<u8>,
        some: Option<&'a str>,
        unit: (),
        unit_struct: Unit,
        newtype: Newtype,
        kinds: Vec<Kind>,
        empty_map: BTreeMap<String, u8>,
        empty_seq: Vec<u8>,
        by_number: BTreeMap<u16, &'a str>,
        by_bool: BTreeMap<bool, u8>,
        by_char: BTreeMap<char, u8>,
        by_text: BTreeMap<&'a str, Vec<Option<u8>>>,
        raw: &'a RawValue,
        bytes: &'a [u8],
        displayed: Displayed,
    }

    struct Displayed;

    impl Serialize for Displayed {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_str(&format_args!("a \"quoted\"\tvalue {}", 7))
        }
    }

    /// The reference is serde_json itself, on every kind of value serde has.
    #[test]
    fn writes_what_serde_json_writes() {
        let control: String = (0u8..0x20)
            .map(char::from)
            .chain("\"\\/\u{7f}".chars())
            .collect();
        let raw = RawValue::from_string("1700000000.000000001".into()).unwrap();
        let value = Everything {
            text: "plain",
            control,
            unicode: "µs → ∞ 𝄞",
            char_: '"',
            bools: (true, false),
            ints: (-8, -16, -32, -64, -128, 8, 16, 32, 64, 128),
            extremes: (i64::MIN, u64::MAX, i128::MIN, u128::MAX),
            floats: vec![
                0.0,
                -0.0,
                1.0,
                0.1,
                1.5e-7,
                123456789.125,
                1e21,
                1e300,
                f64::MIN_POSITIVE,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ],
            float32: (0.3, f32::NAN, 1e-40),
            none: None,
            some: Some("x"),
            unit: (),
            unit_struct: Unit,
            newtype: Newtype(-3),
            kinds: vec![
                Kind::Unit,
                Kind::Newtype(1),
                Kind::Tuple(2, -3),
                Kind::Struct { a: None, b: "b" },
                Kind::Struct {
                    a: Some(2.5),
                    b: "",
                },
            ],
            empty_map: BTreeMap::new(),
            empty_seq: Vec::new(),
            by_number: [(3, "three"), (65535, "max")].into_iter().collect(),
            by_bool: [(false, 0), (true, 1)].into_iter().collect(),
            by_char: [('\n', 1), ('a', 2)].into_iter().collect(),
            by_text: [("k\"ey", vec![None, Some(1)]), ("", vec![])]
                .into_iter()
                .collect(),
            raw: &raw,
            bytes: &[0, 255],
            displayed: Displayed,
        };
        let expected = serde_json::to_string(&value).unwrap();
        assert_eq!(to_string(&value).unwrap(), expected);
    }

    /// Every position and every byte value, in strings around the word size.
    #[test]
    fn the_word_test_finds_every_byte_to_escape() {
        for len in 1..20 {
            for at in 0..len {
                for byte in 0u8..=255 {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    let expected = byte < 0x20 || byte == b'"' || byte == b'\\';
                    assert_eq!(!super::is_clean(&text), expected, "{len} {at} {byte:#x}");
                }
            }
        }
    }

    #[test]
    fn a_long_document_spills_and_stays_whole() {
        let rows: Vec<BTreeMap<&str, String>> = (0..20_000)
            .map(|i| [("row", format!("r{i}")), ("q\"", "\\".repeat(i % 7))].into())
            .collect();
        assert_eq!(
            to_string(&rows).unwrap(),
            serde_json::to_string(&rows).unwrap()
        );
    }
}
