//! `rdmadump read`: list packets.

use std::io::{self, Write};
use std::ops::ControlFlow;

use crate::cli::ReadArgs;
use crate::filter::PacketFilter;
use crate::output::time::Clock;
use crate::output::{json, text};

use super::{for_each_packet, input_paths, write_out};

/// Output is flushed in blocks of about this many bytes.
const FLUSH_AT: usize = 1 << 16;

pub fn run(args: &ReadArgs) -> anyhow::Result<bool> {
    let filter = PacketFilter::from_args(&args.input)?;
    let paths = input_paths(&args.input)?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut buf: Vec<u8> = Vec::with_capacity(FLUSH_AT * 2);
    let mut clock = Clock::new(args.time);
    let mut shown = 0u64;
    let limit = args.count.unwrap_or(u64::MAX);
    let multiple = paths.len() > 1;
    let names: Vec<String> = paths.iter().map(|p| super::display_path(p)).collect();
    // Text lines carry the file's base name; JSON the path as given.
    let short: Vec<String> = paths
        .iter()
        .map(|p| {
            p.file_name().map_or_else(
                || super::display_path(p),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    if limit == 0 {
        return Ok(true);
    }
    let report = for_each_packet(&paths, &args.input, &filter, |file, pkt| {
        let file_name = multiple.then(|| names[file].as_str());
        if args.json {
            json::write_packet(&mut buf, pkt, file_name);
        } else {
            text::write_packet(
                &mut buf,
                pkt,
                &mut clock,
                multiple.then(|| short[file].as_str()),
            );
        }
        if buf.len() >= FLUSH_AT {
            write_out(&mut out, &buf)?;
            buf.clear();
        }
        shown += 1;
        Ok(if shown >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    })?;
    write_out(&mut out, &buf)?;
    out.flush()?;
    Ok(!report.failed)
}
