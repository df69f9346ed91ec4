"""The figures and the response-function table of docs/variants/cubic.md.

    python docs/variants/make_figures.py            # writes docs/variants/img/*.png
    python docs/variants/make_figures.py --table    # prints the table only

Every number comes from the renolab Python API; the runs take a few seconds.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

import renolab
from renolab.plot.figure import new_axes, save_figure

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parents[1] / "examples" / "cubic_vs_reno.toml"
IMG = HERE / "img"

#: RFC 9438's constants, as Linux keeps them (717/1024, 41 * 10/1024).
BETA, C = 717 / 1024, 410 / 1024
RTT = 0.1
MSS = 1460
COLOURS = {"cubic": "#d62728", "reno": "#1f77b4", "model": "#333333"}


def mean_cwnd(trace, flow: str, t0: float, t1: float) -> float:
    """The time-weighted mean of `flow`'s cwnd from t0 to t1."""
    rows = trace[trace["flow"] == flow]
    t = rows["time_s"].to_numpy()
    w = rows["cwnd"].to_numpy()
    edges = np.clip(np.append(t, t1), t0, t1)
    return float((w * np.diff(edges)).sum() / (t1 - t0))


# -- the response function -----------------------------------------------------------------


def rfc9438_average_window(p: float) -> tuple[float, float]:
    """RFC 9438 §5 (Eq. 5) and the Reno-friendly AIMD's average (§4.3, Eq. 3 with
    alpha = 3 (1 - beta) / (1 + beta)) under one loss every 1/p packets, RTT 0.1 s."""
    cubic = (0.4 * (3 + 0.7) / (4 * (1 - 0.7))) ** 0.25 * (RTT / p) ** 0.75
    reno_friendly = math.sqrt(3 / (2 * p))
    return cubic, reno_friendly


def periodic_loss_run(variant: str, every: int, duration_s: int = 400):
    """One flow on a 1 Gb/s path of 100 ms RTT that never queues, losing every
    `every`-th data packet (rfc profile: delayed ACKs, SACK recovery for CUBIC)."""
    return renolab.Scenario.from_dict(
        {
            "simulation": {"seed": 1, "duration": f"{duration_s}s"},
            "link": [
                {
                    "name": "path", "from": "s", "to": "r", "rate": "1Gbps", "delay": "50ms",
                    "queue": {"kind": "droptail", "limit": 100},
                    "loss": {"kind": "periodic", "every": every, "applies_to": "data"},
                }
            ],
            "flow": [{"name": "f", "variant": variant, "src": "s", "dst": "r"}],
        }
    ).run(trace="cwnd", trace_memory_limit=2**33)


LOSS_RATES = (1e-3, 7e-4, 5e-4, 3e-4, 2e-4, 1e-4)


def response_table() -> list[dict[str, float]]:
    rows = []
    for p in LOSS_RATES:
        every = round(1 / p)
        cubic_model, reno_friendly = rfc9438_average_window(p)
        row = {"p": p, "cubic_model": cubic_model, "reno_friendly": reno_friendly}
        for variant in ("cubic", "reno"):
            result = periodic_loss_run(variant, every)
            row[variant] = mean_cwnd(result.trace("cwnd"), "f", 100.0, 400.0)
        row["ratio"] = row["cubic"] / max(cubic_model, reno_friendly)
        rows.append(row)
    return rows


def print_table(rows) -> None:
    print("| p | RFC 9438 Eq. 5 (cubic) | Reno-friendly | max | renolab CUBIC | CUBIC / max | renolab Reno |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        model = max(r["cubic_model"], r["reno_friendly"])
        print(
            f"| {r['p']:.0e} | {r['cubic_model']:.1f} | {r['reno_friendly']:.1f} | {model:.1f} "
            f"| {r['cubic']:.1f} | {r['ratio']:.2f} | {r['reno']:.1f} |"
        )


def response_figure(rows) -> None:
    fig, ax = new_axes(6, 4)
    p = np.array([r["p"] for r in rows])
    grid = np.logspace(-4, -3, 50)
    cubic_model = np.array([max(rfc9438_average_window(x)) for x in grid])
    ax.plot(grid, cubic_model, color=COLOURS["model"], label="RFC 9438 §5: max(Eq. 5, Reno-friendly)")
    # Reno acknowledged every second segment grows half a segment per round trip:
    # AIMD(1/2, 1/2), whose average window is sqrt(3 / (4 p)) (RFC 9438 Eq. 3).
    ax.plot(grid, np.sqrt(0.75 / grid), color=COLOURS["reno"], ls=":", label="Reno, delayed ACKs: sqrt(3/(4p))")
    ax.plot(p, [r["cubic"] for r in rows], "o", color=COLOURS["cubic"], label="renolab CUBIC")
    ax.plot(p, [r["reno"] for r in rows], "s", color=COLOURS["reno"], label="renolab Reno")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("loss rate p (one loss every 1/p data packets)")
    ax.set_ylabel("average cwnd (segments)")
    ax.set_title("Response function, RTT 100 ms")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    save_figure(fig, IMG / "cubic_response.png", dpi=80)


# -- the curve -----------------------------------------------------------------------------


def curve_figure() -> None:
    """One CUBIC flow alone on the example's path: concave up to W_max, convex beyond."""
    scenario = renolab.Scenario.from_toml(EXAMPLE)
    data = scenario.to_dict()
    data["flow"] = [f for f in data["flow"] if f["name"] == "cubic"]
    data["simulation"]["duration"] = "70s"
    result = renolab.Scenario.from_dict(data).run(trace="cwnd")
    cw = result.trace("cwnd")
    t, w = cw["time_s"].to_numpy(), cw["cwnd"].to_numpy()
    # Reductions, and W_max after each as the kernel sets it (fast convergence included).
    cuts = np.flatnonzero(w[1:] < 0.8 * w[:-1]) + 1
    w_max, epochs = 0.0, []
    for i in cuts:
        before = w[i - 1]
        w_max = before * (1 + BETA) / 2 if before < w_max else before
        epochs.append((t[i], w_max, w[i]))
    # The longest epoch: concave up to W_max, the plateau, then convex up to the next loss.
    ends = [e[0] for e in epochs[1:]] + [t[-1]]
    (t0, w_max, start), t1 = max(zip(epochs, ends), key=lambda e: e[1] - e[0][0])
    k = ((w_max - start) / C) ** (1 / 3)
    span = np.linspace(t0, t1, 200)
    fig, ax = new_axes(7, 3.6)
    ax.plot(t, w, color=COLOURS["cubic"], lw=1, label="renolab CUBIC cwnd")
    ax.plot(span, C * (span - t0 - k) ** 3 + w_max, color=COLOURS["model"], ls="--", lw=1,
            label=r"$W(t) = C\,(t-K)^3 + W_{max}$")
    ax.axhline(w_max, color="#999999", lw=0.8, ls=":")
    ax.annotate(r"$W_{max}$", (t0 + 0.1, w_max), va="bottom", fontsize=9)
    ax.axvline(t0 + k, color="#999999", lw=0.8, ls=":")
    ax.annotate("K", (t0 + k, ax.get_ylim()[0]), ha="left", va="bottom", fontsize=9)
    ax.set_xlim(0, t[-1])
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_title("CUBIC alone, 100 Mb/s, 100 ms, buffer 1 BDP: concave, then convex")
    ax.legend(fontsize=8, loc="lower right")
    save_figure(fig, IMG / "cubic_curve.png", dpi=80)


def versus_figure() -> None:
    """examples/cubic_vs_reno.toml: windows and throughput of the two flows."""
    result = renolab.Scenario.from_toml(EXAMPLE).run(trace=["cwnd", "seq"])
    cw = result.trace("cwnd")
    fig, (top, bottom) = new_axes(7, 5, 2, 1, sharex=True)
    for flow in ("cubic", "reno"):
        rows = cw[cw["flow"] == flow]
        top.plot(rows["time_s"], rows["cwnd"], color=COLOURS[flow], lw=1, label=flow)
    top.set_ylabel("cwnd (segments)")
    top.set_title("CUBIC against Reno, 100 Mb/s, 100 ms, buffer 1 BDP")
    top.legend(fontsize=8)
    tp = result.throughput(bin_s=2.0)
    for flow in ("cubic", "reno"):
        rows = tp[tp["flow"] == flow]
        bottom.plot(rows["time_s"], rows["goodput_bps"] / 1e6, color=COLOURS[flow], lw=1)
    bottom.set_ylabel("goodput (Mb/s, 2 s bins)")
    bottom.set_xlabel("time (s)")
    save_figure(fig, IMG / "cubic_vs_reno.png", dpi=80)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", action="store_true", help="print the response-function table only")
    args = parser.parse_args()
    rows = response_table()
    print_table(rows)
    if args.table:
        return
    IMG.mkdir(exist_ok=True)
    response_figure(rows)
    curve_figure()
    versus_figure()
    print(f"wrote {', '.join(sorted(p.name for p in IMG.glob('cubic_*.png')))} to {IMG}")


if __name__ == "__main__":
    main()
