//! The committed completions and man page must match the CLI definition. When they do not,
//! this test rewrites them and fails, so the fix is: run `cargo test` and commit.

use crate::harness::{rdmadump, root};

fn check(args: &[&str], path: &str, stale: &mut Vec<String>) {
    let out = rdmadump(args);
    assert!(out.status.success(), "rdmadump {args:?} failed");
    let file = root().join(path);
    let committed = std::fs::read(&file).unwrap_or_default();
    if committed != out.stdout {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, &out.stdout).unwrap();
        stale.push(path.to_string());
    }
}

#[test]
fn completions_and_man_page_are_current() {
    let mut stale = Vec::new();
    check(
        &["completions", "bash"],
        "completions/rdmadump.bash",
        &mut stale,
    );
    check(&["completions", "zsh"], "completions/_rdmadump", &mut stale);
    check(
        &["completions", "fish"],
        "completions/rdmadump.fish",
        &mut stale,
    );
    check(
        &["completions", "powershell"],
        "completions/_rdmadump.ps1",
        &mut stale,
    );
    check(&["man"], "man/rdmadump.1", &mut stale);
    check(&["fields", "--json"], "docs/fields.json", &mut stale);
    assert!(
        stale.is_empty(),
        "stale and now regenerated: {stale:?}; run cargo test and commit"
    );
}
