//! IP over InfiniBand on the real captures, by path (`harness::real_capture`, never copied), the
//! connected-mode QP table through the library's `Decoder`, and compressed inputs on stdin.
//! Expected values are what tshark 4.0 shows for these frames (`tshark -r FILE -V`).

use std::io::Write;
use std::process::{Command, Stdio};

use rdmadump::capture::{CaptureReader, SliceInput};
use rdmadump::dissect::{DecodeOptions, Decoder, Upper};
use serde_json::Value;

use crate::harness::{fixture, read_json, real_capture, stdout};

fn frames_with(frames: &[Value], key: &str) -> Vec<u64> {
    frames
        .iter()
        .filter(|f| f.get(key).is_some())
        .map(|f| f["frame"].as_u64().unwrap())
        .collect()
}

#[test]
fn linktype_ipoib_capture_names_icmp_arp_and_ssh() {
    let Some(ipoib) = real_capture("ipoib.pcap") else {
        return;
    };
    let frames = read_json(&ipoib, &[]);
    assert_eq!(frames.len(), 30);
    for f in &frames {
        assert_eq!(f["linktype"], 242, "{f}");
        assert_eq!(f["kind"], "other", "{f}");
        assert!(
            f.get("error").is_none() && f.get("truncated").is_none(),
            "{f}"
        );
        let named = ["icmp", "arp", "tcp"]
            .iter()
            .filter(|k| f.get(**k).is_some())
            .count();
        assert_eq!(named, 1, "one of ICMP, ARP, TCP: {f}");
    }
    // tshark: frames 1-5 and 8 are echo requests 192.168.56.10 -> .24, 6 and 7 the ARP
    // exchange (again at 25 and 26), 9 on the SSH connection from port 34170.
    assert_eq!(frames[0]["icmp"]["type"], 8);
    assert_eq!(frames[0]["ip"]["src"], "192.168.56.10");
    assert_eq!(frames[0]["ip"]["dst"], "192.168.56.24");
    assert_eq!(frames_with(&frames, "arp"), [6, 7, 25, 26]);
    assert_eq!(frames[5]["arp"]["op"], 1);
    assert_eq!(frames[5]["arp"]["target_ip"], "192.168.56.24");
    assert_eq!(frames[6]["arp"]["op"], 2);
    assert_eq!(frames[6]["arp"]["sender_ip"], "192.168.56.24");
    assert_eq!(frames[8]["tcp"]["sport"], 34170);
    assert_eq!(frames[8]["tcp"]["dport"], 22);
    let text = stdout(&crate::harness::rdmadump(&[
        "read",
        ipoib.to_str().unwrap(),
    ]));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with("192.168.56.10 > 192.168.56.24 icmp echo request"));
    assert!(lines[5].ends_with("arp who-has 192.168.56.24 tell 192.168.56.10"));
    assert!(lines[8].ends_with("192.168.56.10:34170 > 192.168.56.24:22 tcp"));
}

#[test]
fn datagram_and_connected_mode_ipoib_in_the_erf_capture() {
    let Some(real) = real_capture("infiniband-erf.pcap") else {
        return;
    };
    let frames = read_json(&real, &[]);
    // tshark: UDP 3, 4, 24, 25; ARP 5, 6; ICMPv6 26, all UD SEND Only to QPs other than
    // QP0/QP1. ICMP 10-22 and ICMPv6 30-43 on RC SEND Only, on the QPs the CM exchanges
    // for the IPoIB-CM service (frames 7-9, 27-29, 34-35) set up.
    assert_eq!(
        frames_with(&frames, "ipoib"),
        [
            3, 4, 5, 6, 10, 14, 16, 18, 20, 22, 24, 25, 26, 30, 36, 39, 43
        ]
    );
    assert_eq!(frames_with(&frames, "arp"), [5, 6]);
    assert_eq!(frames[2]["udp"]["sport"], 49501);
    assert_eq!(frames[4]["arp"]["sender_ip"], "10.0.1.34");
    assert_eq!(frames[4]["arp"]["target_ip"], "10.0.0.58");
    assert_eq!(frames[25]["icmp"]["type"], 135);
    assert_eq!(frames[9]["icmp"]["type"], 8);
    for f in &frames {
        assert_eq!(f["kind"], "ib", "{f}");
        assert_eq!(f["icrc"]["status"], "ok", "{f}");
    }
}

/// The CM exchanges teach the decoder the connected-mode QPs: the RC SEND Onlys on them
/// decode as IPoIB, as tshark shows them (ICMP and ICMPv6), and nothing else does.
#[test]
fn the_cm_exchanges_teach_the_decoder_the_connected_mode_qps() {
    let Some(real) = real_capture("infiniband-erf.pcap") else {
        return;
    };
    let bytes = std::fs::read(real).unwrap();
    let mut decoder = Decoder::new(DecodeOptions::default());
    let mut reader = CaptureReader::new(SliceInput::new(&bytes)).unwrap();
    let mut icmp = Vec::new();
    let mut frame = 0;
    while reader.advance().unwrap() {
        let Some(record) = reader.current() else {
            break;
        };
        frame += 1;
        let pkt = decoder.decode(&record, frame);
        assert!(pkt.error.is_none(), "frame {frame}: {:?}", pkt.error);
        if let Some(Upper::Icmp(_)) = pkt.upper {
            assert!(pkt.ipoib.is_some() && pkt.ip.is_some());
            icmp.push(frame);
        }
    }
    // tshark: ICMP on 10, 14, 16, 18, 20, 22 (IPv4) and ICMPv6 on 26 (UD), 30, 36, 39, 43.
    assert_eq!(icmp, [10, 14, 16, 18, 20, 22, 26, 30, 36, 39, 43]);
    // The RC SENDs go to the REPs' QPs; the REQs' QPs (which receive the ACKs) are learned too.
    for qpn in [0xfc0407, 0x890407, 0x6c004b] {
        assert!(decoder.ipoib_qps().contains(qpn), "{qpn:#x} learned");
    }
    // The stateless entry point knows no CM: the same RC SENDs stay plain.
    let plain = read_stateless_ipoib_frames(&bytes);
    assert_eq!(plain, [3, 4, 5, 6, 24, 25, 26]);
}

fn read_stateless_ipoib_frames(bytes: &[u8]) -> Vec<u64> {
    let mut reader = CaptureReader::new(SliceInput::new(bytes)).unwrap();
    let mut found = Vec::new();
    let mut frame = 0;
    while reader.advance().unwrap() {
        let Some(record) = reader.current() else {
            break;
        };
        frame += 1;
        let pkt = rdmadump::dissect::dissect(&record, frame, &DecodeOptions::default());
        if pkt.ipoib.is_some() {
            found.push(frame);
        }
    }
    found
}

fn read_stdin(bytes: &[u8]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
        .args(["read", "--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let owned = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&owned));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn compressed_captures_read_like_their_plain_originals_from_files_pipes_and_stdin() {
    for (packed, plain) in [
        ("gzip_roce_v1.pcap", "roce_v1.pcap"),
        ("zstd_big_endian.pcapng", "big_endian.pcapng"),
    ] {
        let want = stdout(&crate::harness::rdmadump(&[
            "read",
            "--json",
            fixture(plain).to_str().unwrap(),
        ]));
        for extra in [&[][..], &["--no-mmap"][..]] {
            let mut args = vec!["read", "--json"];
            args.extend_from_slice(extra);
            let path = fixture(packed);
            args.push(path.to_str().unwrap());
            assert_eq!(
                stdout(&crate::harness::rdmadump(&args)),
                want,
                "{packed} {extra:?}"
            );
        }
        assert_eq!(
            read_stdin(&std::fs::read(fixture(packed)).unwrap()),
            want,
            "{packed} on stdin"
        );
    }
}

/// A UD payload that passes the IPoIB guess and then contradicts itself (IHL 15 in a
/// 48-byte IPv4 packet) was not IPoIB: the InfiniBand packet stays sound, with no IP layer.
#[test]
fn a_guessed_ipoib_payload_that_contradicts_itself_is_not_ipoib() {
    let bytes = std::fs::read(fixture("ipoib_ud.pcap")).unwrap();
    let mut reader = CaptureReader::new(SliceInput::new(&bytes)).unwrap();
    assert!(reader.advance().unwrap());
    let record = reader.current().unwrap();
    let opts = DecodeOptions::default();
    let pkt = rdmadump::dissect::dissect(&record, 1, &opts);
    assert!(
        pkt.ipoib.is_some() && pkt.udp.is_some(),
        "frame 1 is IPoIB UDP"
    );
    // Frame 1: LRH 8, GRH 40, BTH 12, DETH 8, IPoIB 4, then the IPv4 header.
    let mut data = record.data.to_vec();
    assert_eq!(data[72], 0x45);
    data[72] = 0x4f;
    let changed = rdmadump::capture::Record {
        data: &data,
        ..record
    };
    let pkt = rdmadump::dissect::dissect(&changed, 1, &opts);
    assert!(pkt.error.is_none(), "{:?}", pkt.error);
    assert!(pkt.ipoib.is_none() && pkt.ip.is_none() && pkt.udp.is_none());
    assert_eq!(pkt.kind.name(), "ib");
}

/// Batches are decoded on several threads at once, so a batch may be decoded before the
/// batch ahead of it has taught the decoder a connected-mode QP; the consumer then decodes
/// it again. Here the CM REQ and REP of the ERF capture close the first batch of 512 and
/// the first IPoIB RC SEND opens the second: every thread count must show it as ICMP, as
/// one thread does.
#[test]
fn a_cm_exchange_at_the_end_of_a_batch_teaches_the_batches_decoded_beside_it() {
    let Some(real) = real_capture("infiniband-erf.pcap") else {
        return;
    };
    let bytes = std::fs::read(real).unwrap();
    let (header, body) = bytes.split_at(24);
    let mut records = Vec::new();
    let mut rest = body;
    while rest.len() >= 16 {
        let caplen = u32::from_le_bytes(rest[8..12].try_into().unwrap()) as usize;
        let (record, after) = rest.split_at(16 + caplen);
        records.push(record);
        rest = after;
    }
    // Frame 1 (an SMP) fills the batch up to the REQ (frame 7) and REP (frame 8); frame 10
    // is the first RC SEND to the REP's QP.
    const BATCH: usize = 512;
    let filler = BATCH - 8;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cm_at_batch_end.pcap");
    let mut capture = header.to_vec();
    for _ in 0..filler {
        capture.extend_from_slice(records[0]);
    }
    for _ in 0..4 {
        for record in &records {
            capture.extend_from_slice(record);
        }
    }
    std::fs::write(&path, &capture).unwrap();
    let path = path.to_string_lossy();
    let run = |threads: &str| {
        stdout(&crate::harness::rdmadump(&[
            "read",
            "--json",
            "--threads",
            threads,
            &path,
        ]))
    };
    let one = run("1");
    let first_send = one
        .lines()
        .nth(filler + 9)
        .expect("the first RC SEND is there");
    assert!(
        first_send.contains("\"icmp\""),
        "one thread decodes frame {} as IPoIB: {first_send}",
        filler + 10
    );
    for threads in ["2", "3", "5", "5", "5"] {
        assert!(run(threads) == one, "{threads} threads differ from one");
    }
}
