//! `rdmadump info` on an arbitrary file: the summary against the records, text and JSON.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::info_capture(data));
