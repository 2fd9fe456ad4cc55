//! The option values users type: times, durations, sizes, speeds, offsets, `-e` and `-E`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::cli_parsers(data));
