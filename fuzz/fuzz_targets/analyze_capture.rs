//! A whole capture file through the analyzer (flows, PSN tracking, PFC), then both reports.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::analyze_capture(data));
