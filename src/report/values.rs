//! What the report's sections share: times in seconds, frame references under prefixed
//! keys, flow identities, PFC priorities, and the serializers for lists and strings.

use std::fmt::Display;

use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use crate::analyze::key::{FlowKey, FrameRef};
use crate::analyze::pfc::ALL_PRIORITIES;
use crate::wire::ethernet::Mac;
use crate::wire::opcode::Role;

/// Nanoseconds since the epoch (or a duration), written as seconds with all nine decimals,
/// `S.NNNNNNNNN`, in the report's JSON and tables alike: a float would lose the nanoseconds
/// of an epoch time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(pub u64);

impl Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}.{:09}",
            self.0 / 1_000_000_000,
            self.0 % 1_000_000_000
        )
    }
}

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use std::io::Write;
        // u64::MAX is 20 digits: 11 before the point, the point, 9 after.
        let mut buf = [0u8; 24];
        let capacity = buf.len();
        let mut cursor = &mut buf[..];
        let _ = write!(cursor, "{self}");
        let len = capacity - cursor.len();
        let text = std::str::from_utf8(&buf[..len]).map_err(serde::ser::Error::custom)?;
        // A raw number is the one way to hand serde_json exact digits; it borrows the
        // stack buffer, so writing a time allocates nothing.
        let raw: &serde_json::value::RawValue =
            serde_json::from_str(text).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

pub(super) fn display<S: Serializer>(
    value: &impl Display,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// The inputs' names, to name the file of a frame when there are several.
#[derive(Debug, Clone, Copy)]
pub struct Files<'a>(pub &'a [String]);

impl<'a> Files<'a> {
    /// The name of input `index`, when naming it is needed (several inputs).
    pub fn name(self, index: u16) -> Option<&'a str> {
        (self.0.len() > 1).then(|| self.0.get(usize::from(index)).map_or("", |s| s.as_str()))
    }
}

/// A frame reference as written under key names with a prefix (`first_frame`, `nak_ts`...).
macro_rules! located {
    ($(#[$doc:meta])* $name:ident, $frame:literal, $ts:literal, $ts_ns:literal, $file:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Serialize)]
        pub struct $name<'a> {
            #[serde(rename = $frame)]
            pub frame: u64,
            #[serde(rename = $ts, skip_serializing_if = "Option::is_none")]
            pub ts: Option<Seconds>,
            #[serde(rename = $ts_ns, skip_serializing_if = "Option::is_none")]
            pub ts_ns: Option<u64>,
            #[serde(rename = $file, skip_serializing_if = "Option::is_none")]
            pub file: Option<&'a str>,
        }

        impl<'a> $name<'a> {
            pub fn new(at: FrameRef, files: Files<'a>) -> Self {
                $name {
                    frame: at.frame,
                    ts: at.ts_ns.map(Seconds),
                    ts_ns: at.ts_ns,
                    file: files.name(at.file),
                }
            }

            /// Its keys, written into a row being serialized, as `#[serde(flatten)]` would
            /// without going through a map.
            pub fn serialize_fields<S: SerializeStruct>(&self, row: &mut S) -> Result<(), S::Error> {
                row.serialize_field($frame, &self.frame)?;
                optional_field(row, $ts, &self.ts)?;
                optional_field(row, $ts_ns, &self.ts_ns)?;
                optional_field(row, $file, &self.file)
            }
        }
    };
}

located!(
    /// Where an event happened: `frame`, `ts`, `ts_ns`, `file`.
    At, "frame", "ts", "ts_ns", "file"
);
located!(
    First,
    "first_frame",
    "first_ts",
    "first_ts_ns",
    "first_file"
);
located!(Last, "last_frame", "last_ts", "last_ts_ns", "last_file");
located!(
    Start,
    "start_frame",
    "start_ts",
    "start_ts_ns",
    "start_file"
);
located!(NakAt, "nak_frame", "nak_ts", "nak_ts_ns", "nak_file");

/// The keys that name a flow.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FlowId<'a> {
    #[serde(serialize_with = "display")]
    pub src: &'a crate::dissect::Address,
    #[serde(serialize_with = "display")]
    pub dst: &'a crate::dissect::Address,
    pub dest_qp: u32,
    #[serde(serialize_with = "role_name")]
    pub role: Role,
}

impl<'a> FlowId<'a> {
    pub fn new(key: &'a FlowKey) -> Self {
        FlowId {
            src: &key.src,
            dst: &key.dst,
            dest_qp: key.dest_qp,
            role: key.role,
        }
    }
}

impl FlowId<'_> {
    /// Its keys, written into a row being serialized.
    pub fn serialize_fields<S: SerializeStruct>(&self, row: &mut S) -> Result<(), S::Error> {
        row.serialize_field("src", &Displayed(self.src))?;
        row.serialize_field("dst", &Displayed(self.dst))?;
        row.serialize_field("dest_qp", &self.dest_qp)?;
        row.serialize_field("role", self.role.name())
    }
}

/// A field that is left out when it has no value, as `skip_serializing_if = "Option::is_none"`.
pub fn optional_field<S: SerializeStruct, T: Serialize>(
    row: &mut S,
    key: &'static str,
    value: &Option<T>,
) -> Result<(), S::Error> {
    match value {
        Some(value) => row.serialize_field(key, value),
        None => row.skip_field(key),
    }
}

/// Writes `rows` as a list, each row serialized as it is produced: the long lists of the
/// report (flows, anomalies, connections) are never collected.
pub fn serialize_rows<S: Serializer, T: Serialize>(
    serializer: S,
    len: Option<usize>,
    rows: impl IntoIterator<Item = T>,
) -> Result<S::Ok, S::Error> {
    let mut seq = serializer.serialize_seq(len)?;
    for row in rows {
        seq.serialize_element(&row)?;
    }
    seq.end()
}

pub(super) fn role_name<S: Serializer>(role: &Role, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(role.name())
}

/// A PFC priority, or `all` for 802.3x PAUSE, which stops every priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Priority(pub u8);

impl Priority {
    /// The priority's number; none for 802.3x PAUSE, which stops them all.
    pub fn number(self) -> Option<u8> {
        (self.0 != ALL_PRIORITIES).then_some(self.0)
    }

    pub fn name(self) -> String {
        if self.0 == ALL_PRIORITIES {
            "all".to_string()
        } else {
            self.0.to_string()
        }
    }
}

impl Serialize for Priority {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0 == ALL_PRIORITIES {
            serializer.serialize_str("all")
        } else {
            serializer.serialize_u8(self.0)
        }
    }
}

pub(super) fn is_zero(n: &u64) -> bool {
    *n == 0
}

pub(super) fn macs<S: Serializer>(macs: &&[Mac], serializer: S) -> Result<S::Ok, S::Error> {
    serialize_rows(serializer, Some(macs.len()), macs.iter().map(Displayed))
}

/// A value serialized as the string its `Display` writes, without an allocation.
pub struct Displayed<'a, T: Display>(pub &'a T);

impl<T: Display> Serialize for Displayed<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_keep_every_nanosecond() {
        assert_eq!(Seconds(1_000_000_001).to_string(), "1.000000001");
        let json = serde_json::to_string(&Seconds(1_700_000_000_123_456_789)).expect("json");
        assert_eq!(json, "1700000000.123456789");
    }
}
