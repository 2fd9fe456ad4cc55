//! `rdmadump analyze --json`: the report model as one JSON document.

use std::io::{self, Write};

use crate::report::Report;

/// Writes the document, streamed: the flow list is produced row by row as it is written.
/// Every time the model gives in seconds comes with its `*_ns` twin in integer
/// nanoseconds, from the model itself.
pub fn write(mut out: impl Write, report: &Report<'_>) -> io::Result<()> {
    super::fastjson::to_writer(&mut out, report)?;
    out.write_all(b"\n")?;
    out.flush()
}
