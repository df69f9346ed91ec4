"""CLI start-up time: wall time of short ``renolab`` commands and what ``import renolab`` loads.

    python benchmarks/cli_startup.py [--repeat 15]

Times, each in a fresh process (the median and the minimum wall time of --repeat runs,
after one warm-up run that fills the file cache, and the median CPU time, user + system,
which a busy machine disturbs less):

- ``python -c pass`` (the interpreter alone: the floor),
- ``python -c "import renolab"``,
- ``renolab --help``,
- ``renolab check examples/lee2001_w640.toml``,
- ``renolab run SMALL.toml --out DIR --format csv`` (no traces): one Reno flow sending
  100 kB over a 10 Mb/s, 20 ms dumbbell, a few hundred events,

then prints, for ``import renolab`` and for each command, whether pandas, pyarrow, numpy or
matplotlib were imported, and the slowest imports of ``python -X importtime -c "import
renolab"`` (cumulative milliseconds). Results are recorded in docs/benchmarks.md.

Measure an installed renolab (``pip install .``: the modules' bytecode is compiled) or an
editable one whose bytecode was written once; with ``PYTHONDONTWRITEBYTECODE`` set and no
``__pycache__``, every run compiles renolab's modules again.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("pandas", "pyarrow", "numpy", "matplotlib")

SMALL_SCENARIO = """\
[simulation]
seed = 1

[[link]]
name = "access"
from = "s1"
to = "g1"
rate = "100Mbps"
delay = "1ms"

[[link]]
name = "bottleneck"
from = "g1"
to = "r1"
rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = 50 }

[[flow]]
name = "f1"
variant = "reno"
src = "s1"
dst = "r1"
bytes = 100_000
"""

#: Run the CLI in-process after noting what it imported (``renolab ARGS`` minus the
#: console-script wrapper, which only calls ``renolab.cli:main``).
PROBE = """\
import sys
from renolab.cli import main
code = main(sys.argv[1:])
loaded = [m for m in {heavy!r} if m in sys.modules]
print("LOADED:" + ",".join(loaded), file=sys.stderr)
sys.exit(code)
"""


def _time(cmd: list[str], repeat: int) -> tuple[float, float, float]:
    """Median and minimum wall time, and median CPU time (user + system) of the child."""
    subprocess.run(cmd, capture_output=True, check=True)  # warm-up (file cache)
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), min(walls), statistics.median(cpus)


def _loaded(args: list[str]) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args], capture_output=True, text=True, check=True
    )
    line = next(l for l in proc.stderr.splitlines() if l.startswith("LOADED:"))
    return line[len("LOADED:") :] or "none"


def _importtime(top: int) -> list[tuple[int, str]]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import renolab"], capture_output=True, text=True, check=True
    )
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self, cumulative, name = line[len("import time:") :].split("|")
        rows.append((int(cumulative), name.rstrip()))
    total = next(c for c, n in rows if n.strip() == "renolab")
    print(f'python -X importtime -c "import renolab": renolab cumulative {total / 1000:.1f} ms')
    return sorted(rows, reverse=True)[:top]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--top", type=int, default=12, help="slowest imports to list")
    args = parser.parse_args()
    renolab = shutil.which("renolab")
    if renolab is None:
        raise SystemExit("no renolab command on PATH (pip install -e . first)")
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="renolab-startup-") as tmp:
        small = Path(tmp) / "small.toml"
        small.write_text(SMALL_SCENARIO, encoding="utf-8")
        check = str(REPO / "examples" / "lee2001_w640.toml")
        cases = {
            "python -c pass": ([sys.executable, "-c", "pass"], None),
            "import renolab": ([sys.executable, "-c", "import renolab"], None),
            "renolab --help": ([renolab, "--help"], ["--help"]),
            "renolab check examples/lee2001_w640.toml": ([renolab, "check", check], ["check", check]),
            "renolab run small.toml --format csv": (
                [renolab, "run", str(small), "--out", str(Path(tmp) / "out"), "--format", "csv"],
                ["run", str(small), "--out", str(Path(tmp) / "out2"), "--format", "csv"],
            ),
        }
        print(f"load average {os.getloadavg()[0]:.2f}")
        print(f"{'command':45} {'median':>8} {'min':>8} {'cpu':>8}  heavy modules imported")
        for label, (cmd, probe) in cases.items():
            median, best, cpu = _time(cmd, args.repeat)
            if label == "python -c pass":
                loaded = "-"
            elif probe is None:
                proc = subprocess.run(
                    [sys.executable, "-c", f"import sys, renolab; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"],
                    capture_output=True, text=True, check=True,
                )
                loaded = proc.stdout.strip() or "none"
            else:
                loaded = _loaded(probe)
            print(f"{label:45} {median:7.3f}s {best:7.3f}s {cpu:7.3f}s  {loaded}")
    for cumulative, name in _importtime(args.top):
        print(f"  {cumulative / 1000:8.1f} ms  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
