//! `rdmadump analyze`: report on flows, sequence errors, congestion and PFC.

use std::io::{self, IsTerminal, Write};
use std::ops::ControlFlow;
use std::process::ExitCode;

use anyhow::Context;

use crate::analyze::model::Report;
use crate::analyze::{AnalyzeConfig, Analyzer};
use crate::cli::{AnalyzeArgs, ColorChoice};
use crate::output::{analyze_json, analyze_text as text};

use super::pipeline::Batch;
use super::{for_each_batch, input_paths, write_out};

/// Color follows `--color`, then `NO_COLOR`, then whether stdout is a terminal.
pub fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stdout().is_terminal()
        }
    }
}

pub fn run(args: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    let filter = super::packet_filter(&args.input)?;
    let paths = input_paths(&args.input)?;
    let window = super::time_window(&args.input, &paths);
    let config = AnalyzeConfig {
        pmtu: args.pmtu,
        link_speed_bps: args.link_speed,
        storm_threshold_ns: u64::try_from(args.storm_threshold.as_nanos()).unwrap_or(u64::MAX),
        max_flows: args.max_flows,
        max_pfc_senders: args.max_pfc_senders,
        ..AnalyzeConfig::default()
    };
    let mut analyzer = Analyzer::new(config);
    let limit = args.count.unwrap_or(u64::MAX);
    let mut seen = 0u64;
    let work = |batch: &mut Batch<'_>| {
        for (_, pkt) in &mut batch.packets {
            pkt.verify_crcs();
            window.anchor(pkt.ts_ns);
        }
        batch
            .packets
            .retain(|(_, pkt)| window.contains(pkt.ts_ns) && filter.matches(pkt));
    };
    let input = for_each_batch(&paths, &args.input, work, |batch: &mut Batch<'_>| {
        for (file, pkt) in &batch.packets {
            analyzer.observe(*file, pkt);
            seen += 1;
            if seen >= limit {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    })?;
    analyzer.finish();
    if let (Some(given), Some(conflict)) = (args.pmtu, analyzer.flows.pmtu_conflict) {
        let file = match input.files.get(usize::from(conflict.at.file)) {
            Some(name) if input.files.len() > 1 => format!("{name}: "),
            _ => String::new(),
        };
        eprintln!(
            "rdmadump: warning: --pmtu {given} contradicts the capture: {file}frame {} \
             carries a full-sized {}-byte payload (FIRST or MIDDLE packet)",
            conflict.at.frame, conflict.observed
        );
    }

    let report = Report::new(&analyzer, &input);
    let mut out = super::stdout()?;
    if args.json {
        analyze_json::write(&mut out, &report).context("writing output")?;
    } else {
        let style = text::Style {
            color: use_color(args.input.color),
            width: io::stdout()
                .is_terminal()
                .then(|| terminal_width().unwrap_or(80)),
        };
        write_out(&mut out, text::render(&report, style).as_bytes())?;
    }
    out.flush()?;

    if input.failed {
        return Ok(ExitCode::from(super::EXIT_ERROR));
    }
    let failing = args
        .fail_on
        .iter()
        .any(|kind| analyzer.anomalies.count(kind.0) > 0);
    Ok(if failing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The terminal's own width, asked of the terminal (comfy-table's tty support), then
/// `COLUMNS` for terminals that cannot be asked.
fn terminal_width() -> Option<u16> {
    comfy_table::Table::new()
        .width()
        .filter(|&w| w > 0)
        .or_else(|| std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()))
}
