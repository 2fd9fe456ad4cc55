//! `rdmadump analyze`: report on flows, sequence errors, congestion and PFC.

use std::io::{self, IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::analyze::connections::{ConnectionTable, Selection};
use crate::analyze::hosts::Hosts;
use crate::analyze::key::{FlowKey, FrameRef};
use crate::analyze::points::plan::Plan;
use crate::analyze::{AnalyzeConfig, Analyzer};
use crate::capture::merge::InputReport;
use crate::cli::{AnalyzeArgs, ColorChoice, FailOn};
use crate::filter::PacketFilter;
use crate::output::atomic::AtomicFile;
use crate::output::{analyze_json, analyze_text as text, html};
use crate::report::Report;

use super::same_file::InputFiles;
use super::{
    PREPARE, RunOptions, for_each_batch_with, for_each_packet_with, input_paths, points, write_out,
};
use crate::pipeline::Batch;

/// How many packets ahead of the one analysed the consuming thread asks for the first two
/// cache lines of a frame (its headers). The reading thread read them last, on the other
/// core, and the analysis stalled on them: three quarters of `FlowKey::of`'s samples sat on
/// the load of the IP source address.
const CONSUMER_PREFETCH: usize = 4;

fn prefetch_headers(frame: &[u8]) {
    crate::capture::prefetch_line(frame);
    crate::capture::prefetch_line(frame.get(64..).unwrap_or_default());
}

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
    let paths = points::distinct_inputs(input_paths(&args.input)?);
    let inputs = InputFiles::of(&paths);
    inputs.refuse_stdout()?;
    // Created before any input is read: an unwritable path fails now, not after the work.
    let html_file = match &args.html {
        Some(path) => {
            inputs.refuse_output("--html", path)?;
            let file =
                AtomicFile::create(path).with_context(|| format!("creating {}", path.display()))?;
            Some((path, file))
        }
        None => None,
    };
    let Analysis { analyzer, input } = analyze(args, paths, filter, args.html.is_some(), false)?;
    if let (Some(given), Some(conflict)) = (args.analysis.pmtu, analyzer.flows.pmtu_conflict) {
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
    warn_of_capture_loss(&analyzer);

    if input.all_failed() {
        // The inputs' errors are on stderr; a report of nothing would pass for a clean one.
        return Ok(ExitCode::from(super::EXIT_ERROR));
    }
    let report = Report::new(&analyzer, &input);
    if let Some((path, mut file)) = html_file {
        if input.failed {
            // The page cannot say that an input is missing from it: the text and the JSON do.
            drop(file);
            eprintln!(
                "rdmadump: {} left as it was: an input could not be read",
                path.display()
            );
        } else {
            let page = html::render(
                &report,
                &analyzer,
                args.html_top,
                super::threads(&args.input),
            );
            let writing = || format!("writing {}", path.display());
            file.write_all(page.as_bytes()).with_context(writing)?;
            file.commit().with_context(writing)?;
        }
    }
    let mut out = super::stdout()?;
    if args.json {
        analyze_json::write(&mut out, &report).context("writing output")?;
    } else {
        let style = text::Style {
            connections: (!args.all).then_some(text::CONNECTIONS_SHOWN),
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
    let capture_loss = analyzer.connections.capture_loss();
    let failing = args.fail_on.iter().any(|condition| match *condition {
        FailOn::Kind(kind) => analyzer.anomalies.count(kind) > 0,
        FailOn::CaptureLoss(ratio) => capture_loss.ratio() > ratio,
    });
    Ok(if failing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// What the analysis of `paths` found: the analyzer, finished, and what was read.
pub(super) struct Analysis {
    pub analyzer: Analyzer,
    pub input: InputReport,
}

/// The analysis `args` ask of `paths` through `filter`: one pass, or more to match capture
/// points or to pair a `--qp`'s connections. `graphs` records what the HTML report draws;
/// `quiet` leaves out the progress bar and the notices on stderr.
pub(super) fn analyze(
    args: &AnalyzeArgs,
    mut paths: Vec<PathBuf>,
    mut filter: PacketFilter,
    graphs: bool,
    quiet: bool,
) -> anyhow::Result<Analysis> {
    let several = paths.len() > 1 && !args.single_point;
    // Standard input is read twice when it is one of several points: once to match it.
    let stdin = if several {
        points::spool_stdin(&mut paths)?
    } else {
        None
    };
    let skew_bound_ns = u64::try_from(args.skew_bound.as_nanos()).unwrap_or(u64::MAX);
    let plan = if several {
        points::plan_points(&paths, args, skew_bound_ns)?
    } else {
        if !args.offsets.is_empty() {
            anyhow::bail!("--offset needs several inputs (and no --single-point)");
        }
        Plan::one_point(paths.len())
    };
    let order = points::point_order(&args.order, &paths, &plan)?;
    let selection = match args.input.qp {
        Some(qp) => {
            filter = crate::filter::FilterText::compile(
                args.input.filter_text(),
                None,
                args.input.kind.map(|k| k.0),
            )?;
            let qp = u32::try_from(qp).unwrap_or(u32::MAX);
            Some(select_connection(&paths, args, qp)?)
        }
        None => None,
    };
    let offsets_ns = plan.file_offsets_ns();
    let window = super::time_window(&args.input, &paths);
    let config = AnalyzeConfig {
        plan: (plan.points() > 1).then_some(plan),
        single_point: args.single_point,
        skew_bound_ns,
        order,
        interval_ns: args
            .interval
            .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX).max(1)),
        max_buckets: args.max_buckets,
        graphs,
        qp: args.input.qp.map(|q| u32::try_from(q).unwrap_or(u32::MAX)),
        ..super::analysis_config(&args.analysis)
    };
    let mut analyzer = Analyzer::new(config);
    let limit = args.count.unwrap_or(u64::MAX);
    let mut seen = 0u64;
    let run = RunOptions {
        offsets: &offsets_ns,
        quiet,
        ..RunOptions::default()
    };
    let work = |batch: &mut Batch<'_>| {
        crate::pipeline::verify_and_select(batch, &window, &filter);
    };
    let mut input =
        for_each_batch_with(&paths, &args.input, run, work, |batch: &mut Batch<'_>| {
            for (i, (file, pkt)) in batch.packets.iter().enumerate() {
                if let Some((_, ahead)) = batch.packets.get(i + CONSUMER_PREFETCH) {
                    prefetch_headers(ahead.data);
                }
                if selection.as_ref().is_some_and(|s| !s.admits(pkt)) {
                    continue;
                }
                analyzer.observe(*file, pkt);
                seen += 1;
                if seen >= limit {
                    return Ok(ControlFlow::Break(()));
                }
            }
            Ok(ControlFlow::Continue(()))
        })?;
    analyzer.finish();
    if let Some(stdin) = &stdin {
        stdin.rename(&mut input.files);
    }
    Ok(Analysis { analyzer, input })
}

/// Capture loss above this ratio is worth a warning: a few dropped frames are normal.
const CAPTURE_LOSS_WARNING: f64 = 0.01;

/// One warning when the capture itself dropped packets: its PSN gaps would otherwise send
/// the reader looking for a network problem.
fn warn_of_capture_loss(analyzer: &Analyzer) {
    let loss = analyzer.connections.capture_loss();
    if loss.ratio() > CAPTURE_LOSS_WARNING {
        eprintln!(
            "rdmadump: warning: the capture missed {} of {} request packets ({:.1}%) that the \
             responders acknowledged: PSN gaps in it may be capture drops, not network loss; \
             the usual causes are the sniffer's buffer (ibdump, tcpdump -B), a snaplen that cuts \
             frames, and an oversubscribed mirror port",
            loss.missed,
            loss.expected(),
            loss.ratio() * 100.0
        );
    }
}

/// The ends of the connections that QPN `qp` belongs to, from a pass that pairs them.
fn select_connection(
    paths: &[std::path::PathBuf],
    args: &AnalyzeArgs,
    qp: u32,
) -> anyhow::Result<Selection> {
    let mut table = ConnectionTable::new(args.analysis.max_flows, args.analysis.pmtu);
    let mut hosts = Hosts::default();
    for_each_packet_with(
        paths,
        &args.input,
        PREPARE,
        &PacketFilter::default(),
        |file, pkt| {
            if let Some(mut key) = FlowKey::of(pkt) {
                hosts.rekey(pkt, &mut key);
                table.observe(pkt, &key, FrameRef::of(file, pkt));
            }
            Ok(ControlFlow::Continue(()))
        },
    )?;
    Ok(Selection::of(&table, qp).with_hosts(hosts))
}

/// The terminal's own width, asked of the terminal (comfy-table's tty support), then
/// `COLUMNS` for terminals that cannot be asked.
fn terminal_width() -> Option<u16> {
    comfy_table::Table::new()
        .width()
        .filter(|&w| w > 0)
        .or_else(|| std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()))
}
