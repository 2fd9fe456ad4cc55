//! Arbitrary bytes through the file, spool, read-ahead and pipe inputs and the decompressors.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::compressed_input(data));
