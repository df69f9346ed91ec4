"""``renolab check SCENARIO.toml``: validate a scenario without running it, nor any code it
names (a Python controller is not imported)."""

from __future__ import annotations

import argparse

from renolab._text import plural
from renolab.cli._common import EXIT_OK
from renolab.scenario import Scenario


def add_arguments(check: argparse.ArgumentParser) -> None:
    check.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")


def run(args: argparse.Namespace) -> int:
    from renolab.cc.load import names_python_code

    scenario = Scenario.from_toml(args.scenario)
    normalised = scenario.validate()  # never imports a Python controller: checking runs no code
    n_links, n_flows = len(normalised.get("link", [])), len(normalised.get("flow", []))
    n_media = len(normalised.get("medium", []))
    media = f", {n_media} {'medium' if n_media == 1 else 'media'}" if n_media else ""
    print(f"ok: {plural(n_links, 'link')}{media}, {plural(n_flows, 'flow')}")
    if names_python_code(scenario.to_dict()):
        print(
            "note: its Python controllers were not imported (checking runs no code); "
            "renolab run --allow-python imports and checks them"
        )
    return EXIT_OK
