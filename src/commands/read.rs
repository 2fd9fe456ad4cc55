//! `rdmadump read`: list packets.

use std::io::Write;
use std::ops::ControlFlow;

use anyhow::bail;

use crate::capture::merge::display_path;
use crate::cli::{OutputFormat, ReadArgs};
use crate::fields::Field;
use crate::output::fields::{self, FieldsFormat};
use crate::output::time::Clock;
use crate::output::{hexdump, json, text, tree};

use crate::pipeline::Batch;

/// Output is written in blocks of at least this many bytes.
const FLUSH_AT: usize = 1 << 16;
use super::same_file::InputFiles;
use super::{RunOptions, for_each_batch_with, input_paths, write_out};

pub fn run(args: &ReadArgs) -> anyhow::Result<bool> {
    if let Some(output) = &args.write {
        return super::write::write_selection(args, output);
    }
    let format = output_format(args)?;
    let json = format == OutputFormat::Json;
    let fields_format = FieldsFormat::new(&args.fields_options);
    let fields: Vec<&Field> = args.fields.iter().map(|f| f.field).collect();
    let filter = super::packet_filter(&args.input)?;
    let paths = input_paths(&args.input)?;
    InputFiles::of(&paths).refuse_stdout()?;
    let window = super::time_window(&args.input, &paths);
    let limit = args.count.unwrap_or(u64::MAX);
    if limit == 0 {
        return Ok(true);
    }
    let multiple = paths.len() > 1;
    // JSON names the input by the path as given, text lines by its base name.
    let names: Vec<String> = paths.iter().map(|p| display_path(p)).collect();
    let short: Vec<String> = paths
        .iter()
        .map(|p| {
            p.file_name()
                .map_or_else(|| display_path(p), |n| n.to_string_lossy().into_owned())
        })
        .collect();
    // Relative and delta times depend on the packets shown before: `render` (on either
    // thread) leaves a mark where the time goes, and `write` (in order) fills it in.
    let in_order = format == OutputFormat::Text && args.time.0.is_relative();
    let render = |batch: &mut Batch<'_>| {
        crate::pipeline::verify_and_select(batch, &window, &filter);
        let mut clock = Clock::new(args.time.0);
        let mut scratch = Vec::new();
        for (file, pkt) in &batch.packets {
            let out = &mut batch.out;
            if json {
                json::write_packet(out, pkt, multiple.then(|| names[*file].as_str()));
            } else if format == OutputFormat::Fields {
                fields::write_packet(out, pkt, &fields, &fields_format);
            } else if in_order {
                text::write_frame(out, pkt, multiple.then(|| short[*file].as_str()));
                batch.marks.push(out.len());
                text::write_rest(out, pkt);
            } else {
                text::write_packet(
                    out,
                    pkt,
                    &mut clock,
                    multiple.then(|| short[*file].as_str()),
                );
            }
            if args.verbose {
                scratch.clear();
                json::write_packet(&mut scratch, pkt, multiple.then(|| names[*file].as_str()));
                tree::write_tree(out, scratch.strip_suffix(b"\n").unwrap_or(&scratch));
            }
            if args.hex {
                hexdump::write_hex(out, pkt.data);
            }
            if args.verbose || args.hex {
                out.push(b'\n');
            }
            batch.ends.push(out.len());
        }
    };
    let mut clock = Clock::new(args.time.0);
    let mut out = super::stdout()?;
    let mut pending: Vec<u8> = Vec::with_capacity(2 * FLUSH_AT);
    if format == OutputFormat::Fields && fields_format.header {
        // As tshark, the names as they were given.
        let names: Vec<&str> = args.fields.iter().map(|f| f.name.as_str()).collect();
        fields::write_header(&mut pending, &names, &fields_format);
    }
    let mut shown = 0u64;
    let write = |batch: &mut Batch<'_>| {
        let remaining = limit - shown;
        let stop = batch.ends.len() as u64 >= remaining;
        let lines = if stop {
            remaining as usize
        } else {
            batch.ends.len()
        };
        shown += lines as u64;
        let end = lines.checked_sub(1).map_or(0, |last| batch.ends[last]);
        if in_order {
            let mut start = 0;
            let lines_with_times = batch.marks.iter().zip(&batch.ends).zip(&batch.packets);
            for ((&mark, &line_end), (_, pkt)) in lines_with_times.take(lines) {
                pending.extend_from_slice(&batch.out[start..mark]);
                clock.write(&mut pending, pkt.ts_ns);
                pending.extend_from_slice(&batch.out[mark..line_end]);
                start = line_end;
            }
        } else if pending.is_empty() && end >= FLUSH_AT {
            // A whole batch of lines is written as it is, not copied first.
            write_out(&mut out, &batch.out[..end])?;
        } else {
            // Small batches (one packet each when streaming) are gathered into larger writes.
            pending.extend_from_slice(&batch.out[..end]);
        }
        if pending.len() >= FLUSH_AT || stop || args.line_buffered {
            write_out(&mut out, &pending)?;
            pending.clear();
        }
        if args.line_buffered {
            out.flush()?;
        }
        Ok(if stop {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    };
    let report = for_each_batch_with(&paths, &args.input, RunOptions::default(), render, write)?;
    if !report.all_failed() {
        // What is pending then is the `-E header=y` line, the header of nothing.
        write_out(&mut out, &pending)?;
    }
    out.flush()?;
    Ok(!report.failed)
}

/// What `-T`, `--json`, `-e` and `-E` ask for together; a combination that makes no sense
/// is a command-line error, as tshark makes it.
fn output_format(args: &ReadArgs) -> anyhow::Result<OutputFormat> {
    let format = match args.format {
        Some(format) => format,
        None if args.json => OutputFormat::Json,
        None => OutputFormat::Text,
    };
    if format == OutputFormat::Fields && args.fields.is_empty() {
        bail!("-T fields needs at least one field to print: add -e FIELD (e.g. -e bth.psn)");
    }
    if format != OutputFormat::Fields
        && (!args.fields.is_empty() || !args.fields_options.is_empty())
    {
        bail!("-e and -E shape -T fields output: add -T fields");
    }
    if format != OutputFormat::Text && (args.verbose || args.hex) {
        bail!("-V and -x add to text output; they do not go with -T json, -T fields or --json");
    }
    Ok(format)
}
