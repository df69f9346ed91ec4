"""Parameter sweeps: paths, expansion, paired seeds, statistics, backends and resumption."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import tomli_w

import renolab
from renolab import ScenarioError, Sweep
from renolab.cli import main
from renolab.sweep import replication_seed, set_field, student_t_quantile, summarise

from conftest import small_scenario_dict



# -- scenarios ---------------------------------------------------------------------------


def lossy_small() -> dict:
    """The shared small scenario, 20 KB, 2 % random loss so that replications differ."""
    scenario = small_scenario_dict()
    scenario["flow"][0]["bytes"] = 20_000
    scenario["link"][1]["loss"] = {"kind": "uniform", "p": 0.02}
    return scenario


def three_links() -> dict:
    scenario = small_scenario_dict()
    scenario["link"][1]["to"] = "g2"
    scenario["link"].append({"from": "g2", "to": "r1", "rate": "10Mbps", "delay": "1ms"})
    return scenario


def small_sweep(**kwargs) -> Sweep:
    return Sweep(
        base=lossy_small(),
        grid={"link.bottleneck.rate": ["1Mbps", "2Mbps"], "flow.f1.variant": ["reno", "newreno"]},
        replications=3,
        **kwargs,
    )


def slow_sweep_file(tmp_path: Path) -> Path:
    """16 runs of about 0.1 s each (30 simulated seconds at 100 Mb/s): slow enough to interrupt."""
    base = small_scenario_dict()
    base["simulation"]["duration"] = "30s"
    del base["flow"][0]["bytes"]
    base["link"][0]["rate"] = "1Gbps"
    base["link"][1].update(rate="100Mbps", queue={"kind": "droptail", "limit": 100})
    base["link"][1]["loss"] = {"kind": "uniform", "p": 0.0005}
    (tmp_path / "base.toml").write_text(tomli_w.dumps(base), encoding="utf-8")
    sweep = {
        "sweep": {
            "base": "base.toml",
            "replications": 4,
            "grid": {"flow.f1.variant": ["reno", "newreno", "sack", "tahoe"]},
        }
    }
    path = tmp_path / "slow.toml"
    path.write_text(tomli_w.dumps(sweep), encoding="utf-8")
    return path


# -- paths ---------------------------------------------------------------------------------


def test_set_field_addresses_links_by_name_default_name_and_index():
    data = three_links()
    set_field(data, "link.bottleneck.rate", "5Mbps")
    set_field(data, "link.g2-r1.delay", "7ms")  # unnamed link: "<from>-<to>"
    set_field(data, "link[0].queue.limit", 3)  # no queue table yet: created
    set_field(data, "link.bottleneck.queue.limit", 20)  # existing table: only that key changes
    assert data["link"][1]["rate"] == "5Mbps"
    assert data["link"][2]["delay"] == "7ms"
    assert data["link"][0]["queue"] == {"limit": 3}
    assert data["link"][1]["queue"] == {"kind": "droptail", "limit": 20}


def test_set_field_addresses_flows_nested_options_and_simulation():
    data = small_scenario_dict()
    set_field(data, "flow.f1.variant", "sack")
    set_field(data, "flow.f1.options.min_rto", "200ms")
    set_field(data, "flow[0].receiver.delayed_ack", True)
    set_field(data, "simulation.profile", "ns2")
    set_field(data, "link.bottleneck.queue", {"kind": "red", "limit": 30})  # a whole table
    flow = data["flow"][0]
    assert (flow["variant"], flow["options"]["min_rto"], flow["receiver"]["delayed_ack"]) == ("sack", "200ms", True)
    assert flow["options"]["initial_window"] == 1
    assert data["simulation"] == {"seed": 1, "profile": "ns2"}
    assert data["link"][1]["queue"] == {"kind": "red", "limit": 30}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (
            "link.bottlenek.rate",
            'sweep.grid: link.bottlenek.rate: no link named "bottlenek"; links: access, bottleneck, g2-r1',
        ),
        ("flow.f2.variant", 'no flow named "f2"; flows: f1'),
        ("link.bottleneck", "names a whole link; add the field to set"),
        ("link[7].rate", "no link[7]: the scenario has 3 links"),
        ("flows.f1.variant", "unknown path"),
        ("flow.f1.options..min_rto", "empty key"),
        ("flow.f1.variant.name", "variant is a str, not a table"),
    ],
)
def test_set_field_errors_name_the_path_and_what_exists(path, expected):
    with pytest.raises(ScenarioError) as info:
        set_field(three_links(), path, 1, where="sweep.grid")
    assert expected in str(info.value)
    assert str(info.value).startswith("sweep.grid: ")


def test_links_generated_by_a_topology_table_can_be_addressed():
    base = {
        "topology": [
            {
                "kind": "dumbbell",
                "n": 2,
                "access": {"rate": "10Mbps", "delay": "1ms"},
                "bottleneck": {"rate": "1Mbps", "delay": "10ms"},
            }
        ],
        "flow": [{"name": "f1", "src": "s1", "dst": "d1", "bytes": 10_000}],
    }
    sweep = Sweep(base=base, grid={"link.bottleneck.rate": ["1Mbps", "3Mbps"]})
    rates = []
    for params in sweep.expand():
        links = renolab.Scenario.from_dict(sweep.point_scenario(params)).validate()["link"]
        rates.append(next(link["rate"] for link in links if link["name"] == "bottleneck"))
    assert rates == ["1Mbps", "3Mbps"]


# -- expansion -----------------------------------------------------------------------------


def test_grid_zip_and_points_expand_to_their_product_in_order():
    sweep = Sweep(
        base=small_scenario_dict(),
        points=[{"flow.f1.variant": "reno"}, {"flow.f1.variant": "sack", "flow.f1.options.initial_window": 2}],
        zip={"link.bottleneck.rate": ["1Mbps", "2Mbps"], "link.bottleneck.delay": ["10ms", "20ms"]},
        grid={"link.bottleneck.queue.limit": [5, 10]},
    )
    points = sweep.expand()
    assert len(points) == 2 * 2 * 2
    assert points[0] == {
        "flow.f1.variant": "reno",
        "link.bottleneck.rate": "1Mbps",
        "link.bottleneck.delay": "10ms",
        "link.bottleneck.queue.limit": 5,
    }
    assert [p["link.bottleneck.queue.limit"] for p in points[:2]] == [5, 10]  # grid innermost
    assert [p["link.bottleneck.rate"] for p in points[:4]] == ["1Mbps", "1Mbps", "2Mbps", "2Mbps"]
    assert points[-1]["flow.f1.options.initial_window"] == 2
    assert "flow.f1.options.initial_window" not in points[0]


def test_grid_is_a_cartesian_product_last_path_fastest_and_no_parameters_is_one_point():
    grid = Sweep(
        base=small_scenario_dict(), grid={"flow.f1.variant": ["reno", "sack"], "flow.f1.mss": [500, 1000, 1460]}
    )
    assert [(p["flow.f1.variant"], p["flow.f1.mss"]) for p in grid.expand()] == [
        ("reno", 500), ("reno", 1000), ("reno", 1460), ("sack", 500), ("sack", 1000), ("sack", 1460)
    ]
    assert Sweep(base=small_scenario_dict(), replications=4).expand() == [{}]
    assert len(Sweep(base=small_scenario_dict(), replications=4)) == 4


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"zip": {"flow.f1.mss": [1, 2], "flow.f1.variant": ["reno"]}},
            "sweep.zip: the lists must have the same length; flow.f1.mss has 2, flow.f1.variant has 1",
        ),
        ({"grid": {"flow.f1.mss": []}}, "sweep.grid: flow.f1.mss: the array of values is empty"),
        ({"grid": {"flow.f1.mss": 1000}}, "expected an array of values"),
        (
            {"grid": {"flow.f1.mss": [1000]}, "zip": {"flow.f1.mss": [500]}},
            "sweep.zip: flow.f1.mss is also varied in sweep.grid",
        ),
        (
            {"points": [{"flow.f1.variant": "sack"}, {"link.nope.rate": "1Mbps"}]},
            'sweep.point[1]: link.nope.rate: no link named "nope"',
        ),
        ({"replications": 0}, "sweep.replications"),
    ],
)
def test_bad_sweeps_raise_scenario_errors(kwargs, expected):
    with pytest.raises(ScenarioError) as info:
        Sweep(base=small_scenario_dict(), **kwargs)
    assert expected in str(info.value)


def test_an_invalid_point_is_reported_with_its_parameters_before_anything_runs(tmp_path):
    sweep = Sweep(base=small_scenario_dict(), grid={"link.bottleneck.rate": ["1Mbps", "fast"]})
    with pytest.raises(ScenarioError, match=r'sweep point 1 \(link.bottleneck.rate="fast"\): link\[1\].rate'):
        sweep.run(tmp_path / "out", workers=1)
    assert not (tmp_path / "out").exists()


def test_sweep_toml_with_base_file_relative_to_it_and_unquoted_dotted_keys(tmp_path):
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "base.toml").write_text(tomli_w.dumps(small_scenario_dict()), encoding="utf-8")
    text = """
[sweep]
base = "scenarios/base.toml"
replications = 2

[sweep.grid]
"link.bottleneck.rate" = ["1Mbps", "2Mbps"]
flow.f1.variant = ["reno", "sack"]

[[sweep.point]]
"flow.f1.options.min_rto" = "200ms"
"""
    (tmp_path / "sweep.toml").write_text(text, encoding="utf-8")
    sweep = Sweep.from_toml(tmp_path / "sweep.toml")
    assert sweep.replications == 2
    assert sweep.grid == {"link.bottleneck.rate": ["1Mbps", "2Mbps"], "flow.f1.variant": ["reno", "sack"]}
    assert len(sweep.expand()) == 4 and len(sweep.plan()) == 8


def test_sweep_toml_with_an_inline_base_and_errors(tmp_path):
    inline = {"sweep": {"replications": 1, "zip": {"flow.f1.mss": [500, 1000]}}, "base": small_scenario_dict()}
    assert len(Sweep.from_dict(inline).expand()) == 2
    with pytest.raises(ScenarioError, match=r"sweep.replicatons: unknown key; allowed: base, replications"):
        Sweep.from_dict({"sweep": {"replicatons": 3}, "base": small_scenario_dict()})
    with pytest.raises(ScenarioError, match=r"sweep.base: required"):
        Sweep.from_dict({"sweep": {"replications": 3}})
    bad = tmp_path / "bad.toml"
    bad.write_text("[sweep\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"bad.toml:1:\d+: invalid TOML"):
        Sweep.from_toml(bad)


# -- seeds and keys -------------------------------------------------------------------------


def test_seeds_are_paired_across_points_and_keys_unique():
    plan = small_sweep().plan()
    seeds: dict[int, set[int]] = {}
    for run in plan:
        seeds.setdefault(run.replication, set()).add(run.seed)
    assert all(len(s) == 1 for s in seeds.values()), seeds  # same seed at every point
    per_replication = [next(iter(seeds[r])) for r in range(3)]
    assert per_replication[0] == 1  # replication 0 keeps the base seed
    assert per_replication == [replication_seed(1, r) for r in range(3)]
    assert len(set(per_replication)) == 3 and all(0 <= s < 2**63 for s in per_replication)
    assert len({run.key for run in plan}) == len(plan)
    assert replication_seed(2, 1) != replication_seed(1, 1)
    assert [r.key for r in small_sweep().plan()] == [r.key for r in plan]  # stable


def test_the_key_hashes_the_normalised_scenario_so_equal_points_run_once(tmp_path):
    rates = ["1Mbps", "1000Kbps", "2Mbps"]  # the first two normalise to the same scenario
    sweep = Sweep(base=lossy_small(), points=[{"link.bottleneck.rate": r} for r in rates])
    keys = [run.key for run in sweep.plan()]
    assert keys[0] == keys[1] != keys[2]
    result = sweep.run(tmp_path / "out", workers=1, progress=False)
    assert (result.total, result.executed) == (3, 2)
    assert list(result.runs["link.bottleneck.rate"]) == rates
    assert result.runs["throughput_bps"][0] == result.runs["throughput_bps"][1]


# -- statistics -----------------------------------------------------------------------------


def test_student_t_quantiles_match_the_table():
    table = {1: 12.7062047, 2: 4.3026527, 3: 3.1824463, 5: 2.5705818, 10: 2.2281389, 30: 2.0422725, 100: 1.9839715}
    for df, expected in table.items():
        assert student_t_quantile(0.975, df) == pytest.approx(expected, rel=1e-7)
    assert student_t_quantile(0.995, 4) == pytest.approx(4.6040949, rel=1e-7)
    assert student_t_quantile(0.025, 3) == pytest.approx(-3.1824463, rel=1e-7)
    assert student_t_quantile(0.975, 10**7) == pytest.approx(1.9599642, rel=1e-7)


def test_summary_mean_std_and_confidence_interval_by_hand():
    runs = pd.DataFrame(
        {
            "point": [0, 0, 0, 0, 1, 1],
            "link.bottleneck.rate": ["1Mbps"] * 4 + ["2Mbps"] * 2,
            "replication": [0, 1, 2, 3, 0, 1],
            "seed": [1, 2, 3, 4, 1, 2],
            "flow": ["f1"] * 6,
            "throughput_bps": [1.0, 2.0, 3.0, 4.0, 10.0, 10.0],
            "completion_time_s": [1.0, np.nan, 3.0, np.nan, 5.0, np.nan],
            "key": list("abcdef"),
        }
    )
    summary = summarise(runs).set_index(["point", "metric"])
    row = summary.loc[(0, "throughput_bps")]
    std = math.sqrt(((1 - 2.5) ** 2 + (2 - 2.5) ** 2 + (3 - 2.5) ** 2 + (4 - 2.5) ** 2) / 3)
    half = 3.1824463 * std / math.sqrt(4)
    assert row["link.bottleneck.rate"] == "1Mbps" and row["flow"] == "f1" and row["n"] == 4
    assert row["mean"] == pytest.approx(2.5) and row["std"] == pytest.approx(std)
    assert row["ci95"] == pytest.approx(half, rel=1e-7)
    assert (row["ci95_low"], row["ci95_high"]) == (pytest.approx(2.5 - half), pytest.approx(2.5 + half))
    missing = summary.loc[(0, "completion_time_s")]  # NaN (unfinished) values are left out
    assert missing["n"] == 2 and missing["mean"] == pytest.approx(2.0)
    assert missing["ci95"] == pytest.approx(12.7062047 * math.sqrt(2) / math.sqrt(2), rel=1e-7)
    single = summary.loc[(1, "completion_time_s")]
    assert single["n"] == 1 and single["mean"] == 5.0 and math.isnan(single["std"]) and math.isnan(single["ci95"])
    assert summary.loc[(1, "throughput_bps")]["ci95"] == 0.0


# -- running --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The small sweep run in this process (workers=1)."""
    out = tmp_path_factory.mktemp("reference")
    return small_sweep().run(out, workers=1, progress=False)


def test_runs_and_summary_tables(reference):
    runs, summary = reference
    assert reference.total == len(runs) == 12 and reference.executed == 12
    assert list(runs.columns[:7]) == [
        "point", "link.bottleneck.rate", "link.bottleneck.rate_bps", "flow.f1.variant", "replication", "seed", "flow"
    ]
    assert list(runs["link.bottleneck.rate_bps"].unique()) == [1e6, 2e6]
    assert {"throughput_bps", "completion_time_s", "retransmits", "events", "key"} <= set(runs.columns)
    # The flow's bottleneck of the run and Jain's index over its flows, at the end.
    assert list(runs.columns[-4:]) == ["link_utilisation", "link_drops", "link_max_queue", "jain"]
    assert runs["link_utilisation"].between(0, 1).all() and (runs["link_max_queue"] > 0).all()
    assert (runs["jain"] == 1.0).all()  # one flow
    # Run facts are kept but not averaged.
    assert not set(summary["metric"]) & {"events", "sim_time_s", "first_send_s", "finish_s"}
    assert {"goodput_bps", "link_utilisation", "jain", "latency_p99_s"} <= set(summary["metric"])
    assert "link.bottleneck.rate_bps" in summary.columns
    assert list(runs["point"]) == [p for p in range(4) for _ in range(3)]
    assert list(runs["replication"]) == [0, 1, 2] * 4
    assert runs.groupby("point")["retransmits"].nunique().max() > 1  # the seeds matter
    assert pd.read_parquet(reference.out / "runs.parquet").equals(runs)
    assert pd.read_parquet(reference.out / "summary.parquet").equals(summary)
    tp = summary[(summary["point"] == 0) & (summary["metric"] == "throughput_bps")].iloc[0]
    values = runs.loc[runs["point"] == 0, "throughput_bps"]
    assert tp["n"] == 3 and tp["mean"] == pytest.approx(values.mean())
    assert tp["ci95"] == pytest.approx(4.3026527 * values.std() / math.sqrt(3), rel=1e-7)
    # Each run is stored under its key; the record has the parameters and flow rows.
    record = json.loads((reference.out / "runs" / f"{runs['key'][0]}.json").read_text())
    assert record["params"] == {"link.bottleneck.rate": "1Mbps", "flow.f1.variant": "reno"}
    assert record["seed"] == 1 and record["flows"][0]["flow"] == "f1"


def test_renolab_summary_prints_a_line_per_point_and_flow(reference, capsys):
    runs, summary = reference
    assert main(["summary", str(reference.out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "4 points, up to 3 runs each: mean ± half-width of the 95 % confidence interval (Student's t)"
    assert lines[1].split()[:5] == ["link.bottleneck.rate", "flow.f1.variant", "flow", "runs", "goodput"]
    assert "link.bottleneck.rate_bps" not in lines[1]  # the number behind "1Mbps" is not repeated
    assert len(lines) == 2 + 4
    first = lines[2].split()
    assert first[:4] == ["1Mbps", "reno", "f1", "3"]
    goodput = summary[(summary["point"] == 0) & (summary["metric"] == "goodput_bps")].iloc[0]
    assert first[4:7] == [f"{goodput['mean'] / 1e6:.4g}", "±", f"{goodput['ci95'] / 1e6:.2g}"]
    assert main(["summary", str(reference.out), "--metric", "retransmits,mean_rtt_s", "--flow", "f1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[-4:] == ["runs", "retransmits", "mean_rtt", "ms"]
    rtt = summary[(summary["point"] == 0) & (summary["metric"] == "mean_rtt_s")].iloc[0]
    assert f"{rtt['mean'] * 1e3:.4g} ± {rtt['ci95'] * 1e3:.2g}" in lines[2]
    assert main(["summary", str(reference.out), "--metric", "goodput"]) == 2
    assert "unknown metric 'goodput'; the summary has: bytes_delivered" in capsys.readouterr().err
    assert main(["summary", str(reference.out / "runs")]) == 2
    assert "not a sweep directory (no sweep.json)" in capsys.readouterr().err


def test_results_are_identical_with_two_workers_and_on_a_dask_cluster(reference, tmp_path):
    distributed = pytest.importorskip("distributed")
    two = small_sweep().run(tmp_path / "two", workers=2, progress=False)
    pd.testing.assert_frame_equal(two.runs, reference.runs)
    pd.testing.assert_frame_equal(two.summary, reference.summary)
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text(
        tomli_w.dumps({"sweep": {"replications": 3, "grid": small_sweep().grid}, "base": lossy_small()}),
        encoding="utf-8",
    )
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        on_dask = small_sweep().run(tmp_path / "dask", client=client, progress=False)
        # The command line connects to the scheduler by address.
        address = cluster.scheduler_address
        assert main(["sweep", str(sweep_file), "--out", str(tmp_path / "cli"), "--scheduler", address]) == 0
    assert on_dask.executed == 12 and on_dask.backend.startswith("Dask")
    for out in ("dask", "cli"):
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / out / "runs.parquet"), reference.runs)
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / out / "summary.parquet"), reference.summary)


def test_a_rerun_skips_finished_runs_and_reruns_missing_or_damaged_ones(reference, tmp_path):
    out = tmp_path / "out"
    first = small_sweep().run(out, workers=1, progress=False)
    again = small_sweep().run(out, workers=1, progress=False)
    assert (again.executed, again.skipped) == (0, 12)
    keys = list(first.runs["key"])
    (out / "runs" / f"{keys[0]}.json").unlink()
    (out / "runs" / f"{keys[1]}.json").write_text('{"key": "', encoding="utf-8")  # a torn write
    (out / "runs" / f".{keys[2]}.json.x.tmp").write_text("partial", encoding="utf-8")  # never read
    resumed = small_sweep().run(out, workers=1, progress=False)
    assert (resumed.executed, resumed.skipped) == (2, 10)
    pd.testing.assert_frame_equal(resumed.runs, reference.runs)
    # A bigger sweep in the same directory reuses the runs it shares with the old one.
    bigger = Sweep(
        base=lossy_small(),
        grid={"link.bottleneck.rate": ["1Mbps", "2Mbps", "4Mbps"], "flow.f1.variant": ["reno", "newreno"]},
        replications=3,
    ).run(out, workers=1, progress=False)
    assert (bigger.executed, bigger.skipped) == (6, 12)


def test_without_an_output_directory_results_are_returned(reference):
    sweep = Sweep(base=lossy_small(), grid={"flow.f1.variant": ["reno"]}, replications=3)
    result = sweep.run(workers=1, progress=False)
    assert result.out is None and len(result.runs) == 3
    expected = reference.runs[reference.runs["point"] == 0]
    expected = expected.drop(columns=["point", "link.bottleneck.rate", "link.bottleneck.rate_bps", "flow.f1.variant"])
    pd.testing.assert_frame_equal(
        result.runs.drop(columns=["point", "flow.f1.variant"]).reset_index(drop=True), expected.reset_index(drop=True)
    )


def test_cli_sweep_bad_input_is_one_line_with_exit_code_2(tmp_path, capsys):
    sweep = {"sweep": {"grid": {"link.bottlenek.rate": ["1Mbps"]}}, "base": three_links()}
    path = tmp_path / "bad.toml"
    path.write_text(tomli_w.dumps(sweep), encoding="utf-8")
    code = main(["sweep", str(path), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines() == [
        'renolab: error: sweep.grid: link.bottlenek.rate: no link named "bottlenek"; links: access, bottleneck, g2-r1'
    ]
    assert main(["sweep", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "out")]) == 2
    assert main(["sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "0"]) == 2


# -- interruption ---------------------------------------------------------------------------

CRASHING_SWEEP = """
import os, sys
import renolab.sweep.store
from renolab import Sweep

real_execute = renolab.sweep.store.execute

def crash_once(*args):
    marker = os.path.join(sys.argv[2], "crashed")
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(9)  # a worker killed in the middle of a run
    return real_execute(*args)

renolab.sweep.store.execute = crash_once  # inherited by the forked workers

if __name__ == "__main__":
    result = Sweep.from_toml(sys.argv[1]).run(sys.argv[2], workers=2)
    print(result.describe())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the crash is injected through fork")
def test_a_worker_process_that_dies_is_replaced_and_nothing_is_lost(reference, tmp_path):
    script = tmp_path / "crash.py"
    script.write_text(CRASHING_SWEEP, encoding="utf-8")
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text(
        tomli_w.dumps({"sweep": {"replications": 3, "grid": small_sweep().grid}, "base": lossy_small()}),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    env = dict(os.environ, RENOLAB_START_METHOD="fork")
    done = subprocess.run(
        [sys.executable, str(script), str(sweep_file), str(out)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert (out / "crashed").exists()
    assert "sweep: a worker process died; restarting the pool" in done.stderr
    assert "sweep: 12 runs (12 new, 0 already done)" in done.stdout
    pd.testing.assert_frame_equal(pd.read_parquet(out / "runs.parquet"), reference.runs)


def _start_sweep(sweep_file: Path, out: Path) -> subprocess.Popen:
    # The subprocess imports the installed renolab, like the test process itself.
    env = dict(os.environ)
    return subprocess.Popen(
        [sys.executable, "-m", "renolab", "sweep", str(sweep_file), "--out", str(out), "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group, like a terminal job
    )


def _wait_for_runs(process: subprocess.Popen, runs: Path, at_least: int, timeout: float = 60.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = len(list(runs.glob("*.json"))) if runs.exists() else 0
        if done >= at_least:
            return done
        assert process.poll() is None, process.communicate()
        time.sleep(0.01)
    raise AssertionError("the sweep did not start")


def _group_alive(pgid: int) -> list[int]:
    alive = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive.append(int(entry.name))
    return alive


@pytest.fixture(scope="module")
def slow_reference(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("slow")
    sweep_file = slow_sweep_file(tmp)
    return sweep_file, Sweep.from_toml(sweep_file).run(tmp / "reference", workers=1, progress=False)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc and process groups")
def test_a_sweep_killed_halfway_resumes_to_the_uninterrupted_result(slow_reference, tmp_path):
    sweep_file, reference = slow_reference
    out = tmp_path / "out"
    process = _start_sweep(sweep_file, out)
    try:
        done = _wait_for_runs(process, out / "runs", 3)
        os.kill(process.pid, signal.SIGKILL)  # the sweep process only: its workers notice
        process.communicate()
        assert done < reference.total
        deadline = time.monotonic() + 10
        while _group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _group_alive(process.pid) == [], "orphaned worker processes"
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert not (out / "runs.parquet").exists()
    kept = len(list((out / "runs").glob("*.json")))
    assert 3 <= kept < reference.total
    code = main(["sweep", str(sweep_file), "--out", str(out), "--workers", "2", "--no-progress"])
    assert code == 0
    pd.testing.assert_frame_equal(pd.read_parquet(out / "runs.parquet"), reference.runs)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "summary.parquet"), reference.summary)
    assert len(list((out / "runs").glob("*.json"))) == reference.total


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses process groups")
def test_ctrl_c_exits_130_without_a_traceback_and_keeps_finished_runs(slow_reference, tmp_path):
    sweep_file, reference = slow_reference
    out = tmp_path / "out"
    process = _start_sweep(sweep_file, out)
    try:
        _wait_for_runs(process, out / "runs", 2)
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        _, err = process.communicate(timeout=30)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert process.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("renolab: error: interrupted: ") and "run the same sweep again to resume" in last
    kept = len(list((out / "runs").glob("*.json")))
    assert 2 <= kept < reference.total
    assert not (out / "runs.parquet").exists()
    resumed = Sweep.from_toml(sweep_file).run(out, workers=2, progress=False)
    assert resumed.skipped >= kept and resumed.executed == reference.total - resumed.skipped
    pd.testing.assert_frame_equal(resumed.runs, reference.runs)


def test_local_workers_get_batches_in_order_and_a_failed_run_spares_its_batch(tmp_path):
    from renolab.pool import MAX_BATCH, call_each
    from renolab.pool import batches as _batches
    from renolab.sweep.store import run_job

    def _execute_batch(jobs):
        return [error for _value, error in call_each(run_job, jobs)]

    runs = list(range(40))
    batches = list(_batches(runs, 2))
    assert [r for b in batches for r in b] == runs
    assert len(batches) >= 8 and max(map(len, batches)) == 5
    assert max(map(len, _batches(list(range(10_000)), 2))) == MAX_BATCH
    assert list(_batches([0, 1, 2], 2)) == [[0], [1], [2]]

    good = small_scenario_dict()
    bad = small_scenario_dict()
    bad["flow"][0]["variant"] = "nope"
    args = [(s, str(tmp_path), key, 1, 0, {}) for s, key in ((good, "a"), (bad, "b"), (good, "c"))]
    first, second, third = _execute_batch(args)
    assert first is None and third is None
    assert isinstance(second, ScenarioError) and "variant" in str(second)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "c.json"]


def test_a_pool_whose_tasks_all_finish_in_one_wait_still_runs_every_run(reference, tmp_path, monkeypatch):
    # Short runs often finish together: the pool must be refilled before the loop decides
    # it is done (a sweep once stopped early there, with runs left unrun).
    import concurrent.futures as cf

    real_wait = cf.wait
    monkeypatch.setattr(cf, "wait", lambda fs, timeout=None, return_when=None: real_wait(fs, return_when=cf.ALL_COMPLETED))
    two = small_sweep().run(tmp_path / "two", workers=2, progress=False)
    assert two.executed == 12
    pd.testing.assert_frame_equal(two.runs, reference.runs)
