"""Output files: every trace decodes, round-trips through Parquet and CSV, streams from disk,
and turns into ns-2 trace lines that old awk scripts can read."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from renolab import Result, Scenario
from renolab.cli import main
from renolab.traces import (
    CC_MODES,
    DROP_CAUSES,
    HOP_EVENTS,
    PACKET_KINDS,
    SEQ_EVENTS,
    TRACE_FIELDS,
    TRACE_NAMES,
    Ns2Numbering,
    RawTrace,
    ns2_lines,
    PacketIds,
)

# Every trace a Reno flow fills; `cc` records only controllers with state (BBR): its own test.
ALL = [name for name in TRACE_NAMES if name != "cc"]

EXPECTED_COLUMNS = {
    "cwnd": ["time_s", "flow", "cwnd", "ssthresh", "inflated_cwnd"],
    "seq": ["time_s", "flow", "event", "seq"],
    "rtt": ["time_s", "flow", "rtt_s", "srtt_s", "rto_s"],
    "queue": ["time_s", "link", "packets", "bytes", "marked", "avg_packets", "queue", "prob"],
    "drops": ["time_s", "link", "flow", "kind", "seq", "cause"],
    "hops": ["time_s", "link", "event", "kind", "size", "flow", "seq", "uid", "ecn"],
    # Then one column per value a Python controller traces (tests/python/test_python_cc.py).
    "cc": [
        "time_s", "flow", "mode", "btl_bw_bps", "min_rtt_s", "pacing_gain", "cwnd_gain", "pacing_rate_bps",
        "delivery_rate_bps", "w_max", "k_s", "epoch_start_s", "alpha", "frac_cwnd", "classic_ecn", "phase",
        "inflight_hi", "inflight_lo", "bw_hi_bps", "bw_lo_bps",
    ],
}


@pytest.fixture(scope="module")
def result():
    from conftest import small_scenario_dict

    return Scenario.from_dict(small_scenario_dict()).run(trace=ALL)


def test_every_trace_has_its_documented_columns_and_categories(result):
    assert sorted(ALL + ["cc"]) == sorted(TRACE_NAMES)
    assert sorted(result.trace_names) == sorted(ALL)
    for name in ALL:
        frame = result.trace(name)
        assert list(frame.columns) == EXPECTED_COLUMNS[name], name
        assert len(frame) > 0 or name == "cc", name  # only Python controllers record cc
        assert frame["time_s"].is_monotonic_increasing, name
    # The categories are the documented names (docs/outputs.md), in code order.
    assert list(result.trace("seq")["event"].cat.categories) == [
        "sent", "retransmitted", "acked", "dropped", "ack_dropped", "received"
    ]
    assert list(result.trace("hops")["event"].cat.categories) == ["enqueue", "dequeue", "receive", "drop", "retry"]
    assert list(result.trace("hops")["kind"].cat.categories) == ["data", "ack", "syn", "synack", "datagram"]
    assert list(result.trace("drops")["kind"].cat.categories) == ["data", "ack", "syn", "synack", "datagram"]
    assert list(result.trace("hops")["ecn"].cat.categories) == ["not_ect", "ect1", "ect0", "ce"]
    assert list(result.trace("queue")["queue"].cat.categories) == ["all", "l", "c"]
    assert list(result.trace("drops")["cause"].cat.categories) == [
        "overflow", "early", "aqm", "bit_error", "random", "burst", "scripted", "retry_limit", "outage"
    ]
    assert (SEQ_EVENTS, HOP_EVENTS, PACKET_KINDS, DROP_CAUSES) == (
        tuple(result.trace("seq")["event"].cat.categories),
        tuple(result.trace("hops")["event"].cat.categories),
        tuple(result.trace("drops")["kind"].cat.categories),
        tuple(result.trace("drops")["cause"].cat.categories),
    )
    assert set(result.trace("queue")["link"]) <= set(result.links["link"])
    drops = result.trace("drops")
    assert len(drops) == int(result.flows["drops"].sum())
    assert (drops["cause"] == "overflow").sum() == int(result.links["overflow_drops"].sum())


def test_a_scripted_drop_decodes_to_the_events_and_times_it_must_have():
    # The small scenario with segment 3 dropped once at the bottleneck, 6 segments in all.
    # Data packets are 1040 bytes: 0.832 ms on the 10 Mb/s access link + 1 ms, 8.32 ms on
    # the 1 Mb/s bottleneck + 10 ms; ACKs are 40 bytes.  One RTT is 31.504 ms.
    from conftest import small_scenario_dict

    d = small_scenario_dict()
    d["flow"][0]["bytes"] = 6000
    d["link"][1]["loss"] = {"kind": "drop", "flow": "f1", "segments": [3]}
    run = Scenario.from_dict(d).run(trace=ALL)
    rtt = 2 * (0.001 + 0.010) + 8 * 1040 / 10e6 + 8 * 1040 / 1e6 + 8 * 40 / 1e6 + 8 * 40 / 10e6
    assert rtt == pytest.approx(0.031504)

    drops = run.trace("drops")
    assert drops.drop(columns="time_s").astype(str).values.tolist() == [["bottleneck", "f1", "data", "3", "scripted"]]
    # Segment 3 leaves at 2 RTTs, crosses the access link, then the whole bottleneck
    # (a loss happens after the wire), and is dropped there.
    sent_3 = 2 * rtt
    dropped_at = sent_3 + 0.001832 + 0.018320
    assert drops["time_s"].tolist() == [pytest.approx(dropped_at)]

    seq = run.trace("seq")
    events_3 = seq[(seq["seq"] == 3) & seq["event"].isin(["sent", "dropped", "retransmitted"])]
    assert events_3["event"].astype(str).tolist() == ["sent", "dropped", "retransmitted"]
    # Two duplicate ACKs only: no fast retransmit; the 1 s RTO, restarted by the last new
    # ACK (for segment 2, at 2 RTTs + 8.32 ms), retransmits it.
    last_new_ack = sent_3 + 0.00832
    assert events_3["time_s"].tolist() == pytest.approx([sent_3, dropped_at, last_new_ack + 1.0])
    acks_of_3 = seq[(seq["event"] == "acked") & (seq["seq"] == 3)]
    assert len(acks_of_3) == 3  # the new ACK and its two duplicates

    hops = run.trace("hops")
    first_life = hops[(hops["seq"] == 3) & (hops["kind"] == "data")].iloc[:6]
    assert list(zip(first_life["link"].astype(str), first_life["event"].astype(str))) == [
        ("access", "enqueue"), ("access", "dequeue"), ("access", "receive"),
        ("bottleneck", "enqueue"), ("bottleneck", "dequeue"), ("bottleneck", "drop"),
    ]
    assert first_life["size"].tolist() == [1040] * 6
    assert hops[(hops["kind"] == "ack")]["size"].unique().tolist() == [40]

    cwnd = run.trace("cwnd")
    assert cwnd["cwnd"].tolist()[:5] == [1.0, 2.0, 3.0, 4.0, 1.0]  # slow start, then the timeout
    assert cwnd["ssthresh"].tolist()[:5] == [np.inf] * 4 + [2.0]  # unset: infinite
    assert run.trace("rtt")["rtt_s"].iloc[0] == pytest.approx(rtt)
    f = run.flows.iloc[0]
    assert (f["retransmits"], f["timeouts"], f["fast_retransmits"], f["drops"]) == (1, 1, 0, 1)


def test_flows_and_links_gain_the_derived_columns(result):
    f = result.flows.iloc[0]
    assert f["bottleneck"] == "bottleneck"
    assert f["bottleneck_bps"] == 1e6
    assert f["mu"] == pytest.approx(f["bytes_delivered"] * 8 / (1e6 * f["completion_time_s"]))
    assert f["goodput_bps"] == pytest.approx(f["throughput_bps"])
    assert f["sent_bps"] == pytest.approx(f["segments_sent"] * 1000 * 8 / f["completion_time_s"])
    assert f["drop_rate"] == pytest.approx(f["data_drops"] / f["segments_sent"])
    assert result.links.set_index("link").loc["bottleneck/rev", "rate_bps"] == 1e6
    assert result.links.set_index("link").loc["access", "delay_s"] == pytest.approx(0.001)


FLOW_DELAY_COLUMNS = ["mean_rtt_s", "rtt_p50_s", "rtt_p99_s", "mean_queue_delay_s"]
LINK_DELAY_COLUMNS = ["mean_queue_delay_s", "queue_delay_p50_s", "queue_delay_p99_s", "mean_queue_packets"]


def _nearest_rank(values, q):
    return float(np.quantile(np.asarray(values, dtype=float), q, method="inverted_cdf"))


def test_the_delay_columns_come_last_and_agree_with_the_traces(result, tmp_path):
    # Appended: every column before them keeps its place (docs/outputs.md).
    # The completion times and outage drops (issue 29) come after them, last.
    assert list(result.flows.columns[-8:-4]) == FLOW_DELAY_COLUMNS
    assert list(result.links.columns[-5:-1]) == LINK_DELAY_COLUMNS
    result.save(tmp_path)
    assert (tmp_path / "flows.csv").read_text().splitlines()[0].endswith(
        ",".join(FLOW_DELAY_COLUMNS + ["size_bytes", "fct_s", "ideal_fct_s", "slowdown"])
    )
    assert (tmp_path / "links.csv").read_text().splitlines()[0].endswith(",".join(LINK_DELAY_COLUMNS + ["outage_drops"]))
    f = result.flows.iloc[0]
    rtt = result.trace("rtt")["rtt_s"]
    # The sender's samples are the rtt trace's: an exact mean, quantiles within 1/32.
    assert f["mean_rtt_s"] == pytest.approx(rtt.mean(), rel=1e-12)
    for q, column in ((0.5, "rtt_p50_s"), (0.99, "rtt_p99_s")):
        assert abs(f[column] / _nearest_rank(rtt, q) - 1) <= 1 / 32, column
    # Every data packet is 1040 bytes on the wire: its latency is the path's fixed
    # 0.832 + 1 + 8.32 + 10 ms plus what it waited in queues.
    assert f["mean_latency_s"] - f["mean_queue_delay_s"] == pytest.approx(0.020152, abs=1e-12)
    # A link's waits are those metrics.queue_delays reads off the hops trace, packet by packet.
    from renolab import metrics

    delays = metrics.queue_delays(result.trace("hops"))
    links = result.links.set_index("link")
    for link in ("access", "bottleneck"):
        waits = delays.loc[delays["link"] == link, "delay_s"].to_numpy()
        row = links.loc[link]
        assert row["packets_sent"] == len(waits)
        assert row["mean_queue_delay_s"] == pytest.approx(waits.mean(), rel=1e-9, abs=1e-12), link
        for q, column in ((0.5, "queue_delay_p50_s"), (0.99, "queue_delay_p99_s")):
            exact = _nearest_rank(waits, q)
            assert row[column] == pytest.approx(exact, rel=1 / 32, abs=1e-9), (link, column)
    assert links.loc["bottleneck", "mean_queue_packets"] > 0
    assert links.loc["bottleneck/rev", "mean_queue_packets"] == 0


def test_recording_traces_changes_no_figure(small_scenario):
    plain = Scenario.from_dict(small_scenario).run()
    traced = Scenario.from_dict(small_scenario).run(trace=["rtt", "queue"])
    pd.testing.assert_frame_equal(plain.flows, traced.flows)
    pd.testing.assert_frame_equal(plain.links, traced.links)


def test_a_cbr_flow_has_no_rtt_and_its_queue_delay_is_that_of_its_packets(small_scenario):
    small_scenario["flow"] = [{"name": "u", "kind": "cbr", "rate": "1.2Mbps", "packet_bytes": 1000,
                               "src": "s1", "dst": "r1"}]
    small_scenario["simulation"]["duration"] = "2s"
    f = Scenario.from_dict(small_scenario).run().flows.iloc[0]
    assert np.isnan(f["mean_rtt_s"]) and np.isnan(f["rtt_p50_s"]) and np.isnan(f["rtt_p99_s"])
    # 1.2 Mb/s into a 1 Mb/s bottleneck: the queue fills and the packets wait.
    assert f["mean_queue_delay_s"] > 0.01


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_saved_traces_read_back_equal(result, tmp_path, fmt):
    written = result.save(tmp_path, format=fmt)
    assert {p.name for p in written} == {"flows.csv", "links.csv", "summary.json", *(f"{n}.{fmt}" for n in ALL)}
    loaded = Result.load(tmp_path)
    assert sorted(loaded.trace_names) == sorted(ALL)
    for name in ALL:
        original, back = result.trace(name), loaded.trace(name)
        # CSV does not keep integer widths; values, names and categories survive both.
        pd.testing.assert_frame_equal(back, original, check_dtype=fmt == "parquet", check_categorical=True)
    pd.testing.assert_frame_equal(loaded.flows, result.flows, check_dtype=False)


def test_parquet_files_are_byte_identical_for_the_same_run(result, tmp_path):
    result.save(tmp_path / "a")
    result.save(tmp_path / "b")
    for name in ALL:
        assert (tmp_path / "a" / f"{name}.parquet").read_bytes() == (tmp_path / "b" / f"{name}.parquet").read_bytes()


def test_spilled_traces_stream_in_chunks_and_match_the_in_memory_ones(result, tmp_path):
    from conftest import small_scenario_dict

    spilled = Scenario.from_dict(small_scenario_dict()).run(trace=ALL, trace_dir=tmp_path / "raw")
    for name in ALL:
        chunks = list(spilled.iter_trace(name, chunk_rows=37))
        if name == "cc":  # only Python controllers record it: empty here
            assert chunks == [] and len(result.trace(name)) == 0
            continue
        assert len(chunks) > 1 or len(result.trace(name)) <= 37
        pd.testing.assert_frame_equal(pd.concat(chunks, ignore_index=True), result.trace(name))
    # Saving streams chunk by chunk: one Parquet row group per chunk, read back whole.
    import pyarrow.parquet as pq

    from renolab.traces import write_frames

    path = write_frames(spilled.iter_trace("hops", chunk_rows=50), tmp_path / "hops.parquet", "parquet", pd.DataFrame())
    assert pq.ParquetFile(path).num_row_groups == -(-len(result.trace("hops")) // 50)
    pd.testing.assert_frame_equal(pd.read_parquet(path), result.trace("hops"))
    spilled.save(tmp_path / "out")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "out" / "seq.parquet"), result.trace("seq"))


def test_the_cc_trace_records_bbrs_state_and_round_trips(tmp_path):
    from conftest import small_scenario_dict

    scenario = small_scenario_dict()
    scenario["flow"][0]["variant"] = "bbr"
    scenario["flow"].append({**scenario["flow"][0], "name": "reno", "variant": "reno"})
    result = Scenario.from_dict(scenario).run(trace=["cc"])
    cc = result.trace("cc")
    assert list(cc.columns) == EXPECTED_COLUMNS["cc"]
    assert list(cc["mode"].cat.categories) == list(CC_MODES)
    # Only BBR reports state; it starts in Startup at 2/ln 2 and measures the path's RTT.
    assert set(cc["flow"].astype(str)) == {"f1"}
    first = cc.iloc[0]
    assert (first["mode"], first["pacing_gain"]) == ("startup", 739 / 256)
    # 22 ms of propagation, 9.5 ms of serialisation (1040 + 40 bytes at 1 Mb/s, 1040 at 10).
    assert cc["min_rtt_s"].min() == pytest.approx(0.0315, abs=0.0005)
    assert cc["time_s"].is_monotonic_increasing
    spilled = Scenario.from_dict(scenario).run(trace=["cc"], trace_dir=tmp_path / "raw")
    chunks = list(spilled.iter_trace("cc", chunk_rows=7))
    pd.testing.assert_frame_equal(pd.concat(chunks, ignore_index=True), cc)
    for fmt in ("parquet", "csv"):
        result.save(tmp_path / fmt, format=fmt)
        pd.testing.assert_frame_equal(Result.load(tmp_path / fmt).trace("cc"), cc)


def test_the_first_core_format_of_per_column_bytes_still_decodes():
    fields = dict(TRACE_FIELDS["seq"])
    columns = {
        "time_ns": np.array([0, 5], dtype=fields["time_ns"]).tobytes(),
        "flow": np.array([0, 0], dtype=fields["flow"]).tobytes(),
        "event": np.array([0, 2], dtype=fields["event"]).tobytes(),
        "seq": np.array([0, 1], dtype=fields["seq"]).tobytes(),
    }
    raw = RawTrace("seq", columns)
    packed = RawTrace("seq", {"fields": list(TRACE_FIELDS["seq"]), "data": raw.read().tobytes()})
    assert raw.read().tolist() == packed.read().tolist() == [(0, 0, 0, 0), (5, 0, 2, 1)]


# ----- ns-2 trace lines ------------------------------------------------------------------------

NS2_LINE = re.compile(r"^[-+rd] \d+(\.\d+)?(e-\d+)? \d+ \d+ (tcp|ack|cbr) \d+ ------- \d+ \d+\.\d+ \d+\.\d+ \d+ \d+$")


def test_ns2_lines_for_hand_built_records():
    links = pd.DataFrame({"link": ["a", "a/rev", "b", "b/rev"], "from": ["s", "g", "g", "r"], "to": ["g", "s", "r", "g"]})
    flows = pd.DataFrame({"flow": ["f0", "f1"], "src": ["s", "s"], "dst": ["r", "r"]})
    dtype = np.dtype(list(TRACE_FIELDS["hops"]))
    # time, link, event, kind, size, flow, seq, uid, ecn (Not-ECT)
    records = np.array(
        [
            (0, 0, 0, 0, 1040, 1, 7, 3, 0),  # + data of flow 1 on s->g
            (1_000, 0, 1, 0, 1040, 1, 7, 3, 0),  # -
            (1_234_567, 0, 2, 0, 1040, 1, 7, 3, 0),  # r at 0.0012346 s (ns-2 rounds to the microsecond)
            (2_000_000, 3, 0, 1, 40, 1, 8, 3, 0),  # slot 3 reused: + ACK of flow 1 on r->g
            (2_500_000, 3, 3, 1, 40, 1, 8, 3, 0),  # d
            (1_500_000_000, 2, 0, 4, 200, 0, 0, 9, 0),  # + datagram of flow 0 (not at its origin)
        ],
        dtype=dtype,
    )
    numbering = Ns2Numbering(links, flows)
    assert numbering.nodes == {"s": 0, "g": 1, "r": 2}
    lines = ns2_lines(records, numbering, PacketIds(numbering).assign(records)).splitlines()
    assert lines == [
        "+ 0 0 1 tcp 1040 ------- 1 0.1 2.1 7 0",
        "- 1e-06 0 1 tcp 1040 ------- 1 0.1 2.1 7 0",
        "r 0.001235 0 1 tcp 1040 ------- 1 0.1 2.1 7 0",
        "+ 0.002 2 1 ack 40 ------- 1 2.1 0.1 8 1",
        "d 0.0025 2 1 ack 40 ------- 1 2.1 0.1 8 1",
        "+ 1.5 1 2 cbr 200 ------- 0 0.0 2.0 0 2",
    ]


def test_ns2_trace_of_a_real_run_reads_like_ns2s(result, tmp_path):
    path = result.write_ns2_trace(tmp_path / "ns2.tr")
    lines = path.read_text().splitlines()
    hops = result.trace("hops")
    assert len(lines) == len(hops)
    assert all(NS2_LINE.match(line) for line in lines), next(line for line in lines if not NS2_LINE.match(line))
    fields = [line.split() for line in lines]
    # The awk classic: payload received at the sink (node 2 = r1).
    received = sum(int(f[5]) - 40 for f in fields if f[0] == "r" and f[3] == "2" and f[4] == "tcp")
    flow = result.flows.iloc[0]
    assert received == (flow["segments_sent"] - flow["data_drops"]) * 1000
    assert sum(1 for f in fields if f[0] == "d") == int(flow["drops"])
    # Every packet has its own uid: one '+' at its origin and at most one arrival at the end.
    first_hop = [f for f in fields if f[0] == "+" and f[4] == "tcp" and f[2] == "0"]
    assert len({f[11] for f in first_hop}) == len(first_hop) == flow["segments_sent"]


def test_cli_ns2_trace_and_pcap(small_scenario, write_scenario, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["run", str(write_scenario(small_scenario)), "--out", str(out), "--ns2-trace", "--pcap"])
    assert code == 0, capsys.readouterr().err
    names = sorted(p.name for p in out.iterdir())
    assert names == ["flows.csv", "links.csv", "ns2.tr", "pcap", "summary.json"]  # no hops file unless asked
    assert NS2_LINE.match((out / "ns2.tr").read_text().splitlines()[0])
    pcaps = sorted(p.name for p in (out / "pcap").iterdir())
    assert pcaps and all((out / "pcap" / p).stat().st_size > 24 for p in pcaps)
    code = main(["run", str(write_scenario(small_scenario)), "--out", str(tmp_path / "o2"), "--trace", "hops", "--ns2-trace"])
    assert code == 0
    assert {"hops.parquet", "ns2.tr"} <= {p.name for p in (tmp_path / "o2").iterdir()}


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_an_empty_trace_round_trips_with_its_columns_and_categories(small_scenario, tmp_path, fmt):
    small_scenario["link"][1]["queue"]["limit"] = 1000  # nothing is dropped
    result = Scenario.from_dict(small_scenario).run(trace=["drops"])
    assert len(result.trace("drops")) == 0
    result.save(tmp_path, format=fmt)
    back = Result.load(tmp_path).trace("drops")
    assert list(back.columns) == EXPECTED_COLUMNS["drops"]
    assert list(back["cause"].cat.categories) == list(DROP_CAUSES)
    assert back["time_s"].dtype == np.float64
