"""Shared 802.11 media from Python: the stations table, retries in the traces, the files a
run writes, and the radiotap capture as Wireshark reads it."""

from __future__ import annotations

import shutil
import subprocess

import pandas as pd
import pytest

import renolab
from renolab import Result, Scenario

STATION_COLUMNS = [
    "station", "medium", "node", "frames_sent", "retries", "collisions", "retry_drops", "queue_drops",
    "rts_sent", "frame_errors", "frames_received", "airtime_s", "airtime_share", "max_queue",
]


def cell(**medium: object) -> Scenario:
    """server -(100 Mb/s)- ap ~802.11b~ sta: a 300 kB NewReno download, fades at the station."""
    return Scenario(
        simulation={"seed": 3},
        link=[{"from": "server", "to": "ap", "rate": "100Mbps", "delay": "5ms"}],
        medium=[{
            "name": "wlan", "kind": "wifi", "standard": "802.11b", "data_rate": "11Mbps", "basic_rate": "1Mbps",
            "nodes": ["ap", "sta"],
            "station": {"sta": {"loss": {"kind": "gilbert_elliott", "p_gb": 0.02, "p_bg": 0.1}}},
            **medium,
        }],
        flow=[{"name": "down", "variant": "newreno", "src": "server", "dst": "sta", "bytes": 300_000}],
    )


def test_a_run_reports_each_station_and_retries_show_in_the_hops_and_drops_traces():
    result = cell().run(trace=["hops", "drops", "queue"], check_invariants=True)
    stations = result.stations
    assert list(stations.columns) == STATION_COLUMNS
    assert list(stations["station"]) == ["wlan/ap", "wlan/sta"]
    ap = stations.set_index("node").loc["ap"]
    assert ap.retries > 0 and ap.frames_sent > 200
    hops = result.trace("hops")
    at_ap = hops[hops["link"] == "wlan/ap"]
    assert (at_ap["event"] == "retry").sum() == ap.retries
    assert (at_ap["event"] == "dequeue").sum() + ap.retries == ap.frames_sent
    drops = result.trace("drops")
    gave_up = drops[drops["cause"] == "retry_limit"]
    # The packets the MAC gave up are the flow's only losses. (A frame whose Acks were all
    # lost also counts in retry_drops, though its packet got through.)
    assert len(gave_up) == result.flows.iloc[0].data_drops == ap.retry_drops
    assert set(gave_up["link"]) == {"wlan/ap"}
    assert "wlan/ap" in set(result.trace("queue")["link"])


def test_stations_csv_is_written_and_read_back(tmp_path):
    result = cell().run()
    written = result.save(tmp_path)
    assert tmp_path / "stations.csv" in written
    again = Result.load(tmp_path)
    pd.testing.assert_frame_equal(again.stations, result.stations, check_dtype=False)
    # Without media there is no stations file.
    wired = Scenario(
        link=[{"from": "a", "to": "b", "rate": "1Mbps"}],
        flow=[{"name": "f", "src": "a", "dst": "b", "bytes": 10_000}],
    ).run()
    assert wired.stations.empty
    assert not any(p.name == "stations.csv" for p in wired.save(tmp_path / "wired"))


def test_the_resolved_scenario_spells_out_every_medium_default():
    medium = cell().validate()["medium"][0]
    assert medium["data_rate"] == "11Mbps" and medium["short_retry_limit"] == 7
    assert medium["station"]["ap"] == {"queue": {"kind": "droptail", "limit": 500}, "loss": []}
    assert medium["station"]["sta"]["loss"][0]["kind"] == "gilbert_elliott"
    assert Scenario.from_dict(cell().validate()).validate() == cell().validate()


def test_a_bad_medium_names_its_field():
    with pytest.raises(renolab.ScenarioError, match=r"medium\[0\]\.data_rate: \"54Mbps\" is not a rate of 802.11b"):
        cell(data_rate="54Mbps").validate()


def test_an_ns2_trace_is_refused_for_a_medium(tmp_path):
    result = cell().run(trace=["hops"])
    with pytest.raises(ValueError, match="ns2.tr"):
        result.write_ns2_trace(tmp_path / "ns2.tr")


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark (Debian package tshark) is not installed")
def test_wireshark_reads_the_radiotap_capture_and_sees_each_mac_retry(tmp_path):
    result = cell().run(pcap_dir=tmp_path)
    ap = result.stations.set_index("node").loc["ap"]

    def tshark(*args: str) -> list[str]:
        run = subprocess.run(["tshark", "-r", str(tmp_path / "wlan.pcap"), *args], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        return run.stdout.split()

    # Data frames from the access point, each attempt; the retransmissions flagged.
    from_ap = "wlan.fc.type_subtype == 0x0020 && wlan.ta == 02:00:00:00:00:02"
    assert len(tshark("-Y", from_ap, "-T", "fields", "-e", "frame.number")) == ap.frames_sent
    retries = tshark("-Y", f"{from_ap} && wlan.fc.retry == 1", "-T", "fields", "-e", "radiotap.data_retries")
    assert len(retries) == ap.retries > 0
    rates = set(tshark("-Y", from_ap, "-T", "fields", "-e", "radiotap.datarate"))
    assert rates == {"11"}
    acks = tshark("-Y", "wlan.fc.type_subtype == 0x001d", "-T", "fields", "-e", "radiotap.datarate")
    assert set(acks) == {"1"}
    # Inside, the TCP segments of the flow, as in a link's capture.
    tcp = tshark("-Y", "tcp.len > 0 && wlan.fc.retry == 0", "-T", "fields", "-e", "tcp.seq")
    assert len(tcp) == ap.frames_sent - ap.retries


def test_a_ten_station_wlan_runs_sixty_seconds_well_within_five():
    """The issue's speed target (docs/benchmarks.md: 0.05-0.07 s of event loop here)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "wlan_10_stations.toml"
    result = Scenario.from_toml(path).run()
    assert result.summary["sim_time_s"] == pytest.approx(60)
    assert len(result.stations) == 11 and result.stations["frames_sent"].sum() > 100_000
    assert result.summary["core_wall_time_s"] < 5.0


def test_ns2_export_refuses_a_medium_in_one_line(tmp_path, capsys):
    import tomli_w

    from renolab.cli import main

    scenario = cell().to_dict()
    scenario["simulation"]["profile"] = "ns2"
    path = tmp_path / "cell.toml"
    path.write_text(tomli_w.dumps(scenario), encoding="utf-8")
    assert main(["export", "ns2", str(path), "-o", str(tmp_path / "cell.tcl")]) == 2
    assert capsys.readouterr().err.strip() == (
        "renolab: error: medium: ns-2 export writes links only; a scenario with a [[medium]] (802.11) has no ns-2.35 script"
    )


def test_link_metrics_leave_the_stations_to_the_stations_table():
    result = cell().run(trace=["hops"])
    utilisation = result.link_utilisation(0.5)
    assert set(utilisation["link"].astype(str)) <= {"server-ap", "server-ap/rev"}
    with pytest.raises(ValueError, match="mean_latency_s"):
        result.packet_latency()


def test_the_command_line_refuses_an_ns2_trace_of_a_medium_before_running(tmp_path, capsys):
    import tomli_w

    from renolab.cli import main

    path = tmp_path / "cell.toml"
    path.write_text(tomli_w.dumps(cell().to_dict()), encoding="utf-8")
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--ns2-trace"]) == 2
    assert capsys.readouterr().err.startswith("renolab: error: --ns2-trace: ns-2's trace lines")
    assert not (tmp_path / "out").exists()
