//! An arbitrary capture through the input loop on 1, 2 and 4 threads: the same output.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::threaded_pipeline(data));
