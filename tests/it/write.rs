//! `read -w`: the written capture is read back by tshark, and every frame's time, lengths
//! and bytes must be what tshark reads from the input (or from mergecap's merge of the
//! inputs), for the same frames. tshark, capinfos and mergecap come from one wireshark
//! package; .ci/run installs it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{rdmadump, real_capture, root, stderr, wireshark_tools};

fn tool(name: &str, args: &[&str]) -> String {
    let out = Command::new(name)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("run {name}: {e}"));
    assert!(out.status.success(), "{name} {args:?}: {}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Fields tshark shows for every frame besides its bytes.
const TIMES_AND_LENGTHS: &[&str] = &["frame.time_epoch", "frame.len", "frame.cap_len"];

/// tshark's view of each frame of `path` that `filter` selects: the `fields` tab-separated,
/// then the frame's hex dump (`-x`). Custom Blocks, which tshark shows as frames and
/// rdmadump does not read (docs/tshark-differences.md, row 4), are left out.
fn tshark_frames(path: &Path, filter: &str, fields: &[&str]) -> Vec<String> {
    let path = path.to_str().unwrap();
    let filter = format!("!frame.cb_pen && ({filter})");
    let mut args = vec!["-n", "-r", path, "-Y", &filter, "-T", "fields"];
    for field in fields {
        args.extend(["-e", field]);
    }
    let lines = tool("tshark", &args);
    let dumps = tool("tshark", &["-n", "-r", path, "-Y", &filter, "-x"]);
    let dumps: Vec<&str> = dumps
        .split("\n\n")
        .filter(|d| !d.trim().is_empty())
        .collect();
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), dumps.len(), "{path}: one hex dump per frame");
    lines
        .iter()
        .zip(dumps)
        .map(|(line, dump)| format!("{line}\n{}", dump.trim()))
        .collect()
}

/// Runs `rdmadump read ARGS -w OUT INPUTS` and returns OUT.
fn write(dir: &Path, out: &str, args: &[&str], inputs: &[&str]) -> PathBuf {
    let out = dir.join(out);
    let mut all: Vec<&str> = vec!["read"];
    all.extend_from_slice(args);
    all.extend(["-w", out.to_str().unwrap()]);
    all.extend_from_slice(inputs);
    let run = rdmadump(&all);
    assert!(run.status.success(), "rdmadump {all:?}: {}", stderr(&run));
    assert!(run.stdout.is_empty(), "-w prints nothing");
    out
}

fn magic(path: &Path) -> [u8; 4] {
    let bytes = std::fs::read(path).unwrap();
    bytes[..4].try_into().unwrap()
}

const PCAP_US: [u8; 4] = [0xd4, 0xc3, 0xb2, 0xa1];
const PCAP_NS: [u8; 4] = [0x4d, 0x3c, 0xb2, 0xa1];
const PCAPNG: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

#[test]
fn every_frame_is_copied_with_its_time_lengths_and_bytes() {
    if !wireshark_tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // (input, the container the copy must be): pcap stays pcap with its resolution,
    // pcapng stays pcapng, compressed inputs are written plain.
    let mut cases: Vec<(String, [u8; 4])> = [
        ("fixtures/roce_v2_crc_cases.pcap", PCAP_US),
        ("fixtures/nanosecond_le.pcap", PCAP_NS),
        ("fixtures/nanosecond_be.pcap", PCAP_NS),
        ("fixtures/microsecond_be.pcap", PCAP_US),
        ("fixtures/gzip_roce_v1.pcap", PCAP_US),
        ("fixtures/erf_ip.pcap", PCAP_US),
        ("fixtures/big_endian.pcapng", PCAPNG),
        ("fixtures/zstd_big_endian.pcapng", PCAPNG),
        ("fixtures/multi_if.pcapng", PCAPNG),
    ]
    .map(|(input, container)| (input.to_string(), container))
    .into();
    for name in ["infiniband-erf.pcap", "ipoib.pcap", "rdma-cm-rxe.pcap"] {
        cases.extend(real_capture(name).map(|p| (p.to_string_lossy().into_owned(), PCAP_US)));
    }
    let mut cut = 0;
    for (n, (input, container)) in cases.iter().enumerate() {
        let out = write(dir.path(), &format!("{n}.out"), &[], &[input]);
        assert_eq!(magic(&out), *container, "{input}");
        let want = tshark_frames(&root().join(input), "frame", TIMES_AND_LENGTHS);
        let got = tshark_frames(&out, "frame", TIMES_AND_LENGTHS);
        assert!(!want.is_empty(), "{input}");
        assert!(
            got == want,
            "{input}: the copy differs from the input\n{got:#?}\n{want:#?}"
        );
        cut += want
            .iter()
            .filter(|f| {
                let v: Vec<&str> = f.lines().next().unwrap().split('\t').collect();
                v[1] != v[2]
            })
            .count();
    }
    assert!(cut >= 3, "snaplen-cut frames are among those compared");
}

#[test]
fn erf_input_becomes_pcapng_when_the_name_says_so() {
    if !wireshark_tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(input) = real_capture("infiniband-erf.pcap") else {
        return;
    };
    let input = input.to_str().unwrap();
    let out = write(dir.path(), "ib.pcapng", &[], &[input]);
    assert_eq!(magic(&out), PCAPNG);
    let fields = ["frame.len", "frame.cap_len", "frame.encap_type"];
    assert_eq!(
        tshark_frames(&out, "frame", &fields),
        tshark_frames(&root().join(input), "frame", &fields)
    );
    // The copy keeps each record's own time, which the pcap record header holds to the
    // microsecond. Reading ERF from pcap, tshark shows the ERF header's time instead (to
    // the nanosecond); from pcapng, the block's. So the copy's times are tshark's input
    // times cut to the microsecond.
    let times = |path: &Path| {
        tool(
            "tshark",
            &[
                "-n",
                "-r",
                path.to_str().unwrap(),
                "-T",
                "fields",
                "-e",
                "frame.time_epoch",
            ],
        )
    };
    let want: Vec<String> = times(&root().join(input))
        .lines()
        .map(|t| format!("{}000", &t[..t.len() - 3]))
        .collect();
    let got: Vec<String> = times(&out).lines().map(String::from).collect();
    assert_eq!(got.len(), 43);
    assert_eq!(got, want);
}

#[test]
fn the_selected_frames_are_the_ones_tshark_selects() {
    if !wireshark_tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = "fixtures/roce_v2_opcodes.pcap";
    let want = tshark_frames(
        &root().join(input),
        "infiniband.bth.destqp == 27",
        TIMES_AND_LENGTHS,
    );
    assert_eq!(want.len(), 5, "QP 27 holds the five NAKs");
    let by_qp = write(dir.path(), "qp.pcap", &["--qp", "27"], &[input]);
    assert_eq!(tshark_frames(&by_qp, "frame", TIMES_AND_LENGTHS), want);
    let by_filter = write(
        dir.path(),
        "nak.pcap",
        &["-Y", "aeth.kind == \"nak\"", "-c", "3"],
        &[input],
    );
    assert_eq!(
        tshark_frames(&by_filter, "frame", TIMES_AND_LENGTHS),
        want[..3]
    );
}

#[test]
fn merged_inputs_match_mergecap() {
    if !wireshark_tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fields = [
        "frame.time_epoch",
        "frame.len",
        "frame.cap_len",
        "frame.interface_id",
        "frame.encap_type",
    ];
    // One link type: pcap. Two (Ethernet, IPoIB): pcapng, one interface per input, as
    // mergecap makes them.
    let mut cases = vec![(
        ["fixtures/roce_v1.pcap", "fixtures/roce_v2_crc_cases.pcap"].map(String::from),
        PCAP_US,
        "pcap",
    )];
    if let [Some(rxe), Some(ipoib)] = ["rdma-cm-rxe.pcap", "ipoib.pcap"].map(real_capture) {
        let inputs = [rxe, ipoib].map(|p| p.to_string_lossy().into_owned());
        cases.push((inputs, PCAPNG, "pcapng"));
    }
    for (inputs, container, format) in cases {
        let inputs = inputs.each_ref().map(String::as_str);
        let out = write(dir.path(), "merged.out", &[], &inputs);
        assert_eq!(magic(&out), container, "{inputs:?}");
        let reference = dir.path().join("mergecap.out");
        let reference_name = reference.to_str().unwrap();
        tool(
            "mergecap",
            &["-F", format, "-w", reference_name, inputs[0], inputs[1]],
        );
        let want = tshark_frames(&reference, "frame", &fields);
        assert_eq!(want.len() as u64, count(&inputs));
        assert!(
            tshark_frames(&out, "frame", &fields) == want,
            "{inputs:?} differ from mergecap"
        );
    }
}

fn count(inputs: &[&str]) -> u64 {
    inputs
        .iter()
        .map(|i| {
            tool("capinfos", &["-T", "-r", "-c", i])
                .split('\t')
                .nth(1)
                .unwrap()
                .trim()
                .parse::<u64>()
                .unwrap()
        })
        .sum()
}

#[test]
fn pcapng_keeps_each_interfaces_link_type_snaplen_and_resolution() {
    if !wireshark_tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = "fixtures/multi_if.pcapng";
    let out = write(dir.path(), "copy.pcapng", &[], &[input]);
    // capinfos -M: per-interface blocks; names, statistics and comments are not copied.
    let described = |path: &str| -> Vec<String> {
        tool("capinfos", &["-M", path])
            .lines()
            .map(str::trim)
            .filter(|l| {
                [
                    "Encapsulation",
                    "Capture length",
                    "Time precision",
                    "Time ticks",
                    "Time resolution",
                    "Interface #",
                ]
                .iter()
                .any(|k| l.starts_with(k))
            })
            .map(String::from)
            .collect()
    };
    let want = described(input);
    assert!(
        want.iter().any(|l| l == "Time resolution = 0x83"),
        "the fixture has a 2^-3 s interface: {want:?}"
    );
    assert_eq!(described(out.to_str().unwrap()), want);
}

#[test]
fn dash_writes_a_capture_that_tshark_reads_from_a_pipe() {
    if !wireshark_tools() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_rdmadump");
    let out = Command::new("bash")
        .args([
            "-o",
            "pipefail",
            "-c",
            &format!(
                "'{bin}' read --qp 27 -w - fixtures/roce_v2_opcodes.pcap | tshark -r - -T fields -e frame.time_epoch"
            ),
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let want: Vec<String> = tshark_frames(
        &root().join("fixtures/roce_v2_opcodes.pcap"),
        "infiniband.bth.destqp == 27",
        &["frame.time_epoch"],
    )
    .iter()
    .map(|f| f.lines().next().unwrap().to_string())
    .collect();
    let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn refuses_to_overwrite_an_input_or_to_mix_with_printing() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("in.pcap");
    std::fs::copy(root().join("fixtures/roce_v1.pcap"), &copy).unwrap();
    let copy = copy.to_str().unwrap();
    let out = rdmadump(&["read", "-w", copy, copy]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("names an input"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(copy).unwrap(),
        std::fs::read(root().join("fixtures/roce_v1.pcap")).unwrap()
    );
    for printing in ["--json", "-V", "-x"] {
        let out = rdmadump(&["read", printing, "-w", "x.pcap", copy]);
        assert_eq!(out.status.code(), Some(2), "{printing}");
        assert!(
            stderr(&out).contains("cannot be used with"),
            "{}",
            stderr(&out)
        );
    }
}
