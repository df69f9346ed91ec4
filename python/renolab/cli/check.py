"""``renolab check SCENARIO.toml``: validate a scenario without running it, nor any code it
names (a Python controller is not imported)."""

from __future__ import annotations

import argparse

import math
from typing import Any

from renolab._text import human_bytes, plural
from renolab.cli._common import EXIT_OK
from renolab.scenario import Scenario
from renolab.units import parse_duration_s


def add_arguments(check: argparse.ArgumentParser) -> None:
    check.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")


def run(args: argparse.Namespace) -> int:
    from renolab.cc.load import names_python_code

    scenario = Scenario.from_toml(args.scenario)
    normalised = scenario.validate()  # never imports a Python controller: checking runs no code
    n_links, n_flows = len(normalised.get("link", [])), len(normalised.get("flow", []))
    n_media = len(normalised.get("medium", []))
    media = f", {n_media} {'medium' if n_media == 1 else 'media'}" if n_media else ""
    workloads = normalised.get("workload", [])
    created = f", {plural(len(workloads), 'workload')}" if workloads else ""
    print(f"ok: {plural(n_links, 'link')}{media}, {plural(n_flows, 'flow')}{created}")
    duration = normalised["simulation"].get("duration")
    for w in workloads:
        print(workload_line(w, duration))
    if names_python_code(scenario.to_dict()):
        print(
            "note: its Python controllers were not imported (checking runs no code); "
            "renolab run --allow-python imports and checks them"
        )
    return EXIT_OK


def workload_line(w: dict[str, Any], duration: str | None) -> str:
    """What resolved workload *w* will create, without running it: ``workload web: poisson
    at load 0.5 of link neck (3.75 flows/s), websearch sizes (mean 1.6 MiB), cubic, 0s to
    10s: about 38 flows``."""
    offered = f"load {w['load']:g} of link {w['link']} ({w['rate']:.3g} flows/s)" if "load" in w else f"{w['rate']:.3g} flows/s"
    sizes = w["sizes"]
    if isinstance(sizes, dict):
        kind, value = next(iter(sizes.items()))
        sizes = f"{kind} {value}" if kind == "cdf" else kind
    start = parse_duration_s(w["start"])
    end = min(parse_duration_s(x) for x in (w.get("stop"), duration) if x is not None) if (w.get("stop") or duration) else math.inf
    expected = w["rate"] * max(end - start, 0.0)
    until = w.get("stop") or duration
    window = f"{w['start']} to {until}" if until else f"from {w['start']}"
    if "max_flows" in w:
        count = f"up to {w['max_flows']} flows" if expected > w["max_flows"] else f"about {expected:.0f} flows (max_flows {w['max_flows']})"
    else:
        count = f"about {expected:.0f} flows"
    return (
        f"workload {w['name']}: {w['arrivals']} at {offered}, {sizes} sizes (mean "
        f"{human_bytes(w['mean_size_bytes'])}), {w['variant']}, {window}: {count}"
    )
