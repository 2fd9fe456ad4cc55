//! The records of an arbitrary capture written as `read -w` writes them, then read back.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::write_capture(data));
