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
    #[cfg(feature = "export")]
    check(&["export", "--schema"], "docs/export-schema.md", &mut stale);
    assert!(
        stale.is_empty(),
        "stale and now regenerated: {stale:?}; run cargo test and commit"
    );
}

/// The man page says what the tool does, not only what clap knows: the real usage, the
/// filter's grammar and every field, the exit status, and no page that is not installed.
#[test]
fn man_page_is_complete_and_self_contained() {
    let out = rdmadump(&["man"]);
    assert!(out.status.success());
    let man = String::from_utf8(out.stdout).expect("utf-8");
    for section in [
        ".SH SYNOPSIS",
        ".SH FILTER",
        ".SS FIELDS",
        ".SH \"FIELD OUTPUT\"",
        ".SH \"EXIT STATUS\"",
    ] {
        assert!(
            man.lines()
                .any(|l| l == section || l == section.replace('"', "")),
            "no {section}"
        );
    }
    for usage in ["read", "analyze"] {
        let line = format!("\\fBrdmadump {usage}\\fR [OPTIONS] [FILE]...");
        assert!(man.contains(&line), "no `{line}`");
    }
    for field in rdmadump::fields::all() {
        let listed = format!("\\fB{}\\fR (", field.name.replace('-', "\\-"));
        assert!(man.contains(&listed), "field {} is not listed", field.name);
    }
    for missing_page in ["(1)", "(5)", "docs/", ".md"] {
        assert!(!man.contains(missing_page), "refers to {missing_page}");
    }
}
