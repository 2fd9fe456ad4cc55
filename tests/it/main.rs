//! Integration tests: they run the built `rdmadump` binary, as users do.

mod harness;

mod expected_fixtures;
mod real_capture;
mod scenarios;
