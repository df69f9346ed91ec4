"""``renolab check SCENARIO.toml``: validate a scenario without running it."""

from __future__ import annotations

import argparse

from renolab._text import plural
from renolab.cli._common import EXIT_OK
from renolab.scenario import Scenario


def add_arguments(check: argparse.ArgumentParser) -> None:
    check.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")


def run(args: argparse.Namespace) -> int:
    normalised = Scenario.from_toml(args.scenario).validate()
    n_links, n_flows = len(normalised.get("link", [])), len(normalised.get("flow", []))
    n_media = len(normalised.get("medium", []))
    media = f", {n_media} {'medium' if n_media == 1 else 'media'}" if n_media else ""
    print(f"ok: {plural(n_links, 'link')}{media}, {plural(n_flows, 'flow')}")
    return EXIT_OK
