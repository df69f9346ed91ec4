"""Workloads from Python: flows created as the run goes, their completion-time columns,
renolab.metrics.fct_summary, the fct figure, size CDF files found beside the scenario."""

from __future__ import annotations

import math
import struct

import numpy as np
import pandas as pd
import pytest

import renolab
from renolab import Scenario, ScenarioError
from renolab.cli import main
from renolab.metrics import FCT_SUMMARY_COLUMNS, fct_summary, size_buckets

DUMBBELL = """
[simulation]
seed = 3

[[topology]]
kind = "dumbbell"
n = 2
access = { rate = "1Gbps", delay = "0.5ms" }
bottleneck = { rate = "20Mbps", delay = "5ms", queue = { kind = "fq_codel" } }
"""


def workload(body: str) -> Scenario:
    return Scenario.from_toml_str(DUMBBELL + "\n[[workload]]\n" + body)


def test_a_workload_creates_its_flows_with_completion_times():
    result = workload("""
name = "w"
rate = 40
sizes = { pareto = { mean = "30KB", shape = 1.5 } }
pairs = { from = ["s1", "s2"], to = ["d1", "d2"] }
max_flows = 60
""").run()
    flows = result.flows
    assert list(flows["flow"]) == [f"w-{n}" for n in range(60)]
    assert list(flows.columns[-4:]) == ["size_bytes", "fct_s", "ideal_fct_s", "slowdown"]
    assert (flows["bytes_delivered"] == flows["size_bytes"]).all()
    assert np.allclose(flows["slowdown"], flows["fct_s"] / flows["ideal_fct_s"])
    assert (flows["slowdown"] >= 1).all()
    assert result.summary["stop_reason"] == "all_flows_finished"
    assert result.summary["peak_flows"] < 60


def test_fct_summary_is_the_table_by_size():
    flows = pd.DataFrame({
        "flow": ["a", "b", "c", "d", "e"],
        "size_bytes": [1e3, 50e3, 2e6, 20e6, None],
        "fct_s": [0.01, 0.02, 0.5, None, None],
        "slowdown": [1.0, 2.0, 3.0, None, None],
    })
    table = fct_summary(flows)
    assert list(table.columns) == FCT_SUMMARY_COLUMNS
    assert list(table["bucket"]) == ["<=100KB", "100KB-10MB", ">10MB", "all"]
    assert list(table["flows"]) == [2, 1, 1, 4]
    assert list(table["finished"]) == [2, 1, 0, 3]
    assert table.loc[0, "mean_slowdown"] == 1.5 and table.loc[0, "median_slowdown"] == 1.5
    assert math.isclose(table.loc[0, "p99_slowdown"], 1.99)
    assert math.isnan(table.loc[2, "mean_fct_s"])
    assert table.loc[3, "mean_slowdown"] == 2.0
    custom = fct_summary(flows, buckets=[0, 10e3, float("inf")])
    assert list(custom["bucket"]) == ["<=10KB", ">10KB", "all"]
    assert list(size_buckets([5e3, 10e3, 11e3], [0, 10e3, 1e9]).astype(str)) == ["<=10KB", "<=10KB", "10KB-1GB"]
    with pytest.raises(ValueError, match="buckets"):
        fct_summary(flows, buckets=[10, 5])
    with pytest.raises(ValueError, match="size_bytes"):
        fct_summary(pd.DataFrame({"flow": ["a"]}))


def test_a_cdf_file_is_found_beside_the_scenario_and_a_bad_one_named(tmp_path):
    (tmp_path / "sizes.csv").write_text("size_bytes,cdf\n1000,0.5\n100000,1\n")
    path = tmp_path / "w.toml"
    path.write_text(DUMBBELL + """
[[workload]]
name = "w"
rate = 20
sizes = { cdf = "sizes.csv" }
pairs = [["s1", "d1"]]
max_flows = 10
""")
    result = Scenario.from_toml(path).run()
    assert result.flows["size_bytes"].between(1000, 100000).all()
    (tmp_path / "sizes.csv").write_text("size_bytes,cdf\n1000,0.5\n500,1\n")
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml(path).validate()
    message = str(e.value)
    assert message.startswith("workload[0].sizes.cdf: ") and "sizes.csv: line 3: " in message


def test_the_fct_figure_and_renolab_plot(tmp_path):
    out = tmp_path / "run"
    path = tmp_path / "w.toml"
    path.write_text(DUMBBELL + """
[[workload]]
name = "web"
load = 0.4
sizes = "websearch"
pairs = { from = ["s1", "s2"], to = ["d1", "d2"] }
max_flows = 30
""")
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    result = renolab.Result.load(out)
    from renolab import plot

    assert "fct" in plot.available_kinds(result)
    fig = result.plot.fct()
    assert len(fig.axes) == 2
    assert main(["plot", str(out), "--kind", "fct"]) == 0
    assert (out / "plots" / "fct.png").read_bytes()[:4] == b"\x89PNG"


def test_renolab_check_says_what_the_workloads_will_create(tmp_path, capsys):
    path = tmp_path / "w.toml"
    path.write_text(DUMBBELL.replace("seed = 3", 'seed = 3\nduration = "10s"') + """
[[workload]]
name = "web"
load = 0.5
sizes = "websearch"
pairs = [["s1", "d1"]]
stop = "8s"

[[workload]]
name = "few"
rate = 100
sizes = { fixed = "100KB" }
pairs = [["s2", "d2"]]
max_flows = 30
""", encoding="utf-8")
    assert main(["check", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "ok: 5 links, 0 flows, 2 workloads"
    # 0.5 x 20 Mb/s / (8 x 1,665,831 bytes): 0.75 flows a second for 8 s.
    assert lines[1] == ("workload web: poisson at load 0.5 of link bottleneck (0.75 flows/s), websearch sizes "
                        "(mean 1.6 MiB), reno, 0s to 8s: about 6 flows")
    assert lines[2] == "workload few: poisson at 100 flows/s, fixed sizes (mean 97.7 KiB), reno, 0s to 10s: up to 30 flows"


def test_what_workloads_cannot_do_yet_is_refused_clearly():
    with pytest.raises(ScenarioError, match="Python controller"):
        workload("""
name = "w"
rate = 5
variant = "python:ctl.py:Aimd"
sizes = { fixed = "10KB" }
pairs = [["s1", "d1"]]
max_flows = 2
""").validate()


def pcap_tcp(path) -> list[tuple[int, int, int, int]]:
    """(source port, flags, sequence number, payload bytes) of every TCP segment in the
    pcap file at *path* (classic format, raw IPv4)."""
    data = path.read_bytes()
    out, at = [], 24
    while at < len(data):
        length = struct.unpack_from("<I", data, at + 8)[0]
        ip = data[at + 16 : at + 16 + length]
        at += 16 + length
        header, total = (ip[0] & 15) * 4, struct.unpack_from(">H", ip, 2)[0]
        if ip[9] != 6:
            continue
        tcp = ip[header:]
        port, _, seq = struct.unpack_from(">HHI", tcp)
        out.append((port, tcp[13], seq, total - header - (tcp[12] >> 4) * 4))
    return out


def test_a_capture_has_every_flow_of_a_workload_whole(tmp_path):
    result = workload("""
name = "w"
rate = 30
sizes = { pareto = { mean = "20KB", shape = 1.5 } }
pairs = { from = ["s1", "s2"], to = ["d1", "d2"] }
profile = "linux"
max_flows = 25
""").run(pcap_dir=tmp_path / "pcap")
    segments = pcap_tcp(tmp_path / "pcap" / "bottleneck.pcap")
    isn = {port: seq for port, flags, seq, _ in segments if flags & 0x12 == 0x02}  # SYN
    # Flow n sends from port 10000 + n (docs/outputs.md); every byte of it crosses.
    assert sorted(isn) == [10_000 + n for n in range(25)]
    sent = {}
    for port, _, seq, payload in segments:
        if payload and port in isn:
            sent[port] = max(sent.get(port, 0), (seq - isn[port] - 1) % 2**32 + payload)
    assert [sent[10_000 + n] for n in range(25)] == list(result.flows["size_bytes"])


@pytest.mark.parametrize("load", [0.3, 0.7])
def test_large_flows_under_fq_codel_slow_down_as_processor_sharing_says(load):
    """M/G/1 processor sharing: E[T | x] = x / (C (1 - load)), so the mean slowdown is
    1 / (1 - load) whatever the sizes; FQ-CoDel shares the bottleneck nearly so for flows
    much larger than the bandwidth-delay product (1 MB against 25 KB here). Issue 29's
    target: within 20 % (docs/validation.md has 2000-flow runs)."""
    result = Scenario.from_toml_str(f"""
[simulation]
seed = 1
[[topology]]
kind = "dumbbell"
n = 4
access = {{ rate = "1Gbps", delay = "1ms" }}
bottleneck = {{ rate = "10Mbps", delay = "10ms", queue = {{ kind = "fq_codel" }} }}
[[workload]]
name = "big"
load = {load}
sizes = {{ fixed = "1MB" }}
pairs = {{ from = ["s1", "s2", "s3", "s4"], to = ["d1", "d2", "d3", "d4"] }}
variant = "cubic"
profile = "linux"
max_flows = 500
""").run()
    slowdown = result.flows["slowdown"]
    assert slowdown.notna().all()
    assert abs(slowdown.mean() * (1 - load) - 1) < 0.2, slowdown.mean()
