"""benchmarks/linux_validation.py --kernel-from: renolab's side rerun against a stored table."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "linux_validation.py"


def load():
    spec = importlib.util.spec_from_file_location("linux_validation", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["linux_validation"] = module
    spec.loader.exec_module(module)
    return module


STORED = """### reno

| path | buffer | metric | Linux | renolab | diff |
|---|---|---|---|---|---|
| 10 Mb/s, 20 ms | 0.5 BDP | 1 MB completion (s) | 1.000 | 0.9 | -10.0 % |
| 10 Mb/s, 20 ms | 0.5 BDP | 10 MB completion (s) | 9.000 | 8.0 | -11.1 % |
| 10 Mb/s, 20 ms | 0.5 BDP | 10 MB retransmissions | 42.0 | 40.0 | -4.8 % |
| 10 Mb/s, 20 ms | 0.5 BDP | long-flow goodput (Mb/s) | 9.000 | 9.5 | +5.6 % |
| 10 Mb/s, 20 ms | 0.5 BDP | mean one-way delay (ms) | 15.00 | 15.0 | +0.0 % |
| 10 Mb/s, 20 ms | 0.5 BDP | mean bottleneck queue (packets) | 4.00 | 4.0 | +0.0 % |
| 10 Mb/s, 20 ms | 0.5 BDP | two flows: first flow's share (%) | 55.0 | 50.0 | -5.0 points |
"""


def test_the_linux_column_comes_from_the_stored_table(tmp_path, capsys):
    lv = load()
    table = tmp_path / "kernel.md"
    table.write_text(STORED, encoding="utf-8")
    assert lv.read_table(str(table))[("reno", "10 Mb/s, 20 ms | 0.5 BDP", "10 MB retransmissions")] == 42.0
    # No root, no kernel: renolab's side only.
    rc = lv.main(["--kernel-from", str(table), "--variants", "reno", "--paths", "1", "--runs", "1", "--long", "3"])
    assert rc == 0
    out = capsys.readouterr().out
    rows = {line.split("|")[3].strip(): line for line in out.splitlines() if line.startswith("| 10 Mb/s")}
    assert set(rows) == {
        "1 MB completion (s)", "10 MB completion (s)", "10 MB retransmissions", "long-flow goodput (Mb/s)",
        "mean one-way delay (ms)", "mean bottleneck queue (packets)", "two flows: first flow's share (%)",
    }
    # Linux figures are the stored ones; renolab's are its own (the stored renolab column is ignored).
    assert rows["10 MB retransmissions"].split("|")[4].strip() == "42.0"
    assert rows["two flows: first flow's share (%)"].split("|")[4].strip() == "55.0"
    assert rows["1 MB completion (s)"].split("|")[4].strip() == "1.000"
    assert rows["1 MB completion (s)"].split("|")[5].strip() != "0.9"
