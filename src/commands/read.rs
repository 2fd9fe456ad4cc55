//! `rdmadump read`: list packets.

use std::io::Write;
use std::ops::ControlFlow;

use crate::cli::ReadArgs;
use crate::dissect::Packet;
use crate::filter::PacketFilter;
use crate::output::time::{Clock, TimeFormat};
use crate::output::{json, text};

use super::merge::Batch;

/// Output is written in blocks of at least this many bytes.
const FLUSH_AT: usize = 1 << 16;
use super::{for_each_batch, input_paths, write_out};

pub fn run(args: &ReadArgs) -> anyhow::Result<bool> {
    let filter = PacketFilter::from_args(&args.input)?;
    let paths = input_paths(&args.input)?;
    let limit = args.count.unwrap_or(u64::MAX);
    if limit == 0 {
        return Ok(true);
    }
    let multiple = paths.len() > 1;
    // JSON names the input by the path as given, text lines by its base name.
    let names: Vec<String> = paths.iter().map(|p| super::display_path(p)).collect();
    let short: Vec<String> = paths
        .iter()
        .map(|p| {
            p.file_name().map_or_else(
                || super::display_path(p),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    // Relative and delta times depend on the packets shown before, so those text lines are
    // written in order by `write`; everything else is written by `render` on either thread.
    let in_order = !args.json && args.time != TimeFormat::Absolute;
    let render_one = |out: &mut Vec<u8>, clock: &mut Clock, file: usize, pkt: &Packet<'_>| {
        if args.json {
            json::write_packet(out, pkt, multiple.then(|| names[file].as_str()));
        } else {
            text::write_packet(out, pkt, clock, multiple.then(|| short[file].as_str()));
        }
    };
    let render = |batch: &mut Batch<'_>| {
        for (_, pkt) in &mut batch.packets {
            pkt.verify_crcs();
        }
        batch.packets.retain(|(_, pkt)| filter.matches(pkt));
        if in_order {
            return;
        }
        let mut clock = Clock::new(TimeFormat::Absolute);
        for (file, pkt) in &batch.packets {
            render_one(&mut batch.out, &mut clock, *file, pkt);
            batch.ends.push(batch.out.len());
        }
    };
    let mut clock = Clock::new(args.time);
    let mut out = super::stdout()?;
    let mut pending: Vec<u8> = Vec::with_capacity(2 * FLUSH_AT);
    let mut shown = 0u64;
    let write = |batch: &mut Batch<'_>| {
        if in_order {
            for (file, pkt) in &batch.packets {
                render_one(&mut batch.out, &mut clock, *file, pkt);
                batch.ends.push(batch.out.len());
            }
        }
        let remaining = limit - shown;
        let (bytes, stop) = if (batch.ends.len() as u64) < remaining {
            shown += batch.ends.len() as u64;
            (&batch.out[..], false)
        } else {
            (&batch.out[..batch.ends[remaining as usize - 1]], true)
        };
        if pending.is_empty() && bytes.len() >= FLUSH_AT {
            // A whole batch of lines is written as it is, not copied first.
            write_out(&mut out, bytes)?;
        } else {
            // Small batches (one packet each when streaming) are gathered into larger writes.
            pending.extend_from_slice(bytes);
            if pending.len() >= FLUSH_AT || stop {
                write_out(&mut out, &pending)?;
                pending.clear();
            }
        }
        Ok(if stop {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    };
    let report = for_each_batch(&paths, &args.input, render, write)?;
    write_out(&mut out, &pending)?;
    out.flush()?;
    Ok(!report.failed)
}
