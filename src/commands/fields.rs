//! `rdmadump fields`: the field list.

use std::io::Write;

use anyhow::Context;

use crate::cli::FieldsArgs;
use crate::output::fields_list;

pub fn run(args: &FieldsArgs) -> anyhow::Result<()> {
    let mut out = Vec::new();
    if args.json {
        fields_list::write_json(&mut out)?;
    } else {
        fields_list::write_text(&mut out)?;
    }
    let mut stdout = super::stdout()?;
    stdout.write_all(&out).context("writing output")
}
