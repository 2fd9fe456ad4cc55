//! What every test binary needs to find the real captures: public captures made on real
//! hardware, which are not in the repository (they belong to their publishers; see
//! CONTRIBUTING.md, "Real captures", for where each comes from).
//!
//! A fresh clone has none of them, and its `cargo test` must still pass: a test that needs one
//! is skipped, with one line on stderr per test binary. CI keeps them required.

use std::path::PathBuf;
use std::sync::Once;

/// The folder of real captures: `$RDMADUMP_CAPTURES`, else `../shared/captures` beside the
/// repository. None when neither exists (said once on stderr), unless `CI` is set: then a
/// missing folder fails the test, as a missing tool does.
pub fn real_captures_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("RDMADUMP_CAPTURES") {
        let dir = PathBuf::from(dir);
        assert!(
            dir.is_dir(),
            "RDMADUMP_CAPTURES is {}, which is not a folder",
            dir.display()
        );
        return Some(dir);
    }
    let beside = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/captures");
    if beside.is_dir() {
        return Some(beside);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the real captures are missing (neither $RDMADUMP_CAPTURES nor ../shared/captures), \
         and CI must run the tests that read them; CONTRIBUTING.md says where they come from"
    );
    static NOTE: Once = Once::new();
    NOTE.call_once(|| {
        // Straight to the process's stderr: libtest captures eprintln! of passing tests.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"\n*** SKIPPED: the real captures (set RDMADUMP_CAPTURES, or put them in \
              ../shared/captures; CONTRIBUTING.md lists where each comes from) ***\n\n",
        );
    });
    None
}

/// The real capture `name`, or None when there are none (see `real_captures_dir`). A folder
/// that lacks `name` fails: CONTRIBUTING.md lists what it must hold.
pub fn real_capture(name: &str) -> Option<PathBuf> {
    let path = real_captures_dir()?.join(name);
    assert!(
        path.is_file(),
        "{} is missing: the real captures folder must hold every file CONTRIBUTING.md lists",
        path.display()
    );
    Some(path)
}
