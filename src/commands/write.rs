//! `rdmadump read -w FILE`: the selected frames written to a new capture instead of
//! printed. Records are copied byte for byte, with their times and original lengths; a
//! frame is decoded only when a filter needs it.

use std::collections::HashMap;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::Path;

use anyhow::{Context, bail};

use crate::capture::merge::{Merger, open_sources};
use crate::capture::write::{PcapNgWriter, PcapWriter};
use crate::capture::{ContainerKind, InterfaceInfo, Record, TsResolution};
use crate::cli::ReadArgs;
use crate::dissect::{Decoder, Packet};
use crate::output::atomic::AtomicFile;
use crate::pipeline::PROGRESS_EVERY;

use super::progress::{Progress, print_notice};
use super::same_file::InputFiles;
use super::{decode_options, input_paths, packet_filter, time_window};

/// Where an input's interface sits: input index, pcapng section, interface id.
type InterfaceKey = (usize, u32, u32);

/// The output capture and, for pcapng, which of its interfaces each input interface is.
enum Sink<W: Write> {
    Pcap(PcapWriter<W>),
    PcapNg {
        writer: PcapNgWriter<W>,
        ids: HashMap<InterfaceKey, u32>,
    },
}

impl<W: Write> Sink<W> {
    fn write(
        &mut self,
        key: InterfaceKey,
        interface: Option<InterfaceInfo>,
        record: &Record<'_>,
    ) -> io::Result<()> {
        match self {
            Sink::Pcap(writer) => writer.write(record.ts_ns, record.orig_len, record.data),
            Sink::PcapNg { writer, ids } => {
                let id = match ids.get(&key) {
                    Some(&id) => id,
                    None => {
                        let interface = interface.unwrap_or(InterfaceInfo {
                            linktype: record.linktype,
                            snaplen: 0,
                            resolution: TsResolution::NANO,
                        });
                        let id = writer.add_interface(interface)?;
                        ids.insert(key, id);
                        id
                    }
                };
                writer.write(id, record.ts_ns, record.orig_len, record.data)
            }
        }
    }

    fn into_inner(self) -> W {
        match self {
            Sink::Pcap(writer) => writer.into_inner(),
            Sink::PcapNg { writer, .. } => writer.into_inner(),
        }
    }
}

/// pcap keeps one link type, a snaplen and µs or ns times for the whole file; anything
/// else (a pcapng input, several link types, or a `.pcapng` name) is written as pcapng,
/// which keeps every interface as it was.
fn pcap_interface(merger: &Merger<'_>, inputs: usize, output: &Path) -> Option<InterfaceInfo> {
    let named_pcapng = output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pcapng"));
    if named_pcapng {
        return None;
    }
    let mut chosen: Option<InterfaceInfo> = None;
    for index in 0..inputs {
        let Some(container) = merger.container(index) else {
            continue;
        };
        if container.kind == ContainerKind::PcapNg {
            return None;
        }
        let interface = merger.interface(index, 0)?;
        chosen = match chosen {
            None => Some(interface),
            Some(c) if c.linktype != interface.linktype => return None,
            Some(c) => Some(InterfaceInfo {
                linktype: c.linktype,
                snaplen: c.snaplen.max(interface.snaplen),
                resolution: if interface.resolution == TsResolution::NANO {
                    TsResolution::NANO
                } else {
                    c.resolution
                },
            }),
        };
    }
    // No input could be read: pcap, from the inputs' own name if nothing else.
    Some(chosen.unwrap_or(InterfaceInfo {
        linktype: crate::capture::linktype::ETHERNET,
        snaplen: 65535,
        resolution: TsResolution::MICRO,
    }))
}

/// Runs `read -w`; `Ok(false)` when an input could not be read. A file is then left as it
/// was, since its frames would stop at the damage without saying so; standard output gets
/// whatever was read (`-w - > FILE` is how to save the frames before the damage).
pub fn write_selection(args: &ReadArgs, output: &Path) -> anyhow::Result<bool> {
    let filter = packet_filter(&args.input)?;
    let paths = input_paths(&args.input)?;
    let to_stdout = output.as_os_str() == "-";
    if to_stdout && io::stdout().is_terminal() {
        bail!("-w - would write a binary capture to the terminal: redirect it to a file or a pipe");
    }
    let inputs = InputFiles::of(&paths);
    if to_stdout {
        inputs.refuse_stdout()?;
    } else {
        inputs.refuse_output("-w", output)?;
    }
    // Before any input is read: an unwritable directory fails now, not after the work.
    let file = if to_stdout {
        None
    } else {
        Some(AtomicFile::create(output).with_context(|| format!("creating {}", output.display()))?)
    };
    let needs_decoding =
        args.input.filter_text().is_some() || args.input.qp.is_some() || args.input.kind.is_some();
    let window = time_window(&args.input, &paths);
    let limit = args.count.unwrap_or(u64::MAX);

    let mut opened = Vec::new();
    let mut sources = open_sources(&paths, args.input.no_mmap, &mut opened);
    let mut merger = Merger::open(&paths, &mut sources, opened);
    if merger.all_failed() {
        // Not even a capture header: an empty capture would read as a clean one.
        let (report, notices) = merger.finish();
        for notice in &notices {
            print_notice(&report.files, notice);
        }
        return Ok(false);
    }
    let progress = Progress::new(merger.len_hint());
    let out = match file {
        Some(file) => Output::File(file),
        None => Output::Stdout(Box::new(super::stdout()?)),
    };
    let out = BufWriter::with_capacity(1 << 16, out);
    let name = if to_stdout {
        "standard output".to_string()
    } else {
        output.display().to_string()
    };
    let writing = || format!("writing {name}");
    let mut sink = match pcap_interface(&merger, paths.len(), output) {
        Some(interface) => Sink::Pcap(PcapWriter::new(out, interface).with_context(writing)?),
        None => {
            let application = concat!("rdmadump ", env!("CARGO_PKG_VERSION"));
            let mut writer = PcapNgWriter::new(out, application).with_context(writing)?;
            // Interfaces declared before the first packet keep their input order; any
            // declared later in an input are added when their first frame is written.
            let mut ids = HashMap::new();
            for index in 0..paths.len() {
                let Some(container) = merger.container(index) else {
                    continue;
                };
                let mut iface = 0;
                while let Some(interface) = merger.interface(index, iface) {
                    let id = writer.add_interface(interface).with_context(writing)?;
                    ids.insert((index, container.section, iface), id);
                    iface += 1;
                }
            }
            Sink::PcapNg { writer, ids }
        }
    };

    let mut decoder = Decoder::new(decode_options(&args.input));
    let mut written = 0u64;
    while written < limit {
        let Some((index, frame)) = merger.next_record() else {
            break;
        };
        if merger.records().is_multiple_of(PROGRESS_EVERY) {
            progress.update(merger.position(), merger.records());
        }
        let section = merger.container(index).map_or(0, |c| c.section);
        let iface = merger.current(index).map(|r| r.iface);
        let interface = iface.and_then(|iface| merger.interface(index, iface));
        if let Some(record) = merger.current(index) {
            let mut selected = true;
            if needs_decoding {
                // Every record is decoded, selected or not, so that what one teaches the
                // decoder (connected-mode IPoIB QPs) holds for the next, as in `read`.
                let mut pkt = Packet::default();
                decoder.decode_into(&mut pkt, &record, frame);
                pkt.verify_crcs();
                selected = filter.matches(&pkt);
            }
            window.anchor(record.ts_ns);
            if selected && window.contains(record.ts_ns) {
                sink.write((index, section, record.iface), interface, &record)
                    .with_context(writing)?;
                written += 1;
            }
        }
        merger.advance(index);
        let (files, notices) = merger.files_and_notices();
        for notice in notices {
            print_notice(files, &notice);
        }
    }
    progress.finish();
    let (report, notices) = merger.finish();
    for notice in &notices {
        print_notice(&report.files, notice);
    }
    let out = sink
        .into_inner()
        .into_inner()
        .map_err(io::IntoInnerError::into_error)
        .with_context(writing)?;
    match out {
        Output::File(file) if report.failed => {
            drop(file);
            eprintln!(
                "rdmadump: {name} left as it was: an input could not be read (-w - writes \
                 the frames read before the damage to standard output)"
            );
        }
        Output::File(file) => file.commit().with_context(writing)?,
        Output::Stdout(mut out) => out.flush().with_context(writing)?,
    }
    Ok(!report.failed)
}

/// Where the capture goes: a file put in place once it is whole, or standard output.
enum Output {
    File(AtomicFile),
    Stdout(Box<dyn Write>),
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::File(file) => file.write(buf),
            Output::Stdout(out) => out.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::File(file) => file.write_all(buf),
            Output::Stdout(out) => out.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::File(file) => file.flush(),
            Output::Stdout(out) => out.flush(),
        }
    }
}
