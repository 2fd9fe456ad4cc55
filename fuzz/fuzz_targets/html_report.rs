//! An arbitrary capture analysed and rendered as the `analyze --html` page.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::html_report(data));
