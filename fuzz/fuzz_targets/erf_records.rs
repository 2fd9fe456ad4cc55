//! One ERF record (pcap linktype 197) as ibdump and DAG cards write them: two bytes of wire
//! length, then the record.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmadump_fuzz::erf_record(data));
