//! Any text as a `-Y` filter: lexer, parser, and the evaluator on the fixtures' packets.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::filter_expr(data));
