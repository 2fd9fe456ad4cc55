//! `rdmadump fields`: every field a filter (and `-T fields -e`) can name, read from the
//! catalogue the filter compiles against, so the list cannot drift from the language.

use std::io::{self, Write};

use serde::Serialize;

use crate::fields;

#[derive(Serialize)]
struct Entry {
    name: &'static str,
    #[serde(rename = "type")]
    ty: &'static str,
    /// Wireshark's names for the same value.
    wireshark: Vec<&'static str>,
    description: &'static str,
}

fn entries() -> Vec<Entry> {
    fields::all()
        .map(|f| Entry {
            name: f.name,
            ty: f.ty.name(),
            wireshark: f.wireshark_name().into_iter().collect(),
            description: f.description,
        })
        .collect()
}

/// One JSON array, one object per field, pretty-printed so that the committed copy in
/// docs/ diffs line by line.
pub fn write_json(out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &entries())?;
    writeln!(out)
}

/// One line per field: name, type, description, and Wireshark's names for it.
pub fn write_text(out: &mut dyn Write) -> io::Result<()> {
    let entries = entries();
    let width = entries.iter().map(|e| e.name.len()).max().unwrap_or(0);
    for e in &entries {
        write!(out, "{:width$}  {:6}  {}", e.name, e.ty, e.description)?;
        if !e.wireshark.is_empty() {
            write!(out, " (Wireshark: {})", e.wireshark.join(", "))?;
        }
        writeln!(out)?;
    }
    Ok(())
}
