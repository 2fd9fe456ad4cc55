//! The field catalogue: every field a filter, `-T fields -e`, `rdmadump fields`, the man
//! page and the export's `packets` dataset can name, one file per protocol. A field is the
//! dotted path of `read --json` with a typed accessor, so that reading it formats nothing
//! and allocates nothing, and with what else is known of it: a one-line description, the
//! Wireshark name with the same value, and what the export makes of it.
//!
//! The catalogue knows nothing of the filter language; `filter` compiles against it, and
//! `output` prints and exports from it.

use std::net::IpAddr;

use crate::dissect::Packet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Value {
    Int(u64),
    Bool(bool),
    Str(&'static str),
    Ip(IpAddr),
    Mac([u8; 6]),
    /// A capture time in nanoseconds since the Unix epoch.
    Time(u64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Int,
    Bool,
    Str,
    Ip,
    Mac,
    Time,
    /// A protocol by Wireshark's name (`infiniband`, `macc`): present or not, never compared.
    Protocol,
}

impl Type {
    /// The name `rdmadump fields` shows.
    pub fn name(self) -> &'static str {
        match self {
            Type::Int => "int",
            Type::Bool => "bool",
            Type::Str => "string",
            Type::Ip => "ip",
            Type::Mac => "mac",
            Type::Time => "time",
            Type::Protocol => "protocol",
        }
    }
}

pub type Accessor = fn(&Packet<'_>) -> Option<Value>;

/// The value in element `i` of a field that occurs several times in a frame, if there is one.
pub type ElementAccessor = fn(&Packet<'_>, usize) -> Option<Value>;

/// Occurrences a repeated field has at most in one frame, unless it says otherwise: the
/// eight PFC classes are the most (tunnels stop at four, either-direction fields at two).
/// A directed route's paths have up to 63 hops.
pub const MAX_ELEMENTS: usize = 8;

/// A field that occurs several times in a frame.
#[derive(Clone, Copy)]
pub struct Each {
    /// Occurrence `i`, if the frame has it.
    pub get: ElementAccessor,
    /// How many occurrences a frame can hold: asking beyond finds none. Every reader of the
    /// field (filters, `-e`, the export) asks for this many, so none drops the last ones.
    pub max: usize,
}

impl Each {
    /// Every occurrence the frame has, in order.
    pub fn values<'p>(&self, pkt: &'p Packet<'_>) -> impl DoubleEndedIterator<Item = Value> + 'p {
        let get = self.get;
        (0..self.max).filter_map(move |i| get(pkt, i))
    }
}

/// What the export's `packets` dataset makes of a field. Its columns are the leaves of
/// `read --json`; the fields that are not leaves say so here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parquet {
    /// A column of the field's type; an integer column is signed 64-bit.
    Column,
    /// An integer that uses all 64 bits (addresses, keys, GUIDs), so it cannot be a signed
    /// 64-bit column: an unsigned one.
    FullWidth,
    /// No column: a second name for a leaf, either end of a pair, or a time that depends on
    /// what was read before.
    NoColumn,
    /// No column: the presence of a whole header, which a column of its own leaves says as
    /// well. The export skips the header's columns, all null, in a frame without it.
    Header,
}

/// Wireshark's display-filter name for a field, so that a filter copied from Wireshark
/// runs unchanged. Each was checked against tshark 4.0.17.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WiresharkName {
    /// No Wireshark field has this value (or rdmadump does not know of one).
    None,
    /// Wireshark's field of the same name has the same value (for IPv4 frames, in the
    /// `ip.*` case: rdmadump's `ip.*` also covers IPv6).
    Same,
    /// Wireshark's field of this name has the same value.
    Other(&'static str),
}

#[derive(Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    pub ty: Type,
    /// For a field that occurs several times, the first occurrence: what a presence test
    /// sees and what a single-valued printer shows.
    pub get: Accessor,
    /// For a field that occurs several times (tunnels, VLAN tags, PFC classes, both ends of
    /// `ip.addr`): a comparison holds when it holds for any occurrence, as in Wireshark.
    pub each: Option<Each>,
    /// One line for `rdmadump fields`.
    pub description: &'static str,
    pub parquet: Parquet,
    pub wireshark: WiresharkName,
    /// The JSON key and export column, when a filter names the field otherwise: the JSON's
    /// `ip` object is the IP header of either version, Wireshark's `ip.*` are IPv4's, so
    /// `ip.src` of the JSON is the filter's `addr.src`.
    pub key: Option<&'static str>,
    /// For an integer Wireshark shows as bytes (FT_BYTES, as `infiniband.immdt`): how many,
    /// big-endian, so that `len()`, byte strings and slices see what Wireshark sees.
    pub bytes: u8,
}

impl Field {
    /// A field with a value once a frame, no Wireshark name, and a column in the export.
    const fn new(name: &'static str, ty: Type, description: &'static str, get: Accessor) -> Field {
        Field {
            name,
            ty,
            get,
            each: None,
            description,
            parquet: Parquet::Column,
            wireshark: WiresharkName::None,
            key: None,
            bytes: 0,
        }
    }

    /// A protocol by Wireshark's name, present when Wireshark's dissector of it would run:
    /// what `infiniband` or `!infiniband` tests. Upper-layer protocols are declared so, one
    /// line each, once they are decoded (see `filter`'s list of those that are not yet).
    const fn protocol(name: &'static str, description: &'static str, present: Accessor) -> Field {
        let mut field = Field::new(name, Type::Protocol, description, present);
        field.parquet = Parquet::NoColumn;
        field.wireshark = WiresharkName::Same;
        field
    }

    /// The JSON key and export column of a field a filter names otherwise (see [`Field::key`]).
    const fn keyed(mut self, key: &'static str) -> Field {
        self.key = Some(key);
        self
    }

    /// Wireshark shows this integer as `count` bytes, big-endian.
    const fn as_bytes(mut self, count: u8) -> Field {
        self.bytes = count;
        self
    }

    /// The JSON key and export column this field fills.
    pub fn key(&self) -> &'static str {
        match self.key {
            Some(key) => key,
            None => self.name,
        }
    }

    const fn repeated(mut self, each: Each) -> Field {
        self.each = Some(each);
        self
    }

    const fn parquet(mut self, parquet: Parquet) -> Field {
        self.parquet = parquet;
        self
    }

    /// Wireshark's field `name` has this one's value.
    const fn wireshark(mut self, name: &'static str) -> Field {
        self.wireshark = WiresharkName::Other(name);
        self
    }

    /// Wireshark's field of this name has this one's value.
    const fn same_in_wireshark(mut self) -> Field {
        self.wireshark = WiresharkName::Same;
        self
    }

    /// A field only Wireshark's name reaches (see [`WIRESHARK_ONLY`]): no leaf of the JSON.
    const fn wireshark_only(self) -> Field {
        self.same_in_wireshark().parquet(Parquet::NoColumn)
    }

    /// Wireshark's name for the field's value, if it has one.
    pub fn wireshark_name(&self) -> Option<&'static str> {
        match self.wireshark {
            WiresharkName::None => None,
            WiresharkName::Same => Some(self.name),
            WiresharkName::Other(name) => Some(name),
        }
    }
}

impl std::fmt::Debug for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

macro_rules! int {
    ($name:literal, $about:literal, |$p:ident| $e:expr) => {
        Field::new($name, Type::Int, $about, |$p| {
            $e.map(|v| Value::Int(u64::from(v)))
        })
    };
}
macro_rules! boolean {
    ($name:literal, $about:literal, |$p:ident| $e:expr) => {
        Field::new($name, Type::Bool, $about, |$p| $e.map(Value::Bool))
    };
}
macro_rules! string {
    ($name:literal, $about:literal, |$p:ident| $e:expr) => {
        Field::new($name, Type::Str, $about, |$p| $e.map(Value::Str))
    };
}
macro_rules! ip {
    ($name:literal, $about:literal, |$p:ident| $e:expr) => {
        Field::new($name, Type::Ip, $about, |$p| {
            $e.map(|a| Value::Ip(IpAddr::from(a)))
        })
    };
}
/// A header's presence: absent, not false, when the frame lacks it, so that Wireshark's
/// bare-name test (present) and rdmadump's (present and set) agree.
macro_rules! header {
    ($name:literal, $about:literal, |$p:ident| $e:expr) => {
        Field::new($name, Type::Bool, $about, |$p| {
            $e.then_some(Value::Bool(true))
        })
        .parquet(Parquet::Header)
    };
}

/// A protocol's presence (see [`Field::protocol`]).
macro_rules! protocol {
    ($name:literal, $about:literal, |$p:ident| $e:expr) => {
        Field::protocol($name, $about, |$p| $e.then_some(Value::Bool(true)))
    };
}

/// The fields a request/response protocol over RDMA gives a reply, from the call it answers
/// (`$link`: the packet's `CallLink`): its frame (under Wireshark's `$frame`), its name, and
/// the latency, which Wireshark gives in seconds as `$time`.
macro_rules! call_link_fields {
    ($proto:literal, $link:expr, $frame:literal, $time:literal) => {
        [
            Field::new(
                concat!($proto, ".call.frame"),
                Type::Int,
                "frame of the call a reply answers",
                |p| $link(p).map(|l| Value::Int(l.frame)),
            )
            .wireshark($frame),
            Field::new(
                concat!($proto, ".call.name"),
                Type::Str,
                "name of the call a reply answers",
                |p| $link(p).map(|l| Value::Str(l.name)),
            ),
            Field::new(
                concat!($proto, ".call.latency_ns"),
                Type::Int,
                concat!(
                    "from the call to its reply, in ns (tshark's ",
                    $time,
                    " is in seconds)"
                ),
                |p| $link(p).and_then(|l| l.latency_ns).map(Value::Int),
            ),
        ]
    };
}

/// A field that occurs several times: `$e` gives occurrence `$i` of packet `$p`, of at most
/// `$max` ([`MAX_ELEMENTS`] unless given).
macro_rules! each {
    ($name:literal, $ty:expr, $about:literal, |$p:ident, $i:ident| $e:expr, $wrap:expr) => {
        each!($name, $ty, $about, |$p, $i| $e, $wrap, MAX_ELEMENTS)
    };
    ($name:literal, $ty:expr, $about:literal, |$p:ident, $i:ident| $e:expr, $wrap:expr, $max:expr) => {
        Field::new($name, $ty, $about, |$p| {
            (0..$max).find_map(|$i| $e).map($wrap)
        })
        .repeated(Each {
            get: |$p, $i| $e.map($wrap),
            max: $max,
        })
    };
}

mod bth;
mod cm;
mod frame;
mod ip;
mod ipoib;
mod iser;
mod link;
mod mad;
mod nvme;
mod pfc;
mod protocols;
mod rpcrdma;
mod smbd;

pub use rpcrdma::list_len as rpcrdma_list_len;
pub use smbd::list_len as smbd_list_len;
mod tunnels;

fn int<T: Into<u64>>(v: T) -> Value {
    Value::Int(v.into())
}

fn ip<T: Into<IpAddr>>(v: T) -> Value {
    Value::Ip(v.into())
}

/// Either end of a frame: occurrence 0 is the source, 1 the destination.
fn either<T>(
    i: usize,
    src: impl FnOnce() -> Option<T>,
    dst: impl FnOnce() -> Option<T>,
) -> Option<T> {
    match i {
        0 => src(),
        1 => dst(),
        _ => None,
    }
}

/// rdmadump's fields in the order `rdmadump fields`, the man page, `docs/fields.json` and
/// the export's columns list them: each protocol's values, then the presence of each
/// header, for filters such as `reth && !immdt`.
const OWN_ORDER: &[&[Field]] = &[
    frame::RECORD,
    frame::CAPTURE_HEADERS,
    link::ETHERNET,
    ip::IP_UDP,
    ip::IPV4,
    ipoib::IPOIB,
    ip::UPPER,
    link::LRH,
    ip::GRH,
    bth::TRANSPORT,
    pfc::PAUSE_FRAMES,
    frame::CHECKS,
    mad::MAD,
    cm::CM,
    nvme::NVME,
    rpcrdma::RPCRDMA,
    &rpcrdma::CALL,
    iser::ISER,
    &iser::CALL,
    smbd::SMBD,
    &smbd::CALL,
    tunnels::TUNNELS,
    tunnels::PRESENT,
    link::ETH_PRESENT,
    ip::IP_UDP_PRESENT,
    ipoib::PRESENT,
    ip::UPPER_PRESENT,
    link::LRH_PRESENT,
    ip::GRH_PRESENT,
    bth::PRESENT,
    pfc::PRESENT,
    frame::CHECKS_PRESENT,
    mad::PRESENT,
    cm::PRESENT,
    nvme::PRESENT,
    rpcrdma::PRESENT,
    iser::PRESENT,
    smbd::PRESENT,
    frame::CAPTURE_HEADERS_PRESENT,
];

/// The fields only Wireshark's names reach, in the order `rdmadump fields` lists them after
/// rdmadump's own.
const WIRESHARK_ORDER: &[&[Field]] = &[
    protocols::PROTOCOLS,
    bth::WIRESHARK,
    frame::WIRESHARK,
    cm::WIRESHARK,
    nvme::WIRESHARK,
    rpcrdma::WIRESHARK,
    pfc::WIRESHARK_OPCODE,
    ip::WIRESHARK,
    pfc::WIRESHARK_CLASSES,
];

/// rdmadump's own fields: the leaves of `read --json`, and more.
pub static FIELDS: [Field; count(OWN_ORDER)] = join(OWN_ORDER);

/// Fields whose value differs from every rdmadump field (a different bit range, byte order
/// or scope), under Wireshark's name: a filter copied from Wireshark finds them.
pub static WIRESHARK_ONLY: [Field; count(WIRESHARK_ORDER)] = join(WIRESHARK_ORDER);

const fn count(parts: &[&[Field]]) -> usize {
    let mut total = 0;
    let mut part = 0;
    while part < parts.len() {
        total += parts[part].len();
        part += 1;
    }
    total
}

/// The parts one after another, as one table: a `static` array, so that a filter or a
/// column holds a `&'static Field` and reads its accessor with no indirection per packet.
const fn join<const N: usize>(parts: &[&[Field]]) -> [Field; N] {
    const UNSET: Field = Field::new("", Type::Bool, "", |_| None);
    let mut out = [UNSET; N];
    let mut at = 0;
    let mut part = 0;
    while part < parts.len() {
        let mut i = 0;
        while i < parts[part].len() {
            out[at] = parts[part][i];
            at += 1;
            i += 1;
        }
        part += 1;
    }
    assert!(at == N, "the parts do not fill the table");
    out
}

/// Every field: rdmadump's own, then those only Wireshark's names reach.
pub fn all() -> impl Iterator<Item = &'static Field> {
    FIELDS.iter().chain(WIRESHARK_ONLY.iter())
}

/// The field rdmadump names `name`; Wireshark's names for fields are not looked at.
pub fn by_rdmadump_name(name: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_across_both_tables_and_wireshark_names() {
        let mut names: Vec<&str> = all()
            .map(|f| f.name)
            .chain(FIELDS.iter().filter_map(|f| match f.wireshark {
                WiresharkName::Other(theirs) => Some(theirs),
                _ => None,
            }))
            .collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "a name is defined twice");
    }

    #[test]
    fn wireshark_only_fields_have_their_own_name_and_no_column() {
        for field in WIRESHARK_ONLY.iter() {
            assert_eq!(field.wireshark_name(), Some(field.name), "{field:?}");
            assert_eq!(field.parquet, Parquet::NoColumn, "{field:?}");
        }
    }

    #[test]
    fn header_presence_fields_are_bare_flags() {
        for field in FIELDS.iter().filter(|f| f.parquet == Parquet::Header) {
            assert_eq!(field.ty, Type::Bool, "{field:?}");
            assert!(!field.name.contains('.'), "{field:?}");
        }
    }

    #[test]
    fn only_integers_are_full_width() {
        for field in FIELDS.iter().filter(|f| f.parquet == Parquet::FullWidth) {
            assert!(field.ty == Type::Int && field.each.is_none(), "{field:?}");
        }
    }
}
