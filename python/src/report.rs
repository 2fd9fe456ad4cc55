//! The report as Python objects, made straight from the report model: the dict that
//! `json.loads` would make of `analyze --json`, without writing the document and parsing
//! it back, which took a sixth of `analyze()`'s time on a capture of 1,000 connections.
//!
//! It must be that dict exactly, so it follows serde_json's choices where Python's and
//! JSON's types differ: sequences and tuples are lists, map keys are strings, a float that
//! is not finite is `None`, bytes are a list of numbers, and a raw value (how the report
//! writes exact seconds) is the number its text spells. `tests/test_analyze.py` compares
//! the two on every fixture.
//!
//! The report repeats a few hundred field names across thousands of objects; each name is
//! made a Python string once and shared, as `json.loads` shares the keys it decodes.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

use pyo3::BoundObject;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyString};
use serde::ser::{self, Serialize};

/// serde_json's name for its raw value, whose one field is its text.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// What `value` serializes to, as Python objects.
pub fn to_python<'py>(py: Python<'py>, value: &impl Serialize) -> PyResult<Bound<'py, PyAny>> {
    let mut names = Names::default();
    value
        .serialize(Objects {
            py,
            names: &mut names,
            as_key: false,
        })
        .map_err(|e| match e {
            Error::Python(err) => err,
            Error::Other(message) => pyo3::exceptions::PyValueError::new_err(message),
        })
}

#[derive(Debug)]
pub enum Error {
    Python(PyErr),
    Other(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Python(err) => write!(f, "{err}"),
            Error::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::Other(msg.to_string())
    }
}

impl From<PyErr> for Error {
    fn from(err: PyErr) -> Self {
        Error::Python(err)
    }
}

/// Python strings of the field names met so far, by the address of their static text,
/// and of the map keys, by their text. Interned, as Python's own attribute names are: a
/// dict compares such keys by identity, and their hash is made once. The report writes
/// most of its rows as maps (75,000 keys of 155 kinds for 1,000 connections), whose keys
/// were otherwise a new string, hashed, at every row.
#[derive(Default)]
struct Names {
    made: HashMap<(usize, usize), Py<PyString>, BuildHasherDefault<QuickHasher>>,
    keys: HashMap<String, Py<PyString>, BuildHasherDefault<QuickHasher>>,
}

impl Names {
    fn get<'py>(&mut self, py: Python<'py>, name: &'static str) -> Bound<'py, PyString> {
        self.made
            .entry((name.as_ptr() as usize, name.len()))
            .or_insert_with(|| PyString::intern(py, name).unbind())
            .bind(py)
            .clone()
    }

    fn key<'py>(&mut self, py: Python<'py>, text: &str) -> Bound<'py, PyString> {
        if let Some(made) = self.keys.get(text) {
            return made.bind(py).clone();
        }
        let made = PyString::intern(py, text);
        self.keys.insert(text.to_owned(), made.clone().unbind());
        made
    }
}

/// A multiply-rotate hash of addresses and short texts: the names' lookups were a tenth of
/// the conversion with SipHash. Its weakness to chosen keys costs at most a slow
/// conversion: the tables live for one report, and hold only the report's own keys.
#[derive(Default)]
struct QuickHasher(u64);

impl Hasher for QuickHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.write_u64(u64::from_le_bytes(word.try_into().unwrap_or_default()));
        }
        for &b in words.remainder() {
            self.write_u64(u64::from(b));
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

struct Objects<'a, 'py> {
    py: Python<'py>,
    names: &'a mut Names,
    /// Serializing a map's key: a string is looked up among the keys met before.
    as_key: bool,
}

impl<'py> Objects<'_, 'py> {
    fn reborrow(&mut self) -> Objects<'_, 'py> {
        Objects {
            py: self.py,
            names: self.names,
            as_key: false,
        }
    }

    fn int(
        &self,
        value: impl IntoPyObject<'py, Error = std::convert::Infallible>,
    ) -> Result<Bound<'py, PyAny>, Error> {
        let Ok(int) = value.into_pyobject(self.py);
        Ok(int.into_any().into_bound())
    }

    fn serialize_f64_value(&self, v: f64) -> Result<Bound<'py, PyAny>, Error> {
        // serde_json writes `null` for what JSON cannot spell.
        if v.is_finite() {
            Ok(PyFloat::new(self.py, v).into_any())
        } else {
            Ok(self.py.None().into_bound(self.py))
        }
    }

    /// `{variant: value}`, serde_json's shape for an enum variant with data.
    fn tagged(
        &mut self,
        variant: &'static str,
        value: Bound<'py, PyAny>,
    ) -> Result<Bound<'py, PyAny>, Error> {
        let dict = PyDict::new(self.py);
        dict.set_item(self.names.get(self.py, variant), value)?;
        Ok(dict.into_any())
    }
}

impl<'a, 'py> ser::Serializer for Objects<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    type SerializeSeq = Sequence<'a, 'py>;
    type SerializeTuple = Sequence<'a, 'py>;
    type SerializeTupleStruct = Sequence<'a, 'py>;
    type SerializeTupleVariant = Sequence<'a, 'py>;
    type SerializeMap = Mapping<'a, 'py>;
    type SerializeStruct = Mapping<'a, 'py>;
    type SerializeStructVariant = Mapping<'a, 'py>;

    fn serialize_bool(self, v: bool) -> Result<Self::Ok, Error> {
        Ok(pyo3::types::PyBool::new(self.py, v).to_owned().into_any())
    }
    fn serialize_i8(self, v: i8) -> Result<Self::Ok, Error> {
        self.int(v)
    }
    fn serialize_i16(self, v: i16) -> Result<Self::Ok, Error> {
        self.int(v)
    }
    fn serialize_i32(self, v: i32) -> Result<Self::Ok, Error> {
        self.int(v)
    }
    fn serialize_i64(self, v: i64) -> Result<Self::Ok, Error> {
        self.int(v)
    }
    fn serialize_i128(self, v: i128) -> Result<Self::Ok, Error> {
        self.int(v)
    }
    fn serialize_u8(self, v: u8) -> Result<Self::Ok, Error> {
        self.int(v)
    }
    fn serialize_u16(self, v: u16) -> Result<Self::Ok, Error> {
        self.int(v)
    }
    fn serialize_u32(self, v: u32) -> Result<Self::Ok, Error> {
        self.int(v)
    }
    fn serialize_u64(self, v: u64) -> Result<Self::Ok, Error> {
        self.int(v)
    }
    fn serialize_u128(self, v: u128) -> Result<Self::Ok, Error> {
        self.int(v)
    }
    fn serialize_f32(self, v: f32) -> Result<Self::Ok, Error> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Self::Ok, Error> {
        self.serialize_f64_value(v)
    }
    fn serialize_char(self, v: char) -> Result<Self::Ok, Error> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<Self::Ok, Error> {
        if self.as_key {
            return Ok(self.names.key(self.py, v).into_any());
        }
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Self::Ok, Error> {
        Ok(PyList::new(self.py, v)?.into_any())
    }
    fn serialize_none(self) -> Result<Self::Ok, Error> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Self::Ok, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Self::Ok, Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok, Error> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Self::Ok, Error> {
        Ok(self.names.get(self.py, variant).into_any())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Self::Ok, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        mut self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Self::Ok, Error> {
        let inner = value.serialize(self.reborrow())?;
        self.tagged(variant, inner)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Sequence<'a, 'py>, Error> {
        Ok(Sequence {
            items: Vec::with_capacity(len.unwrap_or(0)),
            variant: None,
            to: self,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Sequence<'a, 'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<Sequence<'a, 'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Sequence<'a, 'py>, Error> {
        let mut seq = self.serialize_seq(Some(len))?;
        seq.variant = Some(variant);
        Ok(seq)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Mapping<'a, 'py>, Error> {
        Ok(Mapping {
            dict: PyDict::new(self.py),
            key: None,
            variant: None,
            raw: false,
            raw_text: None,
            to: self,
        })
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Mapping<'a, 'py>, Error> {
        let raw = name == RAW_VALUE_TOKEN;
        let mut map = self.serialize_map(None)?;
        map.raw = raw;
        Ok(map)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Mapping<'a, 'py>, Error> {
        let mut map = self.serialize_map(None)?;
        map.variant = Some(variant);
        Ok(map)
    }
}

pub struct Sequence<'a, 'py> {
    items: Vec<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
    to: Objects<'a, 'py>,
}

impl<'py> Sequence<'_, 'py> {
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let item = value.serialize(self.to.reborrow())?;
        self.items.push(item);
        Ok(())
    }

    fn finish(mut self) -> Result<Bound<'py, PyAny>, Error> {
        let list = PyList::new(self.to.py, self.items)?.into_any();
        match self.variant {
            Some(variant) => self.to.tagged(variant, list),
            None => Ok(list),
        }
    }
}

/// serde's four kinds of sequence, each a list.
macro_rules! sequence {
    ($($kind:ident :: $element:ident),+) => {$(
        impl<'py> ser::$kind for Sequence<'_, 'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = Error;
            fn $element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
                self.push(value)
            }
            fn end(self) -> Result<Self::Ok, Error> {
                self.finish()
            }
        }
    )+};
}

sequence!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

pub struct Mapping<'a, 'py> {
    dict: Bound<'py, PyDict>,
    /// A map's key, between `serialize_key` and `serialize_value`.
    key: Option<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
    /// A serde_json raw value: its one field is the JSON text of the value.
    raw: bool,
    raw_text: Option<String>,
    to: Objects<'a, 'py>,
}

impl<'py> Mapping<'_, 'py> {
    fn field<T: ?Sized + Serialize>(&mut self, name: &'static str, value: &T) -> Result<(), Error> {
        if self.raw {
            let text = serde_json::to_value(value).map_err(|e| Error::Other(e.to_string()))?;
            self.raw_text = text.as_str().map(str::to_owned);
            return Ok(());
        }
        let value = value.serialize(self.to.reborrow())?;
        let name = self.to.names.get(self.to.py, name);
        self.dict.set_item(name, value)?;
        Ok(())
    }

    fn finish(mut self) -> Result<Bound<'py, PyAny>, Error> {
        if self.raw {
            return self.raw_value();
        }
        let dict = self.dict.into_any();
        match self.variant {
            Some(variant) => self.to.tagged(variant, dict),
            None => Ok(dict),
        }
    }

    /// The number a raw value's text spells (the report's exact seconds), made as
    /// `json.loads` makes it: an integer without a point or exponent, a float with one,
    /// each correctly rounded; any other JSON through serde_json's own reading.
    fn raw_value(mut self) -> Result<Bound<'py, PyAny>, Error> {
        let text = self
            .raw_text
            .take()
            .ok_or_else(|| Error::Other("a raw value without its text".into()))?;
        if text.contains(['.', 'e', 'E']) {
            if let Ok(number) = text.parse::<f64>() {
                return self.to.serialize_f64_value(number);
            }
        } else if let Ok(number) = text.parse::<i64>() {
            return self.to.int(number);
        }
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| Error::Other(e.to_string()))?;
        value.serialize(self.to.reborrow())
    }
}

/// A map key as serde_json writes it: a string, whatever the key's type.
fn key_text<'py>(key: Bound<'py, PyAny>) -> Result<Bound<'py, PyAny>, Error> {
    if key.is_instance_of::<PyString>() {
        return Ok(key);
    }
    if let Ok(flag) = key.extract::<bool>() {
        return Ok(PyString::new(key.py(), if flag { "true" } else { "false" }).into_any());
    }
    Ok(key.str()?.into_any())
}

impl<'py> ser::SerializeMap for Mapping<'_, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        let mut to = self.to.reborrow();
        to.as_key = true;
        let key = key.serialize(to)?;
        self.key = Some(key_text(key)?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error::Other("a map value before its key".into()))?;
        let value = value.serialize(self.to.reborrow())?;
        self.dict.set_item(key, value)?;
        Ok(())
    }
    fn end(self) -> Result<Self::Ok, Error> {
        self.finish()
    }
}

/// serde's two kinds of struct, each a dict.
macro_rules! structure {
    ($($kind:ident),+) => {$(
        impl<'py> ser::$kind for Mapping<'_, 'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = Error;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                name: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.field(name, value)
            }
            fn end(self) -> Result<Self::Ok, Error> {
                self.finish()
            }
        }
    )+};
}

structure!(SerializeStruct, SerializeStructVariant);
