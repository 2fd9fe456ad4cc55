//! Running the binary and reading its JSON output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(name: &str) -> PathBuf {
    root().join("fixtures").join(name)
}

pub fn real_capture() -> PathBuf {
    root().join("../shared/captures/infiniband-erf.pcap")
}

pub fn rdmadump(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdmadump"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run rdmadump")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `rdmadump read --json` on a file, one parsed object per frame.
pub fn read_json(path: &Path, extra: &[&str]) -> Vec<Value> {
    let path = path.to_str().expect("utf-8 path");
    let mut args = vec!["read", "--json"];
    args.extend_from_slice(extra);
    args.push(path);
    let out = rdmadump(&args);
    stdout(&out).lines().map(parse_line).collect()
}

/// Parses one JSON line and adds `ts_ns`: the `ts` number as exact integer nanoseconds,
/// read from the text because an f64 cannot hold an epoch time to the nanosecond.
pub fn parse_line(line: &str) -> Value {
    let mut value: Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("bad JSON line {line}: {e}"));
    if let Some(start) = line.find("\"ts\":") {
        let text: String = line[start + 5..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        if let Some((secs, frac)) = text.split_once('.') {
            let ns = secs.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap();
            value["ts_ns"] = Value::from(ns);
        }
    }
    value
}
