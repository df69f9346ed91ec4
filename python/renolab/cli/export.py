"""``renolab export ns2 SCENARIO.toml [-o FILE.tcl]``: an equivalent ns-2.35 script
(:func:`renolab.ns2.to_tcl`)."""

from __future__ import annotations

import argparse
import os

from renolab.cli._common import EXIT_OK
from renolab.ns2 import load, to_tcl


def add_arguments(export: argparse.ArgumentParser) -> None:
    targets = export.add_subparsers(dest="target", metavar="TARGET", required=True)
    p = targets.add_parser("ns2", help="a standalone ns-2.35 Tcl script equivalent to the scenario")
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    p.add_argument("-o", "--output", metavar="FILE.tcl", help="write the script here (default: standard output)")


def run(args: argparse.Namespace) -> int:
    scenario, _ = load(args.scenario)
    tcl = to_tcl(scenario, source=os.path.basename(args.scenario))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(tcl)
        print(f"wrote {args.output}; run it with: ns {args.output} [SEED]")
    else:
        print(tcl, end="")
    return EXIT_OK
