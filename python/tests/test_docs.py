"""docs/python.md's examples run, on a fixture in place of cap.pcap."""

import re

from conftest import ROOT, fixture

BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "python.md").read_text(), re.S)


def test_the_recipes_run_one_after_the_other(tmp_path, monkeypatch):
    # In one namespace, as in a notebook: a later block uses what an earlier imported.
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for block in BLOCKS:
        code = block.replace('"cap.pcap"', repr(fixture("roce_v2_crc_cases.pcap")))
        exec(compile(code, "docs/python.md", "exec"), namespace)
    assert (tmp_path / "report.html").exists()
    assert len(BLOCKS) >= 4
