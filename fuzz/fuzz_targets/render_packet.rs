//! An arbitrary frame through `-T fields`, the `-V` tree and the `-x` hex dump.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::render_packet(data));
