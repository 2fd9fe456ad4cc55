//! The Python package (python/): built into a virtual environment of its own under
//! target/, then its pytest suite, which compares it with this binary's output.

use std::path::Path;
use std::process::Command;

use crate::harness::{python_module_available, required, root};

/// Runs `program args` in the repository, failing with its output if it fails.
fn run(program: &Path, args: &[&str], envs: &[(&str, &Path)]) {
    let out = Command::new(program)
        .args(args)
        .current_dir(root())
        .envs(envs.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {}:\n{}\n{}",
        program.display(),
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_python_package_passes_its_tests() {
    let tools = [
        "venv", "pip", "maturin", "pyarrow", "pytest", "pandas", "duckdb",
    ];
    let found = tools.iter().all(|m| python_module_available(m));
    if !required(
        found,
        "python3 with maturin, pyarrow, pytest, pandas and duckdb",
        "pip install maturin pyarrow pytest pandas duckdb",
    ) {
        return;
    }
    // The build of the extension goes to a target directory of its own: arrow built with
    // its C interface would otherwise rebuild the crate's own dependencies each time.
    let target = root().join("target").join("python");
    let venv = target.join("venv");
    let python = venv.join("bin").join("python");
    if !python.exists() {
        // Beside the packages the system has (pip, pyarrow, pytest...): nothing to
        // download, and no ensurepip (Debian's python3-venv) needed.
        let venv = venv.to_str().unwrap();
        let args = [
            "-m",
            "venv",
            "--without-pip",
            "--system-site-packages",
            venv,
        ];
        run(Path::new("python3"), &args, &[]);
    }
    // A debug build: a release one takes several times as long, and the suite is small.
    run(
        &python,
        &[
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-build-isolation",
            "--force-reinstall",
            "--no-deps",
            "./python",
        ],
        &[
            ("CARGO_TARGET_DIR", &target.join("cargo")),
            ("MATURIN_PEP517_ARGS", Path::new("--profile dev")),
        ],
    );
    run(
        &python,
        &[
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "python/tests",
        ],
        &[("RDMADUMP_BIN", Path::new(env!("CARGO_BIN_EXE_rdmadump")))],
    );
}
