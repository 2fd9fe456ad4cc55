//! One capture split into up to 32 capture points: skew estimation, k-way merge, analysis.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::merge_points(data));
