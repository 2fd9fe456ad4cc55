//! Rows of a dataset as plain bytes. The worker threads turn the frames they hold into rows,
//! and the Parquet writer's thread appends those rows to its columns, so that the one thread
//! that must see every frame in order (the analysis) does neither.

use std::io::Write as _;

use super::columns::{Cell, Table};

/// Where a row's cells go: into a table's columns, or into bytes for another thread.
pub trait RowSink {
    fn cell(&mut self, column: usize, cell: Cell<'_>);
    /// A string cell made by formatting `value`.
    fn display(&mut self, column: usize, value: impl std::fmt::Display);
    /// A list cell; null elements keep their place.
    fn list(&mut self, column: usize, cells: &[Cell<'_>]);
    fn end_row(&mut self);
}

impl RowSink for Table {
    fn cell(&mut self, column: usize, cell: Cell<'_>) {
        self.push(column, cell);
    }

    fn display(&mut self, column: usize, value: impl std::fmt::Display) {
        self.push_display(column, value);
    }

    fn list(&mut self, column: usize, cells: &[Cell<'_>]) {
        self.push_list(column, Some(cells.iter().copied()));
    }

    fn end_row(&mut self) {
        Table::end_row(self);
    }
}

const END_ROW: u16 = u16::MAX;
const NULL: u8 = 0;
const INT: u8 = 1;
const UINT: u8 = 2;
const BOOL: u8 = 3;
const STR: u8 = 4;
const TIME_NS: u8 = 5;
const LIST: u8 = 6;

/// Rows appended to a byte buffer: per cell its column (u16), a tag and the value; a string
/// is its length (u32) and bytes. Nothing is allocated once the buffer has grown.
pub struct RowBytes<'b>(pub &'b mut Vec<u8>);

impl RowBytes<'_> {
    fn value(&mut self, cell: Cell<'_>) {
        let out = &mut *self.0;
        match cell {
            Cell::Null => out.push(NULL),
            Cell::Int(v) => {
                out.push(INT);
                out.extend_from_slice(&v.to_le_bytes());
            }
            Cell::UInt(v) => {
                out.push(UINT);
                out.extend_from_slice(&v.to_le_bytes());
            }
            Cell::Bool(v) => out.extend_from_slice(&[BOOL, u8::from(v)]),
            Cell::Str(v) => {
                out.push(STR);
                // A string longer than 4 GiB cannot come from one frame.
                let len = u32::try_from(v.len()).unwrap_or(u32::MAX);
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(&v.as_bytes()[..len as usize]);
            }
            Cell::TimeNs(v) => {
                out.push(TIME_NS);
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }

    fn column(&mut self, column: usize) -> bool {
        match u16::try_from(column) {
            Ok(c) if c != END_ROW => {
                self.0.extend_from_slice(&c.to_le_bytes());
                true
            }
            _ => false,
        }
    }
}

impl RowSink for RowBytes<'_> {
    fn cell(&mut self, column: usize, cell: Cell<'_>) {
        if !matches!(cell, Cell::Null) && self.column(column) {
            self.value(cell);
        }
    }

    fn display(&mut self, column: usize, value: impl std::fmt::Display) {
        if !self.column(column) {
            return;
        }
        let out = &mut *self.0;
        out.push(STR);
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        let _ = write!(out, "{value}");
        let len = u32::try_from(out.len() - at - 4).unwrap_or(u32::MAX);
        out[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }

    fn list(&mut self, column: usize, cells: &[Cell<'_>]) {
        let Ok(count) = u16::try_from(cells.len()) else {
            return;
        };
        if !self.column(column) {
            return;
        }
        self.0.push(LIST);
        self.0.extend_from_slice(&count.to_le_bytes());
        for &cell in cells {
            self.value(cell);
        }
    }

    fn end_row(&mut self) {
        self.0.extend_from_slice(&END_ROW.to_le_bytes());
    }
}

/// Reads what [`RowBytes`] wrote.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.bytes.split_at_checked(n)?;
        self.bytes = rest;
        Some(head)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn value(&mut self) -> Option<Cell<'a>> {
        let [tag] = self.array::<1>()?;
        Some(match tag {
            NULL => Cell::Null,
            INT => Cell::Int(i64::from_le_bytes(self.array()?)),
            UINT => Cell::UInt(u64::from_le_bytes(self.array()?)),
            BOOL => Cell::Bool(self.array::<1>()?[0] != 0),
            STR => {
                let len = u32::from_le_bytes(self.array()?) as usize;
                Cell::Str(std::str::from_utf8(self.take(len)?).ok()?)
            }
            TIME_NS => Cell::TimeNs(u64::from_le_bytes(self.array()?)),
            _ => return None,
        })
    }
}

/// Appends the rows in `bytes` to `table`; returns how many. Bytes that [`RowBytes`] did not
/// write stop the reading, and leave a row that the table's `finish` refuses, not a
/// misaligned file.
pub fn append_rows(table: &mut Table, bytes: &[u8]) -> usize {
    let mut reader = Reader { bytes };
    let mut rows = 0;
    let mut list: Vec<Cell<'_>> = Vec::new();
    while !reader.bytes.is_empty() {
        let Some(column) = reader.array::<2>().map(u16::from_le_bytes) else {
            break;
        };
        if column == END_ROW {
            table.end_row();
            rows += 1;
            continue;
        }
        let column = usize::from(column);
        if reader.bytes.first() == Some(&LIST) {
            reader.bytes = &reader.bytes[1..];
            let Some(count) = reader.array::<2>().map(u16::from_le_bytes) else {
                break;
            };
            list.clear();
            for _ in 0..count {
                match reader.value() {
                    Some(cell) => list.push(cell),
                    None => return rows,
                }
            }
            table.push_list(column, Some(list.iter().copied()));
        } else {
            match reader.value() {
                Some(cell) => table.push(column, cell),
                None => break,
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::parquet::columns::{ColumnSpec, ColumnType};
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int64Type, UInt64Type};

    fn columns() -> Vec<ColumnSpec> {
        vec![
            ColumnSpec::new("i", ColumnType::Int, ""),
            ColumnSpec::new("u", ColumnType::UInt, ""),
            ColumnSpec::new("b", ColumnType::Bool, ""),
            ColumnSpec::new("s", ColumnType::Str, ""),
            ColumnSpec::new("l", ColumnType::IntList, ""),
        ]
    }

    /// The same rows, written straight and through bytes, make the same batch.
    #[test]
    fn rows_through_bytes_equal_rows_written_straight() {
        fn rows(sink: &mut impl RowSink) {
            sink.cell(0, Cell::Int(-5));
            sink.cell(1, Cell::UInt(u64::MAX));
            sink.display(3, format_args!("{}-{}", "a", 7));
            sink.end_row();
            sink.cell(2, Cell::Bool(true));
            sink.list(4, &[Cell::UInt(1), Cell::Null, Cell::Int(3)]);
            sink.end_row();
            sink.end_row();
        }
        let mut straight = Table::new(&columns());
        rows(&mut straight);
        let mut bytes = Vec::new();
        rows(&mut RowBytes(&mut bytes));
        let mut through = Table::new(&columns());
        assert_eq!(append_rows(&mut through, &bytes), 3);
        let (a, b) = (straight.finish().unwrap(), through.finish().unwrap());
        assert_eq!(a, b);
        assert_eq!(b.num_rows(), 3);
        assert_eq!(b.column(0).as_primitive::<Int64Type>().value(0), -5);
        assert_eq!(b.column(1).as_primitive::<UInt64Type>().value(0), u64::MAX);
        assert_eq!(b.column(3).as_string::<i32>().value(0), "a-7");
        assert!(b.column(3).is_null(1));
        let list = b.column(4).as_list::<i32>().value(1);
        assert_eq!(list.len(), 3);
        assert!(list.is_null(1));
    }

    #[test]
    fn damaged_bytes_are_refused_not_written() {
        let mut bytes = Vec::new();
        let mut sink = RowBytes(&mut bytes);
        sink.cell(3, Cell::Str("whole"));
        sink.end_row();
        sink.cell(3, Cell::Str("cut"));
        sink.cell(0, Cell::Int(1));
        let cut = bytes.len() - 2;
        let mut table = Table::new(&columns());
        assert_eq!(append_rows(&mut table, &bytes[..cut]), 1);
        assert!(table.finish().is_err());
    }
}
