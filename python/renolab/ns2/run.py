"""Running an exported script with ns-2 and reading the per-flow table it prints."""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any

__all__ = [
    "COLUMNS",
    "INSTALL_HINT",
    "TABLE_MARKER",
    "Ns2Error",
    "Ns2NotFound",
    "Ns2Run",
    "find_ns",
    "parse_table",
    "run_ns2",
]

#: What to tell a user without ns-2.
INSTALL_HINT = "ns-2 is not installed (no `ns` on PATH); install it with `apt-get install ns2` (Debian/Ubuntu)"

#: The line after which an exported script prints its per-flow table.
TABLE_MARKER = "# renolab-ns2 flows"

#: Columns of that table.
COLUMNS = (
    "flow",
    "variant",
    "bytes_delivered",
    "completion_time_s",
    "retransmits",
    "timeouts",
    "drops",
    "data_drops",
    "ack_drops",
    "segments_sent",
    "segments_delivered",
    "first_send_s",
    "finish_s",
    "clock_phase_s",
)


class Ns2Error(Exception):
    """ns-2 could not run a script, or its output was not what an exported script prints."""


class Ns2NotFound(Ns2Error):
    """The ``ns`` command is not installed."""


@dataclass
class Ns2Run:
    """What one run of an exported script printed: one dict per flow, keys :data:`COLUMNS`
    (numbers as int or float; ``None`` where empty, e.g. the completion time of an
    unfinished flow)."""

    flows: list[dict[str, Any]]
    seed: int | None = None

    def flow(self, name: str) -> dict[str, Any]:
        return next(f for f in self.flows if f["flow"] == name)


def find_ns(ns: str = "ns") -> str:
    """The path of the ``ns`` command; raises :class:`Ns2NotFound` with how to install it."""
    path = shutil.which(ns)
    if path is None:
        raise Ns2NotFound(INSTALL_HINT)
    return path


def run_ns2(tcl: str, *, seed: int | None = None, ns: str = "ns", timeout: float | None = 600) -> Ns2Run:
    """Run an exported script (text from :func:`to_tcl`) with ns-2 and return its table.

    *seed* overrides the scenario's seed. Raises :class:`Ns2NotFound` without ns-2 and
    :class:`Ns2Error` if the run fails.
    """
    exe = find_ns(ns)
    with tempfile.TemporaryDirectory(prefix="renolab-ns2-") as tmp:
        script = os.path.join(tmp, "scenario.tcl")
        with open(script, "w", encoding="utf-8") as f:
            f.write(tcl)
        cmd = [exe, script] + ([] if seed is None else [str(seed)])
        env = dict(os.environ, TMPDIR=tmp)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Ns2Error(f"ns-2 did not finish within {timeout} s") from None
    if proc.returncode != 0 or TABLE_MARKER not in proc.stdout:
        detail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        raise Ns2Error(f"ns-2 failed (exit {proc.returncode}): {' / '.join(detail[-3:]) or 'no output'}")
    return Ns2Run(parse_table(proc.stdout), seed=seed)


_TIME_COLUMNS = ("completion_time_s", "first_send_s", "finish_s", "clock_phase_s")


def parse_table(stdout: str) -> list[dict[str, Any]]:
    """The per-flow rows an exported script printed after :data:`TABLE_MARKER`."""
    text = stdout.split(TABLE_MARKER, 1)[1].strip()
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        out: dict[str, Any] = {}
        for key in COLUMNS:
            value = row.get(key, "")
            if key in ("flow", "variant"):
                out[key] = value
            elif value == "":
                out[key] = None
            else:
                number = float(value)
                out[key] = number if key in _TIME_COLUMNS else int(number)
        rows.append(out)
    return rows
