//! The `packets` dataset: one row per frame, one column per leaf of `read --json`, filled
//! by the field catalogue's accessors so that a column and the filter field of the same
//! name can never disagree. Whether a field is a column, and how wide, the field says
//! ([`Parquet`]).

use std::sync::LazyLock;

use crate::dissect::scalars;
use std::fmt::Write as _;

use super::columns::{Cell, ColumnSpec, ColumnType, Table, Values};
use crate::dissect::Packet;
use crate::fields::{FIELDS, Field, Parquet, Type, Value};

/// The JSON's `message` of `error` and `truncated`, placed after the field named first.
type MessageColumn = (
    &'static str,
    &'static str,
    &'static str,
    fn(&Packet<'_>) -> Option<crate::wire::DecodeError>,
);
const MESSAGES: [MessageColumn; 2] = [
    (
        "error.offset",
        "error.message",
        "what was wrong where decoding stopped",
        |p| p.error,
    ),
    (
        "truncated.offset",
        "truncated.message",
        "what the snaplen cut",
        |p| p.truncated,
    ),
];

/// How many occurrences a repeated field has in a frame: a list column has one element per
/// tag or tunnel, null where that one lacks the field, so that lists of one header line up.
type Occurrences = fn(&Packet<'_>) -> usize;

#[derive(Clone)]
enum Source {
    Capture,
    /// The text of where decoding stopped: made at run time, so not a filter field.
    Message(fn(&Packet<'_>) -> Option<crate::wire::DecodeError>),
    Scalar(&'static Field),
    List(&'static Field, Occurrences),
}

#[derive(Clone)]
struct Column {
    spec: ColumnSpec,
    source: Source,
    /// The header whose presence field must hold for the column to have a value (an index
    /// into [`PacketColumns::headers`]): a frame without it skips the column's accessor.
    header: Option<usize>,
}

/// The columns rows are built with: all of the table's for `export`, or those a caller
/// asked for ([`select`]), in the order asked. A column left out costs nothing per frame:
/// its accessor is never called.
pub struct PacketColumns {
    columns: Vec<Column>,
    /// Consecutive columns under one header: a frame without the header skips them all.
    runs: Vec<(Option<usize>, std::ops::Range<usize>)>,
    /// The header presence fields (`eth`, `bth`, `mad`...), all of them: a column's
    /// `header` indexes this list.
    headers: Vec<&'static Field>,
    /// The headers some column here is under: the only ones a frame is asked for.
    needed: Vec<usize>,
    /// Tells these columns from others, for a table built with them and kept for reuse.
    id: usize,
}

impl PacketColumns {
    fn new(columns: Vec<Column>, headers: Vec<&'static Field>, id: usize) -> Self {
        let mut runs: Vec<(Option<usize>, std::ops::Range<usize>)> = Vec::new();
        for (i, column) in columns.iter().enumerate() {
            match runs.last_mut() {
                Some((header, range)) if *header == column.header => range.end = i + 1,
                _ => runs.push((column.header, i..i + 1)),
            }
        }
        let mut needed: Vec<usize> = runs.iter().filter_map(|(header, _)| *header).collect();
        needed.sort_unstable();
        needed.dedup();
        PacketColumns {
            columns,
            runs,
            headers,
            needed,
            id,
        }
    }

    /// The columns, in order.
    pub fn specs(&self) -> Vec<ColumnSpec> {
        self.columns.iter().map(|c| c.spec.clone()).collect()
    }

    /// Which columns these are: equal ids, equal columns.
    pub fn id(&self) -> usize {
        self.id
    }

    /// Appends one frame as a row of `table`, a table of [`Self::specs`]. Addresses are
    /// formatted in the table's scratch buffer, so that a row allocates nothing once it
    /// has grown.
    pub fn push(&self, table: &mut Table, capture: &str, pkt: &Packet<'_>) {
        let mut present = [false; 64];
        for &header in &self.needed {
            if let (Some(slot), Some(field)) = (present.get_mut(header), self.headers.get(header)) {
                *slot = (field.get)(pkt).is_some();
            }
        }
        let mut scratch = std::mem::take(&mut table.scratch);
        // A column given no cell is null in this row.
        for (header, range) in &self.runs {
            if header.is_some_and(|h| !present.get(h).copied().unwrap_or(true)) {
                continue;
            }
            for (index, column) in self.columns[range.clone()].iter().enumerate() {
                let index = range.start + index;
                match &column.source {
                    Source::Capture => table.push(index, Cell::Str(capture)),
                    Source::Message(error) => {
                        if let Some(err) = error(pkt) {
                            scratch.clear();
                            let _ = write!(scratch, "{err}");
                            table.push(index, Cell::Str(&scratch));
                        }
                    }
                    Source::Scalar(field) => {
                        push_value(table, &mut scratch, index, (field.get)(pkt))
                    }
                    Source::List(field, count) => {
                        push_list(table, &mut scratch, index, field, *count, pkt)
                    }
                }
            }
        }
        table.scratch = scratch;
        table.end_row();
    }
}

/// The id of [`all`]'s columns; each [`select`]ion takes the next one.
static NEXT_ID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);

fn occurrences(field: &Field) -> Option<Occurrences> {
    field.each?;
    let name = field.name;
    if name.starts_with("tunnel.") {
        Some(|p| p.tunnels.len())
    } else if name.starts_with("eth.vlan.") {
        Some(|p| p.vlans.iter().count())
    } else if name.starts_with("mad.dr.") {
        Some(|p| {
            p.mad
                .filter(|m| m.header.is_directed_route() && m.smp().is_some())
                .map_or(0, |m| usize::from(m.header.hop_count()))
        })
    } else if name == "pfc.quanta" {
        Some(|p| if p.pfc.is_some() { 8 } else { 0 })
    } else if name.starts_with("rpcrdma.") {
        crate::fields::rpcrdma_list_len(name)
    } else if name.starts_with("smbd.") {
        crate::fields::smbd_list_len(name)
    } else {
        None
    }
}

static COLUMNS: LazyLock<PacketColumns> = LazyLock::new(|| {
    let headers: Vec<&'static Field> = FIELDS
        .iter()
        .filter(|f| f.parquet == Parquet::Header)
        .collect();
    let header_of = |name: &str| {
        let first = name.split('.').next().unwrap_or(name);
        headers.iter().position(|h| h.key() == first)
    };
    let mut columns = vec![Column {
        spec: ColumnSpec::new(
            "capture",
            ColumnType::Str,
            "the capture file's name, without its directory",
        ),
        source: Source::Capture,
        header: None,
    }];
    for field in FIELDS.iter() {
        if matches!(field.parquet, Parquet::NoColumn | Parquet::Header) {
            continue;
        }
        let list = occurrences(field);
        let ty = match (field.ty, list.is_some()) {
            (Type::Int, false) if field.parquet == Parquet::FullWidth => ColumnType::UInt,
            (Type::Int, false) => ColumnType::Int,
            (Type::Int, true) => ColumnType::IntList,
            (Type::Bool, _) => ColumnType::Bool,
            (Type::Time, _) => ColumnType::Timestamp,
            (_, false) => ColumnType::Str,
            (_, true) => ColumnType::StrList,
        };
        let about = match field.name {
            "len" => "frame length on the wire in bytes",
            "ts" => "capture time, to the microsecond (ts_ns has every nanosecond)",
            _ => field.description,
        };
        if let Some(message) = MESSAGES.iter().find(|m| field.name == m.0) {
            columns.push(Column {
                spec: ColumnSpec::new(column_name(message.1), ColumnType::Str, message.2),
                source: Source::Message(message.3),
                header: header_of(field.key()),
            });
        }
        let values = match field.name {
            "frame" | "ts" | "ts_ns" => Values::Rising,
            "icrc.value" | "icrc.computed" | "vcrc.value" | "vcrc.computed" => Values::Unique,
            _ => Values::Repeating,
        };
        columns.push(Column {
            spec: ColumnSpec::new(column_name(field.key()), ty, about).with_values(values),
            source: match list {
                Some(count) => Source::List(field, count),
                None => Source::Scalar(field),
            },
            header: header_of(field.key()),
        });
    }
    PacketColumns::new(columns, headers, 0)
});

/// A field's column name: `.` becomes `_`, as SQL engines want plain identifiers.
pub fn column_name(field: &str) -> String {
    field.replace('.', "_")
}

/// The columns of the `packets` dataset, in order.
pub fn columns() -> Vec<ColumnSpec> {
    COLUMNS.specs()
}

/// Every column of the `packets` dataset, as `export` writes them.
pub fn all() -> &'static PacketColumns {
    &COLUMNS
}

/// The columns named `names` (column names, as [`columns`] gives them), in that order;
/// the name that is no column is the error.
pub fn select(names: &[String]) -> Result<PacketColumns, String> {
    let all = &*COLUMNS;
    let columns = names
        .iter()
        .map(|name| {
            all.columns
                .iter()
                .find(|c| &c.spec.name == name)
                .cloned()
                .ok_or_else(|| name.clone())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(PacketColumns::new(columns, all.headers.clone(), id))
}

/// Appends one frame as a row of `table`, a table of [`columns`].
pub fn push(table: &mut Table, capture: &str, pkt: &Packet<'_>) {
    COLUMNS.push(table, capture, pkt);
}

fn push_value(table: &mut Table, scratch: &mut String, index: usize, value: Option<Value>) {
    match value {
        None => {}
        Some(Value::Int(v)) => table.push(index, Cell::UInt(v)),
        Some(Value::Bool(v)) => table.push(index, Cell::Bool(v)),
        Some(Value::Str(v)) => table.push(index, Cell::Str(v)),
        Some(Value::Time(ns)) => table.push(index, Cell::TimeNs(ns)),
        Some(Value::Ip(ip)) => {
            scratch.clear();
            write_ip(scratch, ip);
            table.push(index, Cell::Str(scratch));
        }
        Some(Value::Mac(mac)) => {
            scratch.clear();
            write_mac(scratch, mac);
            table.push(index, Cell::Str(scratch));
        }
    }
}

/// An address as `read --json` writes it, through the same formatter: this runs for two
/// columns of nearly every frame, and `fmt` costs several times more.
fn write_ip(out: &mut String, ip: std::net::IpAddr) {
    match ip {
        std::net::IpAddr::V4(v4) => {
            let mut buf = [0; 16];
            let len = scalars::ipv4(&mut buf, v4);
            push_ascii(out, &buf[..len]);
        }
        std::net::IpAddr::V6(v6) => {
            let mut buf = [0; scalars::IPV6_MAX_LEN];
            let len = scalars::ipv6(&mut buf, v6);
            push_ascii(out, &buf[..len]);
        }
    }
}

/// `aa:bb:cc:dd:ee:ff`, as `read --json` writes it.
fn write_mac(out: &mut String, mac: [u8; 6]) {
    let mut buf = [0; 18];
    let len = scalars::mac(&mut buf, mac);
    push_ascii(out, &buf[..len]);
}

fn push_ascii(out: &mut String, text: &[u8]) {
    out.push_str(scalars::ascii(text));
}

fn push_list(
    table: &mut Table,
    text: &mut String,
    index: usize,
    field: &Field,
    count: Occurrences,
    pkt: &Packet<'_>,
) {
    // No more than the field says a frame can hold (`Each::max`), as filters and `-e` read.
    let Some(each) = field.each else { return };
    let n = count(pkt).min(each.max);
    if n == 0 {
        return;
    }
    let values: smallvec::SmallVec<[Option<Value>; 8]> =
        (0..n).map(|i| (each.get)(pkt, i)).collect();
    // A list with no value is the JSON's absent key, not a list of nulls.
    if values.iter().all(Option::is_none) {
        return;
    }
    // Addresses are formatted one after another into the scratch buffer, then borrowed.
    text.clear();
    let mut ends: smallvec::SmallVec<[usize; 8]> = smallvec::SmallVec::with_capacity(n);
    for value in &values {
        match value {
            Some(Value::Ip(ip)) => write_ip(text, *ip),
            Some(Value::Mac(mac)) => write_mac(text, *mac),
            _ => {}
        }
        ends.push(text.len());
    }
    let cells = values.iter().enumerate().map(|(i, value)| {
        let start = if i == 0 { 0 } else { ends[i - 1] };
        match value {
            None => Cell::Null,
            Some(Value::Int(v)) => Cell::UInt(*v),
            Some(Value::Bool(v)) => Cell::Bool(*v),
            Some(Value::Str(v)) => Cell::Str(v),
            Some(Value::Time(ns)) => Cell::TimeNs(*ns),
            Some(Value::Ip(_) | Value::Mac(_)) => Cell::Str(&text[start..ends[i]]),
        }
    });
    table.push_list(index, Some(cells));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_names_are_unique_identifiers() {
        let columns = columns();
        let mut names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
        assert!(
            names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        );
        let total = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), total, "two fields map to one column");
    }

    #[test]
    fn a_selection_has_the_columns_named_in_their_order() {
        let names = ["bth_psn".to_string(), "frame".to_string()];
        let selected = select(&names).expect("both are columns");
        let specs: Vec<String> = selected.specs().into_iter().map(|c| c.name).collect();
        assert_eq!(specs, names);
        assert_ne!(selected.id(), all().id());
        assert_eq!(
            select(&["frame".to_string(), "no_such".to_string()]).err(),
            Some("no_such".to_string())
        );
    }

    #[test]
    fn there_are_few_enough_headers_to_track() {
        assert!(COLUMNS.headers.len() <= 64);
    }

    #[test]
    fn every_repeated_field_is_a_list_or_deliberately_left_out() {
        for field in FIELDS.iter().filter(|f| f.each.is_some()) {
            assert!(
                occurrences(field).is_some() || field.parquet == Parquet::NoColumn,
                "{} occurs several times but has no list column",
                field.name
            );
        }
    }
}
