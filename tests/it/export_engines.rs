//! The export recipes of docs/cli.md: DuckDB and Spark read an export of the bundled
//! fixtures, and their answers equal what `rdmadump analyze --json` reports on the same
//! captures.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::harness::{python_module_available, rdmadump, required, root, stderr};

/// True when `python3 -c "import MODULE"` works (see `harness::required`).
fn engine_available(module: &str, install: &str) -> bool {
    required(python_module_available(module), module, install)
}

/// The bundled captures the recipes run over: every fixture with a name of its own.
fn captures() -> Vec<PathBuf> {
    let mut captures = Vec::new();
    for dir in ["fixtures", "fixtures/scenarios"] {
        for entry in std::fs::read_dir(root().join(dir)).expect("fixtures") {
            let path = entry.expect("entry").path();
            if path
                .extension()
                .is_some_and(|e| e == "pcap" || e == "pcapng")
            {
                captures.push(path);
            }
        }
    }
    captures.sort();
    captures
}

/// Exports the captures into `parent/fleet`, as the recipes of docs/cli.md name it.
fn export_fleet(parent: &Path, captures: &[PathBuf]) {
    let fleet = parent.join("fleet");
    let mut args = vec!["export", "-o", fleet.to_str().unwrap()];
    args.extend(captures.iter().map(|p| p.to_str().unwrap()));
    let out = rdmadump(&args);
    // huge_caplen.pcap is damaged beyond its first record, which makes the status 2.
    assert!(out.status.code() == Some(0) || out.status.code() == Some(2));
    assert!(!stderr(&out).contains("no column"), "{}", stderr(&out));
}

fn run_python(script: &str, dir: &Path, args: &[&str]) -> Value {
    let out = Command::new("python3")
        .arg(root().join("tests/export").join(script))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// The recipes' answers, computed from `analyze --json` of each capture.
fn expected_from_analyze(captures: &[PathBuf]) -> Value {
    let mut by_source: BTreeMap<String, u64> = BTreeMap::new();
    let mut per_qp: BTreeMap<(String, u64), u64> = BTreeMap::new();
    let mut retransmitting: Vec<(u64, String, u64, Value)> = Vec::new();
    let mut storms: BTreeMap<(u64, u64), (u64, u64)> = BTreeMap::new();
    for capture in captures {
        let name = capture.file_name().unwrap().to_str().unwrap().to_string();
        let out = rdmadump(&["analyze", "--json", capture.to_str().unwrap()]);
        let report: Value = serde_json::from_slice(&out.stdout).expect("analyze JSON");
        assert_eq!(report["anomalies_omitted"], 0);
        for anomaly in report["anomalies"].as_array().unwrap() {
            match anomaly["kind"].as_str() {
                Some("icrc_bad") => {
                    let src = anomaly["src"].as_str().unwrap().to_string();
                    *by_source.entry(src).or_default() += 1;
                    let qp = anomaly["dest_qp"].as_u64().unwrap();
                    *per_qp.entry((name.clone(), qp)).or_default() += 1;
                }
                Some("pfc_storm") => {
                    let hour = anomaly["ts_ns"].as_u64().unwrap() / 3_600_000_000_000 * 3600;
                    let priority = anomaly["priority"].as_u64().unwrap();
                    let entry = storms.entry((priority, hour)).or_default();
                    entry.0 += 1;
                    entry.1 += anomaly["duration_ns"].as_u64().unwrap();
                }
                _ => {}
            }
        }
        for conn in report["connections"].as_array().unwrap() {
            for (direction, from, to) in [("a_to_b", "a", "b"), ("b_to_a", "b", "a")] {
                let counts = &conn[direction];
                let retransmitted = counts["retransmitted"].as_u64().unwrap_or(0);
                if retransmitted > 0 {
                    let dest_qp = conn[to]["qpn"].as_u64().unwrap();
                    let row = json!([
                        name,
                        conn[from]["addr"],
                        conn[to]["addr"],
                        dest_qp,
                        retransmitted,
                        counts["go_back_n"]
                    ]);
                    retransmitting.push((retransmitted, name.clone(), dest_qp, row));
                }
            }
        }
    }
    let mut by_source: Vec<(String, u64)> = by_source.into_iter().collect();
    by_source.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut per_qp: Vec<((String, u64), u64)> = per_qp.into_iter().collect();
    per_qp.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    retransmitting.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut storms: Vec<((u64, u64), (u64, u64))> = storms.into_iter().collect();
    storms.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(&b.0)));
    json!({
        "icrc_bad_by_source": by_source.iter().map(|(s, n)| json!([s, n])).collect::<Vec<_>>(),
        "icrc_bad_per_qp": per_qp.iter().map(|((c, q), n)| json!([c, q, n])).collect::<Vec<_>>(),
        "top_qps_by_retransmissions":
            retransmitting.into_iter().take(20).map(|r| r.3).collect::<Vec<_>>(),
        "storms_by_priority": storms
            .iter()
            .map(|((p, hour), (n, ns))| json!([p, hour, n, *ns as f64 / 1e6]))
            .collect::<Vec<_>>(),
    })
}

#[test]
fn duckdb_recipes_answer_what_analyze_reports() {
    if !engine_available("duckdb", "pip install duckdb pytz") {
        return;
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    let captures = captures();
    export_fleet(scratch.path(), &captures);
    let duckdb = run_python("duckdb_recipes.py", scratch.path(), &[]);
    let expected = expected_from_analyze(&captures);
    assert_eq!(duckdb, expected);
    // The recipes are not empty: the fixtures have ICRC failures, retransmissions, a storm.
    for (name, rows) in expected.as_object().unwrap() {
        assert!(!rows.as_array().unwrap().is_empty(), "{name} has no rows");
    }
}

#[test]
fn the_command_reference_shows_the_recipes_that_the_test_runs() {
    let cli = std::fs::read_to_string(root().join("docs/cli.md")).expect("docs/cli.md");
    for entry in std::fs::read_dir(root().join("tests/export/queries")).expect("queries") {
        let path = entry.expect("entry").path();
        let sql = std::fs::read_to_string(&path).expect("query");
        assert!(
            cli.contains(sql.trim()),
            "docs/cli.md does not show {}",
            path.display()
        );
    }
}

#[test]
fn spark_reads_the_same_parquet_and_agrees_with_duckdb_and_analyze() {
    if !engine_available("pyspark", "pip install pyspark; Java 17+") {
        return;
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    let captures = captures();
    export_fleet(scratch.path(), &captures);
    let spark = run_python("spark_job.py", scratch.path(), &["fleet"]);
    let expected = expected_from_analyze(&captures);
    assert_eq!(spark, expected);
    if engine_available("duckdb", "pip install duckdb pytz") {
        assert_eq!(run_python("duckdb_recipes.py", scratch.path(), &[]), spark);
    }
}
