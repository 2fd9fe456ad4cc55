//! An arbitrary capture exported to Parquet, then read back with the parquet crate.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::parquet_export(data));
