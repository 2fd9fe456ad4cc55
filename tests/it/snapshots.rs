//! Golden outputs: `read` (text and JSON) for every decode fixture and the real capture, and
//! `analyze` (text and JSON) for every scenario, committed under tests/it/snapshots/. A
//! change in output fails here until it is reviewed (`cargo insta review`) and committed.
//! The values themselves are checked against independent truth elsewhere (expected_fixtures,
//! scenarios, tshark_diff); these snapshots catch every other change in what users see.

use crate::harness::{fixture, rdmadump_ok, stdout};

/// Paths relative to the repository root (where the binary runs), so that snapshots do not
/// depend on where the repository is checked out.
fn captures(dir: &str) -> Vec<std::path::PathBuf> {
    let root = crate::harness::root();
    let mut files: Vec<_> = std::fs::read_dir(fixture(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcap" || x == "pcapng"))
        .map(|p| p.strip_prefix(&root).unwrap().to_path_buf())
        .collect();
    files.sort();
    files
}

fn name(path: &std::path::Path) -> String {
    path.file_name()
        .unwrap()
        .to_string_lossy()
        .replace('.', "_")
}

#[test]
fn read_outputs() {
    let mut files = captures("");
    files.extend(crate::harness::real_capture("infiniband-erf.pcap"));
    files.extend(crate::harness::real_capture("ipoib.pcap"));
    for file in files {
        let path = file.to_str().unwrap();
        let text = stdout(&rdmadump_ok(&["read", "--color", "never", path]));
        insta::assert_snapshot!(format!("read_{}", name(&file)), text);
        let json = stdout(&rdmadump_ok(&["read", "--json", path]));
        insta::assert_snapshot!(format!("read_json_{}", name(&file)), json);
    }
}

#[test]
fn analyze_outputs() {
    for file in captures("scenarios") {
        let path = file.to_str().unwrap();
        let text = stdout(&rdmadump_ok(&["analyze", "--color", "never", path]));
        insta::assert_snapshot!(format!("analyze_{}", name(&file)), text);
        // Pretty-printed so that a change shows as a readable diff; exact timestamps are
        // covered by the scenario tests.
        let json: serde_json::Value =
            serde_json::from_str(&stdout(&rdmadump_ok(&["analyze", "--json", path]))).unwrap();
        insta::assert_snapshot!(
            format!("analyze_json_{}", name(&file)),
            serde_json::to_string_pretty(&json).unwrap()
        );
    }
}
