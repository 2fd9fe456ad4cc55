//! A whole capture file, read from memory and as a stream, every record dissected and
//! rendered; the seed corpus makes this one explore classic pcap.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::capture_file(data));
