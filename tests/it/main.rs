//! Integration tests: they run the built `rdmadump` binary, as users do.

mod harness;
mod layers;

mod capture_loss;
mod capture_truth_hosts;
mod causes;
mod cli;
mod connections;
mod dcqcn;
mod expected_fixtures;
#[cfg(feature = "export")]
mod export;
#[cfg(feature = "export")]
mod export_engines;
#[cfg(feature = "export")]
mod export_truth;
mod fields_extract;
mod filter_diff;
mod filter_limits;
mod filter_wireshark;
mod generated;
mod html;
mod info;
mod ipoib;
mod limits;
mod mad_cm;
mod memory;
mod nvme;
mod outputs;
mod pieces;
mod points;
#[cfg(feature = "export")]
mod priorities;
#[cfg(feature = "export")]
mod python;
mod rank;
mod real_capture;
mod recipes;
mod scenarios;
mod snapshots;
mod stalls;
mod time_window;
mod timestamps;
mod tshark_diff;
mod tunnel_pfc;
mod tunnels;
mod ulp;
mod ulp_memory;
mod write;
