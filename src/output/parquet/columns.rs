//! Typed columns that fill one Arrow record batch at a time: the schema and the builders
//! come from one list of column specifications, so they cannot disagree.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Int64Builder, ListBuilder, StringBuilder, TimestampMicrosecondBuilder,
    UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch, new_null_array};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef, TimeUnit};

/// A column's type, as the datasets use them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// Signed 64-bit: every integer that fits, which Spark reads as `bigint`.
    Int,
    /// Unsigned 64-bit, for the fields that use all 64 bits (virtual addresses, GUIDs,
    /// transaction IDs); DuckDB reads `ubigint`, Spark `decimal(20,0)`.
    UInt,
    Bool,
    Str,
    /// Microseconds since the epoch, UTC: Spark cannot read nanosecond timestamps, so the
    /// full resolution is in the integer `ts_ns` beside it.
    Timestamp,
    IntList,
    StrList,
}

impl ColumnType {
    pub fn data_type(self) -> DataType {
        match self {
            ColumnType::Int => DataType::Int64,
            ColumnType::UInt => DataType::UInt64,
            ColumnType::Bool => DataType::Boolean,
            ColumnType::Str => DataType::Utf8,
            ColumnType::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, Some(UTC.into())),
            ColumnType::IntList => {
                DataType::List(Arc::new(Field::new_list_field(DataType::Int64, true)))
            }
            ColumnType::StrList => {
                DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true)))
            }
        }
    }

    /// The Arrow type as the schema documentation writes it.
    pub fn arrow_name(self) -> &'static str {
        match self {
            ColumnType::Int => "Int64",
            ColumnType::UInt => "UInt64",
            ColumnType::Bool => "Boolean",
            ColumnType::Str => "Utf8",
            ColumnType::Timestamp => "Timestamp(Microsecond, \"UTC\")",
            ColumnType::IntList => "List<Int64>",
            ColumnType::StrList => "List<Utf8>",
        }
    }
}

const UTC: &str = "UTC";

/// One column: its name in the dataset, its type, and one line for the documentation.
#[derive(Debug, Clone)]
pub struct ColumnSpec {
    pub name: String,
    pub ty: ColumnType,
    pub about: String,
    pub values: Values,
}

/// How a column's values run from row to row, which picks its Parquet encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// Few distinct values (opcodes, addresses, QPs): a dictionary pays for strings, and
    /// integers are delta-packed (`dataset.rs` says why).
    Repeating,
    /// Nearly every value new (CRCs): a dictionary only costs time before parquet gives it up.
    Unique,
    /// Growing from row to row (frame numbers, timestamps): deltas are small.
    Rising,
}

impl ColumnSpec {
    pub fn new(name: impl Into<String>, ty: ColumnType, about: impl Into<String>) -> Self {
        ColumnSpec {
            name: name.into(),
            ty,
            about: about.into(),
            values: Values::Repeating,
        }
    }

    pub fn with_values(mut self, values: Values) -> Self {
        self.values = values;
        self
    }
}

/// The Arrow schema of a list of columns; every column may be null.
pub fn schema_of(columns: &[ColumnSpec]) -> SchemaRef {
    Arc::new(Schema::new(
        columns
            .iter()
            .map(|c| Field::new(c.name.as_str(), c.ty.data_type(), true))
            .collect::<Vec<_>>(),
    ))
}

enum Builder {
    Int(Int64Builder),
    UInt(UInt64Builder),
    Bool(BooleanBuilder),
    Str(StringBuilder),
    Timestamp(TimestampMicrosecondBuilder),
    IntList(ListBuilder<Int64Builder>),
    StrList(ListBuilder<StringBuilder>),
}

impl Builder {
    fn new(ty: ColumnType) -> Self {
        match ty {
            ColumnType::Int => Builder::Int(Int64Builder::new()),
            ColumnType::UInt => Builder::UInt(UInt64Builder::new()),
            ColumnType::Bool => Builder::Bool(BooleanBuilder::new()),
            ColumnType::Str => Builder::Str(StringBuilder::new()),
            ColumnType::Timestamp => {
                Builder::Timestamp(TimestampMicrosecondBuilder::new().with_timezone(UTC))
            }
            ColumnType::IntList => Builder::IntList(ListBuilder::new(Int64Builder::new())),
            ColumnType::StrList => Builder::StrList(ListBuilder::new(StringBuilder::new())),
        }
    }

    /// The array built so far. The builder starts again with room for as many values (and
    /// string bytes): the next batch is much like this one, and growing from nothing
    /// reallocated each column a dozen times a batch.
    fn finish(&mut self, rows: usize) -> ArrayRef {
        match self {
            Builder::Int(b) => {
                let array = b.finish();
                *b = Int64Builder::with_capacity(rows);
                Arc::new(array)
            }
            Builder::UInt(b) => {
                let array = b.finish();
                *b = UInt64Builder::with_capacity(rows);
                Arc::new(array)
            }
            Builder::Bool(b) => {
                let array = b.finish();
                *b = BooleanBuilder::with_capacity(rows);
                Arc::new(array)
            }
            Builder::Str(b) => {
                let array = b.finish();
                *b = StringBuilder::with_capacity(rows, array.values().len());
                Arc::new(array)
            }
            Builder::Timestamp(b) => {
                let array = b.finish();
                *b = TimestampMicrosecondBuilder::with_capacity(rows).with_timezone(UTC);
                Arc::new(array)
            }
            // Rare enough (tunnels, VLAN tags) to grow as they come.
            Builder::IntList(b) => Arc::new(b.finish()),
            Builder::StrList(b) => Arc::new(b.finish()),
        }
    }

    fn append_nulls(&mut self, n: usize) {
        match self {
            Builder::Int(b) => b.append_nulls(n),
            Builder::UInt(b) => b.append_nulls(n),
            Builder::Bool(b) => b.append_nulls(n),
            Builder::Str(b) => b.append_nulls(n),
            Builder::Timestamp(b) => b.append_nulls(n),
            Builder::IntList(b) => b.append_nulls(n),
            Builder::StrList(b) => b.append_nulls(n),
        }
    }
}

/// A value for one cell, borrowed from wherever it was found.
#[derive(Debug, Clone, Copy)]
pub enum Cell<'a> {
    Null,
    Int(i64),
    UInt(u64),
    Bool(bool),
    Str(&'a str),
    /// Nanoseconds since the epoch, for a timestamp column.
    TimeNs(u64),
}

/// The rows of one record batch being built, column by column.
pub struct Table {
    schema: SchemaRef,
    types: Vec<ColumnType>,
    builders: Vec<Builder>,
    /// Rows each column has a cell for. A row a column was given nothing for is null; the
    /// nulls are appended in one run when a value or the end of the batch comes, because
    /// most columns of most rows are null (a RoCE frame has no MAD, no tunnel, no LRH) and
    /// a run costs what one null does, and a column nobody touches costs nothing per row.
    filled: Vec<usize>,
    /// Each column's longest all-null array yet, sliced for the batches that give it nothing.
    nulls: Vec<Option<ArrayRef>>,
    rows: usize,
    /// Where a string made from a value (an address) is written before it is copied into
    /// its column, so that formatting allocates nothing once it has grown.
    pub scratch: String,
}

impl Table {
    pub fn new(columns: &[ColumnSpec]) -> Self {
        Table {
            schema: schema_of(columns),
            types: columns.iter().map(|c| c.ty).collect(),
            builders: columns.iter().map(|c| Builder::new(c.ty)).collect(),
            filled: vec![0; columns.len()],
            nulls: vec![None; columns.len()],
            rows: 0,
            scratch: String::new(),
        }
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Rows ended since the last batch.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Ends a row: columns that were given no cell in it are null there.
    pub fn end_row(&mut self) {
        self.rows += 1;
    }

    /// The builder of `column`, with the nulls of the rows it was given nothing for
    /// appended, ready for the current row's one cell.
    #[inline]
    fn builder(&mut self, column: usize) -> Option<&mut Builder> {
        let filled = self.filled.get_mut(column)?;
        let builder = self.builders.get_mut(column)?;
        if *filled > self.rows {
            // A second cell in one row: refused, so that the columns stay aligned.
            return None;
        }
        if *filled < self.rows {
            builder.append_nulls(self.rows - *filled);
        }
        *filled = self.rows + 1;
        Some(builder)
    }

    /// Appends one cell to column `column`. A value of the wrong kind for the column is
    /// written as null, never as something it is not.
    #[inline]
    pub fn push(&mut self, column: usize, cell: Cell<'_>) {
        if matches!(cell, Cell::Null) {
            return;
        }
        let Some(builder) = self.builder(column) else {
            return;
        };
        match (builder, cell) {
            (Builder::Int(b), Cell::Int(v)) => b.append_value(v),
            (Builder::Int(b), Cell::UInt(v)) => b.append_option(i64::try_from(v).ok()),
            (Builder::UInt(b), Cell::UInt(v)) => b.append_value(v),
            (Builder::UInt(b), Cell::Int(v)) => b.append_option(u64::try_from(v).ok()),
            (Builder::Bool(b), Cell::Bool(v)) => b.append_value(v),
            (Builder::Str(b), Cell::Str(v)) => b.append_value(v),
            (Builder::Timestamp(b), Cell::TimeNs(ns)) => {
                b.append_option(i64::try_from(ns / 1000).ok())
            }
            (Builder::Int(b), _) => b.append_null(),
            (Builder::UInt(b), _) => b.append_null(),
            (Builder::Bool(b), _) => b.append_null(),
            (Builder::Str(b), _) => b.append_null(),
            (Builder::Timestamp(b), _) => b.append_null(),
            (Builder::IntList(b), _) => b.append_null(),
            (Builder::StrList(b), _) => b.append_null(),
        }
    }

    /// Appends a string cell written by `write` into the scratch buffer.
    #[inline]
    pub fn push_display(&mut self, column: usize, value: impl std::fmt::Display) {
        if self.types.get(column) != Some(&ColumnType::Str) {
            return;
        }
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        let _ = write!(text, "{value}");
        if let Some(Builder::Str(b)) = self.builder(column) {
            b.append_value(&text);
        }
        self.scratch = text;
    }

    /// Appends a list cell to a list column: `items` gives its elements (null elements
    /// keep their place, so that parallel lists stay aligned). `None` is a null list.
    pub fn push_list<'c>(
        &mut self,
        column: usize,
        items: Option<impl IntoIterator<Item = Cell<'c>>>,
    ) {
        if items.is_none() {
            return;
        }
        let Some(builder) = self.builder(column) else {
            return;
        };
        match (builder, items) {
            (Builder::IntList(b), Some(items)) => {
                for item in items {
                    match item {
                        Cell::Int(v) => b.values().append_value(v),
                        Cell::UInt(v) => b.values().append_option(i64::try_from(v).ok()),
                        _ => b.values().append_null(),
                    }
                }
                b.append(true);
            }
            (Builder::StrList(b), Some(items)) => {
                for item in items {
                    match item {
                        Cell::Str(v) => b.values().append_value(v),
                        _ => b.values().append_null(),
                    }
                }
                b.append(true);
            }
            (builder, _) => builder.append_nulls(1),
        }
    }

    /// The rows appended so far as one record batch; the table starts empty again.
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let rows = self.rows;
        let fields = self.schema.fields().clone();
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.builders.len());
        let columns = self.builders.iter_mut().zip(&mut self.filled);
        for (((builder, filled), field), cached) in columns.zip(&fields).zip(&mut self.nulls) {
            // Most columns of a batch have no value at all (a RoCE capture has no MAD, no
            // tunnel): an all-null array costs nothing per row, where appending the nulls
            // wrote zeroed values and validity bits for each, a third of the writer's time.
            // Arrays are immutable, so one all-null array serves every batch as long or
            // shorter, sliced: the batches' lengths vary, and making one for each zeroed
            // its offsets and bits again, 6% of export's instructions.
            if *filled == 0 && rows > 0 {
                let longest = match cached.take() {
                    Some(array) if array.len() >= rows => array,
                    _ => new_null_array(field.data_type(), rows.next_power_of_two()),
                };
                arrays.push(longest.slice(0, rows));
                *cached = Some(longest);
                continue;
            }
            if *filled < rows {
                builder.append_nulls(rows - *filled);
            }
            *filled = 0;
            arrays.push(builder.finish(rows));
        }
        self.rows = 0;
        RecordBatch::try_new(self.schema.clone(), arrays)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;

    #[test]
    fn wrong_kinds_and_out_of_range_values_are_null_not_wrong() {
        let columns = [
            ColumnSpec::new("a", ColumnType::Int, ""),
            ColumnSpec::new("b", ColumnType::Str, ""),
        ];
        let mut table = Table::new(&columns);
        table.push(0, Cell::UInt(u64::MAX));
        table.push(1, Cell::Int(3));
        table.end_row();
        table.push(0, Cell::Int(-2));
        table.push(1, Cell::Str("x"));
        table.end_row();
        let batch = table.finish().expect("batch");
        let a = batch.column(0).as_primitive::<Int64Type>();
        assert!(a.is_null(0));
        assert_eq!(a.value(1), -2);
        let b = batch.column(1).as_string::<i32>();
        assert!(b.is_null(0));
        assert_eq!(b.value(1), "x");
        assert_eq!(table.rows(), 0);
    }

    #[test]
    fn list_elements_keep_their_places() {
        let columns = [ColumnSpec::new("l", ColumnType::IntList, "")];
        let mut table = Table::new(&columns);
        table.push_list(0, Some([Cell::Int(1), Cell::Null, Cell::Int(3)]));
        table.end_row();
        table.push_list(0, None::<[Cell<'_>; 0]>);
        table.end_row();
        let batch = table.finish().expect("batch");
        let list = batch.column(0).as_list::<i32>();
        let first = list.value(0);
        let first = first.as_primitive::<Int64Type>();
        assert_eq!(first.len(), 3);
        assert!(first.is_null(1));
        assert!(list.is_null(1));
    }
}
