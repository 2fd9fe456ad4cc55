"""Shared helpers: the command line is the reference for every test here."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


def cli_binary() -> str:
    """$RDMADUMP_BIN (the Rust test sets it), else a build in target/."""
    given = os.environ.get("RDMADUMP_BIN")
    if given:
        return given
    for profile in ("debug", "release"):
        path = ROOT / "target" / profile / "rdmadump"
        if path.exists():
            return str(path)
    found = shutil.which("rdmadump")
    if found:
        return found
    pytest.fail("no rdmadump binary: build it (cargo build) or set RDMADUMP_BIN")


def run_cli(*args: str, ok_codes=(0,)) -> str:
    done = subprocess.run(
        [cli_binary(), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode in ok_codes, done.stderr
    return done.stdout


def cli_json(*args: str):
    return json.loads(run_cli(*args))


def fixture(name: str) -> str:
    return str(FIXTURES / name)


# Every top-level capture fixture that reads to its end (huge_caplen.pcap is damaged on
# purpose: the error tests use it).
READABLE = sorted(
    p.name
    for p in FIXTURES.iterdir()
    if p.is_file()
    and p.suffix in (".pcap", ".pcapng", ".erf", ".gz", ".zst")
    and p.name != "huge_caplen.pcap"
)


def required(found: bool, what: str) -> None:
    """Skips the module when `what` is missing; under CI (which installs everything) the
    module fails instead, as the Rust tests do."""
    if found:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing, and CI must run these tests", pytrace=False)
    pytest.skip(f"{what} is not installed", allow_module_level=True)


def real_captures() -> list:
    """The real captures (never copied into the repository): $RDMADUMP_CAPTURES, else
    ../shared/captures beside the repository; none outside CI when neither exists."""
    given = os.environ.get("RDMADUMP_CAPTURES")
    folder = Path(given) if given else ROOT.parent / "shared" / "captures"
    if not folder.is_dir():
        assert not os.environ.get("CI"), f"the real captures are missing ({folder})"
        return []
    return sorted(str(p) for p in folder.iterdir() if ".pcap" in p.name)
