//! Robustness properties of the capture readers, the dissector and the analyzer: no panic on
//! damaged input, a cut capture still yields every complete record, payload bytes never leak
//! into decoded headers, hostile length fields cost no memory, and no input makes the work
//! grow faster than the input.
//!
//! The fuzz harness (fuzz/src/lib.rs) is included as a module so that saved crash inputs are
//! replayed through exactly the code the fuzzer ran, and so that both check the same
//! properties.

#[path = "../fuzz/src/lib.rs"]
mod harness;

mod common;

use std::fs;
use std::io::{self, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rdmadump::capture::{ReadInput, Record, SliceInput};
use rdmadump::dissect::{DecodeOptions, dissect};
use rdmadump::output::json;
use serde_json::Value;

use harness::{Chunked, Summary, read_all};

/// The timing test needs the machine to itself: every test here that keeps a core busy
/// holds this lock, so the timed runs never share the CPU with another test of this file.
static BUSY: Mutex<()> = Mutex::new(());

fn busy() -> MutexGuard<'static, ()> {
    BUSY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every capture the project ships, plus the real ibdump capture when the real captures are
/// there (`common::real_capture`).
fn fixtures() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for (dir, extensions) in [
        ("fixtures", &["pcap", "pcapng"][..]),
        ("fixtures/scenarios", &["pcap"][..]),
    ] {
        for entry in fs::read_dir(root().join(dir)).expect("fixture directory") {
            let path = entry.expect("directory entry").path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            // A compressed fixture decompresses to another fixture; these properties are
            // about the readers of what it holds.
            let compressed = fs::read(&path).is_ok_and(|b| {
                b.starts_with(&[0x1f, 0x8b]) || b.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
            });
            if extensions.contains(&ext) && !compressed {
                files.push(path);
            }
        }
    }
    files.sort();
    files.extend(common::real_capture("infiniband-erf.pcap"));
    assert!(files.len() >= 25, "fixtures not found: {files:?}");
    files
}

fn name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Runs `check` on every fixture, on as many threads as there are cores: the properties
/// below take seconds per file in a debug build. A panic on any thread fails the test.
fn for_each_fixture(check: impl Fn(&Path) + Sync) {
    let files = fixtures();
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(path) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                    check(path);
                }
            });
        }
    });
}

/// A fixed-seed xorshift64*: reproducible mutations without another crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
}

/// Where the container record holding `rec` ends in the file: the end of the pcap record,
/// or of the pcapng block (the block length is read in the section's byte order).
fn record_end(bytes: &[u8], rec: &Summary) -> usize {
    let at = rec.offset as usize;
    if bytes.starts_with(&[0x0a, 0x0d, 0x0d, 0x0a]) {
        let big_endian = bytes.get(8..12) == Some(&[0x1a, 0x2b, 0x3c, 0x4d][..]);
        let raw: [u8; 4] = bytes[at + 4..at + 8].try_into().expect("4 bytes");
        let len = if big_endian {
            u32::from_be_bytes(raw)
        } else {
            u32::from_le_bytes(raw)
        };
        at + len as usize
    } else {
        at + 16 + rec.data.len()
    }
}

/// Every length for small files; for larger ones every seventh, and every one of the last
/// 2000 bytes, where the last records end.
fn prefix_lengths(len: usize) -> Vec<usize> {
    if len < 20 * 1024 {
        return (0..=len).collect();
    }
    let mut lengths: Vec<usize> = (0..=len).step_by(7).collect();
    lengths.extend(len - 2000..=len);
    lengths.sort_unstable();
    lengths.dedup();
    lengths
}

#[test]
fn every_prefix_yields_every_complete_record() {
    let _busy = busy();
    for_each_fixture(|path| {
        let bytes = fs::read(path).expect("read fixture");
        let whole = read_all(SliceInput::new(&bytes), false);
        assert!(!whole.records.is_empty(), "{}: no records", name(path));
        let ends: Vec<usize> = whole
            .records
            .iter()
            .map(|r| record_end(&bytes, r))
            .collect();
        for len in prefix_lengths(bytes.len()) {
            let prefix = &bytes[..len];
            let from_memory = read_all(SliceInput::new(prefix), false);
            let from_stream = read_all(ReadInput::new(Chunked::new(prefix), None), false);
            assert!(
                from_memory == from_stream,
                "{}, first {len} bytes: mapping and stream disagree: {:?} / {:?}",
                name(path),
                (&from_memory.warnings, &from_memory.error),
                (&from_stream.warnings, &from_stream.error),
            );
            let complete = ends.iter().take_while(|&&end| end <= len).count();
            let got = &from_memory.records;
            assert!(
                got.len() == complete && got[..] == whole.records[..complete],
                "{}, first {len} bytes: {} records read, {complete} complete ones expected \
                 (identical to the whole file's); error {:?}",
                name(path),
                got.len(),
                from_memory.error,
            );
        }
    });
}

/// Fewer mutations for the large files, so that each fixture costs about the same.
fn mutation_budget(len: usize) -> usize {
    (2000 * 1024 / len.max(1)).clamp(150, 2000)
}

const INTERESTING: [u8; 7] = [0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe, 0x40];

fn mutate(buf: &mut [u8], rng: &mut Rng) {
    let len = buf.len();
    match rng.below(4) {
        0 => buf[rng.below(len)] ^= rng.byte() | 1,
        1 => {
            for _ in 0..2 + rng.below(3) {
                buf[rng.below(len)] ^= rng.byte() | 1;
            }
        }
        // A run of equal bytes rewrites a whole length or type field at once.
        2 => {
            let start = rng.below(len);
            let value = INTERESTING[rng.below(INTERESTING.len())];
            let run = 2 + rng.below(7);
            for b in buf.iter_mut().skip(start).take(run) {
                *b = value;
            }
        }
        _ => buf[rng.below(len)] = INTERESTING[rng.below(INTERESTING.len())],
    }
}

#[test]
fn byte_flips_never_panic() {
    let _busy = busy();
    let total = AtomicUsize::new(0);
    for_each_fixture(|path| {
        let original = fs::read(path).expect("read fixture");
        // Seeded by the file name, so each fixture sees the same mutations on any thread.
        let seed = name(path).bytes().fold(0x9e37_79b9_7f4a_7c15u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        let mut rng = Rng(seed | 1);
        let mut buf = original.clone();
        for round in 0..mutation_budget(original.len()) {
            buf.copy_from_slice(&original);
            mutate(&mut buf, &mut rng);
            if catch_unwind(AssertUnwindSafe(|| harness::capture_file(&buf))).is_err() {
                let saved = Path::new(env!("CARGO_TARGET_TMPDIR"))
                    .join(format!("flip-{}-{round}.bin", name(path)));
                fs::write(&saved, &buf).expect("save the failing input");
                panic!(
                    "{} mutation {round} panicked; input saved as {}",
                    name(path),
                    saved.display()
                );
            }
            total.fetch_add(1, Ordering::Relaxed);
        }
    });
    eprintln!(
        "{} mutated captures read, dissected and rendered",
        total.into_inner()
    );
}

/// The JSON of a packet without the keys that depend on payload bytes.
fn header_fields(record: &Record<'_>) -> Value {
    let pkt = dissect(record, 1, &DecodeOptions::default());
    let mut out = Vec::new();
    json::write_packet(&mut out, &pkt, None);
    let mut value: Value = serde_json::from_slice(&out).expect("valid JSON");
    let object = value.as_object_mut().expect("a JSON object");
    for key in ["icrc", "vcrc", "payload"] {
        object.remove(key);
    }
    // An InfiniBand SEND's payload may be IPoIB, decoded from the payload itself: the
    // headers that must not change are the ones around it.
    if object.contains_key("lrh") {
        for key in ["ipoib", "ip", "udp", "tcp", "icmp", "arp"] {
            object.remove(key);
        }
    }
    value
}

/// Positions to change in a payload region: all of a short one, else both ends and a spread.
fn positions(region: std::ops::Range<usize>) -> Vec<usize> {
    if region.len() <= 96 {
        return region.collect();
    }
    let step = region.len() / 48;
    let mut picked: Vec<usize> = region.clone().take(24).collect();
    picked.extend(region.clone().step_by(step));
    picked.extend(region.end - 24..region.end);
    picked.sort_unstable();
    picked.dedup();
    picked
}

#[test]
fn payload_bytes_never_change_decoded_headers() {
    let _busy = busy();
    let mut packets = 0;
    let mut changes = 0;
    for path in fixtures() {
        let bytes = fs::read(&path).expect("read fixture");
        for rec in read_all(SliceInput::new(&bytes), false).records {
            let record = Record {
                data: &rec.data,
                orig_len: rec.orig_len,
                ts_ns: rec.ts_ns,
                linktype: rec.linktype,
                iface: rec.iface,
                offset: rec.offset,
            };
            let pkt = dissect(&record, 1, &DecodeOptions::default());
            let (Some(bth), Some(payload_len)) = (pkt.bth, pkt.payload_len) else {
                continue;
            };
            if pkt.error.is_some() || pkt.truncated.is_some() || pkt.payload.is_empty() {
                continue;
            }
            // A MAD's payload is its management headers: those bytes are meant to change them.
            if pkt.mad.is_some() {
                continue;
            }
            let payload_len = payload_len as usize;
            assert_eq!(pkt.payload.len(), payload_len, "{}", name(&path));
            // The payload is a view into the record: its position there is exact, and it
            // already leaves out the Ethernet padding and FCS that may follow the ICRC.
            let start = pkt.payload.as_ptr() as usize - rec.data.as_ptr() as usize;
            let icrc_at = start + payload_len + usize::from(bth.pad_count());
            let stored = rec.data.get(icrc_at..icrc_at + 4).unwrap_or_else(|| {
                panic!(
                    "{} offset {}: no ICRC after the payload",
                    name(&path),
                    rec.offset
                )
            });
            // The ICRC found after payload and pad must be the one the decoder read, which
            // confirms independently where the region ends.
            if let Some(stored_icrc) = pkt.icrc.and_then(|c| c.stored) {
                assert_eq!(
                    stored_icrc,
                    u32::from_le_bytes(stored.try_into().expect("4 bytes")),
                    "{} offset {}: the region does not end at the ICRC",
                    name(&path),
                    rec.offset
                );
            }
            packets += 1;
            let expected = header_fields(&record);
            let mut data = rec.data.clone();
            for at in positions(start..icrc_at) {
                for flip in [0xff, 0x01] {
                    data[at] ^= flip;
                    let changed = Record {
                        data: &data,
                        ..record
                    };
                    let got = header_fields(&changed);
                    assert!(
                        got == expected,
                        "{} offset {}: changing payload byte {at} changed the headers:\n\
                         {expected}\n{got}",
                        name(&path),
                        rec.offset
                    );
                    data[at] ^= flip;
                    changes += 1;
                }
            }
        }
    }
    assert!(packets > 100, "only {packets} packets had a payload");
    eprintln!("{changes} payload changes over {packets} packets left every header as it was");
}

/// Replays each saved crash input through the target named by its file name
/// (`<target>-<what>.bin`). Every input is tried before failing, so one report lists all.
#[test]
fn saved_crash_inputs_replay_without_panic() {
    let dir = root().join("tests/regressions");
    let mut inputs: Vec<PathBuf> = match fs::read_dir(&dir) {
        Ok(entries) => entries
            .map(|e| e.expect("directory entry").path())
            .filter(|p| !name(p).starts_with('.'))
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => panic!("{}: {e}", dir.display()),
    };
    inputs.sort();
    let mut failed = Vec::new();
    for path in &inputs {
        let file = name(path);
        let target = file.split('-').next().unwrap_or("");
        let run: fn(&[u8]) = match target {
            "pcap_reader" | "pcapng_reader" => harness::capture_file,
            "erf_records" => harness::erf_record,
            "dissect_all_linktypes" => harness::any_linktype,
            "analyze_capture" => harness::analyze_capture,
            "filter_expr" => harness::filter_expr,
            "cli_parsers" => harness::cli_parsers,
            "render_packet" => harness::render_packet,
            "write_capture" => harness::write_capture,
            "compressed_input" => harness::compressed_input,
            "merge_points" => harness::merge_points,
            "info_capture" => harness::info_capture,
            "html_report" => harness::html_report,
            "parquet_export" => harness::parquet_export,
            "threaded_pipeline" => harness::threaded_pipeline,
            _ => panic!("{file}: the name must start with a fuzz target and a '-'"),
        };
        assert!(file.ends_with(".bin"), "{file}: expected a .bin file");
        let data = fs::read(path).expect("read regression input");
        if catch_unwind(|| run(&data)).is_err() {
            failed.push(file);
        }
    }
    eprintln!("{} saved inputs replayed", inputs.len());
    assert!(failed.is_empty(), "these inputs still panic: {failed:?}");
}

// ---- Memory under hostile length fields -------------------------------------------------

fn pcap_header() -> Vec<u8> {
    let mut out = Vec::new();
    for field in [0xa1b2_c3d4u32.to_le_bytes().as_slice(), &2u16.to_le_bytes()] {
        out.extend_from_slice(field);
    }
    out.extend_from_slice(&4u16.to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&65535u32.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out
}

fn pcap_with_claim(caplen: u32, present: usize) -> Vec<u8> {
    let mut out = pcap_header();
    for field in [1_700_000_000u32, 0, caplen, caplen] {
        out.extend_from_slice(&field.to_le_bytes());
    }
    out.extend(std::iter::repeat_n(0x5a, present));
    out
}

fn block(kind: u32, body: &[u8]) -> Vec<u8> {
    let len = (12 + body.len()).next_multiple_of(4) as u32;
    let mut out = Vec::new();
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(body);
    out.resize(len as usize - 4, 0);
    out.extend_from_slice(&len.to_le_bytes());
    out
}

fn section_header() -> Vec<u8> {
    let mut body = 0x1a2b_3c4du32.to_le_bytes().to_vec();
    body.extend_from_slice(&[1, 0, 0, 0]);
    body.extend_from_slice(&(-1i64).to_le_bytes());
    block(0x0a0d_0d0a, &body)
}

fn interface_block() -> Vec<u8> {
    let mut body = 1u16.to_le_bytes().to_vec();
    body.extend_from_slice(&[0, 0]);
    body.extend_from_slice(&0u32.to_le_bytes());
    block(1, &body)
}

/// A block header claiming `len` bytes, followed by `present` bytes of filler.
fn claimed_block(kind: u32, len: u32, present: usize) -> Vec<u8> {
    let mut out = kind.to_le_bytes().to_vec();
    out.extend_from_slice(&len.to_le_bytes());
    out.extend(std::iter::repeat_n(0x5a, present));
    out
}

fn hostile_files() -> Vec<(&'static str, Vec<u8>)> {
    const HUGE: u32 = 0xffff_fff0;
    // The largest claim the readers accept (16 MiB): bytes are requested, but never arrive.
    const MAX_ACCEPTED: u32 = 16 << 20;
    let mut idb_huge = section_header();
    idb_huge.extend(claimed_block(1, HUGE, 64));
    let mut epb_huge = section_header();
    epb_huge.extend(interface_block());
    epb_huge.extend(claimed_block(6, HUGE, 64));
    let mut epb_max = section_header();
    epb_max.extend(interface_block());
    epb_max.extend(claimed_block(6, MAX_ACCEPTED, 4096));
    vec![
        ("pcap-caplen-0xfffffff0", pcap_with_claim(HUGE, 64)),
        ("pcap-caplen-16mib", pcap_with_claim(MAX_ACCEPTED, 4096)),
        ("pcapng-idb-0xfffffff0", idb_huge),
        ("pcapng-epb-0xfffffff0", epb_huge),
        ("pcapng-epb-16mib", epb_max),
    ]
}

/// How the child's input arrives.
enum Feed<'a> {
    /// A file argument (memory-mapped, or read as a stream with `--no-mmap`).
    Args,
    /// Standard input, written a few bytes at a time with pauses: the slow pipe.
    SlowStdin(&'a [u8]),
}

fn feed_slowly(child: &mut Child, data: &[u8]) {
    let mut stdin = child.stdin.take().expect("piped stdin");
    for chunk in data.chunks(16) {
        // The reader may stop early on a damaged file; a closed pipe is not a failure.
        if stdin.write_all(chunk).and_then(|()| stdin.flush()).is_err() {
            return;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
}

fn assert_no_crash(status: ExitStatus, what: &str) {
    // 0: read to the end; 2: the file was found damaged. A panic exits with 101, a
    // signal with no code at all.
    assert!(
        matches!(status.code(), Some(0 | 2)),
        "{what}: rdmadump ended with {status}"
    );
}

/// Peak resident memory of `rdmadump ARGS`, in KiB, as GNU time reports it.
fn peak_rss_by_time(args: &[&str], feed: &Feed<'_>, what: &str) -> u64 {
    let report = tempfile::NamedTempFile::new().expect("temp file");
    let mut cmd = Command::new("/usr/bin/time");
    cmd.arg("-v")
        .arg("-o")
        .arg(report.path())
        .arg(env!("CARGO_BIN_EXE_rdmadump"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let status = run_fed(&mut cmd, feed);
    assert_no_crash(status, what);
    let text = fs::read_to_string(report.path()).expect("time's report");
    text.lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|kib| kib.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS in time's report:\n{text}"))
}

fn run_fed(cmd: &mut Command, feed: &Feed<'_>) -> ExitStatus {
    match feed {
        Feed::Args => cmd.status().expect("run rdmadump"),
        Feed::SlowStdin(data) => {
            let mut child = cmd.stdin(Stdio::piped()).spawn().expect("run rdmadump");
            feed_slowly(&mut child, data);
            child.wait().expect("wait for rdmadump")
        }
    }
}

/// The same measurement without GNU time: the kernel's account of the reaped child. It is
/// only an upper bound: the kernel carries the spawning process's own peak over into the
/// child's (the child starts as a copy of this test process). GNU time spawns from a tiny
/// process, which is why it is preferred.
fn peak_rss_by_wait4(args: &[&str], feed: &Feed<'_>, what: &str) -> u64 {
    let (status, usage) = run_and_reap(args, feed);
    assert!(
        libc::WIFEXITED(status) && matches!(libc::WEXITSTATUS(status), 0 | 2),
        "{what}: rdmadump ended with wait status {status:#x}"
    );
    // Linux reports ru_maxrss in KiB.
    usage.ru_maxrss as u64
}

/// Runs rdmadump to its end and returns its wait status and the kernel's account of it.
fn run_and_reap(args: &[&str], feed: &Feed<'_>) -> (libc::c_int, libc::rusage) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rdmadump"));
    cmd.args(args).stdout(Stdio::null()).stderr(Stdio::null());
    if matches!(feed, Feed::SlowStdin(_)) {
        cmd.stdin(Stdio::piped());
    }
    // Reaped below by wait4, which std cannot see.
    #[allow(clippy::zombie_processes)]
    let mut child = cmd.spawn().expect("run rdmadump");
    if let Feed::SlowStdin(data) = feed {
        feed_slowly(&mut child, data);
    }
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data, for which all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet reaped (std's Child waits only when asked);
    // both pointers are to live locals.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", io::Error::last_os_error());
    (status, usage)
}

fn peak_rss(args: &[&str], feed: &Feed<'_>, what: &str) -> u64 {
    if Path::new("/usr/bin/time").exists() {
        peak_rss_by_time(args, feed, what)
    } else {
        peak_rss_by_wait4(args, feed, what)
    }
}

#[test]
fn hostile_length_fields_cost_no_memory() {
    let _busy = busy();
    let dir = tempfile::tempdir().expect("temp dir");
    let small = root().join("fixtures/roce_v2_opcodes.pcap");
    let small = small.to_str().expect("utf-8 path");
    let baseline_args = ["read", "--no-mmap", small];
    let baseline = peak_rss(&baseline_args, &Feed::Args, "baseline");
    let by_wait4 = peak_rss_by_wait4(&baseline_args, &Feed::Args, "baseline");
    assert!(
        by_wait4 + 1024 >= baseline,
        "wait4 says {by_wait4} KiB, below the {baseline} KiB measured"
    );
    eprintln!("baseline by wait4 (an upper bound): {by_wait4} KiB");
    eprintln!("baseline: rdmadump read --no-mmap on a small fixture peaks at {baseline} KiB");
    // The stream buffer starts at 1 MiB and may double once; the rest is slack for noise.
    let limit = baseline + 4 * 1024;
    for (what, bytes) in hostile_files() {
        let path = dir.path().join(format!("{what}.cap"));
        fs::write(&path, &bytes).expect("write hostile file");
        let path = path.to_str().expect("utf-8 path");
        for (how, args, feed) in [
            ("mmap", vec!["read", path], Feed::Args),
            ("stream", vec!["read", "--no-mmap", path], Feed::Args),
            ("slow stdin", vec!["read", "-"], Feed::SlowStdin(&bytes)),
        ] {
            let label = format!("{what} ({how})");
            let peak = peak_rss(&args, &feed, &label);
            eprintln!("{label}: peak RSS {peak} KiB");
            assert!(
                peak <= limit,
                "{label}: peak RSS {peak} KiB, more than {limit} KiB"
            );
        }
    }
}

/// A stream (here a file read with `--no-mmap`) is read into memory ahead of the decoding
/// threads, and given back behind them: its resident size must not grow with its length.
#[test]
fn a_long_stream_is_read_in_bounded_memory() {
    let _busy = busy();
    let dir = tempfile::tempdir().expect("temp dir");
    let payload = [0x42u8; 1000];
    let mut peaks = Vec::new();
    for packets in [30_000, 120_000] {
        let path = dir.path().join(format!("long-{packets}.pcap"));
        let bytes = capture(packets, |i| {
            roce_v2_frame_with(1, (i % 64) as u32, (i / 64) as u32, &payload)
        });
        fs::write(&path, &bytes).expect("write capture");
        let path = path.to_str().expect("utf-8 path");
        // Three threads: the stream is spooled (see `read_streams_ahead`).
        let args = ["analyze", "--json", "--no-mmap", "--threads", "3", path];
        let peak = peak_rss(&args, &Feed::Args, path);
        eprintln!(
            "{} MB stream, analyze on 3 threads: peak RSS {peak} KiB",
            bytes.len() >> 20
        );
        peaks.push(peak);
    }
    // Four times the stream, past the read-ahead bound both times: memory may differ by
    // noise, not by the length.
    assert!(
        peaks[1] <= peaks[0] + 6 * 1024,
        "peak RSS grew from {} to {} KiB",
        peaks[0],
        peaks[1]
    );
}

// ---- Work grows linearly with the input -------------------------------------------------

const ADVERSARIAL_PACKETS: usize = 20_000;

/// One RoCE v2 RC SEND_ONLY frame with a 16-byte payload (the ICRC is not computed: a bad
/// ICRC is decoded and counted like a good one).
fn roce_v2_frame(src_host: u8, dest_qp: u32, psn: u32) -> Vec<u8> {
    roce_v2_frame_with(src_host, dest_qp, psn, &[0x42u8; 16])
}

fn roce_v2_frame_with(src_host: u8, dest_qp: u32, psn: u32, payload: &[u8]) -> Vec<u8> {
    roce_v2_frame_between((src_host, 250), 0x04, dest_qp, psn, payload)
}

/// A RoCE v2 frame from host `hosts.0` to host `hosts.1` (10.0.0.x) with BTH `opcode`;
/// `payload` is all that follows the BTH, extended headers included.
fn roce_v2_frame_between(
    hosts: (u8, u8),
    opcode: u8,
    dest_qp: u32,
    psn: u32,
    payload: &[u8],
) -> Vec<u8> {
    let (src_host, dst_host) = hosts;
    let udp_len = (8 + 12 + payload.len() + 4) as u16;
    let mut f = Vec::with_capacity(80);
    f.extend_from_slice(&[
        0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, src_host, 0x08, 0x00,
    ]);
    f.extend_from_slice(&[0x45, 0]);
    f.extend_from_slice(&(20 + udp_len).to_be_bytes());
    f.extend_from_slice(&[
        0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, src_host, 10, 0, 0, dst_host,
    ]);
    f.extend_from_slice(&49152u16.to_be_bytes());
    f.extend_from_slice(&4791u16.to_be_bytes());
    f.extend_from_slice(&udp_len.to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(&[opcode, 0x40, 0xff, 0xff]);
    f.extend_from_slice(&(dest_qp & 0xff_ffff).to_be_bytes());
    f.extend_from_slice(&(psn & 0xff_ffff).to_be_bytes());
    f.extend_from_slice(payload);
    f.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    f
}

/// A capture of `packets` frames from `frame(i)`, one microsecond apart.
fn capture(packets: usize, mut frame: impl FnMut(usize) -> Vec<u8>) -> Vec<u8> {
    let mut out = pcap_header();
    for i in 0..packets {
        let data = frame(i);
        let ts = 1_700_000_000_000_000u64 + i as u64;
        for field in [
            (ts / 1_000_000) as u32,
            (ts % 1_000_000) as u32,
            data.len() as u32,
            data.len() as u32,
        ] {
            out.extend_from_slice(&field.to_le_bytes());
        }
        out.extend_from_slice(&data);
    }
    out
}

fn new_qp_every_packet(packets: usize) -> Vec<u8> {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    capture(packets, |i| {
        let psn = rng.next() as u32;
        roce_v2_frame((i % 200) as u8 + 1, i as u32, psn)
    })
}

/// A few QPs whose PSNs jump far ahead and back: every packet is a gap, a retransmission or
/// a go-back-N, and the anomaly list grows with every frame.
fn psn_back_and_forth(packets: usize) -> Vec<u8> {
    let mut rng = Rng(0x0bad_cafe_f00d_0001);
    capture(packets, |i| {
        let jump = (rng.next() % 5000) as u32;
        let psn = if i % 2 == 0 {
            (i as u32).wrapping_mul(3).wrapping_add(jump)
        } else {
            (i as u32).wrapping_sub(jump)
        };
        roce_v2_frame(1 + (i % 3) as u8, 0x100 + (i % 7) as u32, psn)
    })
}

/// One long RC connection: host 1 sends to QP 0x100 on host 250, which acknowledges every
/// second request to QP 0x200, so that requests and ACKs alternate as they do on a real
/// fabric and no two neighbouring points of `--html`'s time sequence share a mark.
fn requests_and_acks(packets: usize) -> Vec<u8> {
    capture(packets, |i| {
        let psn = (i / 3 * 2 + i % 3) as u32;
        if i % 3 == 2 {
            // RC ACKNOWLEDGE (opcode 0x11), with an AETH (ACK, 31 credits, MSN), from the
            // responder back to the requester's QP.
            let mut aeth = [0x1f, 0, 0, 0];
            aeth[1..].copy_from_slice(&((i / 3) as u32).to_be_bytes()[1..]);
            roce_v2_frame_between((250, 1), 0x11, 0x200, psn - 1, &aeth)
        } else {
            roce_v2_frame(1, 0x100, psn)
        }
    })
}

/// The CPU time (user + system, all threads) of one run. CPU time rather than wall time:
/// a run that waits for the other core, busy with a parallel test or CI, is not charged.
///
/// On one thread: with two, how long the threads wait on each other depends on the
/// scheduler, and under load that moved read --json's ratio from 1.4 to 3.5 with nothing else
/// changed. The work whose growth is measured is the same on one thread.
fn cpu_time(args: &[&str]) -> Duration {
    let mut args = args.to_vec();
    args.insert(1, "--threads=1");
    let (status, usage) = run_and_reap(&args, &Feed::Args);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "rdmadump {args:?}: wait status {status:#x}"
    );
    let of = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    of(usage.ru_utime) + of(usage.ru_stime)
}

/// The smallest growth, `t(2N) - t(N)`, worth a ratio: scheduler ticks and cache misses
/// move a run by a few milliseconds, so a few tens of milliseconds of growth made the ratio
/// swing between 1.2 and 2.9 on CI while the same program measured 2.08 at ten times the
/// size.
const MIN_GROWTH: Duration = Duration::from_millis(150);

/// The largest N tried, in packets (the largest file is 4N), so that a slow debug build
/// stays within seconds.
const MAX_ADVERSARIAL_PACKETS: usize = 320_000;

/// How the time of `command` grows with the input, from N, 2N and 4N packets. Each time is
/// the best of three, alternating files so that a burst of background load hits all alike.
/// When the growth from N to 2N is too small to rise above noise, N is scaled up and the
/// measurement repeated.
///
/// A run costs a fixed part (start-up), a part per packet, and parts that stop growing once a
/// limit is reached: the analyzer keeps at most 10,000 anomalies and `--max-flows` flows, and
/// reports only those. The ratio compares what the last 2N packets cost with what the N before
/// them cost, `(t(4N) - t(2N)) / (t(2N) - t(N))`: the fixed part cancels, linear work gives 2,
/// quadratic work 4 (16 - 4 over 4 - 1), and a limit reached on the way makes it smaller.
fn growth_ratio(command: &[&str], what: &str, make: fn(usize) -> Vec<u8>, dir: &Path) -> f64 {
    let mut packets = ADVERSARIAL_PACKETS;
    loop {
        let files = [1, 2, 4].map(|times| {
            let path = dir.join(format!("{what}-{}.pcap", times * packets));
            if !path.exists() {
                fs::write(&path, make(times * packets)).expect("write capture");
            }
            path
        });
        let mut best = [Duration::MAX; 3];
        for _ in 0..3 {
            for (slot, file) in files.iter().enumerate() {
                let mut args = command.to_vec();
                args.push(file.to_str().expect("utf-8 path"));
                best[slot] = best[slot].min(cpu_time(&args));
            }
        }
        let growth = best[1].saturating_sub(best[0]);
        let [one, two, four] = best.map(|d| d.as_secs_f64());
        let ratio = (four - two) / (two - one).max(1e-6);
        eprintln!(
            "{command:?} on {what}: {:.0} / {:.0} / {:.0} ms CPU for {packets} / twice / four \
             times as many packets: (t(4N)-t(2N))/(t(2N)-t(N)) {ratio:.2}",
            one * 1e3,
            two * 1e3,
            four * 1e3,
        );
        if growth >= MIN_GROWTH || packets >= MAX_ADVERSARIAL_PACKETS {
            return ratio;
        }
        let scale = MIN_GROWTH.as_secs_f64() / growth.as_secs_f64().max(1e-3);
        packets = (packets as f64 * scale.clamp(2.0, 8.0)) as usize;
        packets = packets.min(MAX_ADVERSARIAL_PACKETS);
    }
}

#[test]
fn doubling_the_input_doubles_the_time() {
    let _busy = busy();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    for (what, make) in [
        (
            "new-qp-every-packet",
            new_qp_every_packet as fn(usize) -> Vec<u8>,
        ),
        ("psn-back-and-forth", psn_back_and_forth),
        ("requests-and-acks", requests_and_acks),
    ] {
        let page = dir.path().join("page.html");
        let html = [
            "analyze",
            "--json",
            "--html",
            page.to_str().expect("utf-8 path"),
        ];
        let commands: Vec<&[&str]> = match what {
            // Eviction runs all the time once the table is full.
            "new-qp-every-packet" => vec![
                &["read", "--json"],
                &["analyze", "--json"],
                &["analyze", "--json", "--max-flows", "1000"],
            ],
            // Each direction's time sequence is bounded, and makes room by merging points:
            // rare marks everywhere here, two common ones taking turns below.
            "psn-back-and-forth" => vec![&["read", "--json"], &["analyze", "--json"], &html],
            _ => vec![&html],
        };
        for command in commands {
            // Halfway between linear (2) and quadratic (4) work. No lower bound: a limit
            // reached within the first 2N makes the later packets cheaper, which is not a bug,
            // and measured ratios down to 1.46 came from it.
            const QUADRATIC_SUSPECT: f64 = 3.0;
            let mut ratio = growth_ratio(command, what, make, dir.path());
            if ratio >= QUADRATIC_SUSPECT {
                // One burst of load on a shared CI host once turned a linear 2.0 into 3.54,
                // and two bursts in three measurements (3.05, 1.95, 3.48 for the
                // `--max-flows 1000` run, whose growth is the smallest) failed a linear
                // build that measured 1.80-2.23 alone. Quadratic work measures about 4 every
                // time, so the median of five measurements still catches it while two
                // bursts no longer fail.
                let mut ratios = [ratio, 0.0, 0.0, 0.0, 0.0];
                for slot in &mut ratios[1..] {
                    *slot = growth_ratio(command, what, make, dir.path());
                }
                ratios.sort_by(f64::total_cmp);
                ratio = ratios[2];
            }
            if ratio >= QUADRATIC_SUSPECT {
                failures.push(format!("{command:?} on {what}: ratio {ratio:.2}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "time grows faster than linearly: {failures:?}"
    );
}

// ---- Distinct QPs and MACs without end ---------------------------------------------------

/// A PFC frame pausing priority 3, from a sender MAC built from `sender`.
fn pfc_frame(sender: u32) -> Vec<u8> {
    let mut f = vec![0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00];
    f.extend_from_slice(&sender.to_be_bytes());
    f.extend_from_slice(&[0x88, 0x08, 0x01, 0x01, 0x00, 0x08]);
    for priority in 0..8 {
        f.extend_from_slice(&(if priority == 3 { 0xffffu16 } else { 0 }).to_be_bytes());
    }
    f.resize(60, 0);
    f
}

/// Every RoCE packet a new QP and every PFC frame a new sender: the flow table and the PFC
/// state must stay within their limits, so peak memory must not grow with the capture.
#[test]
fn endless_new_qps_and_macs_run_in_bounded_memory() {
    let _busy = busy();
    let dir = tempfile::tempdir().expect("temp dir");
    let make = |packets: usize| {
        let mut rng = Rng(0x5eed_0000_0000_0001);
        capture(packets, |i| {
            if i % 2 == 0 {
                roce_v2_frame((i % 200) as u8 + 1, i as u32, rng.next() as u32)
            } else {
                pfc_frame(i as u32)
            }
        })
    };
    let mut peaks = Vec::new();
    for packets in [20_000, 200_000] {
        let path = dir.path().join(format!("new-everything-{packets}.pcap"));
        fs::write(&path, make(packets)).expect("write capture");
        let path = path.to_str().expect("utf-8 path");
        // One thread reads the file through its small stream buffer: what is measured is
        // the tables', not the input's, memory (a spooled stream's is bounded apart, in
        // `a_long_stream_is_read_in_bounded_memory`).
        let args = [
            "analyze",
            "--json",
            "--no-mmap",
            "--threads",
            "1",
            "--max-flows",
            "1000",
            "--max-pfc-senders",
            "1000",
            path,
        ];
        let peak = peak_rss(&args, &Feed::Args, path);
        let out = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
            .args(args)
            .output()
            .expect("run rdmadump");
        let doc: Value = serde_json::from_slice(&out.stdout).expect("report JSON");
        let flows_evicted = doc["flow_table"]["evicted"].as_u64().unwrap_or(0);
        let senders_evicted = doc["pfc"]["evicted"].as_u64().unwrap_or(0);
        eprintln!(
            "{packets} packets, all new QPs and MACs: peak RSS {peak} KiB, {flows_evicted} flows and {senders_evicted} senders evicted"
        );
        assert!(doc["flows"].as_array().is_some_and(|f| f.len() <= 1000));
        assert!(flows_evicted > 0 && senders_evicted > 0);
        peaks.push(peak);
    }
    // Ten times the packets; memory may differ by noise, not by the capture's size.
    assert!(
        peaks[1] <= peaks[0] + 8 * 1024,
        "peak RSS grew from {} to {} KiB",
        peaks[0],
        peaks[1]
    );
}
