//! `write_capture`: what `read -w` does with the records of an arbitrary capture. Every
//! record the reader hands out is written (pcap for a pcap input, pcapng keeping each
//! interface otherwise), the result read back, and each record must come back as it went
//! in: bytes, original length, link type, interface, and the time to the unit the
//! interface keeps.

use std::collections::HashMap;

use rdmadump::capture::write::{PcapNgWriter, PcapWriter};
use rdmadump::capture::{CaptureReader, ContainerKind, InterfaceInfo, SliceInput, TsResolution};

/// One record as read, with where it goes in the copy.
struct Written {
    data: Vec<u8>,
    orig_len: u32,
    ts_ns: Option<u64>,
    linktype: u32,
    /// The interface in the copy.
    iface: u32,
    resolution: TsResolution,
}

pub fn write_capture(data: &[u8]) {
    let Ok(mut reader) = CaptureReader::new(SliceInput::new(data)) else {
        return;
    };
    let pcap = reader.container().kind == ContainerKind::Pcap;
    let mut out = Vec::new();
    let mut written = Vec::new();
    let mut ids: HashMap<(u32, u32), u32> = HashMap::new();
    enum Sink {
        Pcap(PcapWriter<Vec<u8>>),
        PcapNg(PcapNgWriter<Vec<u8>>),
    }
    let mut sink = if pcap {
        let interface = reader.interface(0).expect("a pcap file has its interface");
        Sink::Pcap(PcapWriter::new(Vec::new(), interface).expect("writing to memory"))
    } else {
        Sink::PcapNg(PcapNgWriter::new(Vec::new(), "fuzz").expect("writing to memory"))
    };
    let mut clean = true;
    while let Ok(true) = reader.advance() {
        clean &= reader.take_warnings().next().is_none();
        let section = reader.container().section;
        let Some(record) = reader.current() else {
            break;
        };
        let (iface, ts, orig_len, linktype) =
            (record.iface, record.ts_ns, record.orig_len, record.linktype);
        let data = record.data.to_vec();
        let declared = reader.interface(iface);
        let interface = declared.unwrap_or(InterfaceInfo {
            linktype,
            snaplen: 0,
            resolution: TsResolution::NANO,
        });
        let (id, resolution, result) = match &mut sink {
            Sink::Pcap(writer) => {
                let resolution = if interface.resolution == TsResolution::NANO {
                    TsResolution::NANO
                } else {
                    TsResolution::MICRO
                };
                (0, resolution, writer.write(ts, orig_len, &data))
            }
            Sink::PcapNg(writer) => {
                let id = match ids.get(&(section, iface)) {
                    Some(&id) => id,
                    None => match writer.add_interface(interface) {
                        Ok(id) => {
                            ids.insert((section, iface), id);
                            id
                        }
                        // A link type beyond pcapng's 16 bits is refused, and said so.
                        Err(_) => return,
                    },
                };
                (
                    id,
                    interface.resolution,
                    writer.write(id, ts, orig_len, &data),
                )
            }
        };
        // pcap cannot hold times past 2106; the writer says so rather than wrap.
        if result.is_err() {
            return;
        }
        written.push(Written {
            data,
            orig_len,
            ts_ns: ts,
            linktype,
            iface: id,
            resolution,
        });
    }
    match sink {
        Sink::Pcap(writer) => out.extend(writer.into_inner()),
        Sink::PcapNg(writer) => out.extend(writer.into_inner()),
    }
    clean &= reader.take_warnings().next().is_none();
    read_back(&out, &written, clean);
}

/// `clean`: the original gave no warning, so neither may the copy.
fn read_back(copy: &[u8], written: &[Written], clean: bool) {
    let mut reader = CaptureReader::new(SliceInput::new(copy)).expect("the copy opens");
    for (n, want) in written.iter().enumerate() {
        let advanced = reader.advance();
        let warnings: Vec<String> = reader.take_warnings().map(|w| w.to_string()).collect();
        assert!(
            !clean || warnings.is_empty(),
            "record {n} of the copy: {warnings:?}"
        );
        assert_eq!(
            advanced.as_ref().ok(),
            Some(&true),
            "record {n}: {advanced:?}"
        );
        let got = reader.current().expect("a current record");
        assert_eq!(got.data, want.data, "record {n}: bytes");
        assert_eq!(got.orig_len, want.orig_len, "record {n}: original length");
        assert_eq!(got.linktype, want.linktype, "record {n}: link type");
        assert_eq!(got.iface, want.iface, "record {n}: interface");
        // Only a record on the copy's first interface, not cut, can stay without a time
        // (a Simple Packet Block); any other is written at time 0.
        let spb = want.iface == 0 && want.data.len() == want.orig_len as usize;
        let want_ts = match want.ts_ns {
            None if spb => None,
            None => Some(0),
            Some(ts) => Some(ts),
        };
        let units = |ts: Option<u64>| ts.map(|ts| want.resolution.units(ts));
        assert_eq!(
            units(got.ts_ns),
            units(want_ts),
            "record {n}: time {:?} came back as {:?} ({:?})",
            want_ts,
            got.ts_ns,
            want.resolution
        );
    }
    let end = reader.advance();
    assert_eq!(
        end.ok(),
        Some(false),
        "the copy holds more records than were written"
    );
    assert!(!reader.was_cut_short(), "the copy is cut short");
}
