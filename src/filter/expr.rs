//! A compiled filter, and its evaluation. Everything the text said is resolved at compile
//! time (fields, literals, regular expressions), so evaluating allocates nothing.

use std::net::IpAddr;

use super::set::Set;
use crate::dissect::Packet;
use crate::fields::{Field, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug)]
pub enum Expr {
    /// A bare rdmadump name: true when present and, for flags, set.
    Test(&'static Field),
    /// A bare Wireshark name: true when present, as in Wireshark (`infiniband.bth.se`
    /// holds for every BTH).
    Exists(&'static Field),
    /// The common comparison: true when any occurrence of the field compares so.
    Compare(&'static Field, Op, Value),
    /// Everything else: sets, CIDR, `contains`, `matches`, `&`, slices, functions, and the
    /// all-occurrence comparisons. Boxed to keep the common variants small.
    Check(Box<Check>),
    Not(Box<Expr>),
    /// Every operand of a run of `and` (two or more), in the order written. A flat list
    /// rather than a left-deep tree, so that evaluating and dropping a generated chain of
    /// 100,000 clauses is a loop, not 100,000 nested calls. That leaves parentheses and
    /// negations as the only source of depth, and `MAX_DEPTH` bounds those.
    And(Vec<Expr>),
    /// Every operand of a run of `or`; flat for the same reason.
    Or(Vec<Expr>),
    /// Every operand of a run of `xor`: true when an odd number hold.
    Xor(Vec<Expr>),
}

#[derive(Debug)]
pub struct Check {
    pub entity: Entity,
    /// Wireshark's `all_ne`/`all_eq`: the test must hold for every occurrence (and there
    /// must be one); otherwise for any.
    pub all: bool,
    /// `!=` with a CIDR block or text: the occurrence must not match.
    pub negate: bool,
    pub test: Test,
}

#[derive(Debug)]
pub enum Entity {
    Field(&'static Field),
    /// `len(field)`: bytes of an address, characters of a string.
    Len(&'static Field),
    /// `lower(field)` (false) or `upper(field)` (true).
    Case(&'static Field, bool),
    Slice(Source, Range),
}

#[derive(Debug)]
pub enum Source {
    /// The frame's captured bytes (`frame[0:2]`).
    Frame,
    Field(&'static Field),
}

/// Wireshark's `[start:len]`; a negative start counts from the end; `None` runs to the end.
#[derive(Debug, Clone, Copy)]
pub struct Range {
    pub start: i64,
    pub len: Option<usize>,
}

impl Range {
    /// All of it: a field compared as bytes, `frame contains`.
    pub const WHOLE: Range = Range {
        start: 0,
        len: None,
    };
}

#[derive(Debug)]
pub enum Member {
    One(Value),
    Range(Value, Value),
    Cidr(IpAddr, u8),
    Text(String),
    Bytes(Vec<u8>),
}

#[derive(Debug)]
pub enum Test {
    Exists,
    Compare(Op, Value),
    Cidr(IpAddr, u8),
    Text(String),
    In(Set),
    Contains(Vec<u8>),
    Matches(regex::Regex),
    BitAnd(u64),
    Bytes(Op, Vec<u8>),
    /// A comparison with another field: true when any occurrence of it compares so.
    Field(Op, &'static Field),
}

/// One occurrence of an entity: a value, or bytes (slices).
#[derive(Clone, Copy)]
enum Item<'a> {
    Value(Value),
    Bytes(&'a [u8]),
}

pub fn eval(expr: &Expr, pkt: &Packet<'_>) -> bool {
    match expr {
        Expr::Not(inner) => !operand(inner, pkt),
        // Operand lists, not nested pairs, so a long chain is a loop here; what recursion
        // is left follows parentheses and negations, which the parser limits to `MAX_DEPTH`.
        Expr::And(all) => all.iter().all(|e| operand(e, pkt)),
        Expr::Or(any) => any.iter().any(|e| operand(e, pkt)),
        Expr::Xor(odd) => odd.iter().filter(|e| operand(e, pkt)).count() % 2 == 1,
        leaf => operand(leaf, pkt),
    }
}

/// Tests a leaf in place, and calls `eval` only for the rest: most operands are leaves,
/// and a call for each one made evaluation slower than the binary tree the operand
/// lists replaced (measured with cachegrind on `read -Y`).
#[inline(always)]
fn operand(expr: &Expr, pkt: &Packet<'_>) -> bool {
    match expr {
        Expr::Test(field) => match (field.get)(pkt) {
            Some(Value::Bool(b)) => b,
            Some(_) => true,
            None => false,
        },
        Expr::Exists(field) => (field.get)(pkt).is_some(),
        // As in Wireshark, a comparison with a field the packet lacks is false, even `!=`.
        Expr::Compare(field, op, want) => match field.each {
            None => (field.get)(pkt).is_some_and(|got| compare(got, *op, *want)),
            Some(each) => each.values(pkt).any(|got| compare(got, *op, *want)),
        },
        Expr::Check(check) => checked(check, pkt),
        Expr::Not(_) | Expr::And(_) | Expr::Or(_) | Expr::Xor(_) => eval(expr, pkt),
    }
}

// Once `eval` tests leaves in place the compiler stops inlining this on its own, and the
// call is a measurable share of evaluating a comparison.
#[inline(always)]
fn compare(got: Value, op: Op, want: Value) -> bool {
    match (got, want) {
        (Value::Int(a), Value::Int(b)) => ordered(a.cmp(&b), op),
        (a, b) => ordered(a.cmp(&b), op),
    }
}

#[inline(always)]
fn ordered(order: std::cmp::Ordering, op: Op) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match op {
        Op::Eq => order == Equal,
        Op::Ne => order != Equal,
        Op::Lt => order == Less,
        Op::Le => order != Greater,
        Op::Gt => order == Greater,
        Op::Ge => order != Less,
    }
}

fn checked(check: &Check, pkt: &Packet<'_>) -> bool {
    let fold = match check.entity {
        Entity::Case(_, upper) => Some(upper),
        _ => None,
    };
    let mut seen = false;
    let mut any = false;
    let mut all = true;
    visit(&check.entity, pkt, &mut |item| {
        seen = true;
        let holds = test(&check.test, item, fold, pkt) != check.negate;
        any |= holds;
        all &= holds;
    });
    if check.all { seen && all } else { any }
}

/// Calls `each` with every occurrence of the entity in the packet.
fn visit(entity: &Entity, pkt: &Packet<'_>, each: &mut dyn FnMut(Item<'_>)) {
    let field = match entity {
        Entity::Field(f) | Entity::Len(f) | Entity::Case(f, _) => *f,
        Entity::Slice(Source::Frame, range) => {
            if let Some(bytes) = range.of(frame_bytes(pkt)) {
                each(Item::Bytes(bytes));
            }
            return;
        }
        Entity::Slice(Source::Field(f), _) => f,
    };
    let mut one = |value: Value| match entity {
        Entity::Field(_) | Entity::Case(..) => each(Item::Value(value)),
        Entity::Len(_) => each(Item::Value(Value::Int(length(field, value)))),
        Entity::Slice(_, range) => {
            let mut buffer = [0u8; 16];
            let bytes = value_bytes(field, value, &mut buffer);
            if let Some(bytes) = range.of(bytes) {
                each(Item::Bytes(bytes));
            }
        }
    };
    match field.each {
        None => {
            if let Some(value) = (field.get)(pkt) {
                one(value);
            }
        }
        Some(each) => each.values(pkt).for_each(one),
    }
}

/// The frame's bytes as Wireshark has them: an ERF record's begin after its header, its
/// extension headers and, for Ethernet, the two bytes of offset and padding.
fn frame_bytes<'a>(pkt: &Packet<'a>) -> &'a [u8] {
    const HEADER: usize = 16;
    const EXTENSION: usize = 8;
    const ETHERNET: u8 = 2;
    let Some(erf) = pkt.erf else {
        return pkt.data;
    };
    let mut start = HEADER;
    let mut more = pkt.data.get(8).is_some_and(|t| t & 0x80 != 0);
    while more {
        more = pkt.data.get(start).is_some_and(|t| t & 0x80 != 0);
        start += EXTENSION;
    }
    if erf.record_type == ETHERNET {
        start += 2;
    }
    let end = start
        .saturating_add(pkt.caplen as usize)
        .min(pkt.data.len());
    pkt.data.get(start..end).unwrap_or(&[])
}

fn length(field: &Field, value: Value) -> u64 {
    if field.bytes > 0 {
        return u64::from(field.bytes);
    }
    match value {
        Value::Str(s) => s.chars().count() as u64,
        Value::Ip(IpAddr::V4(_)) => 4,
        Value::Ip(IpAddr::V6(_)) => 16,
        Value::Mac(_) => 6,
        Value::Int(_) | Value::Bool(_) | Value::Time(_) => 0,
    }
}

fn value_bytes<'b>(field: &Field, value: Value, buffer: &'b mut [u8; 16]) -> &'b [u8] {
    match value {
        Value::Int(n) if field.bytes > 0 => {
            let width = usize::from(field.bytes).min(8);
            buffer[..8].copy_from_slice(&n.to_be_bytes());
            &buffer[8 - width..8]
        }
        Value::Mac(mac) => {
            buffer[..6].copy_from_slice(&mac);
            &buffer[..6]
        }
        Value::Ip(IpAddr::V4(a)) => {
            buffer[..4].copy_from_slice(&a.octets());
            &buffer[..4]
        }
        Value::Ip(IpAddr::V6(a)) => {
            buffer.copy_from_slice(&a.octets());
            &buffer[..]
        }
        _ => &[],
    }
}

impl Range {
    /// The bytes the range selects, or `None` when it reaches past them (Wireshark: the
    /// slice is then absent, and every comparison with it false).
    fn of(self, bytes: &[u8]) -> Option<&[u8]> {
        let start = if self.start < 0 {
            bytes
                .len()
                .checked_sub(self.start.unsigned_abs() as usize)?
        } else {
            usize::try_from(self.start).ok()?
        };
        let end = match self.len {
            Some(len) => start.checked_add(len)?,
            None => bytes.len(),
        };
        bytes.get(start..end)
    }
}

/// `fold` is `lower()` (false) or `upper()` (true), applied to string occurrences.
fn test(test: &Test, item: Item<'_>, fold: Option<bool>, pkt: &Packet<'_>) -> bool {
    match (test, item) {
        (Test::Exists, _) => true,
        (Test::Compare(op, want), Item::Value(got)) => compare(got, *op, *want),
        (Test::Cidr(net, bits), Item::Value(Value::Ip(addr))) => in_block(addr, *net, *bits),
        (Test::Text(want), Item::Value(Value::Str(got))) => text_equals(got, want, fold),
        (Test::In(set), Item::Value(got)) => set.holds(got, fold),
        (Test::In(set), Item::Bytes(got)) => set.holds_bytes(got),
        (Test::Contains(needle), Item::Value(Value::Str(s))) => {
            s.as_bytes()
                .windows(needle.len().max(1))
                .any(|w| w.iter().zip(needle).all(|(&a, &b)| folded(a, fold) == b))
                || needle.is_empty()
        }
        (Test::Contains(needle), Item::Value(Value::Mac(mac))) => contains(&mac, needle),
        (Test::Contains(needle), Item::Bytes(bytes)) => contains(bytes, needle),
        (Test::Matches(regex), Item::Value(Value::Str(s))) => regex.is_match(s),
        (Test::BitAnd(mask), Item::Value(Value::Int(n))) => n & mask != 0,
        // A slice is a big-endian number here, as Wireshark reads `eth.dst[0] & 1`.
        (Test::BitAnd(mask), Item::Bytes(b)) => {
            b.iter()
                .rev()
                .take(8)
                .rev()
                .fold(0u64, |n, &x| n << 8 | u64::from(x))
                & mask
                != 0
        }
        (Test::Bytes(op, want), Item::Bytes(got)) => ordered(got.cmp(want), *op),
        (Test::Field(op, other), Item::Value(got)) => match other.each {
            None => (other.get)(pkt).is_some_and(|want| compare(got, *op, want)),
            Some(each) => each.values(pkt).any(|want| compare(got, *op, want)),
        },
        _ => false,
    }
}

fn folded(byte: u8, fold: Option<bool>) -> u8 {
    match fold {
        Some(true) => byte.to_ascii_uppercase(),
        Some(false) => byte.to_ascii_lowercase(),
        None => byte,
    }
}

pub(super) fn text_equals(got: &str, want: &str, fold: Option<bool>) -> bool {
    got.len() == want.len()
        && got
            .bytes()
            .zip(want.bytes())
            .all(|(a, b)| folded(a, fold) == b)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

pub(super) fn in_block(addr: IpAddr, net: IpAddr, bits: u8) -> bool {
    match (addr, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}
