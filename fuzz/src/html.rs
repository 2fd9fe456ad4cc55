//! `html_report`: an arbitrary capture analysed with the charts recorded, then the page of
//! `analyze --html`. Input names are hostile markup, which the page must show as text.

use rdmadump::analyze::{AnalyzeConfig, Analyzer};
use rdmadump::capture::merge::InputReport;
use rdmadump::capture::{CaptureReader, SliceInput};
use rdmadump::dissect::{DecodeOptions, dissect};
use rdmadump::output::html;
use rdmadump::report::Report;

/// Markup that would run if a name reached the page unescaped.
const MARKUP: &str = "<img src=x onerror=alert(1)>";

pub fn html_report(data: &[u8]) {
    let Ok(mut reader) = CaptureReader::new(SliceInput::new(data)) else {
        return;
    };
    let n = data.len();
    let two_points = n % 2 == 1;
    let config = AnalyzeConfig {
        graphs: true,
        max_flows: 1 + n / 2 % 8,
        max_anomalies: n / 16 % 64,
        interval_ns: [None, Some(1_000), Some(1)][n / 3 % 3],
        max_buckets: 1 + (n / 5 % 64) as u32,
        stall_ns: [None, Some(0), Some(1_000)][n / 7 % 3],
        ..AnalyzeConfig::default()
    };
    let mut analyzer = Analyzer::new(config);
    let opts = DecodeOptions::default();
    let mut files = vec![format!("dir/{MARKUP}.pcap")];
    if two_points {
        files.push(format!("\"'{MARKUP}</script>.pcapng"));
    }
    let mut input = InputReport {
        files,
        ..InputReport::default()
    };
    while let Ok(true) = reader.advance() {
        let Some(record) = reader.current() else {
            break;
        };
        input.records += 1;
        let mut pkt = dissect(&record, input.records, &opts);
        pkt.verify_crcs();
        let point = if two_points { record.iface % 2 } else { 0 };
        analyzer.observe(point as usize, &pkt);
    }
    input.truncated = reader.was_cut_short();
    analyzer.finish();
    let report = Report::new(&analyzer, &input);
    let top = 1 + n / 11 % 4;
    let page = html::render(&report, &analyzer, top, 1);
    assert!(
        page.starts_with("<!DOCTYPE html>"),
        "the page starts with its doctype"
    );
    assert!(
        page.trim_end().ends_with("</html>"),
        "the page ends with </html>"
    );
    assert!(
        !page.contains(MARKUP),
        "a file name reached the page as markup"
    );
}
