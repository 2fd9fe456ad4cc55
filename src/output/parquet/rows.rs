//! Typed rows for the `connections` and `events` datasets: each column is declared with
//! the function that reads its value from the typed report row, so a column and its value
//! cannot drift apart the way a column and a string key of the report's JSON could (a
//! renamed key made the column null without a word).

use std::fmt::Display;

use super::columns::{Cell, ColumnSpec, ColumnType, Table};

/// Appends a row's cell to column `usize` of the table.
type Write<R> = Box<dyn Fn(&R, &mut Table, usize)>;

/// One column: its specification, and how a row of type `R` fills it.
pub struct RowColumn<R> {
    pub spec: ColumnSpec,
    write: Write<R>,
}

/// A dataset's columns, in order, each with its reader.
pub struct RowSchema<R> {
    pub columns: Vec<RowColumn<R>>,
}

impl<R> RowSchema<R> {
    pub fn new(columns: Vec<RowColumn<R>>) -> Self {
        RowSchema { columns }
    }

    pub fn specs(&self) -> Vec<ColumnSpec> {
        self.columns.iter().map(|c| c.spec.clone()).collect()
    }

    /// Appends one row: every column reads its value from `row`.
    pub fn push(&self, table: &mut Table, row: &R) {
        for (i, column) in self.columns.iter().enumerate() {
            (column.write)(row, table, i);
        }
        table.end_row();
    }
}

/// A typed value as a cell; `None` is null.
pub trait ToCell {
    fn to_cell(&self) -> Cell<'_>;
}

macro_rules! signed_cells {
    ($($t:ty),*) => {$(
        impl ToCell for $t {
            fn to_cell(&self) -> Cell<'_> {
                Cell::Int(i64::from(*self))
            }
        }
    )*};
}
signed_cells!(u8, u16, u32, i64);

impl ToCell for u64 {
    fn to_cell(&self) -> Cell<'_> {
        Cell::UInt(*self)
    }
}

impl ToCell for bool {
    fn to_cell(&self) -> Cell<'_> {
        Cell::Bool(*self)
    }
}

impl ToCell for &str {
    fn to_cell(&self) -> Cell<'_> {
        Cell::Str(self)
    }
}

impl ToCell for String {
    fn to_cell(&self) -> Cell<'_> {
        Cell::Str(self)
    }
}

impl<T: ToCell> ToCell for Option<T> {
    fn to_cell(&self) -> Cell<'_> {
        self.as_ref().map_or(Cell::Null, ToCell::to_cell)
    }
}

/// A column of type `ty` whose value `get` reads.
pub fn column<R, T: ToCell>(
    name: &str,
    ty: ColumnType,
    about: &str,
    get: impl Fn(&R) -> T + 'static,
) -> RowColumn<R> {
    RowColumn {
        spec: ColumnSpec::new(name, ty, about),
        write: Box::new(move |row, table, i| table.push(i, get(row).to_cell())),
    }
}

pub fn int<R, T: ToCell>(name: &str, about: &str, get: impl Fn(&R) -> T + 'static) -> RowColumn<R> {
    column(name, ColumnType::Int, about, get)
}

pub fn text<R, T: ToCell>(
    name: &str,
    about: &str,
    get: impl Fn(&R) -> T + 'static,
) -> RowColumn<R> {
    column(name, ColumnType::Str, about, get)
}

/// A string column written from a value's `Display` (an address), without an allocation.
pub fn shown<R, D: Display>(
    name: &str,
    about: &str,
    get: impl Fn(&R) -> Option<D> + 'static,
) -> RowColumn<R> {
    RowColumn {
        spec: ColumnSpec::new(name, ColumnType::Str, about),
        write: Box::new(move |row, table, i| {
            if let Some(value) = get(row) {
                table.push_display(i, value);
            }
        }),
    }
}

/// A timestamp column from nanoseconds since the epoch.
pub fn timestamp<R>(
    name: &str,
    about: &str,
    get: impl Fn(&R) -> Option<u64> + 'static,
) -> RowColumn<R> {
    RowColumn {
        spec: ColumnSpec::new(name, ColumnType::Timestamp, about),
        write: Box::new(move |row, table, i| {
            table.push(i, get(row).map_or(Cell::Null, Cell::TimeNs))
        }),
    }
}

/// A list column: `get` gives its items (a null item keeps its place), or `None` for a
/// null list.
pub fn list<R, T: ToCell>(
    name: &str,
    ty: ColumnType,
    about: &str,
    get: impl Fn(&R) -> Option<Vec<T>> + 'static,
) -> RowColumn<R> {
    RowColumn {
        spec: ColumnSpec::new(name, ty, about),
        write: Box::new(move |row, table, i| {
            let items = get(row);
            table.push_list(i, items.as_ref().map(|v| v.iter().map(ToCell::to_cell)));
        }),
    }
}
