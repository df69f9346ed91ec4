"""The ``renolab`` command line: one module per command, listed in :data:`COMMANDS`.

``renolab run SCENARIO.toml --out DIR [--trace cwnd,seq,rtt,queue,drops,hops] [--format parquet|csv]
[--pcap] [--ns2-trace] [--seed N] [--check-invariants]`` simulates a scenario and writes
``flows.csv``, ``links.csv``, ``summary.json`` and one Parquet (or CSV) file per trace (see
docs/outputs.md); ``renolab check SCENARIO.toml`` only validates it.
``renolab plot DIR [--kind cwnd,seq,throughput,queue,summary] [--format png,svg]`` draws the
figures of a run directory (see :mod:`renolab.plot`).
``renolab sweep SWEEP.toml --out DIR [--workers N] [--scheduler ADDRESS | --dask]`` runs a
parameter sweep (see :mod:`renolab.sweep`).
``renolab export ns2 SCENARIO.toml [-o FILE.tcl]`` writes an equivalent ns-2.35 script and
``renolab validate SCENARIO.toml [--runs N]`` runs both simulators and compares them (exit 1
when a figure is outside its tolerance; see :mod:`renolab.ns2`).
``renolab bench`` measures renolab's speed and ``renolab reproduce STUDY`` reproduces a
published study.

Exit codes: 0 success, 1 the simulation failed, 2 bad input (invalid scenario,
unreadable file, bad option).  Errors are reported as a single line
``renolab: error: <message>`` on stderr.  The library raises exceptions; only this package
turns them into exit codes and messages (:mod:`renolab.cli.main`), and nothing outside it
imports it.

A command is a module ``renolab.cli.<name>`` with ``add_arguments(parser)`` and
``run(args) -> int`` (the exit code), registered in :data:`COMMANDS`.  Only the module of
the command being run is imported, so ``renolab --help`` and light commands start fast.
"""

from renolab.cli.main import COMMANDS, main

__all__ = ["COMMANDS", "main"]
