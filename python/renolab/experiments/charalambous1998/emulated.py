"""charalambous1998 with real kernels (``renolab reproduce charalambous1998 --emulate``): the
grid, the kernel runs, the simulated and testbed columns, the claims, the figure and the
report, one function each. The testbed's Reno/NewReno/SACK grid run by the Linux
kernel's TCP over the emulated OC-3c path.

The testbed measured real operating-system stacks over a real 155 Mb/s ATM path; renolab's
study (:mod:`renolab.experiments.charalambous1998`) models that path and 1998 hosts in the
simulator. Here the same path (135.10 Mb/s of 9180-byte IP packets, the same bit-error
model) carries real kernel connections, so each cell has three figures side by side: the
kernel through renolab's link, renolab's simulated hosts, and the paper's testbed.

Linux has no Reno without NewReno's partial-ACK rule, so the grid is: the kernel's ``reno``
without SACK (scenario variant ``newreno``, the NewReno-equivalent), ``reno`` with SACK
(``sack``, the SACK-equivalent), and ``cubic`` (with SACK, the kernel's default). The
kernel runs with its own defaults (initial window 10, 200 ms minimum RTO, RACK, ...); only
the path, the MSS (9140 bytes: MTU 9180) and the 8 MiB receive window come from the study.

Tests are shorter than the study's 180 s (they run in real time): 10 s per cell with
``--quick``, 30 s otherwise; the simulated column is run at the same length, and the
study's own 180 s figures are in its main report.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from renolab.experiments.charalambous1998 import scenarios as study
from renolab.plot.figure import figure_legend, new_axes
from renolab.experiments.report import Report, paper_values
from renolab.experiments.runner import run_many
from renolab.scenario import Scenario

#: Kernel configurations: scenario variant -> (label, the study's variant it stands for).
KERNEL_VARIANTS: dict[str, tuple[str, str | None]] = {
    "newreno": ("Linux reno, no SACK (NewReno-equivalent)", "newreno"),
    "sack": ("Linux reno + SACK (SACK-equivalent)", "sack"),
    "cubic": ("Linux CUBIC + SACK", None),
}
QUICK_TEST_S = 10.0
FULL_TEST_S = 30.0


def kernel_scenario(variant: str, rtt_ms: float, ber: float, *, seed: int = 1, duration_s: float) -> Scenario:
    """The study's cell for the kernel: its path and bit errors, the MSS and the 8 MiB
    window; every other TCP setting is the kernel's own."""
    data = study.scenario("reno", rtt_ms, ber, seed=seed, duration_s=duration_s).to_dict()
    flow = data["flow"][0]
    flow["variant"] = variant
    flow["options"] = {"window": study.WINDOW_SEGMENTS}
    flow.pop("receiver", None)
    data["description"] = (
        f"charalambous1998 with the Linux kernel: {variant}, RTT {rtt_ms:g} ms, BER {ber:g}, {duration_s:g} s test"
    )
    return Scenario.from_dict(data)


def grid(quick: bool) -> list[tuple[str, float, float]]:
    """(variant, RTT ms, BER) cells: the study's RTTs and BERs (the satellite path and the
    cleanest BER left out of the quick grid)."""
    paper = paper_values(study.STUDY)["table1"]
    rtts = [float(r) for r in paper["rtt_ms"]]
    bers = [float(b) for b in paper["ber"]]
    if quick:
        rtts, bers = [r for r in rtts if 10 <= r <= 100], bers[:3]
    return [(v, r, b) for v in KERNEL_VARIANTS for r in rtts for b in bers]


def run_kernels(cells: list[tuple[str, float, float]], length: float) -> pd.DataFrame:
    """Each cell once with real kernels (one after another: real time); a row per cell with
    the kernel's throughput, losses, retransmissions, timeouts and the emulator's lateness."""
    from renolab.emulate import emulate

    rows: list[dict[str, Any]] = []
    for i, (variant, rtt, ber) in enumerate(cells):
        print(f"{study.STUDY} --emulate: cell {i + 1}/{len(cells)}: {variant}, RTT {rtt:g} ms, BER {ber:g}", flush=True)
        result = emulate(kernel_scenario(variant, rtt, ber, duration_s=length))
        f = result.flows.iloc[0]
        late = result.summary["emulation"]["lateness"]
        rows.append(
            {
                "variant": variant,
                "rtt_ms": rtt,
                "ber": ber,
                "kernel_mbps": float(f["bytes_delivered"]) * 8 / length / 1e6,
                "kernel_losses": int(f["data_drops"]),
                "kernel_retransmits": int(f["retransmits"]),
                "kernel_timeouts": f["timeouts"],
                "p99_lateness_us": late["p99_us"],
                "max_lateness_us": late["max_us"],
            }
        )
    return pd.DataFrame(rows)


def add_simulated_and_testbed(frame: pd.DataFrame, cells: list[tuple[str, float, float]], length: float, workers: int | None) -> None:
    """Add to *frame* renolab's model of the study's 1998 hosts on the same cells and test
    length (``renolab_mbps``), the paper's testbed (``testbed_mbps``) and the ratios."""
    t1 = paper_values(study.STUDY)["table1"]
    sims = [(v, r, b) for v, r, b in cells if KERNEL_VARIANTS[v][1] is not None]
    outputs = run_many(
        (study.scenario(KERNEL_VARIANTS[v][1], r, b, duration_s=length) for v, r, b in sims),
        workers=workers,
        desc=f"{study.STUDY} simulated",
    )
    simulated = {
        cell: o.flow("netspec")["bytes_delivered"] * 8 / length / 1e6 for cell, o in zip(sims, outputs)
    }
    rtts, bers = [float(r) for r in t1["rtt_ms"]], [float(b) for b in t1["ber"]]

    def testbed(variant: str, rtt: float, ber: float) -> float:
        name = KERNEL_VARIANTS[variant][1]
        if name is None or rtt not in rtts or ber not in bers:
            return math.nan
        return float(t1[name][rtts.index(rtt)][bers.index(ber)])

    frame["renolab_mbps"] = [simulated.get((r.variant, r.rtt_ms, r.ber), math.nan) for r in frame.itertuples()]
    frame["testbed_mbps"] = [testbed(r.variant, r.rtt_ms, r.ber) for r in frame.itertuples()]
    frame["kernel_over_renolab"] = frame["kernel_mbps"] / frame["renolab_mbps"]
    frame["kernel_over_testbed"] = frame["kernel_mbps"] / frame["testbed_mbps"]


def reproduce(
    out: Path,
    quick: bool = False,
    workers: int | None = None,
    *,
    cells: list[tuple[str, float, float]] | None = None,
    test_s: float | None = None,
) -> Path:
    """Run the grid with real kernels and write report.md into *out*; return its path.
    *cells* and *test_s* override the grid and the test length (for tests)."""
    from renolab.emulate import unsupported_reason

    reason = unsupported_reason()
    if reason:
        from renolab.emulate import EmulationError

        raise EmulationError(reason)
    started = time.perf_counter()
    out = Path(out)
    cells = cells if cells is not None else grid(quick)
    length = test_s if test_s is not None else (QUICK_TEST_S if quick else FULL_TEST_S)
    paper = paper_values(study.STUDY)
    frame = run_kernels(cells, length)
    add_simulated_and_testbed(frame, cells, length, workers)
    report = Report(
        f"{study.STUDY}-emulated",
        f"{study.TITLE}: real Linux kernels through renolab's links",
        paper["paper"]["citation"],
        out,
    )
    report.meta.update(
        {
            "mode": "quick" if quick else "full",
            "test length": f"{length:g} s (the study's is 180 s: real time is expensive)",
            "cells": len(cells),
        }
    )
    _claims(report, frame)
    _write(report, frame, cells, length, paper)
    report.meta["wall time"] = f"{time.perf_counter() - started:.1f} s"
    return report.write()


def _claims(report: Report, frame: pd.DataFrame) -> None:
    noisy = frame[frame["ber"] > 1e-10]
    falls = []
    for (variant, rtt), part in noisy.groupby(["variant", "rtt_ms"]):
        series = part.sort_values("ber")["kernel_mbps"].tolist()
        falls.append(all(a >= b * 0.9 for a, b in zip(series, series[1:])))
    report.claim(
        "As the BER increases throughput drops (§4) -- with real kernels through the emulated path.",
        f"the kernel's throughput does not rise with BER (10 % slack) in {sum(falls)}/{len(falls)} (variant, RTT) series",
        bool(falls) and all(falls),
    )
    worst = frame["p99_lateness_us"].max()
    report.claim(
        "(Emulator check, not the paper's) The emulated path delivers on schedule: p99 lateness under 200 us.",
        f"worst p99 lateness over the {len(frame)} runs: {worst:.0f} us (max {frame['max_lateness_us'].max():.0f} us)",
        bool(worst < 200),
    )


def _write(report: Report, frame: pd.DataFrame, cells: list[tuple[str, float, float]], length: float, paper: dict[str, Any]) -> None:
    report.heading("Setup")
    report.note(
        f"Each cell is one {length:g}-second bulk transfer by the Linux kernel "
        f"({_kernel_name()}) between two network namespaces, across renolab's model of the OC-3c path: "
        f"{study.LINK_BPS / 1e6:.2f} Mb/s of 9180-byte IP packets (MTU 9180, MSS 9140), the study's bit errors "
        "on the data direction, an 8 MiB receive window (TCP_WINDOW_CLAMP). Every other TCP setting is the "
        "kernel's default. The simulated column is renolab's model of the study's 1998 hosts (initial window 1, "
        f"500 ms timer tick, 1 s minimum RTO) for the same {length:g} s; the testbed column is the paper's "
        "Table 1 (its tests were longer, length not given). Short tests favour whoever leaves slow start first."
    )
    for variant, rtt, ber in cells:
        report.scenario(f"kernel-{variant}-rtt{rtt:g}ms-ber{ber:g}", kernel_scenario(variant, rtt, ber, duration_s=length))
    report.heading("Throughput: kernel, simulated, testbed")
    table = frame.copy()
    table["variant"] = [KERNEL_VARIANTS[v][0] for v in table["variant"]]
    names = dict(zip(paper["table1"]["ber"], paper["table1"]["ber_text"]))
    table["ber"] = [names.get(b, f"{b:g}") for b in table["ber"]]
    report.table(
        table.round(3),
        "Table E1",
        "Throughput (Mb/s) of each cell: the Linux kernel through renolab's emulated path, renolab's simulated "
        "1998 hosts (same test length) and the paper's testbed, with the kernel's losses, retransmissions, "
        "timeouts and the emulator's lateness",
    )
    report.figure(_figure(frame), "Fig. E1", "Throughput vs BER: kernel (filled), renolab simulated (hollow), testbed (x)")


def _kernel_name() -> str:
    try:
        return "Linux " + Path("/proc/sys/kernel/osrelease").read_text().strip()
    except OSError:
        return "Linux"


def _figure(frame: pd.DataFrame) -> Any:
    """Fig. E1: throughput against BER per RTT: the kernel, renolab's model, the testbed."""
    rtts = sorted(frame["rtt_ms"].unique())
    fig, axes = new_axes(4.2 * len(rtts), 4.0, 1, len(rtts), sharey=True)
    axes = np.atleast_1d(axes)
    colours = {"newreno": "#1f77b4", "sack": "#2ca02c", "cubic": "#9467bd"}
    for ax, rtt in zip(axes, rtts):
        for variant in KERNEL_VARIANTS:
            part = frame[(frame["rtt_ms"] == rtt) & (frame["variant"] == variant)].sort_values("ber")
            if part.empty:
                continue
            c = colours.get(variant, "k")
            ax.plot(part["ber"], part["kernel_mbps"], marker="o", color=c, label=KERNEL_VARIANTS[variant][0])
            ax.plot(part["ber"], part["renolab_mbps"], marker="o", mfc="none", ls=":", color=c)
            ax.plot(part["ber"], part["testbed_mbps"], marker="x", ls="none", color=c)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("bit error rate (errors per bit)")
        ax.set_title(f"RTT {rtt:g} ms")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("throughput (Mb/s)")
    figure_legend(fig)
    return fig
