//! The command line as tcpdump, tshark and jq users expect it.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::harness::{fixture, rdmadump, real_capture, stderr, stdout};

fn path(name: &str) -> String {
    fixture(name).to_str().unwrap().to_string()
}

#[test]
fn count_stops_after_n_matching_packets() {
    let Some(real) = real_capture("infiniband-erf.pcap") else {
        return;
    };
    let out = rdmadump(&["read", "-c", "3", "--kind", "ib", &real.to_string_lossy()]);
    assert!(out.status.success());
    assert_eq!(stdout(&out).lines().count(), 3);
    let out = rdmadump(&[
        "read",
        "-c",
        "2",
        "--qp",
        "0x870408",
        &real.to_string_lossy(),
    ]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains("qp 0x870408")).count(),
        2,
        "{text}"
    );
}

#[test]
fn filter_selects_by_json_names() {
    let out = rdmadump(&[
        "read",
        "--json",
        "-Y",
        "aeth.kind == \"nak\" && bth.psn >= 0",
        &path("roce_v2_opcodes.pcap"),
    ]);
    let lines: Vec<String> = stdout(&out).lines().map(String::from).collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    let out = rdmadump(&[
        "read",
        "-Y",
        "kind == \"pfc\" || kind == \"pause\"",
        &path("pfc_pause.pcap"),
    ]);
    assert_eq!(stdout(&out).lines().count(), 7);
    for file in ["roce_v2_crc_cases.pcap", "roce_v2_opcodes.pcap"] {
        let want = frames_marked_ce(file);
        assert!(
            !want.is_empty(),
            "{file}: its truth has no CE frame to select"
        );
        let out = rdmadump(&["read", "-Y", "inet.ecn == 3", &path(file)]);
        let text = stdout(&out);
        let frames: Vec<u64> = text
            .lines()
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(frames, want, "{file}: {text}");
        // The one-line view flags CE too, so every selected line must say so.
        assert_eq!(
            text.lines().filter(|l| l.contains("CE]")).count(),
            want.len(),
            "{file}: {text}"
        );
    }
}

/// The frames the generator marked ECN CE (3), by number, from fixtures/expected/: the
/// filter's answer comes from the truth, not from a second rdmadump run.
fn frames_marked_ce(file: &str) -> Vec<u64> {
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture(&format!("expected/{file}.json"))).unwrap(),
    )
    .unwrap();
    truth["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["ip"]["ecn"] == 3)
        .map(|f| f["frame"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_bad_filter_is_rejected_before_any_file_is_read() {
    let out = rdmadump(&[
        "read",
        "-Y",
        "bth.dest_qp == 0xb01 && bth.nonsense == 1",
        "/nonexistent.pcap",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("column 25"), "{err}");
    assert!(
        !err.contains("nonexistent"),
        "the file must not be opened: {err}"
    );
}

#[test]
fn time_formats() {
    let first_times = |format: &str| -> Vec<String> {
        let out = rdmadump(&[
            "read",
            "--time",
            format,
            "-c",
            "3",
            &path("roce_v2_opcodes.pcap"),
        ]);
        stdout(&out)
            .lines()
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .collect()
    };
    assert_eq!(
        first_times("absolute"),
        [
            "22:13:20.000000000",
            "22:13:20.001000000",
            "22:13:20.002000000"
        ]
    );
    assert_eq!(
        first_times("relative"),
        ["0.000000000", "0.001000000", "0.002000000"]
    );
    assert_eq!(
        first_times("delta"),
        ["0.000000000", "0.001000000", "0.001000000"]
    );
}

#[test]
fn roce_port_option_adds_ports() {
    let kinds = |extra: &[&str]| {
        let mut args = vec!["read", "--json"];
        args.extend_from_slice(extra);
        let p = path("roce_v2_custom_port.pcap");
        args.push(&p);
        stdout(&rdmadump(&args))
            .lines()
            .filter(|l| l.contains("\"kind\":\"roce_v2\""))
            .count()
    };
    assert_eq!(kinds(&[]), 0);
    assert_eq!(kinds(&["--roce-port", "4792"]), 2);
    assert_eq!(kinds(&["--roce-port", "4792", "--roce-port", "5000"]), 2);
}

#[test]
fn missing_and_non_capture_files_get_one_line_errors() {
    let out = rdmadump(&["read", "/no/such/file.pcap"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("/no/such/file.pcap"), "{err}");
    let out = rdmadump(&["read", &path("README.md")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("README.md") && stderr(&out).contains("not a pcap"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn stdin_is_read_with_dash_or_no_file() {
    let Some(real) = real_capture("infiniband-erf.pcap") else {
        return;
    };
    let bytes = std::fs::read(real).unwrap();
    for args in [vec!["read", "-"], vec!["read"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 43);
    }
}

/// `rdmadump read - < capture.pcap`: standard input that is a regular file is read from
/// where it stands, as the named file is from its start (and mapped when that is the start).
#[test]
fn stdin_from_a_file_is_read_from_where_it_stands() {
    use std::io::{Seek, SeekFrom};
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "roce_v2_opcodes.pcap",
        "multi_if.pcapng",
        "gzip_roce_v1.pcap",
    ] {
        let path = fixture(name);
        let named = rdmadump(&["read", "--json", &path.to_string_lossy()]);
        assert!(named.status.success());
        let bytes = std::fs::read(&path).unwrap();
        let prefixed = dir.path().join(name);
        let junk = b"not a capture: bytes a previous reader consumed";
        std::fs::write(&prefixed, [&junk[..], &bytes].concat()).unwrap();
        for skip in [None, Some(junk.len() as u64)] {
            let file = match skip {
                None => std::fs::File::open(&path).unwrap(),
                Some(at) => {
                    let mut file = std::fs::File::open(&prefixed).unwrap();
                    file.seek(SeekFrom::Start(at)).unwrap();
                    file
                }
            };
            let out = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
                .args(["read", "--json", "-"])
                .stdin(Stdio::from(file))
                .output()
                .unwrap();
            assert!(out.status.success(), "{name} {skip:?}: {}", stderr(&out));
            assert!(
                out.stdout == named.stdout,
                "{name}, stdin at {skip:?}, differs from the named file"
            );
        }
    }
}

/// A capture piped in gets a 1 MiB pipe buffer (src/capture/pipe.rs), so that the writer
/// and rdmadump take turns less often.
#[cfg(target_os = "linux")]
#[test]
fn a_pipe_into_stdin_is_widened() {
    use std::os::fd::AsRawFd;
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
        .args(["read", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let input = child.stdin.take().unwrap();
    // SAFETY: F_GETPIPE_SZ reads nothing of this process's memory.
    let size = || unsafe { libc::fcntl(input.as_raw_fd(), libc::F_GETPIPE_SZ) };
    let before = size();
    let deadline = Instant::now() + Duration::from_secs(20);
    while size() != 1 << 20 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let after = size();
    drop(input);
    child.wait().unwrap();
    assert_eq!(
        after,
        1 << 20,
        "pipe buffer {before} bytes before, {after} after"
    );
}

/// A live capture (`tcpdump -U -w - | rdmadump read -l -`) keeps its pipe open between
/// packets: with `-l` each packet must be shown when it arrives, not once a batch of them
/// has, on one thread or several, and `-c N` must end the run without waiting for more.
#[test]
fn a_live_stream_shows_its_packets_as_they_arrive() {
    use std::io::BufRead;
    use std::sync::mpsc;
    use std::time::Duration;
    let path = fixture("roce_v2_opcodes.pcap");
    let bytes = std::fs::read(&path).unwrap();
    let packets = stdout(&rdmadump(&["read", &path.to_string_lossy()]))
        .lines()
        .count();
    // Three threads spool the stream and decode it in batches.
    for threads in ["1", "2", "3"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
            .args(["read", "-l", "--threads", threads, "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(&bytes).unwrap();
        input.flush().unwrap();
        let (lines, shown) = mpsc::channel();
        let output = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(output).lines() {
                if lines.send(line).is_err() {
                    return;
                }
            }
        });
        // The pipe stays open: every packet written must be shown all the same.
        for n in 0..packets {
            let line = shown.recv_timeout(Duration::from_secs(20));
            assert!(
                line.is_ok(),
                "--threads {threads}: packet {} of {packets} not shown while the pipe stays open",
                n + 1
            );
        }
        drop(input);
        assert!(child.wait().unwrap().success());

        let mut child = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
            .args(["read", "--threads", threads, "-c", "3", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(&bytes).unwrap();
        input.flush().unwrap();
        let (done, ended) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(child.wait_with_output());
        });
        let out = ended
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("--threads {threads} -c 3 waits for a pipe kept open"))
            .unwrap();
        drop(input);
        assert!(out.status.success());
        assert_eq!(stdout(&out).lines().count(), 3);
        assert!(out.stderr.is_empty(), "{}", stderr(&out));
    }
}

/// A spooled stream whose records arrive late (here 200 bytes every 8 ms, past the 5 ms the
/// reading thread waits before handing on a batch) stalls the merge, which must wait for it
/// rather than move on: merged with the same capture as a file, every record ties with its
/// twin, and the order must be the one-thread order.
#[test]
fn a_late_stream_keeps_its_place_in_a_merge() {
    use std::time::Duration;
    let path = fixture("roce_v2_opcodes.pcap");
    let file = path.to_string_lossy().into_owned();
    let bytes = std::fs::read(&path).unwrap();
    let run = |threads: &str, slow: bool| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
            .args(["read", "--json", "--threads", threads, "-", &file])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        let data = bytes.clone();
        let writer = std::thread::spawn(move || {
            for chunk in data.chunks(if slow { 200 } else { data.len() }) {
                input.write_all(chunk)?;
                input.flush()?;
                if slow {
                    std::thread::sleep(Duration::from_millis(8));
                }
            }
            Ok::<_, std::io::Error>(())
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        out.stdout
    };
    let one = run("1", false);
    assert!(!one.is_empty());
    assert!(
        run("3", true) == one,
        "a late spooled stream changed the merge order"
    );
}

#[test]
fn no_mmap_reads_the_same() {
    let Some(real) = real_capture("infiniband-erf.pcap") else {
        return;
    };
    let mapped = stdout(&rdmadump(&["read", "--json", &real.to_string_lossy()]));
    let streamed = stdout(&rdmadump(&[
        "read",
        "--json",
        "--no-mmap",
        &real.to_string_lossy(),
    ]));
    assert_eq!(mapped, streamed);
}

#[test]
fn fail_on_sets_exit_status_one() {
    let storm = path("scenarios/pfc_storm.pcap");
    let out = rdmadump(&[
        "analyze",
        "--fail-on",
        "icrc_bad,go_back_n,pfc_storm",
        &storm,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let out = rdmadump(&["analyze", "--fail-on", "icrc_bad,go_back_n", &storm]);
    assert_eq!(out.status.code(), Some(0));
    let out = rdmadump(&["analyze", "--fail-on", "not_a_kind", &storm]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn broken_pipe_exits_quietly_with_status_zero() {
    let storm = path("scenarios/pfc_storm.pcap");
    let many: Vec<&str> = std::iter::repeat_n(storm.as_str(), 40).collect();
    let command = format!(
        "{} read {} | head -n 1 > /dev/null; echo ${{PIPESTATUS[0]}}",
        env!("CARGO_BIN_EXE_rdmadump"),
        many.join(" ")
    );
    let out = Command::new("bash")
        .args(["-c", &command])
        .output()
        .unwrap();
    assert_eq!(stdout(&out).trim(), "0");
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn color_follows_the_flag_and_no_color() {
    let storm = path("scenarios/gbn_wrap.pcap");
    let has_escape = |out: &std::process::Output| out.stdout.contains(&0x1b);
    assert!(has_escape(&rdmadump(&[
        "analyze", "--color", "always", &storm
    ])));
    assert!(!has_escape(&rdmadump(&[
        "analyze", "--color", "never", &storm
    ])));
    // stdout is a pipe here, so auto means no color.
    assert!(!has_escape(&rdmadump(&["analyze", &storm])));
    let out = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
        .args(["analyze", "--color", "auto", &storm])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!has_escape(&out));
}

#[test]
fn help_shows_examples_for_each_subcommand() {
    for sub in ["read", "analyze"] {
        let out = rdmadump(&[sub, "--help"]);
        let text = stdout(&out);
        assert!(
            text.contains("Examples:") && text.contains(&format!("rdmadump {sub}")),
            "{text}"
        );
    }
}

/// A capture of about 70 MB, above the progress-bar threshold.
fn capture_of_70_mb(dir: &std::path::Path) -> String {
    let source = std::fs::read(fixture("roce_v2_opcodes.pcap")).unwrap();
    let records = source.len() - 24;
    repeated(dir, "roce_v2_opcodes.pcap", (70 << 20) / records + 1)
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let big = capture_of_70_mb(dir.path());
    let out = rdmadump(&["analyze", &big]);
    assert!(out.status.success());
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

/// Runs rdmadump on a pseudo-terminal `columns` wide, through util-linux `script`, and
/// returns what the terminal showed (stdout and stderr together, as on a screen).
fn on_a_terminal(columns: u16, args: &[&str]) -> String {
    let mut command = format!(
        "stty cols {columns} rows 50; exec '{}'",
        env!("CARGO_BIN_EXE_rdmadump")
    );
    for arg in args {
        command.push_str(&format!(" '{arg}'"));
    }
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(crate::harness::root())
        .stdin(Stdio::null())
        .output()
        .expect("util-linux script, to give rdmadump a terminal");
    assert!(out.status.success(), "{command}: {}", stderr(&out));
    stdout(&out).replace('\r', "")
}

fn widest_line(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn tables_fit_the_terminal_they_are_shown_on() {
    let capture = "fixtures/scenarios/gbn_wrap.pcap";
    let narrow = on_a_terminal(70, &["analyze", "--color", "never", capture]);
    assert!(narrow.contains("Flows"), "{narrow}");
    assert!(widest_line(&narrow) <= 70, "{narrow}");
    // On a wide terminal the tables take the room they need, more than the 80-column default.
    let wide = on_a_terminal(200, &["analyze", "--color", "never", capture]);
    assert!(widest_line(&wide) > 80, "{wide}");
}

#[test]
fn color_by_default_on_a_terminal() {
    let capture = "fixtures/scenarios/gbn_wrap.pcap";
    assert!(on_a_terminal(100, &["analyze", capture]).contains('\x1b'));
    assert!(!on_a_terminal(100, &["analyze", "--color", "never", capture]).contains('\x1b'));
}

#[test]
fn progress_bar_when_stderr_is_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let big = capture_of_70_mb(dir.path());
    let screen = on_a_terminal(100, &["analyze", "--color", "never", &big]);
    // The bar shows bytes done of the total, the rate and the time left.
    assert!(screen.contains("ETA") && screen.contains("MiB"), "{screen}");
}

#[test]
fn output_is_identical_on_one_thread_and_two_on_every_fixture() {
    let mut files: Vec<String> = std::fs::read_dir(fixture(""))
        .unwrap()
        .chain(std::fs::read_dir(fixture("scenarios")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcap" || x == "pcapng"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    files.extend(real_capture("infiniband-erf.pcap").map(|p| p.to_string_lossy().into_owned()));
    for file in &files {
        for command in [&["read", "--json"][..], &["analyze", "--json"][..]] {
            let run = |threads: &str| {
                let mut args = command.to_vec();
                args.extend(["--threads", threads, file.as_str()]);
                rdmadump(&args).stdout
            };
            assert_eq!(run("1"), run("2"), "{command:?} {file}");
        }
    }
}

/// A capture of `copies` repetitions of a fixture's records: enough packets for many
/// batches, so that both threads of the pipeline take part.
fn repeated(dir: &std::path::Path, name: &str, copies: usize) -> String {
    let source = std::fs::read(fixture(name)).unwrap();
    let (header, records) = source.split_at(24);
    let path = dir.join(format!("{copies}x{name}"));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    file.write_all(header).unwrap();
    for _ in 0..copies {
        file.write_all(records).unwrap();
    }
    drop(file);
    path.to_string_lossy().into_owned()
}

#[test]
fn output_is_identical_on_one_thread_two_and_three_over_many_batches() {
    let dir = tempfile::tempdir().unwrap();
    // Tens of thousands of packets: dozens of batches, some worked on by each thread.
    let roce = repeated(dir.path(), "roce_v2_opcodes.pcap", 1500);
    let pfc = repeated(dir.path(), "pfc_pause.pcap", 3000);
    let commands: [&[&str]; 7] = [
        &["read", "--json", &roce],
        &["read", "--json", &roce, &pfc],
        &["read", "--time", "delta", &roce, &pfc],
        &["read", "--time", "relative", "-Y", "bth.opcode < 6", &roce],
        &["read", "--json", "-c", "20481", &roce],
        &["read", "-c", "4097", &roce, &pfc],
        &["analyze", "--json", &roce, &pfc],
    ];
    for command in commands {
        let run = |threads: &str| {
            let mut args = vec![command[0], "--threads", threads];
            args.extend_from_slice(&command[1..]);
            let out = rdmadump(&args);
            assert!(out.status.success(), "{command:?}: {}", stderr(&out));
            out.stdout
        };
        let one = run("1");
        assert!(one.len() > 100_000, "{command:?}: only {} bytes", one.len());
        assert!(run("2") == one, "{command:?} differs on two threads");
        // A third thread is a helper, which hands its batches back out of order.
        assert!(run("3") == one, "{command:?} differs on three threads");
    }
}

/// Standard input and compressed files are read ahead on a thread of their own when there
/// are two: what comes out must be what the mapping gives, on one thread or two.
#[test]
fn streams_read_ahead_give_what_the_mapping_gives() {
    let dir = tempfile::tempdir().unwrap();
    // Megabytes: many chunks of the read-ahead, and a pipe that fills up.
    let roce = repeated(dir.path(), "roce_v2_opcodes.pcap", 3000);
    let bytes = std::fs::read(&roce).unwrap();
    let zst = dir.path().join("copy.pcap.zst");
    std::fs::write(&zst, zstd::encode_all(&bytes[..], 3).unwrap()).unwrap();
    // The report names its inputs; all else must match byte for byte.
    let unnamed = |out: &[u8], name: &str| {
        let text = String::from_utf8_lossy(out).into_owned();
        text.replace(&serde_json::to_string(name).unwrap(), "\"INPUT\"")
    };
    for command in ["read", "analyze"] {
        let mapped = rdmadump(&[command, "--json", "--threads", "1", &roce]);
        assert!(mapped.status.success());
        let mapped = unnamed(&mapped.stdout, &roce);
        // Two threads read the stream ahead; three spool it and decode it in batches.
        for threads in ["1", "2", "3"] {
            let mut child = Command::new(env!("CARGO_BIN_EXE_rdmadump"))
                .args([command, "--json", "--threads", threads, "-"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let mut input = child.stdin.take().unwrap();
            let data = bytes.clone();
            // Written from another thread: the output fills its pipe meanwhile.
            let writer = std::thread::spawn(move || input.write_all(&data));
            let piped = child.wait_with_output().unwrap();
            writer.join().unwrap().unwrap();
            assert!(piped.status.success(), "{command} -: {}", stderr(&piped));
            assert!(
                unnamed(&piped.stdout, "<stdin>") == mapped,
                "{command} --threads {threads} from stdin differs from the mapping"
            );
            let compressed = rdmadump(&[
                command,
                "--json",
                "--threads",
                threads,
                &zst.to_string_lossy(),
            ]);
            assert!(compressed.status.success());
            assert!(
                unnamed(&compressed.stdout, &zst.to_string_lossy()) == mapped,
                "{command} --threads {threads} of the zstd copy differs from the mapping"
            );
        }
    }
}

/// The records of a little-endian microsecond pcap, read here with nothing but the format's
/// definition (24-byte file header, 16-byte record headers), so that `-x` is checked
/// against bytes rdmadump did not choose.
fn pcap_records(path: &std::path::Path) -> Vec<Vec<u8>> {
    let file = std::fs::read(path).unwrap();
    assert_eq!(&file[..4], &[0xd4, 0xc3, 0xb2, 0xa1], "little-endian pcap");
    let mut records = Vec::new();
    let mut at = 24;
    while at + 16 <= file.len() {
        let caplen = u32::from_le_bytes(file[at + 8..at + 12].try_into().unwrap()) as usize;
        if at + 16 + caplen > file.len() {
            break;
        }
        records.push(file[at + 16..at + 16 + caplen].to_vec());
        at += 16 + caplen;
    }
    records
}

#[test]
fn read_x_dumps_every_captured_byte_of_every_frame() {
    for name in ["roce_v2_opcodes.pcap", "pfc_pause.pcap", "cut_short.pcap"] {
        let path = fixture(name);
        let out = rdmadump(&["read", "-x", path.to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        // A frame is its summary line, its hex lines, and a blank line.
        let mut frames: Vec<Vec<u8>> = Vec::new();
        for line in stdout(&out).lines() {
            let is_hex = line.len() > 6
                && line[..4].bytes().all(|b| b.is_ascii_hexdigit())
                && &line[4..6] == "  ";
            if !is_hex {
                if !line.is_empty() {
                    frames.push(Vec::new());
                }
                continue;
            }
            let hex = &line[6..6 + 16 * 3];
            let bytes = frames.last_mut().expect("hex before any frame line");
            for pair in hex.split_whitespace() {
                bytes.push(u8::from_str_radix(pair, 16).unwrap());
            }
        }
        let want = pcap_records(&path);
        assert_eq!(frames.len(), want.len(), "{name}: frames");
        for (number, (got, want)) in frames.iter().zip(&want).enumerate() {
            assert_eq!(got, want, "{name} frame {}", number + 1);
        }
    }
}

/// Every leaf of the JSON with its key; arrays of objects are walked, arrays of values kept.
fn leaves<'v>(
    value: &'v serde_json::Value,
    key: &'v str,
    into: &mut Vec<(&'v str, &'v serde_json::Value)>,
) {
    match value {
        serde_json::Value::Object(members) => {
            for (k, v) in members {
                leaves(v, k, into);
            }
        }
        serde_json::Value::Array(items) if items.iter().any(|i| i.is_object()) => {
            for item in items {
                leaves(item, key, into);
            }
        }
        leaf => into.push((key, leaf)),
    }
}

/// Whether the tree's text for a value shows the JSON value (numbers compared as numbers,
/// since the JSON's `ts` keeps nine decimals that a parsed float does not).
fn shows(text: &str, value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(s) => text == s,
        // serde_json parses floats to within an ulp or so, not always as `str::parse` does.
        serde_json::Value::Number(n) => match (text.parse::<f64>(), n.as_f64()) {
            (Ok(shown), Some(json)) => (shown - json).abs() <= json.abs() * 1e-15,
            _ => false,
        },
        serde_json::Value::Array(items) => {
            let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) else {
                return false;
            };
            let parts: Vec<&str> = inner.split(", ").filter(|p| !p.is_empty()).collect();
            parts.len() == items.len() && parts.iter().zip(items).all(|(p, i)| shows(p, i))
        }
        other => {
            serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .as_ref()
                == Some(other)
        }
    }
}

#[test]
fn read_v_shows_every_field_the_json_has() {
    let captures = [
        fixture("roce_v2_opcodes.pcap"),
        fixture("ib_erf.pcap"),
        fixture("pfc_pause.pcap"),
        fixture("malformed.pcap"),
        fixture("roce_v2_ipv6_vlan.pcap"),
        fixture("tunnels.pcap"),
        fixture("mad_cm_roce.pcap"),
        fixture("mad_cm_ib.pcap"),
    ];
    for path in captures {
        let path = path.to_str().unwrap();
        let json = rdmadump(&["read", "--json", path]);
        let tree = rdmadump(&["read", "-V", path]);
        assert!(tree.status.success(), "{path}: {}", stderr(&tree));
        let tree = stdout(&tree);
        let blocks: Vec<&str> = tree.split("\n\n").filter(|b| !b.is_empty()).collect();
        let frames: Vec<serde_json::Value> = stdout(&json)
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(blocks.len(), frames.len(), "{path}: one block per frame");
        for (block, frame) in blocks.iter().zip(&frames) {
            let mut want = Vec::new();
            leaves(frame, "", &mut want);
            let lines: Vec<(&str, &str)> = block
                .lines()
                .filter_map(|l| l.trim_start().split_once(": "))
                .collect();
            for (key, value) in want {
                // A header that is one value (ImmDt) is a titled line, `Immediate Data: 17`.
                let found = lines.iter().any(|(k, text)| {
                    (*k == key || k.starts_with(char::is_uppercase)) && shows(text, value)
                });
                assert!(found, "{path}: `{key}: {value}` missing from\n{block}");
            }
        }
    }
}

#[test]
fn dash_v_is_verbose_on_read_and_the_version_stays_on_the_tool() {
    let version = rdmadump(&["--version"]);
    assert!(version.status.success());
    assert!(stdout(&version).starts_with("rdmadump "));
    let both = rdmadump(&[
        "read",
        "-V",
        "--json",
        fixture("roce_v1.pcap").to_str().unwrap(),
    ]);
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
    let verbose = rdmadump(&["read", "-V", fixture("roce_v1.pcap").to_str().unwrap()]);
    assert!(stdout(&verbose).contains("Global Route Header\n"));
}
