//! Running the binary and reading its JSON output; finding the real captures and the tools
//! some tests compare with.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

#[path = "../common/mod.rs"]
mod common;
pub use common::{real_capture, real_captures_dir};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(name: &str) -> PathBuf {
    root().join("fixtures").join(name)
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

/// `rdmadump ARGS`, which must do its job: a test that reads only the output would otherwise
/// pass on the empty output of a filter that failed to compile. Its stderr may hold
/// warnings, and the one failure that still prints frames: a capture damaged past some
/// record yields every record before it, a message naming the file and the offset, and
/// exit status 2 (the man page's EXIT STATUS).
pub fn rdmadump_ok(args: &[&str]) -> Output {
    let out = rdmadump(args);
    let text = stderr(&out);
    let damage = |line: &str| {
        args.iter()
            .any(|arg| line.starts_with(&format!("rdmadump: {arg}: offset ")))
    };
    let explained = text
        .lines()
        .all(|line| line.starts_with("rdmadump: warning: ") || damage(line));
    let status_fits =
        out.status.success() || out.status.code() == Some(2) && text.lines().any(damage);
    assert!(
        explained && status_fits,
        "rdmadump {args:?}: {}, stderr: {text}",
        out.status
    );
    out
}

/// `rdmadump read --json` on a file, one parsed object per frame, from a run that did its
/// job (`rdmadump_ok`).
pub fn read_json(path: &Path, extra: &[&str]) -> Vec<Value> {
    let path = path.to_str().expect("utf-8 path");
    let mut args = vec!["read", "--json"];
    args.extend_from_slice(extra);
    args.push(path);
    let out = rdmadump_ok(&args);
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

/// Whether the program `name` is on PATH. Looked up rather than run: starting tshark costs a
/// fifth of a second.
pub fn tool_available(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()))
}

/// Whether `python3 -c "import MODULE"` works.
pub fn python_module_available(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `found`; when it is false, a test that needs `what` fails under CI (`.ci/run` installs
/// everything) and elsewhere is skipped, saying how to install it.
pub fn required(found: bool, what: &str, install: &str) -> bool {
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{what} is missing, and CI must run this test ({install})"
        );
        // Straight to the process's stderr: libtest captures eprintln! of passing tests.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("\n*** SKIPPED: {what} not installed ({install}) ***\n\n").as_bytes(),
        );
    }
    found
}

/// tshark, capinfos and mergecap, which come from one Wireshark package (see `required`).
pub fn wireshark_tools() -> bool {
    required(
        tool_available("tshark") && tool_available("capinfos") && tool_available("mergecap"),
        "tshark, capinfos and mergecap",
        "apt-get install -y tshark",
    )
}

/// An RC SEND_ONLY of `payload` from `src` to `dst`'s QP `qp`, with its ICRC: the CRC-32
/// of the headers with their variant fields set to ones, then the payload (IBA A16.4.1).
/// The bytes are laid out by hand from the specification, not by the code under test.
pub fn rc_send_only(
    src: [u8; 4],
    dst: [u8; 4],
    qp: u32,
    psn: u32,
    ack_req: bool,
    payload: &[u8],
) -> Vec<u8> {
    assert_eq!(payload.len() % 4, 0, "no pad bytes");
    let mut f = vec![2, 0, 0, 0, 0, dst[3], 2, 0, 0, 0, 0, src[3], 0x08, 0x00];
    let ip_len = (20 + 8 + 12 + payload.len() + 4) as u16;
    let mut ip = vec![0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0];
    ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
    ip.extend_from_slice(&src);
    ip.extend_from_slice(&dst);
    let mut udp = vec![0xc0, 0x00, 0x12, 0xb7, 0, 0, 0, 0];
    udp[4..6].copy_from_slice(&(ip_len - 20).to_be_bytes());
    let mut bth = vec![0x04, 0, 0xff, 0xff, 0];
    bth.extend_from_slice(&qp.to_be_bytes()[1..]);
    bth.push(if ack_req { 0x80 } else { 0 });
    bth.extend_from_slice(&psn.to_be_bytes()[1..]);
    let mut masked = vec![0xff; 8];
    let mut mip = ip.clone();
    for i in [1, 8, 10, 11] {
        mip[i] = 0xff;
    }
    masked.extend_from_slice(&mip);
    let mut mudp = udp.clone();
    mudp[6] = 0xff;
    mudp[7] = 0xff;
    masked.extend_from_slice(&mudp);
    let mut mbth = bth.clone();
    mbth[4] = 0xff;
    masked.extend_from_slice(&mbth);
    masked.extend_from_slice(payload);
    let icrc = crc32fast::hash(&masked);
    for part in [&ip, &udp, &bth, payload] {
        f.extend_from_slice(part);
    }
    f.extend_from_slice(&icrc.to_le_bytes());
    f
}
