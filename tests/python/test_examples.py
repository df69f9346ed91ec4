"""The examples gallery: every file is listed with its purpose, every scenario runs and its
header claims only what its output shows, the Python example and the tour notebook execute."""

from __future__ import annotations

import copy
import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from renolab import Scenario
from renolab.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: Scenario files (a sweep file, with its [sweep] table, is not one).
SCENARIOS = sorted(p for p in EXAMPLES.glob("*.toml") if "\n[sweep]" not in "\n" + p.read_text(encoding="utf-8"))


def _listed() -> dict[str, str]:
    """File name -> purpose, from the table of examples/README.md."""
    rows = re.findall(r"^\| \[([^\]]+)\]\([^)]+\) \| ([^|]+) \|", (EXAMPLES / "README.md").read_text(encoding="utf-8"), re.M)
    return {name: purpose.strip() for name, purpose in rows}


def test_the_gallery_lists_every_example_with_its_purpose():
    listed = _listed()
    files = {p.name for p in EXAMPLES.iterdir() if p.suffix in (".toml", ".py", ".ipynb")} - {"sweep_dumbbell.toml"}
    assert set(listed) == files
    assert len(listed) >= 10
    assert all(len(purpose) > 20 for purpose in listed.values())


#: Traces the claims below read (recorded for every example: each runs once).
TRACES = ["queue", "drops", "seq"]


@functools.cache
def _run(name: str, change=None):
    """The example's result, with *change* (a function of its dict) applied first."""
    scenario = Scenario.from_toml(EXAMPLES / name)
    if change is not None:
        data = copy.deepcopy(scenario.to_dict())
        change(data)
        scenario = Scenario.from_dict(data)
    return scenario.run(trace=TRACES)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_every_example_scenario_runs_and_says_how_to_run_it(path, tmp_path, capsys):
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# ") and "renolab run examples/" + path.name in text.replace("\\\n", ""), path.name
    assert main(["check", str(path)]) == 0
    result = _run(path.name)
    assert result.flows["bytes_delivered"].min() > 0, path.name
    assert result.summary["wall_time_s"] < 5


def _flow(result, name):
    return result.flows.set_index("flow").loc[name]


def _link(result, name):
    return result.links.set_index("link").loc[name]


def _every(variant):
    def change(data):
        for flow in data["flow"]:
            flow["variant"] = variant
    return change


def _only(variant):
    def change(data):
        data["flow"] = [f for f in data["flow"] if f["variant"] == variant]
    return change


def _lee2001(name):
    from renolab.experiments import lee2001

    # The study's own point: the same scenario as `renolab reproduce lee2001` runs, with its
    # Table 1 numbers (validated against ns-2.35).
    assert Scenario.from_toml(EXAMPLES / name).validate() == lee2001.scenario(32, 320, "reno").validate()
    f = _flow(_run(name), "f1")
    assert round(f["completion_time_s"], 3) == 5.455 and round(f["mu"], 3) == 0.384
    assert (f["drops"], f["retransmits"], f["timeouts"], round(f["goodput_bps"] / 1e6, 1)) == (717, 1737, 1, 12.3)

    def newreno(data):
        data["flow"][0].update(variant="newreno")
        data["flow"][0]["options"]["ssthresh_estimation"] = True

    f = _flow(_run(name, newreno), "f1")
    assert (f["drops"], round(f["completion_time_s"], 3)) == (0, 2.986)
    f = _flow(_run(name, _every("sack")), "f1")
    assert (f["drops"], f["timeouts"], round(f["completion_time_s"], 3)) == (766, 0, 3.905)


def _dctcp_incast(name):
    result = _run(name)
    flows = result.flows.set_index("flow")
    assert (flows["drops"].sum(), flows["timeouts"].sum()) == (51, 21)
    late = flows.drop(index="f1")
    assert late["drops"].isin([3, 4]).all() and (late["timeouts"] >= 1).all()
    assert late["completion_time_s"].between(13.25e-3, 13.7e-3).all()
    f1 = flows.loc["f1"]
    assert (f1["drops"], f1["timeouts"], round(f1["completion_time_s"] * 1e3, 1)) == (0, 1, 2.0)
    queue = result.trace("queue")
    after = queue[(queue["link"].astype(str) == "bottleneck") & (queue["time_s"] > 3e-3)]
    assert after["packets"].max() < 75
    reno = _run(name, _every("reno")).flows
    assert (reno["drops"].sum(), reno["timeouts"].sum(), round(reno["completion_time_s"].max() * 1e3, 1)) == (58, 24, 23.9)


def _burst_losses(name):
    sack, reno = _flow(_run(name), "sack"), _flow(_run(name), "reno")
    assert reno["timeouts"] > 3 * sack["timeouts"] and sack["goodput_bps"] > reno["goodput_bps"]


def _cbr_vs_tcp(name):
    series = _run(name).throughput(1.0)
    tcp = series[series["flow"].astype(str) != "udp"]
    total = tcp.groupby("time_s")["goodput_bps"].sum()
    before, during, after = total[total.index < 10].mean(), total[(total.index >= 10) & (total.index < 25)].mean(), total[total.index >= 25].mean()
    assert (round(before / 1e6, 1), round(during / 1e6, 1)) == (9.5, 3.8)
    assert after > 2 * during


def _cubic_vs_reno(name):
    assert _flow(_run(name), "cubic")["goodput_bps"] > 2 * _flow(_run(name), "reno")["goodput_bps"]


def _dumbbell_codel(name):
    result = _run(name)
    assert result.fairness()["jain"].iloc[0] > 0.98
    assert _link(result, "bottleneck")["mean_queue_delay_s"] < 0.01


def _dumbbell_red(name):
    assert _link(_run(name), "bottleneck")["early_drops"] > 0


def _parking_lot(name):
    result = _run(name)
    assert _flow(result, "long")["goodput_bps"] < 10e6 / 3 / 5  # far less than a third
    drops = result.trace("drops")
    hops = set(drops.loc[drops["flow"].astype(str) == "long", "link"].astype(str))
    assert {"A1-A2", "A2-A3", "A3-A4"} <= hops  # a loss at every hop


def _satellite_ber(name):
    result = _run(name)
    link = _link(result, "satellite")
    assert link["overflow_drops"] > 0 and link["bit_error_drops"] > 0
    assert _flow(result, "sack")["goodput_bps"] > _flow(result, "reno")["goodput_bps"]


def _two_way(name):
    result = _run(name)
    assert _link(result, "middle")["utilisation"] > 0.5 and _link(result, "middle/rev")["utilisation"] > 0.5


def _vegas_vs_reno(name):
    vegas, reno = _flow(_run(name), "vegas"), _flow(_run(name), "reno")
    assert (round(vegas["goodput_bps"] / 1e6, 1), round(reno["goodput_bps"] / 1e6, 1)) == (0.6, 4.3)
    alone = _run(name, _only("vegas"))
    assert round(_flow(alone, "vegas")["goodput_bps"] / 1e6, 2) == 4.85
    assert round(_link(alone, "bottleneck")["mean_queue_packets"]) == 1


def _wlan_10_stations(name):
    # Not a claim of the header: the flows cross the medium, whose stations' queues the
    # queueing delay does not count, so it is empty rather than a misleading 0.
    flows = _run(name).flows
    assert flows["mean_queue_delay_s"].isna().all() and flows["mean_rtt_s"].notna().all()


def _random_starts(name):
    def reseed(data):
        data["simulation"]["seed"] = 2

    one, two = _run(name).flows, _run(name, reseed).flows
    assert list(one["completion_time_s"]) != list(two["completion_time_s"])


#: What each example's header says its run shows, checked on the run. Examples whose header
#: only describes the setup (no outcome) have no entry.
CLAIMS = {
    "lee2001_w640.toml": _lee2001,
    "dctcp_incast.toml": _dctcp_incast,
    "burst_losses.toml": _burst_losses,
    "cbr_vs_tcp.toml": _cbr_vs_tcp,
    "cubic_vs_reno.toml": _cubic_vs_reno,
    "dumbbell_codel.toml": _dumbbell_codel,
    "dumbbell_red.toml": _dumbbell_red,
    "parking_lot.toml": _parking_lot,
    "satellite_ber.toml": _satellite_ber,
    "two_way.toml": _two_way,
    "vegas_vs_reno.toml": _vegas_vs_reno,
    "random_starts.toml": _random_starts,
    "wlan_10_stations.toml": _wlan_10_stations,
}


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_each_examples_header_claims_what_its_run_shows(name):
    CLAIMS[name](name)


def test_the_sweep_example_runs(tmp_path):
    assert main(["sweep", str(EXAMPLES / "sweep_variants.toml"), "--out", str(tmp_path), "--workers", "2"]) == 0
    assert main(["plot", str(tmp_path)]) == 0


def test_the_python_example_runs(tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, str(EXAMPLES / "python_api.py"), str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert {"cwnd.png", "throughput.png", "queue.png", "flows.csv"} <= {p.name for p in tmp_path.iterdir()}


def test_the_tour_notebook_executes(tmp_path):
    import nbclient
    import nbformat

    notebook = nbformat.read(EXAMPLES / "tour.ipynb", as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), "commit it without outputs"
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    images = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 4
