//! Integration tests: they run the built `rdmadump` binary, as users do.

mod harness;
mod layers;

mod cli;
mod connections;
mod expected_fixtures;
mod filter_diff;
mod filter_limits;
mod filter_wireshark;
mod generated;
mod ipoib;
mod mad_cm;
mod real_capture;
mod recipes;
mod scenarios;
mod snapshots;
mod tshark_diff;
mod tunnels;
