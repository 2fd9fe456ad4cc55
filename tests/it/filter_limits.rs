//! `-Y` filters nested or chained far past what anyone writes: a clear error or a result,
//! never a crash.

use crate::harness::{fixture, rdmadump, stderr, stdout};

fn capture() -> String {
    fixture("roce_v2_opcodes.pcap")
        .to_string_lossy()
        .into_owned()
}

/// Runs `read -Y filter` and checks that it was refused as filters are: status 2, one
/// error naming the column, and no sign of a crash.
fn refused(filter: &str) -> String {
    let out = rdmadump(&["read", "-Y", filter, &capture()]);
    let err = stderr(&out);
    let head: String = err.chars().take(300).collect();
    assert_eq!(out.status.code(), Some(2), "{head}");
    assert!(out.stdout.is_empty(), "nothing is read: {}", stdout(&out));
    for crash in [
        "overflow",
        "panicked",
        "RUST_BACKTRACE",
        "fatal runtime error",
    ] {
        assert!(!err.contains(crash), "{head}");
    }
    // The error quotes the text around the column, not all 20,000 characters of it.
    assert_eq!(err.lines().count(), 3, "{head}");
    assert!(err.len() < 400, "{head}");
    err
}

#[test]
fn twenty_thousand_parentheses_are_refused_at_the_limit() {
    let err = refused(&"(".repeat(20_000));
    assert!(
        err.starts_with(
            "rdmadump: filter error at column 257: filter nests deeper than 256 levels\n"
        ),
        "{}",
        &err[..err.len().min(300)]
    );
}

#[test]
fn twenty_thousand_negations_are_refused_at_the_limit() {
    let err = refused(&format!("{}bth.psn", "!".repeat(20_000)));
    assert!(
        err.starts_with(
            "rdmadump: filter error at column 257: filter nests deeper than 256 levels\n"
        ),
        "{}",
        &err[..err.len().min(300)]
    );
}

#[test]
fn the_limit_itself_is_accepted() {
    let capture = capture();
    let plain = rdmadump(&["read", "-Y", "bth.psn >= 0", &capture]);
    assert!(plain.status.success(), "{}", stderr(&plain));
    let deep = format!("{}bth.psn >= 0{}", "(".repeat(128), ")".repeat(128));
    let deep = format!("{}{deep}", "!!".repeat(64));
    let out = rdmadump(&["read", "-Y", &deep, &capture]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, plain.stdout);
}

/// Linux caps one argument at 128 KiB, so this is as long a chain as `-Y` can take; the
/// unit tests in src/filter take one of 100,000 clauses.
#[test]
fn the_longest_chain_an_argument_holds_is_evaluated() {
    let capture = capture();
    let plain = rdmadump(&["read", "-Y", "bth", &capture]);
    let chain = vec!["bth"; 25_000].join("&&");
    let out = rdmadump(&["read", "-Y", &chain, &capture]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!out.stdout.is_empty());
    assert_eq!(out.stdout, plain.stdout);
}
