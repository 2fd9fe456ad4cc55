//! `rdmadump export`: every `read --json` leaf is a typed column with the same value, the
//! report rows flatten without loss, the files are where engines look for them, and bad
//! input never leaves half a capture behind.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, UInt64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::{FileReader, SerializedFileReader};
use serde_json::{Map, Value};

use crate::harness::{fixture, rdmadump, read_json, root, stderr};

/// Every bundled capture, and the real ones when they are there.
pub fn all_captures() -> Vec<PathBuf> {
    let mut captures = Vec::new();
    for dir in [
        "fixtures",
        "fixtures/scenarios",
        "fixtures/connections",
        "fixtures/points",
        "fixtures/causes",
        "fixtures/dcqcn",
        "fixtures/stalls",
        "fixtures/ulp",
    ] {
        for entry in std::fs::read_dir(root().join(dir)).expect("fixtures") {
            let path = entry.expect("entry").path();
            let name = path.to_string_lossy();
            if name.ends_with(".pcap") || name.ends_with(".pcapng") {
                captures.push(path);
            }
        }
    }
    for entry in crate::harness::real_captures_dir()
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .into_iter()
        .flatten()
    {
        let path = entry.expect("entry").path();
        if path
            .extension()
            .is_some_and(|e| e == "pcap" || e == "pcapng")
        {
            captures.push(path);
        }
    }
    captures.sort();
    captures
}

pub fn export(out: &Path, extra: &[&str], captures: &[&Path]) -> std::process::Output {
    let mut args = vec!["export", "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend(captures.iter().map(|p| p.to_str().unwrap()));
    rdmadump(&args)
}

/// The Parquet files under `dir`, in name order, hidden (temporary) ones included.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten() {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn batches(path: &Path) -> Vec<RecordBatch> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).expect("open"))
        .expect("parquet")
        .build()
        .expect("reader");
    reader.map(|b| b.expect("batch")).collect()
}

/// One Arrow cell as JSON, for comparison with `read --json`.
fn cell(array: &dyn Array, row: usize) -> Value {
    if array.is_null(row) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Int64 => Value::from(array.as_primitive::<Int64Type>().value(row)),
        DataType::UInt64 => Value::from(array.as_primitive::<UInt64Type>().value(row)),
        DataType::Boolean => Value::from(array.as_boolean().value(row)),
        DataType::Utf8 => Value::from(array.as_string::<i32>().value(row)),
        DataType::List(_) => {
            let list = array.as_list::<i32>().value(row);
            Value::Array((0..list.len()).map(|i| cell(list.as_ref(), i)).collect())
        }
        DataType::Timestamp(..) => Value::from("timestamp"),
        other => panic!("unexpected column type {other}"),
    }
}

/// The rows of a dataset as maps from column to value, nulls left out.
pub fn rows_of(files: &[PathBuf]) -> Vec<BTreeMap<String, Value>> {
    let mut rows = Vec::new();
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "parquet"))
    {
        for batch in batches(file) {
            let schema = batch.schema();
            for row in 0..batch.num_rows() {
                let mut map = BTreeMap::new();
                for (i, field) in schema.fields().iter().enumerate() {
                    let value = cell(batch.column(i).as_ref(), row);
                    if !value.is_null() {
                        map.insert(field.name().clone(), value);
                    }
                }
                rows.push(map);
            }
        }
    }
    rows
}

/// A flattened JSON leaf: a value, or the values of one key across a list.
#[derive(Debug)]
enum Leaf<'v> {
    Scalar(&'v Value),
    List(Vec<Option<&'v Value>>),
}

/// Flattens an object into `prefix_key` leaves. A time in seconds with an `_ns` twin is
/// left to its twin; a list of objects becomes one list per key, aligned.
fn flatten<'v>(object: &'v Map<String, Value>, prefix: &str, out: &mut Vec<(String, Leaf<'v>)>) {
    for (key, value) in object {
        if value.is_f64() && object.contains_key(&format!("{key}_ns")) {
            continue;
        }
        let name = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}_{key}")
        };
        match value {
            Value::Object(inner) => flatten(inner, &name, out),
            Value::Array(items) if items.iter().all(Value::is_object) && !items.is_empty() => {
                flatten_objects(items, &name, out);
            }
            Value::Array(items) => out.push((name, Leaf::List(items.iter().map(Some).collect()))),
            _ => out.push((name, Leaf::Scalar(value))),
        }
    }
}

fn flatten_objects<'v>(items: &'v [Value], prefix: &str, out: &mut Vec<(String, Leaf<'v>)>) {
    let mut lists: Vec<(String, Vec<Option<&'v Value>>)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mut leaves = Vec::new();
        if let Value::Object(object) = item {
            flatten(object, prefix, &mut leaves);
        }
        for (key, leaf) in leaves {
            let Leaf::Scalar(value) = leaf else { continue };
            let slot = match lists.iter().position(|(k, _)| *k == key) {
                Some(p) => p,
                None => {
                    lists.push((key, vec![None; items.len()]));
                    lists.len() - 1
                }
            };
            lists[slot].1[i] = Some(value);
        }
    }
    out.extend(lists.into_iter().map(|(k, v)| (k, Leaf::List(v))));
}

/// A JSON leaf as the column holds it: JSON's booleans for flags that are 0/1 in no
/// other way, and lists element for element.
fn leaf_value(leaf: &Leaf<'_>) -> Value {
    match leaf {
        Leaf::Scalar(v) => (*v).clone(),
        Leaf::List(items) => Value::Array(
            items
                .iter()
                .map(|v| v.cloned().unwrap_or(Value::Null))
                .collect(),
        ),
    }
}

/// Columns with values where the JSON has no key: the capture's name, the time as a
/// timestamp (the JSON has seconds), and the computed CRCs, which the JSON writes only
/// when they differ from the stored ones and the filter fields always give.
/// `iface` is 0 for a pcap's one interface, and `tunnel_too_deep` false, where the JSON
/// leaves them out; `ip_proto` is IPv6's next header too, where the JSON's `ip.proto` is
/// IPv4's only (the filter field's meaning, as Wireshark's `ip.proto` and `ipv6.nxt`).
const BEYOND_JSON: [&str; 7] = [
    "capture",
    "ts",
    "icrc_computed",
    "vcrc_computed",
    "iface",
    "tunnel_too_deep",
    "ip_proto",
];

#[test]
fn every_json_leaf_of_every_capture_is_a_column_with_the_same_value() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let mut missing: BTreeMap<String, String> = BTreeMap::new();
    let mut compared = 0usize;
    let mut extra: BTreeMap<String, String> = BTreeMap::new();
    for (n, capture) in all_captures().iter().enumerate() {
        let out = scratch.path().join(n.to_string());
        let result = export(&out, &["--partition", "none"], &[capture]);
        assert!(
            !stderr(&result).contains("no column"),
            "{}: {}",
            capture.display(),
            stderr(&result)
        );
        let rows = rows_of(&files_under(&out.join("packets")));
        let frames = read_json(capture, &[]);
        assert_eq!(
            rows.len(),
            frames.len(),
            "{}: one row per frame",
            capture.display()
        );
        for (row, frame) in rows.iter().zip(&frames) {
            let Value::Object(object) = frame else {
                panic!("not an object")
            };
            let mut leaves = Vec::new();
            flatten(object, "", &mut leaves);
            for (key, leaf) in &leaves {
                let expected = leaf_value(leaf);
                if expected.is_null() {
                    continue;
                }
                match row.get(key) {
                    Some(got) => {
                        assert_eq!(
                            got,
                            &expected,
                            "{} frame {}: column {key}",
                            capture.display(),
                            row["frame"]
                        );
                        compared += 1;
                    }
                    None => {
                        missing.insert(key.clone(), capture.display().to_string());
                    }
                }
            }
            for column in row.keys() {
                let from_json = leaves.iter().any(|(k, _)| k == column);
                if !from_json && !BEYOND_JSON.contains(&column.as_str()) {
                    extra.insert(
                        column.clone(),
                        format!("{} frame {}", capture.display(), row["frame"]),
                    );
                }
            }
            assert_eq!(
                row["capture"],
                Value::from(capture.file_name().unwrap().to_str().unwrap())
            );
        }
    }
    assert!(
        missing.is_empty(),
        "JSON leaves with no column: {missing:#?}"
    );
    assert!(
        extra.is_empty(),
        "columns with values the JSON does not have: {extra:#?}"
    );
    assert!(compared > 10_000, "only {compared} values compared");
}

#[test]
fn report_rows_flatten_without_loss_and_match_analyze() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let mut events_seen = 0;
    for (n, capture) in all_captures().iter().enumerate() {
        let out = scratch.path().join(n.to_string());
        let result = export(&out, &["--partition", "none"], &[capture]);
        assert!(
            !stderr(&result).contains("no column"),
            "{}: {}",
            capture.display(),
            stderr(&result)
        );
        let report = analyze_json(capture);
        // Every anomaly is an event row, with its kind and frame.
        let events = rows_of(&files_under(&out.join("events")));
        let mut expected: Vec<(String, u64)> = report["anomalies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["kind"].as_str().unwrap().to_string(),
                    a["frame"].as_u64().unwrap(),
                )
            })
            .collect();
        // And every run of PSNs the capture missed is one, which add up to its count.
        let missed: u64 = events
            .iter()
            .filter(|e| e["kind"] == "capture_missed")
            .map(|e| e["missing"].as_u64().unwrap())
            .sum();
        assert_eq!(
            Some(missed),
            report["capture_loss"]["missed"].as_u64(),
            "{}: capture_missed events",
            capture.display()
        );
        // Where a capture broke is a row of its own (tests/it/export_truth.rs), no anomaly.
        let mut got: Vec<(String, u64)> = events
            .iter()
            .filter(|e| e["kind"] != "capture_missed")
            .filter(|e| e.get("layer").is_none_or(|layer| layer != "capture"))
            .map(|e| {
                (
                    e["kind"].as_str().unwrap().to_string(),
                    e["frame"].as_u64().unwrap(),
                )
            })
            .collect();
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "{}: events", capture.display());
        events_seen += got.len();
        // Every connection direction is a row with analyze's counts.
        let connections = rows_of(&files_under(&out.join("connections")));
        // Every row of every dataset leads back to a frame of its capture.
        for row in connections.iter().chain(&events) {
            assert!(
                row.contains_key("capture") && row.contains_key("frame"),
                "{row:?}"
            );
        }
        for conn in report["connections"].as_array().unwrap() {
            for direction in ["a_to_b", "b_to_a"] {
                let counts = &conn[direction];
                if counts.is_null() {
                    continue;
                }
                let row = connections
                    .iter()
                    .find(|r| {
                        r.get("record") == Some(&Value::from("connection"))
                            && r.get("direction") == Some(&Value::from(direction))
                            && r.get("first_frame") == Some(&conn["first_frame"])
                            && r.get("a_qpn") == conn["a"].get("qpn").filter(|q| !q.is_null())
                            && r.get("b_qpn") == Some(&conn["b"]["qpn"])
                    })
                    .unwrap_or_else(|| panic!("{}: no row for {conn}", capture.display()));
                for key in [
                    "packets",
                    "payload_bytes",
                    "retransmitted",
                    "go_back_n",
                    "cnps",
                ] {
                    assert_eq!(row[key], counts[key], "{}: {key}", capture.display());
                }
                for key in ["missed", "expected", "unconfirmed"] {
                    assert_eq!(
                        row[&format!("capture_loss_{key}")],
                        counts["capture_loss"][key],
                        "{}: capture_loss {key}",
                        capture.display()
                    );
                }
            }
        }
    }
    assert!(events_seen > 30, "only {events_seen} events");
}

/// The report keys the export leaves out: which input a frame came from, which an
/// export of one capture never names, and timelines, which export does not ask for.
/// Keys `analyze --json` has that the export leaves out on purpose: file names (a row names
/// its capture), `--interval` timelines, and `capture_loss.ratio`, which is
/// `capture_loss_missed / capture_loss_expected`, both columns, so that fleet queries add
/// counts instead of averaging ratios.
fn left_out(key: &str) -> bool {
    key == "file"
        || key.ends_with("_file")
        || key.starts_with("timeline")
        || key == "capture_loss_ratio"
        // A ratio too: the column is rate_cut_after_cnp_p50_ppm, in millionths.
        || key == "rate_cut_after_cnp_p50"
        // And goodput_vs_median_ppm.
        || key == "goodput_vs_median"
}

/// The flattened keys of `object` that have a value: not null, and for a list, at least
/// one item that is not null.
fn keys_with_values(object: &Map<String, Value>, keys: &mut std::collections::BTreeSet<String>) {
    let mut leaves = Vec::new();
    flatten(object, "", &mut leaves);
    for (key, leaf) in leaves {
        let has = match leaf {
            Leaf::Scalar(v) => !v.is_null(),
            Leaf::List(items) => items.iter().any(|v| v.is_some_and(|v| !v.is_null())),
        };
        if has {
            keys.insert(key);
        }
    }
}

/// What `analyze --json` says each dataset's rows hold: for `connections` (one row per
/// direction with traffic), `flows` (the UD and RD flows, rows of the connections
/// dataset) and `events` (the anomalies), the columns some row should have a value in.
fn expected_columns(report: &Value) -> BTreeMap<&'static str, std::collections::BTreeSet<String>> {
    let mut expected: BTreeMap<&str, std::collections::BTreeSet<String>> = BTreeMap::new();
    for anomaly in report["anomalies"].as_array().unwrap() {
        let keys = expected.entry("events").or_default();
        let mut anomaly = anomaly.as_object().unwrap().clone();
        // 802.3x PAUSE stops every priority: the integer column has none for it.
        if anomaly.get("priority") == Some(&Value::from("all")) {
            anomaly.remove("priority");
        }
        keys_with_values(&anomaly, keys);
        keys.insert("capture".into());
        if keys.contains("ts_ns") {
            keys.insert("ts".into());
        }
    }
    for conn in report["connections"].as_array().unwrap() {
        for (direction, from, to) in [("a_to_b", "a", "b"), ("b_to_a", "b", "a")] {
            let Some(counts) = conn[direction].as_object() else {
                continue;
            };
            let keys = expected.entry("connections").or_default();
            let mut shared = conn.as_object().unwrap().clone();
            shared.remove("a_to_b");
            shared.remove("b_to_a");
            keys_with_values(&shared, keys);
            keys_with_values(counts, keys);
            for (column, value) in [
                ("src", &conn[from]["addr"]),
                ("dst", &conn[to]["addr"]),
                ("src_qpn", &conn[from]["qpn"]),
                ("dest_qp", &conn[to]["qpn"]),
                ("frame", &conn["first_frame"]),
            ] {
                if !value.is_null() {
                    keys.insert(column.into());
                }
            }
            keys.extend(["capture", "record", "direction"].map(String::from));
        }
    }
    for flow in report["flows"].as_array().unwrap() {
        let mut flow = flow.as_object().unwrap().clone();
        let Some(Value::Object(opcodes)) = flow.remove("opcodes") else {
            continue;
        };
        // Flows of a datagram transport, by opcode names as the IBA spells them.
        let datagram = ["UD_", "RD_"]
            .into_iter()
            .any(|prefix| opcodes.keys().all(|name| name.starts_with(prefix)));
        if opcodes.is_empty() || !datagram {
            continue;
        }
        let keys = expected.entry("flows").or_default();
        keys_with_values(&flow, keys);
        keys.extend(
            [
                "capture",
                "record",
                "transport",
                "frame",
                "opcodes_name",
                "opcodes_packets",
            ]
            .map(String::from),
        );
    }
    expected
}

/// Each column of a dataset's files, and whether some row of `record` (all rows when
/// `None`) has a value in it.
fn columns_with_values(files: &[PathBuf], record: Option<&str>) -> BTreeMap<String, bool> {
    let mut columns = BTreeMap::new();
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "parquet"))
    {
        for batch in batches(file) {
            let schema = batch.schema();
            let records = schema
                .index_of("record")
                .ok()
                .map(|i| batch.column(i).clone());
            for (i, field) in schema.fields().iter().enumerate() {
                let column = batch.column(i);
                let has = (0..batch.num_rows()).any(|row| {
                    let kept = match (record, &records) {
                        (Some(record), Some(records)) => cell(records.as_ref(), row) == record,
                        _ => true,
                    };
                    kept && !column.is_null(row)
                });
                *columns.entry(field.name().clone()).or_insert(false) |= has;
            }
        }
    }
    columns
}

#[test]
fn no_column_is_null_where_analyze_has_its_value() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let mut checked = BTreeMap::<&str, usize>::new();
    let mut failures = Vec::new();
    for (n, capture) in all_captures().iter().enumerate() {
        let out = scratch.path().join(n.to_string());
        let result = export(&out, &["--partition", "none"], &[capture]);
        if !result.status.success() {
            // Damaged: another test checks what such a capture exports.
            continue;
        }
        let report = analyze_json(capture);
        for (table, keys) in expected_columns(&report) {
            let (dataset, record) = match table {
                "events" => ("events", None),
                "flows" => ("connections", Some("flow")),
                _ => ("connections", Some("connection")),
            };
            let columns = columns_with_values(&files_under(&out.join(dataset)), record);
            for key in keys.iter().filter(|k| !left_out(k)) {
                match columns.get(key) {
                    Some(true) => *checked.entry(table).or_default() += 1,
                    Some(false) => failures.push(format!(
                        "{} {table}: column {key} is all null, and analyze --json has it",
                        capture.display()
                    )),
                    None => failures.push(format!(
                        "{} {table}: analyze --json key {key} has no column",
                        capture.display()
                    )),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // Each table was seen with values, so the test tests something.
    for table in ["events", "connections", "flows"] {
        assert!(
            checked.get(table).is_some_and(|&n| n > 10),
            "{table}: only {checked:?} columns checked"
        );
    }
}

fn analyze_json(capture: &Path) -> Value {
    let out = rdmadump(&["analyze", "--json", capture.to_str().unwrap()]);
    serde_json::from_slice(&out.stdout).expect("analyze JSON")
}

#[test]
fn files_are_partitioned_by_capture_date_and_carry_the_schema_version() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let capture = fixture("scenarios/gbn_wrap.pcap");
    let result = export(scratch.path(), &[], &[&capture]);
    assert!(result.status.success(), "{}", stderr(&result));
    // The fixture's first frame is at 1700000000 + n seconds: 2023-11-14 in UTC
    // (1700000000 s = 19675 days + 80000 s after the epoch).
    for dataset in ["packets", "connections", "events"] {
        let files = files_under(&scratch.path().join(dataset));
        assert_eq!(files.len(), 1, "{dataset}: {files:?}");
        let file = &files[0];
        let relative = file
            .strip_prefix(scratch.path())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert_eq!(
            relative,
            format!("{dataset}/capture_date=2023-11-14/gbn_wrap.pcap-00000.parquet")
        );
        let reader = SerializedFileReader::new(File::open(file).unwrap()).unwrap();
        let metadata = reader
            .metadata()
            .file_metadata()
            .key_value_metadata()
            .unwrap();
        let version = metadata
            .iter()
            .find(|kv| kv.key == "schema_version")
            .unwrap();
        assert_eq!(version.value.as_deref(), Some("1"));
        let codec = reader.metadata().row_group(0).column(0).compression();
        assert!(codec.to_string().starts_with("ZSTD"), "{codec}");
    }
}

#[test]
fn an_export_adds_files_and_refuses_to_duplicate_a_capture_unless_replacing() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let a = fixture("scenarios/gbn_wrap.pcap");
    let b = fixture("scenarios/pfc_storm.pcap");
    assert!(export(scratch.path(), &[], &[&a]).status.success());
    assert!(export(scratch.path(), &[], &[&b]).status.success());
    let packets = files_under(&scratch.path().join("packets"));
    assert_eq!(packets.len(), 2, "{packets:?}");
    let again = export(scratch.path(), &[], &[&a]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("gbn_wrap.pcap-00000.parquet exists"),
        "{}",
        stderr(&again)
    );
    assert_eq!(files_under(&scratch.path().join("packets")), packets);
    let replaced = export(scratch.path(), &["--replace"], &[&a]);
    assert!(replaced.status.success(), "{}", stderr(&replaced));
    let after = files_under(scratch.path());
    assert!(
        after
            .iter()
            .all(|f| !f.file_name().unwrap().to_string_lossy().starts_with('.'))
    );
    let frames = read_json(&a, &[]).len() + read_json(&b, &[]).len();
    assert_eq!(
        rows_of(&files_under(&scratch.path().join("packets"))).len(),
        frames
    );
}

#[test]
fn a_selection_applies_to_packets_and_the_report_sees_everything() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let capture = fixture("roce_v2_crc_cases.pcap");
    let all = scratch.path().join("all");
    let bad = scratch.path().join("bad");
    assert!(export(&all, &[], &[&capture]).status.success());
    let result = export(&bad, &["-Y", "icrc.status == \"bad\""], &[&capture]);
    assert!(result.status.success(), "{}", stderr(&result));
    let rows = rows_of(&files_under(&bad.join("packets")));
    // The generator (fixtures/gen/make_fixtures.py) writes two frames with a wrong ICRC.
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["icrc_status"] == "bad"));
    for dataset in ["connections", "events"] {
        assert_eq!(
            rows_of(&files_under(&all.join(dataset))),
            rows_of(&files_under(&bad.join(dataset))),
            "{dataset}"
        );
    }
}

#[test]
fn a_damaged_capture_exports_what_decoded_and_an_unreadable_one_nothing() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let not_a_capture = scratch.path().join("notes.pcap");
    std::fs::write(&not_a_capture, b"this is not a capture file at all").unwrap();
    let damaged = fixture("cut_short.pcap");
    let malformed = fixture("malformed.pcap");
    let out = scratch.path().join("out");
    let result = export(
        &out,
        &["--partition", "none"],
        &[&not_a_capture, &damaged, &malformed],
    );
    assert_eq!(result.status.code(), Some(2));
    assert!(
        stderr(&result).contains("notes.pcap"),
        "{}",
        stderr(&result)
    );
    let files = files_under(&out);
    // The unreadable capture has its captures row (tests/it/export_truth.rs), and no other.
    assert!(
        files
            .iter()
            .filter(|f| !f.starts_with(out.join("captures")))
            .all(|f| !f.to_string_lossy().contains("notes.pcap")),
        "{files:?}"
    );
    assert!(
        files
            .iter()
            .all(|f| !f.file_name().unwrap().to_string_lossy().starts_with('.'))
    );
    // cut_short.pcap: three whole records, then one cut (fixtures/README.md).
    let packets = rows_of(&files_under(&out.join("packets")));
    let cut: Vec<_> = packets
        .iter()
        .filter(|r| r["capture"] == "cut_short.pcap")
        .collect();
    assert_eq!(cut.len(), 3);
    // malformed.pcap: every frame a row, the malformed ones with where decoding stopped,
    // and an event for each.
    let frames = read_json(&malformed, &[]);
    let rows: Vec<_> = packets
        .iter()
        .filter(|r| r["capture"] == "malformed.pcap")
        .collect();
    assert_eq!(rows.len(), frames.len());
    let broken = frames.iter().filter(|f| f.get("error").is_some()).count();
    assert!(broken > 0);
    assert_eq!(
        rows.iter()
            .filter(|r| r.contains_key("error_layer"))
            .count(),
        broken
    );
    let events = rows_of(&files_under(&out.join("events")));
    let malformed_events = events
        .iter()
        .filter(|e| e["capture"] == "malformed.pcap" && e["kind"] == "malformed")
        .count();
    assert_eq!(malformed_events, broken);
}

/// Writes a pcap of `copies` repetitions of another's records.
fn repeated(source: &Path, copies: usize, target: &Path) {
    let bytes = std::fs::read(source).unwrap();
    let mut out = bytes[..24].to_vec();
    for _ in 0..copies {
        out.extend_from_slice(&bytes[24..]);
    }
    std::fs::write(target, out).unwrap();
}

#[test]
fn a_dataset_is_split_into_files_of_the_size_asked_with_every_row_once() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let big = scratch.path().join("big.pcap");
    repeated(&fixture("scenarios/gbn_wrap.pcap"), 3000, &big);
    let out = scratch.path().join("out");
    let result = export(
        &out,
        &["--max-file-size", "64K", "--partition", "none"],
        &[&big],
    );
    assert!(result.status.success(), "{}", stderr(&result));
    let files = files_under(&out.join("packets"));
    assert!(files.len() >= 2, "not split: {files:?}");
    for (i, file) in files.iter().enumerate() {
        assert_eq!(
            file.file_name().unwrap().to_string_lossy(),
            format!("big.pcap-{i:05}.parquet")
        );
        // A file passes the limit by at most one batch of rows.
        assert!(std::fs::metadata(file).unwrap().len() < 1 << 20);
    }
    let rows = rows_of(&files);
    assert_eq!(rows.len(), 19 * 3000);
    let frames: Vec<u64> = rows.iter().map(|r| r["frame"].as_u64().unwrap()).collect();
    assert!(frames.iter().zip(1u64..).all(|(f, n)| *f == n));
}

#[test]
fn export_options_that_make_no_sense_are_usage_errors() {
    let a = fixture("scenarios/gbn_wrap.pcap");
    let b = fixture("scenarios/pfc_storm.pcap");
    let out = rdmadump(&[
        "export",
        "--name",
        "x",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--name"), "{}", stderr(&out));
    let out = rdmadump(&["export", "--max-file-size", "10K", a.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("too small"), "{}", stderr(&out));
}
