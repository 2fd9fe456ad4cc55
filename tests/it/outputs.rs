//! Outputs are never destroyed nor faked (issue 31, section 1): an output that is an input
//! is refused, whatever name either has; a file output appears whole or not at all, and an
//! existing one is left as it was when the run fails; an unwritable output fails before any
//! input is read; and a run whose inputs all failed prints no document that could pass for
//! the report of a clean, empty capture. Each test says what the code before it did.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::harness::{fixture, stderr, stdout};

/// The capture every test works on, as a private copy in `dir`.
fn capture_in(dir: &Path) -> PathBuf {
    let copy = dir.join("x.pcap");
    fs::copy(fixture("roce_v1.pcap"), &copy).unwrap();
    copy
}

fn original() -> Vec<u8> {
    fs::read(fixture("roce_v1.pcap")).unwrap()
}

/// `rdmadump ARGS` run in `dir`, with stdin and stdout as given (stdout captured when
/// `None`).
fn run_in(dir: &Path, args: &[&str], stdin: Option<File>, stdout_to: Option<File>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rdmadump"));
    command.args(args).current_dir(dir);
    command.stdin(stdin.map_or_else(Stdio::null, Stdio::from));
    if let Some(file) = stdout_to {
        command.stdout(Stdio::from(file));
    }
    command.output().expect("run rdmadump")
}

/// The names in `dir`, sorted: a temporary file left behind shows here.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn refused(out: &Output, what: &str) {
    assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(out));
    assert!(
        stderr(out).contains("the same file"),
        "{what}: the message says why: {}",
        stderr(out)
    );
}

/// Before: `-w` compared canonical paths, which differ for two hard links of one file; it
/// truncated `x` through `y`, died of SIGBUS on its mapping of `x`, and left `x` empty.
#[test]
fn a_hard_link_to_an_input_is_refused_as_w() {
    let dir = tempfile::tempdir().unwrap();
    capture_in(dir.path());
    fs::hard_link(dir.path().join("x.pcap"), dir.path().join("y.pcap")).unwrap();
    let out = run_in(dir.path(), &["read", "-w", "y.pcap", "x.pcap"], None, None);
    refused(&out, "ln x y; read -w y x");
    assert_eq!(fs::read(dir.path().join("x.pcap")).unwrap(), original());
}

/// Before: `-` is not a path that canonicalizes to `x`, so `-w x - < x` truncated the file
/// on standard input and left it empty.
#[test]
fn standard_input_redirected_from_the_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let x = capture_in(dir.path());
    let stdin = File::open(&x).unwrap();
    let out = run_in(
        dir.path(),
        &["read", "-w", "x.pcap", "-"],
        Some(stdin),
        None,
    );
    refused(&out, "read -w x - < x");
    assert_eq!(fs::read(&x).unwrap(), original());
}

/// Before: `--html` was never compared with the inputs: the capture was overwritten by
/// its own report, with exit status 0.
#[test]
fn an_html_report_over_its_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let x = capture_in(dir.path());
    let out = run_in(
        dir.path(),
        &["analyze", "--html", "x.pcap", "x.pcap"],
        None,
        None,
    );
    refused(&out, "analyze --html x x");
    assert_eq!(fs::read(&x).unwrap(), original());
}

/// Before: standard output was never compared with the inputs: `>> x` appended the
/// output to the capture being read (`> x` has emptied it before rdmadump starts).
#[test]
fn standard_output_appended_to_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let x = capture_in(dir.path());
    for args in [
        &["read", "x.pcap"][..],
        &["read", "-w", "-", "x.pcap"],
        &["analyze", "x.pcap"],
        &["analyze", "--json", "x.pcap"],
        &["info", "x.pcap"],
        &["read", "-"],
    ] {
        let append = OpenOptions::new().append(true).open(&x).unwrap();
        let stdin = args.contains(&"-").then(|| File::open(&x).unwrap());
        let out = run_in(dir.path(), args, stdin, Some(append));
        refused(&out, &format!("{args:?} >> x"));
        assert_eq!(fs::read(&x).unwrap(), original(), "{args:?} >> x");
    }
}

/// Before: a Parquet file of the output dataset given as the capture to export was only
/// found not to be a capture; nothing stopped `--replace` from removing it.
#[cfg(feature = "export")]
#[test]
fn an_input_inside_the_output_dataset_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    capture_in(dir.path());
    let first = run_in(
        dir.path(),
        &["export", "-o", "ds", "--partition", "none", "x.pcap"],
        None,
        None,
    );
    assert!(first.status.success(), "{}", stderr(&first));
    let part = dir.path().join("ds/packets/x.pcap-00000.parquet");
    let before = fs::read(&part).unwrap();
    let part_arg = "ds/packets/x.pcap-00000.parquet";
    let out = run_in(
        dir.path(),
        &[
            "export",
            "-o",
            "ds",
            "--replace",
            "--name",
            "x.pcap",
            part_arg,
        ],
        None,
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("in the output ds"),
        "the message names the dataset: {}",
        stderr(&out)
    );
    assert_eq!(fs::read(&part).unwrap(), before);
}

/// Runs `rdmadump ARGS` in a directory holding only `target`, which must fail and leave
/// `target` as it was, with no temporary file beside it.
fn leaves_previous(target: &str, args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(target), b"previous").unwrap();
    let out = run_in(dir.path(), args, None, None);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    assert_eq!(
        fs::read(dir.path().join(target)).unwrap(),
        b"previous",
        "{args:?}"
    );
    assert_eq!(
        names(dir.path()),
        [target],
        "{args:?}: no temporary file is left"
    );
    out
}

/// Before: `-w` created its file before reading: a missing input turned an existing
/// capture into a 24-byte empty pcap.
#[test]
fn w_leaves_an_existing_file_when_the_input_is_missing() {
    leaves_previous("keep.pcap", &["read", "-w", "keep.pcap", "missing.pcap"]);
}

/// Before: an input damaged after its first record left the target holding that record
/// alone, a capture that looks whole; now the target stays as it was and the temporary
/// file is removed. (`huge_caplen.pcap` fails at offset 114, after one frame.)
#[test]
fn w_leaves_an_existing_file_when_an_input_fails_midway() {
    let damaged = fixture("huge_caplen.pcap");
    let args = ["read", "-w", "keep.pcap", damaged.to_str().unwrap()];
    let out = leaves_previous("keep.pcap", &args);
    assert!(
        stderr(&out).contains("keep.pcap left as it was"),
        "{}",
        stderr(&out)
    );
}

/// Before: the report was written whatever the inputs: a missing capture overwrote an
/// existing report with the report of nothing.
#[test]
fn html_leaves_an_existing_report_when_the_input_is_missing() {
    let args = ["analyze", "--html", "report.html", "missing.pcap"];
    leaves_previous("report.html", &args);
}

/// A successful run replaces the target, and leaves no temporary file.
#[test]
fn a_successful_run_replaces_the_target() {
    let dir = tempfile::tempdir().unwrap();
    capture_in(dir.path());
    fs::write(dir.path().join("out.pcap"), b"previous").unwrap();
    fs::write(dir.path().join("report.html"), b"previous").unwrap();
    let w = run_in(
        dir.path(),
        &["read", "-w", "out.pcap", "x.pcap"],
        None,
        None,
    );
    assert!(w.status.success(), "{}", stderr(&w));
    let html = run_in(
        dir.path(),
        &["analyze", "--html", "report.html", "x.pcap"],
        None,
        None,
    );
    assert!(html.status.success(), "{}", stderr(&html));
    assert_eq!(fs::read(dir.path().join("out.pcap")).unwrap(), original());
    assert!(
        fs::read_to_string(dir.path().join("report.html"))
            .unwrap()
            .contains("<html")
    );
    assert_eq!(names(dir.path()), ["out.pcap", "report.html", "x.pcap"]);
}

/// `rdmadump ARGS` reading a standard input that never ends: it must fail on its own
/// within the limit, which it can only do before reading. Before: the output path was
/// opened after the analysis (`--html`) or after the inputs were opened (`-w`), so this
/// waited for an input that never came.
fn fails_before_reading(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
        .args(args)
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _stdin_held_open = child.stdin.take();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("{args:?}: still reading after 20 s; the output path was not checked first");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    assert!(
        stderr(&out).contains("no/such/dir"),
        "{args:?}: {}",
        stderr(&out)
    );
    out
}

#[test]
fn an_unwritable_output_fails_before_any_input_is_read() {
    fails_before_reading(&["analyze", "--html", "no/such/dir/report.html", "-"]);
    fails_before_reading(&["read", "-w", "no/such/dir/out.pcap", "-"]);
}

/// Before: `analyze --json missing.pcap` printed a whole report with `"packets": 0` and
/// `"anomalies": []`, which a pipeline without `pipefail` reads as a clean capture; the
/// text ended "Anomalies (0)"; `info --json` printed `{"files":[]}`; `-w -` a capture
/// header; `-E header=y` a header line.
#[test]
fn nothing_is_printed_when_every_input_fails() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["analyze", "--json", "missing.pcap"][..],
        &["analyze", "missing.pcap"],
        &["analyze", "missing.pcap", "gone.pcap"],
        &["info", "--json", "missing.pcap"],
        &["info", "missing.pcap"],
        &["read", "-w", "-", "missing.pcap"],
        &["read", "--json", "missing.pcap"],
        &[
            "read",
            "-T",
            "fields",
            "-e",
            "frame.number",
            "-E",
            "header=y",
            "missing.pcap",
        ],
    ] {
        let out = run_in(dir.path(), args, None, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{args:?}: nothing on stdout");
        assert!(
            stderr(&out).contains("missing.pcap: No such file"),
            "{args:?}: the error is on stderr: {}",
            stderr(&out)
        );
    }
}

/// Before: the report of the inputs that could be read did not say that one was missing,
/// beyond the exit status.
#[test]
fn a_report_says_which_inputs_failed() {
    let dir = tempfile::tempdir().unwrap();
    capture_in(dir.path());
    let args = [
        "analyze",
        "--single-point",
        "--json",
        "missing.pcap",
        "x.pcap",
    ];
    let out = run_in(dir.path(), &args, None, None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let inputs = report["inputs"].as_array().expect("an inputs array");
    assert_eq!(inputs.len(), 2);
    assert_eq!(inputs[0]["path"], "missing.pcap");
    assert_eq!(inputs[0]["status"], "failed");
    let error = inputs[0]["error"].as_str().unwrap();
    assert!(error.contains("No such file"), "{error}");
    assert_eq!(inputs[1]["path"], "x.pcap");
    assert_eq!(inputs[1]["status"], "ok");
    assert!(inputs[1].get("error").is_none());
    assert!(report["capture"]["packets"].as_u64().unwrap() > 0);

    let text = run_in(
        dir.path(),
        &["analyze", "--single-point", "missing.pcap", "x.pcap"],
        None,
        None,
    );
    assert_eq!(text.status.code(), Some(2));
    let first = stdout(&text).lines().next().unwrap_or_default().to_string();
    assert!(
        first.starts_with("rdmadump: 1 of 2 inputs failed: missing.pcap: No such file"),
        "{first}"
    );

    let clean = run_in(dir.path(), &["analyze", "--json", "x.pcap"], None, None);
    let clean: Value = serde_json::from_str(&stdout(&clean)).unwrap();
    assert!(
        clean.get("inputs").is_none(),
        "no inputs key when all were read"
    );
}
