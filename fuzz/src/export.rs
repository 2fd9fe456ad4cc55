//! `parquet_export`: what `rdmadump export` writes for an arbitrary capture — the packets,
//! connections and events datasets — committed, then read back with the parquet crate
//! itself: as many rows as were written, and each packet row holding its frame's number,
//! lengths and time.

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMicrosecondType, UInt64Type};
use arrow_array::{Array, RecordBatch};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rdmadump::analyze::{AnalyzeConfig, Analyzer};
use rdmadump::capture::merge::InputReport;
use rdmadump::capture::{CaptureReader, SliceInput};
use rdmadump::dissect::{DecodeOptions, dissect};
use rdmadump::output::parquet::connections::{ConnectionRecord, connection_schema};
use rdmadump::output::parquet::events::{EventRecord, event_schema};
use rdmadump::output::parquet::{
    ColumnSpec, DatasetOptions, DatasetWriter, Partitioning, Table, commit_all, packets,
};
use rdmadump::report::anomalies::AnomalyRow;
use rdmadump::report::{Files, Report};

use super::fixture;

/// What each frame's row must say.
#[derive(Debug, PartialEq, Eq)]
struct Expected {
    frame: i128,
    len: i128,
    caplen: i128,
    ts_ns: Option<i128>,
}

pub fn parquet_export(data: &[u8]) {
    let Ok(mut reader) = CaptureReader::new(SliceInput::new(data)) else {
        return;
    };
    let root = fixture::scratch_dir().join("export");
    let _ = std::fs::remove_dir_all(&root);
    let options = DatasetOptions {
        // The smallest size `--max-file-size` takes, so that a capture spans several files.
        max_file_bytes: 1 << 16,
        partitioning: if data.len().is_multiple_of(2) {
            Partitioning::CaptureDate
        } else {
            Partitioning::None
        },
        replace: false,
    };
    let name = "fuzz capture=\"x\"/..";
    let writer = |dataset: &str, columns: &[ColumnSpec]| {
        DatasetWriter::new(root.join(dataset), dataset, name, columns, options.clone())
    };
    let mut packet_writer = writer("packets", &packets::columns());
    let mut table = Table::new(&packets::columns());
    let mut analyzer = Analyzer::new(AnalyzeConfig {
        max_flows: 8,
        ..AnalyzeConfig::default()
    });
    let decode = DecodeOptions::default();
    let mut expected = Vec::new();
    // Rows go to the writer in small batches, so that batches, row groups and files all
    // have ends inside the capture.
    let batch_rows = 1 + data.len() % 7;
    let mut input = InputReport {
        files: vec![name.to_string()],
        ..InputReport::default()
    };
    while let Ok(true) = reader.advance() {
        let Some(record) = reader.current() else {
            break;
        };
        input.records += 1;
        let mut pkt = dissect(&record, input.records, &decode);
        pkt.verify_crcs();
        analyzer.observe(0, &pkt);
        expected.push(Expected {
            frame: pkt.frame.into(),
            len: pkt.len.into(),
            caplen: pkt.caplen.into(),
            // The column is an Int64, as SQL engines want: a time past 2262 does not fit,
            // and is null rather than something it is not (columns.rs).
            ts_ns: pkt
                .ts_ns
                .and_then(|ts| i64::try_from(ts).ok())
                .map(i128::from),
        });
        packets::push(&mut table, name, &pkt);
        if table.rows() >= batch_rows {
            let batch = table.finish().expect("a batch of the packet rows");
            packet_writer
                .write(&batch, analyzer.first_ts)
                .expect("writing packets");
        }
    }
    analyzer.finish();
    let first_ts = analyzer.first_ts;
    let batch = table.finish().expect("the last batch of packet rows");
    packet_writer
        .write(&batch, first_ts)
        .expect("writing packets");

    let files = [name.to_string()];
    let mut event_writer = writer("events", &event_schema().specs());
    let mut events = Table::new(&event_schema().specs());
    for anomaly in &analyzer.anomalies.kept {
        let record = EventRecord {
            capture: name,
            anomaly: AnomalyRow::new(anomaly, Files(&files)),
        };
        event_schema().push(&mut events, &record);
    }
    let event_rows = events.rows() as u64;
    event_writer
        .write(&events.finish().expect("event rows"), first_ts)
        .expect("writing events");

    let mut connection_writer = writer("connections", &connection_schema().specs());
    let report = Report::new(&analyzer, &input);
    let connections: Vec<_> = report.connections.iter().collect();
    let schema = connection_schema();
    let mut table = Table::new(&schema.specs());
    let directions = connections
        .iter()
        .flat_map(|connection| ConnectionRecord::of_connection(name, connection));
    let flows = report
        .flows
        .iter()
        .filter_map(|flow| ConnectionRecord::of_flow(name, flow));
    for record in directions.chain(flows) {
        schema.push(&mut table, &record);
    }
    let connection_rows = table.rows() as u64;
    connection_writer
        .write(&table.finish().expect("connection rows"), first_ts)
        .expect("writing connections");

    assert_eq!(packet_writer.rows(), expected.len() as u64, "packet rows");
    let mut temporaries = Vec::new();
    for mut writer in [packet_writer, event_writer, connection_writer] {
        temporaries.extend(writer.take_finished().expect("finish a dataset"));
    }
    commit_all(temporaries).expect("commit the datasets");

    let packet_batches = read_dataset(&root.join("packets"));
    let mut got = Vec::new();
    for batch in &packet_batches {
        for row in 0..batch.num_rows() {
            got.push(Expected {
                frame: int(batch, "frame", row).expect("every row has a frame"),
                len: int(batch, "len", row).expect("every row has a length"),
                caplen: int(batch, "caplen", row).expect("every row has a captured length"),
                ts_ns: int(batch, "ts_ns", row),
            });
        }
    }
    assert_eq!(got, expected, "the packets read back differ");
    let rows_of = |dataset: &str| -> u64 {
        read_dataset(&root.join(dataset))
            .iter()
            .map(|b| b.num_rows() as u64)
            .sum()
    };
    assert_eq!(rows_of("events"), event_rows, "event rows read back");
    assert_eq!(
        rows_of("connections"),
        connection_rows,
        "connection rows read back"
    );
}

/// Every batch of every Parquet file under `dir`, files in name order.
fn read_dataset(dir: &Path) -> Vec<RecordBatch> {
    let mut files = Vec::new();
    collect_files(dir, &mut files);
    files.sort();
    let mut batches = Vec::new();
    for path in files {
        let name = path.display().to_string();
        assert!(
            name.ends_with(".parquet"),
            "a file that is not Parquet: {name}"
        );
        let file = std::fs::File::open(&path).expect("open a Parquet file");
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .build()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for batch in reader {
            batches.push(batch.unwrap_or_else(|e| panic!("{name}: {e}")));
        }
    }
    batches
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            collect_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// An integer cell, whatever integer type the column has; `None` when null.
fn int(batch: &RecordBatch, column: &str, row: usize) -> Option<i128> {
    let array = batch
        .column_by_name(column)
        .unwrap_or_else(|| panic!("no column {column}"));
    if array.is_null(row) {
        return None;
    }
    if let Some(a) = array.as_primitive_opt::<UInt64Type>() {
        return Some(a.value(row).into());
    }
    if let Some(a) = array.as_primitive_opt::<Int64Type>() {
        return Some(a.value(row).into());
    }
    if let Some(a) = array.as_primitive_opt::<TimestampMicrosecondType>() {
        return Some(a.value(row).into());
    }
    panic!("column {column} is {:?}", array.data_type());
}
