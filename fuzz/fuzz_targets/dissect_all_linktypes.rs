//! One frame of any supported link type: a selector byte, two bytes of wire length, the frame.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::any_linktype(data));
