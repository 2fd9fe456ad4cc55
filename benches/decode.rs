//! Micro-benchmarks for the per-packet work: container walk, dissection, CRCs and JSON.
//! `benches/run.sh` measures whole runs on large captures; these say where a packet's time
//! goes. Run with `cargo bench --bench decode`.

use std::hint::black_box;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rdmadump::capture::{CaptureReader, Record, SliceInput};
use rdmadump::crc::{IcrcPrefix, icrc, vcrc};
use rdmadump::dissect::{CrcMode, DecodeOptions, dissect};
use rdmadump::output::json;

/// One record of a fixture, owned, so that benchmarks can borrow it as a `Record`.
struct Frame {
    name: &'static str,
    data: Vec<u8>,
    orig_len: u32,
    linktype: u32,
}

impl Frame {
    fn record(&self) -> Record<'_> {
        Record {
            data: &self.data,
            orig_len: self.orig_len,
            ts_ns: Some(1_700_000_000_000_000_000),
            linktype: self.linktype,
            iface: 0,
            offset: 0,
        }
    }
}

/// Frame `index` (0-based) of fixture `file`.
fn frame(name: &'static str, file: &str, index: usize) -> Frame {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(file);
    let bytes = std::fs::read(&path).expect("fixture");
    let mut reader = CaptureReader::new(SliceInput::new(&bytes)).expect("capture");
    for _ in 0..index {
        assert!(reader.advance().expect("record"));
    }
    assert!(
        reader.advance().expect("record"),
        "{file} has no frame {index}"
    );
    let record = reader.current().expect("record");
    Frame {
        name,
        data: record.data.to_vec(),
        orig_len: record.orig_len,
        linktype: record.linktype,
    }
}

fn frames() -> Vec<Frame> {
    vec![
        frame("roce_v2_ipv4_send", "roce_v2_opcodes.pcap", 0),
        frame("roce_v2_ipv6_vlan", "roce_v2_ipv6_vlan.pcap", 0),
        frame("roce_v1", "roce_v1.pcap", 0),
        frame("ib_native_vcrc", "ib_native.pcap", 0),
        frame("pfc", "pfc_pause.pcap", 0),
    ]
}

fn bench_dissect(c: &mut Criterion) {
    let mut group = c.benchmark_group("dissect");
    let frames = frames();
    for (mode, crc) in [
        ("with_crcs", CrcMode::Inline),
        ("no_crcs", CrcMode::Deferred),
    ] {
        let opts = DecodeOptions {
            crc,
            ..DecodeOptions::default()
        };
        for f in &frames {
            let record = f.record();
            group.throughput(Throughput::Bytes(f.data.len() as u64));
            group.bench_with_input(BenchmarkId::new(mode, f.name), &record, |b, r| {
                b.iter(|| dissect(black_box(r), 1, &opts))
            });
        }
    }
    group.finish();
}

/// A payload of `len` bytes after a RoCE v2 IPv4/UDP header, as the ICRC sees it.
fn roce_v2_parts(len: usize) -> ([u8; 20], [u8; 8], Vec<u8>) {
    let ip = [
        0x45, 0x02, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
    ];
    let udp = [0xc0, 0x00, 0x12, 0xb7, 0, 0, 0, 0];
    let covered = (0..len).map(|i| (i as u8).wrapping_mul(31)).collect();
    (ip, udp, covered)
}

fn bench_crcs(c: &mut Criterion) {
    let mut group = c.benchmark_group("crc");
    for len in [64usize, 1024, 4096] {
        let (ip, udp, covered) = roce_v2_parts(len);
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_with_input(
            BenchmarkId::new("icrc_roce_v2", len),
            &covered,
            |b, bytes| {
                b.iter(|| {
                    icrc(
                        IcrcPrefix::RoceV2 {
                            ip: black_box(&ip),
                            ipv6: false,
                            udp: black_box(&udp),
                        },
                        black_box(bytes),
                    )
                })
            },
        );
        // The floor: the same bytes through crc32fast with no masked header.
        group.bench_with_input(
            BenchmarkId::new("crc32fast_floor", len),
            &covered,
            |b, bytes| b.iter(|| crc32fast::hash(black_box(bytes))),
        );
        // The design names the crc crate; its table-driven CRC-32 on the same bytes is why
        // the ICRC uses crc32fast (folding with carry-less multiplication) instead.
        const CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
        group.bench_with_input(
            BenchmarkId::new("crc_crate_crc32", len),
            &covered,
            |b, bytes| b.iter(|| CRC32.checksum(black_box(bytes))),
        );
        group.bench_with_input(BenchmarkId::new("vcrc", len), &covered, |b, bytes| {
            b.iter(|| vcrc(black_box(bytes)))
        });
    }
    group.finish();
}

fn bench_json(c: &mut Criterion) {
    let mut group = c.benchmark_group("json");
    let opts = DecodeOptions::default();
    let mut out = Vec::with_capacity(4096);
    for f in frames() {
        let pkt = dissect(&f.record(), 1, &opts);
        group.bench_function(f.name, |b| {
            b.iter(|| {
                out.clear();
                json::write_packet(&mut out, black_box(&pkt), None);
                out.len()
            })
        });
    }
    // The same line through serde_json, for the record of why JSON Lines keep their own
    // writer: the packet's fields gathered into a derived struct and serialized.
    let f = frame("roce_v2_ipv4_send", "roce_v2_opcodes.pcap", 0);
    let mut pkt = dissect(&f.record(), 1, &opts);
    pkt.verify_crcs();
    let mut hand = Vec::new();
    json::write_packet(&mut hand, &pkt, None);
    let mut through_serde = Vec::new();
    serde_line::write(&mut through_serde, &pkt);
    assert_eq!(
        String::from_utf8_lossy(&through_serde),
        String::from_utf8_lossy(&hand),
        "the serde line must be the same line"
    );
    group.bench_function("roce_v2_ipv4_send_serde", |b| {
        b.iter(|| {
            out.clear();
            serde_line::write(&mut out, black_box(&pkt));
            out.len()
        })
    });
    group.finish();
}

/// A RoCE v2 IPv4 line as serde would write it (only the headers that frame has).
mod serde_line {
    use std::fmt::Display;

    use rdmadump::dissect::{IpHeader, Packet};
    use rdmadump::report::Seconds;
    use rdmadump::wire::opcode;
    use serde::{Serialize, Serializer};

    fn display<S: Serializer>(v: &impl Display, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    #[derive(Serialize)]
    struct Line {
        frame: u64,
        ts: Seconds,
        len: u32,
        caplen: u32,
        kind: &'static str,
        linktype: u32,
        eth: Eth,
        ip: Ip,
        udp: Udp,
        bth: Bth,
        payload_len: u32,
        icrc: Icrc,
    }

    #[derive(Serialize)]
    struct Eth {
        #[serde(serialize_with = "display")]
        src: rdmadump::wire::ethernet::Mac,
        #[serde(serialize_with = "display")]
        dst: rdmadump::wire::ethernet::Mac,
        #[serde(rename = "type")]
        ethertype: u16,
    }

    #[derive(Serialize)]
    struct Ip {
        version: u8,
        #[serde(serialize_with = "display")]
        src: std::net::IpAddr,
        #[serde(serialize_with = "display")]
        dst: std::net::IpAddr,
        dscp: u8,
        ecn: u8,
        ttl: u8,
        total_len: u16,
        proto: u8,
    }

    #[derive(Serialize)]
    struct Udp {
        sport: u16,
        dport: u16,
        len: u16,
        checksum: u16,
    }

    #[derive(Serialize)]
    struct Bth {
        opcode: u8,
        opcode_name: &'static str,
        se: bool,
        migreq: bool,
        pad: u8,
        tver: u8,
        pkey: u16,
        fecn: bool,
        becn: bool,
        dest_qp: u32,
        ack_req: bool,
        psn: u32,
    }

    #[derive(Serialize)]
    struct Icrc {
        value: u32,
        status: &'static str,
    }

    pub fn write(out: &mut Vec<u8>, pkt: &Packet<'_>) {
        let (Some(eth), Some(IpHeader::V4(ip)), Some(udp), Some(bth), Some(icrc)) =
            (pkt.eth, pkt.ip, pkt.udp, pkt.bth, pkt.icrc)
        else {
            panic!("an IPv4 RoCE v2 frame");
        };
        let line = Line {
            frame: pkt.frame,
            ts: Seconds(pkt.ts_ns.unwrap_or(0)),
            len: pkt.len,
            caplen: pkt.caplen,
            kind: pkt.kind.name(),
            linktype: pkt.linktype,
            eth: Eth {
                src: eth.src(),
                dst: eth.dst(),
                ethertype: eth.ethertype(),
            },
            ip: Ip {
                version: 4,
                src: ip.src().into(),
                dst: ip.dst().into(),
                dscp: ip.dscp(),
                ecn: ip.ecn(),
                ttl: ip.ttl(),
                total_len: ip.total_len(),
                proto: ip.protocol(),
            },
            udp: Udp {
                sport: udp.src_port(),
                dport: udp.dst_port(),
                len: udp.length(),
                checksum: udp.checksum(),
            },
            bth: Bth {
                opcode: bth.opcode(),
                opcode_name: opcode::info(bth.opcode()).name,
                se: bth.solicited_event(),
                migreq: bth.migreq(),
                pad: bth.pad_count(),
                tver: bth.tver(),
                pkey: bth.pkey(),
                fecn: bth.fecn(),
                becn: bth.becn(),
                dest_qp: bth.dest_qp(),
                ack_req: bth.ack_req(),
                psn: bth.psn(),
            },
            payload_len: pkt.payload_len.unwrap_or(0),
            icrc: Icrc {
                value: icrc.stored.unwrap_or(0),
                status: icrc.status.name(),
            },
        };
        serde_json::to_writer(&mut *out, &line).expect("writing to memory");
        out.push(b'\n');
    }
}

fn bench_walk(c: &mut Criterion) {
    let source =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/roce_v2_opcodes.pcap"))
            .expect("fixture");
    let (header, records) = source.split_at(24);
    let mut capture = header.to_vec();
    let mut count = 0u64;
    while capture.len() < 4 << 20 {
        capture.extend_from_slice(records);
        count += 32;
    }
    let mut group = c.benchmark_group("walk");
    group.throughput(Throughput::Elements(count));
    group.bench_function("pcap_records", |b| {
        b.iter(|| {
            let mut reader = CaptureReader::new(SliceInput::new(&capture)).expect("capture");
            let mut bytes = 0usize;
            while reader.advance().expect("record") {
                bytes += reader.current().map_or(0, |r| r.data.len());
            }
            bytes
        })
    });
    group.finish();
}

criterion_group!(benches, bench_dissect, bench_crcs, bench_json, bench_walk);
criterion_main!(benches);
