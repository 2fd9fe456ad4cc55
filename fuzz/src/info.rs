//! `info_capture`: `rdmadump info` and `info --kinds` on an arbitrary file. The summary
//! must agree with the records the reader hands out, be the same whether the file is
//! mapped or streamed, and render as text and as JSON that parses.

use rdmadump::capture::info::summarize;
use rdmadump::capture::{Record, SliceInput};
use rdmadump::dissect::{CrcMode, DecodeOptions, Decoder, Kind, Packet};
use rdmadump::output::info::{FileInfo, render_text, write_json};

use super::streams::decompressed;
use super::{fixture, read_all};

pub fn info_capture(data: &[u8]) {
    let path = fixture::scratch_dir().join("info_capture.bin");
    std::fs::write(&path, data).expect("write the scratch file");
    // `--kinds`, as commands/info.rs counts them.
    let mut decoder = Decoder::new(DecodeOptions {
        crc: CrcMode::Deferred,
        ..DecodeOptions::default()
    });
    let mut counts = [0u64; Kind::ALL.len()];
    let mut frames = 0;
    let mut count_kind = |record: &Record<'_>, frame| {
        frames += 1;
        assert_eq!(frame, frames, "frames numbered from 1, one by one");
        let mut pkt = Packet::default();
        decoder.decode_into(&mut pkt, record, frame);
        if let Some(slot) = Kind::ALL.iter().position(|&k| k == pkt.kind) {
            counts[slot] += 1;
        }
    };
    let Ok(summary) = summarize(&path, false, Some(&mut count_kind)) else {
        return;
    };
    let streamed = summarize(&path, true, None).expect("opens streamed as it did mapped");
    assert_eq!(summary, streamed, "mapped and streamed summaries differ");
    assert_eq!(
        counts.iter().sum::<u64>(),
        summary.packets,
        "a kind per frame"
    );

    if let Some((plain, true)) = decompressed(data) {
        let read = read_all(SliceInput::new(&plain), false);
        let records = &read.records;
        assert_eq!(summary.packets, records.len() as u64, "packets");
        let sum = |f: fn(&super::Summary) -> u64| records.iter().map(f).sum::<u64>();
        assert_eq!(summary.captured_bytes, sum(|r| r.data.len() as u64));
        assert_eq!(summary.wire_bytes, sum(|r| u64::from(r.orig_len)));
        assert_eq!(
            summary.cut_by_snaplen,
            sum(|r| u64::from((r.data.len() as u64) < u64::from(r.orig_len)))
        );
        let times: Vec<u64> = records.iter().filter_map(|r| r.ts_ns).collect();
        assert_eq!(
            summary.without_timestamp,
            (records.len() - times.len()) as u64
        );
        assert_eq!(summary.earliest_ns, times.iter().min().copied());
        assert_eq!(summary.latest_ns, times.iter().max().copied());
        assert_eq!(
            summary.in_time_order,
            times.windows(2).all(|w| w[0] <= w[1]),
            "in time order"
        );
        assert_eq!(summary.cut_short, read.cut_short, "cut short");
        assert_eq!(summary.error.is_some(), read.error.is_some(), "an error");
        let on_interfaces: u64 = summary.interfaces.iter().map(|i| i.packets).sum();
        assert_eq!(
            on_interfaces, summary.packets,
            "every packet on an interface"
        );
    }

    let kinds: Vec<(&'static str, u64)> = Kind::ALL
        .iter()
        .zip(counts)
        .map(|(kind, n)| (kind.name(), n))
        .collect();
    let files = [
        FileInfo {
            name: "in\"fo\u{1b}[31m.pcap",
            summary: &summary,
            kinds: Some(&kinds),
        },
        FileInfo {
            name: "-",
            summary: &streamed,
            kinds: None,
        },
    ];
    let text = render_text(&files);
    assert!(text.starts_with("File:"), "the text starts with the file");
    let mut json = Vec::new();
    write_json(&mut json, &files).expect("writing to memory");
    if let Err(err) = serde_json::from_slice::<serde_json::Value>(&json) {
        panic!(
            "invalid info JSON ({err}): {}",
            String::from_utf8_lossy(&json)
        );
    }
}
