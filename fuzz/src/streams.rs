//! `compressed_input`: arbitrary bytes (seeded with gzip and zstd captures) through every
//! way a stream reaches the readers: a file opened as a stream (decompressed when it is
//! compressed), the spool (a stream read into memory on a thread), the read-ahead thread,
//! and a real pipe opened by path, as `rdmadump read /dev/fd/N` opens one. Each must give
//! the records the bytes hold once decompressed by the decompressors themselves.

use std::io::{self, Read, Write};
use std::path::Path;

use rdmadump::capture::readahead::ReadAhead;
use rdmadump::capture::{AnyReader, ReadInput, SliceInput, Source, Spool};

use super::{Outcome, Summary, fixture, read_all};

/// Past this many decompressed bytes the input is a bomb, not a capture: the readers would
/// only spend the time the fuzzer has.
const MAX_PLAIN: u64 = 8 << 20;

pub fn compressed_input(data: &[u8]) {
    let Some((plain, complete)) = decompressed(data) else {
        return;
    };
    let expected = read_all(SliceInput::new(&plain), false);
    let check = |how: &str, got: Outcome| {
        if complete {
            assert_eq!(got, expected, "{how} and the decompressed bytes disagree");
        } else {
            // The stream failed where the decompressor did; what came before it is the same.
            assert!(
                expected.records.starts_with(&got.records),
                "{how}: records differ before the stream failed"
            );
        }
    };
    let path = fixture::scratch_dir().join("compressed_input.bin");
    std::fs::write(&path, data).expect("write the scratch file");
    check("the file", read_source(Source::open(&path, false)));
    check("the file unmapped", read_source(Source::open(&path, true)));
    // The stream as the pipeline hands it to the spool and the read-ahead thread.
    let stream = || match Source::open(&path, true) {
        Ok(Source::Stream(stream, _)) => Some(stream),
        _ => None,
    };
    if let Some(Ok(spool)) = stream().map(|s| Spool::spawn(s, None)) {
        check("the spool", read_all(SliceInput::over_spool(&spool), false));
    }
    if let Some(Ok(ahead)) = stream().map(ReadAhead::spawn) {
        check(
            "the read-ahead",
            read_all(ReadInput::new(ahead, None), false),
        );
    }
    check("a pipe", through_pipe(data));
}
/// What flate2 and zstd make of `data`, read up to their first error, and whether there
/// was none; `None` for a bomb.
pub fn decompressed(data: &[u8]) -> Option<(Vec<u8>, bool)> {
    let mut reader: Box<dyn Read> = if data.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Box::new(zstd::stream::read::Decoder::new(data).ok()?)
    } else if data.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::MultiGzDecoder::new(data))
    } else {
        Box::new(data)
    };
    let mut plain = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Some((plain, true)),
            Ok(n) => plain.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Some((plain, false)),
        }
        if plain.len() as u64 > MAX_PLAIN {
            return None;
        }
    }
}

/// `data` written into a pipe on another thread, and the pipe opened by its path.
fn through_pipe(data: &[u8]) -> Outcome {
    let (mut ours, mut writer) = io::pipe().expect("a pipe");
    let bytes = data.to_vec();
    let writing = std::thread::spawn(move || {
        let _ = writer.write_all(&bytes);
    });
    let path = {
        use std::os::fd::AsRawFd;
        format!("/dev/fd/{}", ours.as_raw_fd())
    };
    let outcome = read_source(Source::open(Path::new(&path), false));
    // Until the writer is done the pipe stays open here too, and what the reader left is
    // drained: a write to a pipe nobody holds would raise SIGPIPE, which the fuzzer's own
    // `main` does not ignore.
    let _ = io::copy(&mut ours, &mut io::sink());
    writing.join().expect("the writing thread");
    outcome
}

fn read_source(opened: io::Result<Source>) -> Outcome {
    let mut outcome = Outcome::default();
    let mut source = match opened {
        Ok(source) => source,
        Err(err) => {
            outcome.error = Some(err.to_string());
            return outcome;
        }
    };
    let mut reader = match AnyReader::open(&mut source) {
        Ok(reader) => reader,
        Err(err) => {
            outcome.error = Some(err.to_string());
            return outcome;
        }
    };
    loop {
        let advanced = reader.advance();
        outcome
            .warnings
            .extend(reader.take_warnings().iter().map(|w| w.to_string()));
        match advanced {
            Ok(true) => {}
            Ok(false) => break,
            Err(err) => {
                outcome.error = Some(err.to_string());
                break;
            }
        }
        let Some(record) = reader.current() else {
            break;
        };
        outcome.records.push(Summary {
            offset: record.offset,
            orig_len: record.orig_len,
            ts_ns: record.ts_ns,
            linktype: record.linktype,
            iface: record.iface,
            data: record.data.to_vec(),
        });
    }
    outcome.cut_short = reader.was_cut_short();
    outcome
}
