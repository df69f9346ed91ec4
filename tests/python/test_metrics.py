"""Metric formulas on hand-built traces with known answers, and joo2000's Table 1 on a real run."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from renolab import Scenario, metrics
from renolab.traces import HOP_EVENTS, PACKET_KINDS, SEQ_EVENTS


def seq_trace(rows):
    """A seq trace from (time_s, flow, event, seq) rows, typed as Result.trace gives it."""
    frame = pd.DataFrame(rows, columns=["time_s", "flow", "event", "seq"])
    frame["flow"] = pd.Categorical(frame["flow"])
    frame["event"] = pd.Categorical(frame["event"], categories=list(SEQ_EVENTS))
    return frame


def cwnd_trace(rows):
    return pd.DataFrame(rows, columns=["time_s", "flow", "cwnd", "ssthresh"])


# ----- scalars ---------------------------------------------------------------------------------


def test_jain_index_known_values():
    assert metrics.jain_index([5, 5, 5, 5]) == pytest.approx(1.0)
    assert metrics.jain_index([1, 0, 0, 0]) == pytest.approx(0.25)
    assert metrics.jain_index([1, 2, 3]) == pytest.approx(36 / (3 * 14))
    assert metrics.jain_index([2.0, float("nan"), 2.0]) == pytest.approx(1.0)
    assert math.isnan(metrics.jain_index([]))
    assert math.isnan(metrics.jain_index([0, 0]))


def test_utilisation_is_bits_over_capacity_times_completion_time():
    # lee2001: 64 Mbit over a 32 Mb/s bottleneck in 4 s -> mu = 0.5.
    assert metrics.utilisation(64e6, 32e6, 4.0) == pytest.approx(0.5)
    mu = metrics.utilisation([64e6, 64e6], [32e6, 1e6], [2.0, float("nan")])
    assert mu[0] == pytest.approx(1.0)
    assert math.isnan(mu[1])


def test_goodput_and_drop_rate():
    assert metrics.goodput(1_000_000, 2.0) == pytest.approx(4e6)
    assert math.isnan(metrics.goodput(10, 0.0))
    assert metrics.drop_rate(3, 120) == pytest.approx(0.025)
    assert math.isnan(metrics.drop_rate(0, 0))


# ----- time series -----------------------------------------------------------------------------


def small_seq():
    # mss 1000 bytes; ACKs advance 1, 2, 3 segments in the bins [0, .1), [.1, .2), [.2, .3].
    return seq_trace(
        [
            (0.00, "a", "sent", 0),
            (0.01, "a", "sent", 1),
            (0.02, "a", "sent", 2),
            (0.05, "a", "acked", 1),
            (0.06, "a", "sent", 3),
            (0.12, "a", "retransmitted", 2),
            (0.15, "a", "acked", 3),
            (0.16, "a", "acked", 3),  # duplicate: nothing new
            (0.25, "a", "acked", 6),
            (0.30, "a", "sent", 6),
        ]
    )


def test_throughput_series_counts_sent_segments_and_newly_acked_bytes_once():
    series = metrics.throughput_series(small_seq(), 0.1, 1000)
    assert series["time_s"].tolist() == pytest.approx([0.0, 0.1, 0.2])
    assert series["goodput_bps"].tolist() == pytest.approx([80e3, 160e3, 240e3])
    # Sent: 4 segments in bin 0, one retransmission in bin 1, one at t = 0.3 (the end) in bin 2.
    assert series["sent_bps"].tolist() == pytest.approx([320e3, 80e3, 80e3])


def test_normalised_throughput_divides_by_capacity():
    tn = metrics.normalised_throughput(small_seq(), 0.1, {"a": 320e3}, {"a": 1000})
    assert list(tn.columns) == ["time_s", "flow", "goodput_bps", "t_n"]
    assert tn["t_n"].tolist() == pytest.approx([0.25, 0.5, 0.75])


def test_tn_slope_fits_the_rise():
    t = np.arange(0, 2.0, 0.1)
    tn = pd.DataFrame({"time_s": t, "flow": "a", "t_n": 0.2 + 0.4 * t})
    assert metrics.tn_slope(tn, 0.0, 1.0) == pytest.approx(0.4)


def test_jain_series_per_bin_counts_an_absent_flow_as_zero():
    series = pd.DataFrame(
        {
            "time_s": [0.0, 0.0, 1.0, 1.0, 2.0],
            "flow": ["a", "b", "a", "b", "a"],
            "goodput_bps": [1.0, 1.0, 3.0, 1.0, 2.0],
        }
    )
    jain = metrics.jain_series(series, flows=["a", "b"])
    assert jain["time_s"].tolist() == [0.0, 1.0, 2.0]
    assert jain["jain"].tolist() == pytest.approx([1.0, 16 / 20, 0.5])
    assert set(jain["flows"]) == {2}


def test_buffer_gain_divides_by_the_quarter_buffer_and_averages_seeds():
    runs = pd.DataFrame(
        {
            "variant": ["reno"] * 5 + ["sack"] * 2,
            "w_star": [640] * 7,
            "alpha": [0.25, 0.25, 0.5, 0.75, 1.0, 0.25, 1.0],
            "seed": [1, 2, 1, 1, 1, 1, 1],
            "mu": [0.1, 0.3, 0.2, 0.5, 0.6, 0.4, 0.2],
        }
    )
    bg = metrics.buffer_gain(runs)
    reno = bg[bg["variant"] == "reno"].set_index("alpha")["buffer_gain"]
    assert reno.to_dict() == pytest.approx({0.25: 1.0, 0.5: 1.0, 0.75: 2.5, 1.0: 3.0})
    sack = bg[bg["variant"] == "sack"].set_index("alpha")["buffer_gain"]
    assert sack.to_dict() == pytest.approx({0.25: 1.0, 1.0: 0.5})
    with pytest.raises(KeyError, match="w_star"):
        metrics.buffer_gain(runs.drop(columns="w_star"))


# ----- links, paths, latency ---------------------------------------------------------------------


LINKS = pd.DataFrame(
    {
        "link": ["access", "access/rev", "bottleneck", "bottleneck/rev", "shortcut", "shortcut/rev"],
        "from": ["s", "g", "g", "r", "s", "x"],
        "to": ["g", "s", "r", "g", "x", "s"],
        "rate_bps": [100e6, 100e6, 1e6, 1e6, 5e6, 5e6],
    }
)
FLOWS = pd.DataFrame({"flow": ["f"], "src": ["s"], "dst": ["r"]})


def test_flow_path_and_bottleneck_follow_the_cores_routing():
    assert metrics.flow_path(LINKS, "s", "r") == [0, 2]
    assert metrics.flow_path(LINKS, "r", "s") == [3, 1]
    assert metrics.flow_path(LINKS, "s", "nowhere") == []
    neck = metrics.bottlenecks(FLOWS, LINKS)
    assert neck.loc[0, "bottleneck"] == "bottleneck"
    assert neck.loc[0, "bottleneck_bps"] == 1e6
    assert neck.loc[0, "path"] == ["access", "bottleneck"]


def _full_search_path(links, src, dst):
    """The route by a search from *dst* over every node: what flow_path must return."""
    pairs = list(zip(links["from"], links["to"]))
    next_hop, seen, frontier = {}, {dst}, [dst]
    while frontier:
        v = frontier.pop(0)
        for d, (u, to) in enumerate(pairs):
            if to == v and u not in seen:
                seen.add(u)
                next_hop[u] = d
                frontier.append(u)
    path, node = [], src
    while node != dst and node in next_hop:
        path.append(next_hop[node])
        node = pairs[path[-1]][1]
    return path if node == dst else []


def test_flow_path_skips_stub_hosts_and_still_routes_as_a_full_search():
    import random

    rng = random.Random(7)
    for _ in range(300):
        nodes = [f"n{i}" for i in range(rng.randint(2, 12))]
        froms, tos = [], []
        for _ in range(rng.randint(0, 2 * len(nodes))):
            a, b = rng.choice(nodes), rng.choice(nodes)
            froms.append(a), tos.append(b)
            if rng.random() < 0.75:
                froms.append(b), tos.append(a)
        links = {"from": froms, "to": tos}
        for src in nodes:
            for dst in nodes:
                assert metrics.flow_path(links, src, dst) == _full_search_path(links, src, dst), (links, src, dst)


def hops_trace(rows):
    frame = pd.DataFrame(rows, columns=["time_s", "link", "event", "kind", "size", "flow", "seq", "uid"])
    frame["link"] = pd.Categorical(frame["link"], categories=LINKS["link"].tolist())
    frame["event"] = pd.Categorical(frame["event"], categories=list(HOP_EVENTS))
    frame["kind"] = pd.Categorical(frame["kind"], categories=list(PACKET_KINDS))
    frame["flow"] = pd.Categorical(frame["flow"], categories=["f"])
    return frame


def test_packet_latency_follows_packets_across_reused_uids():
    # uid 0 carries data segment 0, then the ACK for it, then data segment 1.
    hops = hops_trace(
        [
            (0.00, "access", "enqueue", "data", 1040, "f", 0, 0),
            (0.00, "access", "dequeue", "data", 1040, "f", 0, 0),
            (0.01, "access", "receive", "data", 1040, "f", 0, 0),
            (0.01, "bottleneck", "enqueue", "data", 1040, "f", 0, 0),
            (0.01, "bottleneck", "dequeue", "data", 1040, "f", 0, 0),
            (0.03, "bottleneck", "receive", "data", 1040, "f", 0, 0),
            (0.03, "bottleneck/rev", "enqueue", "ack", 40, "f", 1, 0),
            (0.03, "bottleneck/rev", "dequeue", "ack", 40, "f", 1, 0),
            (0.04, "bottleneck/rev", "receive", "ack", 40, "f", 1, 0),
            (0.04, "access/rev", "enqueue", "ack", 40, "f", 1, 0),
            (0.04, "access/rev", "dequeue", "ack", 40, "f", 1, 0),
            (0.05, "access/rev", "receive", "ack", 40, "f", 1, 0),
            (0.05, "access", "enqueue", "data", 1040, "f", 1, 0),
            (0.05, "access", "dequeue", "data", 1040, "f", 1, 0),
            (0.06, "access", "receive", "data", 1040, "f", 1, 0),
            (0.06, "bottleneck", "enqueue", "data", 1040, "f", 1, 0),
            (0.07, "bottleneck", "dequeue", "data", 1040, "f", 1, 0),
            (0.09, "bottleneck", "receive", "data", 1040, "f", 1, 0),
        ]
    )
    data = metrics.packet_latency(hops, FLOWS, LINKS)
    assert data["packet"].tolist() == [0, 2]
    assert data["seq"].tolist() == [0, 1]
    assert data["latency_s"].tolist() == pytest.approx([0.03, 0.04])
    acks = metrics.packet_latency(hops, FLOWS, LINKS, kind="ack")
    assert acks["packet"].tolist() == [1]
    assert acks["latency_s"].tolist() == pytest.approx([0.02])


def test_drops_by_cause_queue_stats_and_rtt_stats():
    drops = pd.DataFrame(
        {
            "link": ["bottleneck", "bottleneck", "access"],
            "cause": pd.Categorical(["overflow", "overflow", "bit_error"]),
        }
    )
    table = metrics.drops_by_cause(drops).set_index("link")
    assert table.loc["bottleneck", "overflow"] == 2
    assert table.loc["access", "bit_error"] == 1
    assert table.loc["access", "total"] == 1
    queue = pd.DataFrame({"time_s": [0.0, 1.0, 3.0], "link": "q", "packets": [0, 4, 0], "bytes": [0, 4000, 0]})
    stats = metrics.queue_stats(queue, end_s=4.0).iloc[0]
    # 4 packets for 2 s out of 4 s.
    assert stats["mean_packets"] == pytest.approx(2.0)
    assert stats["max_packets"] == 4
    # The case: a queue busy 0.1 ms (5 packets) of a 30 s run averages over the run,
    # empty before its first change and after its last.
    busy = pd.DataFrame({"time_s": [10.0, 10.0001], "link": "q", "packets": [5, 0], "bytes": [5000, 0]})
    stats = metrics.queue_stats(busy, end_s=30.0).iloc[0]
    assert stats["mean_packets"] == pytest.approx(5 * 0.0001 / 30)
    assert stats["mean_bytes"] == pytest.approx(5000 * 0.0001 / 30)
    assert metrics.queue_stats(busy, start_s=10.0, end_s=10.0002).iloc[0]["mean_packets"] == pytest.approx(2.5)
    rtt = pd.DataFrame(
        {"time_s": [1.0, 2.0], "flow": ["a", "a"], "rtt_s": [0.1, 0.3], "srtt_s": [0.1, 0.125], "rto_s": [1.0, 1.0]}
    )
    r = metrics.rtt_stats(rtt).iloc[0]
    assert (r["flow"], r["samples"], r["min_rtt_s"], r["max_rtt_s"]) == ("a", 2, 0.1, 0.3)
    assert r["mean_rtt_s"] == pytest.approx(0.2)


# ----- recovery episodes -----------------------------------------------------------------------


def hand_built_episodes():
    """Flow a: fast retransmit of 3 drops from a window of 8, then a lone loss found by RTO.
    Flow b: a fast retransmission that is itself dropped and resent on a timeout."""
    rows = [(1.00 + 0.01 * k, "a", "sent", k) for k in range(8)]
    rows += [(1.025, "a", "dropped", 2), (1.035, "a", "dropped", 3), (1.055, "a", "dropped", 5)]
    rows += [
        (1.10, "a", "acked", 1),
        (1.11, "a", "acked", 2),
        (1.14, "a", "acked", 2),
        (1.16, "a", "acked", 2),
        (1.17, "a", "acked", 2),
        (1.17, "a", "retransmitted", 2),  # detection: fast retransmit
        (1.20, "a", "sent", 8),
        (1.21, "a", "sent", 9),
        (1.30, "a", "acked", 3),  # partial ACK
        (1.30, "a", "retransmitted", 3),
        (1.30, "a", "sent", 10),
        (1.40, "a", "acked", 5),  # partial ACK
        (1.40, "a", "retransmitted", 5),
        (1.50, "a", "acked", 10),  # covers recover = 8: recovery ends
        (1.50, "a", "sent", 11),
        (1.50, "a", "sent", 12),
        (1.51, "a", "acked", 13),
        (1.60, "a", "sent", 13),
        (1.61, "a", "dropped", 13),
        (2.60, "a", "retransmitted", 13),  # no ACK at that instant: a timeout
        (2.70, "a", "acked", 14),
    ]
    rows += [(0.01 * k, "b", "sent", k) for k in range(4)]
    rows += [
        (0.015, "b", "dropped", 1),
        (0.10, "b", "acked", 1),
        (0.12, "b", "acked", 1),
        (0.12, "b", "retransmitted", 1),
        (0.125, "b", "dropped", 1),  # the retransmission is lost too
        (1.12, "b", "retransmitted", 1),
        (1.22, "b", "acked", 4),
    ]
    rows.sort(key=lambda r: r[0])  # a stable sort keeps same-instant rows in event order
    seq = seq_trace(rows)
    cwnd = cwnd_trace(
        [
            (1.00, "a", 8.0, 4294967295.0),
            (1.17, "a", 7.0, 4.0),
            (1.50, "a", 4.0, 4.0),
            (2.60, "a", 1.0, 2.0),
            (0.00, "b", 4.0, 4294967295.0),
            (0.12, "b", 5.0, 2.0),
        ]
    )
    return seq, cwnd


def test_recovery_episodes_on_a_hand_built_trace():
    seq, cwnd = hand_built_episodes()
    ep = metrics.recovery_episodes(seq, cwnd)
    assert list(ep.columns) == list(metrics.EPISODE_COLUMNS)
    a = ep[ep["flow"] == "a"].reset_index(drop=True)
    assert len(a) == 2
    first = a.iloc[0]
    assert first["detection"] == "fast_retransmit"
    assert (first["start_s"], first["end_s"]) == (1.17, 1.50)
    assert (first["una"], first["recover"]) == (2, 8)
    assert (first["drops"], first["drop_class"]) == (3, "3")
    assert (first["first_drop_seq"], first["first_drop_sent_s"]) == (2, 1.02)
    assert first["cwnd_at_first_drop"] == 8.0
    assert first["w"] == 4.0
    assert first["new_segments"] == 3
    assert first["new_per_rtt"] == [2, 1, 0]
    assert first["burst"] == 2
    assert (first["retransmits"], first["timeouts"], first["drops_in_recovery"]) == (3, 0, 0)
    second = a.iloc[1]
    assert second["detection"] == "rto"
    assert (second["drops"], second["drop_class"], second["timeouts"]) == (1, "1", 1)
    assert (second["una"], second["recover"], second["end_s"]) == (13, 14, 2.70)
    b = ep[ep["flow"] == "b"].iloc[0]
    assert b["detection"] == "fast_retransmit"
    assert (b["drops"], b["drops_in_recovery"], b["retransmits"], b["timeouts"]) == (1, 1, 2, 1)
    patterns = metrics.loss_patterns(ep, first_only=False).set_index("pattern")["count"].to_dict()
    assert patterns == {"rto": 1, "1": 1, "2": 0, "3": 1, ">3": 0}
    first_only = metrics.loss_patterns(ep).set_index("pattern")["fraction"].to_dict()
    assert first_only == {"rto": 0.0, "1": 0.5, "2": 0.0, "3": 0.5, ">3": 0.0}


def test_recovery_episodes_without_cwnd_leave_w_missing():
    seq, _ = hand_built_episodes()
    ep = metrics.recovery_episodes(seq)
    assert ep["w"].isna().all()
    assert ep["drops"].tolist() == [3, 1, 1]


def newreno_five_drops(pwd: bool) -> Scenario:
    """crates/renolab-core/tests/variants.rs `newreno_episode`: 5 drops (segments 70-74) from
    one slow-start window, NewReno as joo2000 ran it in ns-2."""
    return Scenario(
        link=[
            {
                "from": "s",
                "to": "r",
                "rate": "10Mbps",
                "delay": "50ms",
                "queue": {"kind": "droptail", "limit": 100000},
                "loss": {"kind": "drop", "flow": "f", "segments": [70, 71, 72, 73, 74]},
            }
        ],
        flow=[
            {
                "name": "f",
                "variant": "newreno",
                "src": "s",
                "dst": "r",
                "bytes": 3000 * 1000,
                "mss": 1000,
                "profile": "ns2",
                "receiver": {"delayed_ack": False},
                "options": {
                    "initial_window": 1,
                    "min_rto": "200ms",
                    "partial_window_deflation": pwd,
                    "timer_reset": "slow_but_steady",
                    "limited_transmit": False,
                    "window": 100000,
                    "initial_ssthresh": 100000,
                    "handshake": False,
                },
            }
        ],
    )


def test_five_scripted_drops_match_joo2000_table_1_with_pwd():
    result = newreno_five_drops(True).run(trace=["seq", "cwnd"])
    ep = result.recovery_episodes()
    assert len(ep) == 1
    e = ep.iloc[0]
    d, w = 5, int(e["w"])
    assert e["detection"] == "fast_retransmit"
    assert (e["drops"], e["drop_class"], e["first_drop_seq"]) == (5, ">3", 70)
    assert (e["timeouts"], e["drops_in_recovery"], e["retransmits"]) == (0, 0, 5)
    # Table 1, NewReno with PWD: N_k = max(0, W - d + k - 1), total W(W-1)/2 - (W-d)(W-d-1)/2, burst 1.
    assert e["new_per_rtt"] == [max(0, w - d + k - 1) for k in range(1, d + 1)]
    assert e["new_segments"] == w * (w - 1) // 2 - max(0, (w - d) * (w - d - 1) // 2)
    assert e["burst"] == 1
    # Recovery takes d RTTs (100 ms each).
    assert round(e["duration_s"] / 0.1) == d
    flow = result.flows.iloc[0]
    assert (flow["fast_retransmits"], flow["timeouts"]) == (1, 0)


def test_five_scripted_drops_without_pwd_burst_at_most_a_window():
    e = newreno_five_drops(False).run(trace=["seq", "cwnd"]).recovery_episodes().iloc[0]
    w, d = int(e["w"]), 5
    assert (e["detection"], e["drops"]) == ("fast_retransmit", 5)
    # Table 1, NewReno without PWD: N_1 = max(0, W - d), N_k < W, total < 2W, burst <= W.
    assert e["new_per_rtt"][0] == max(0, w - d)
    assert all(n < w for n in e["new_per_rtt"])
    assert e["new_segments"] < 2 * w
    assert 1 < e["burst"] <= w


def test_link_utilisation_series_is_bits_dequeued_over_capacity():
    # Ten 1250-byte packets start transmission on a 1 Mb/s link in [0, 0.1): busy all the bin.
    rows = [(0.01 * k, "bottleneck", "dequeue", "data", 1250, "f", k, k) for k in range(10)]
    rows += [(0.15, "bottleneck", "dequeue", "data", 1250, "f", 10, 10), (0.15, "access", "enqueue", "data", 1250, "f", 11, 11)]
    util = metrics.link_utilisation_series(hops_trace(rows), 0.1, {"bottleneck": 1e6, "access": 1e7})
    assert util["link"].tolist() == ["bottleneck", "bottleneck"]
    assert util["utilisation"].tolist() == pytest.approx([1.0, 0.1])


def test_result_queue_stats_agree_with_the_cores_time_average_over_the_run(small_scenario):
    small_scenario["simulation"]["duration"] = "5s"  # idle after the transfer: the mean covers it
    result = Scenario.from_dict(small_scenario).run(trace=["queue"])
    ours = result.queue_stats().set_index("link")["mean_packets"]
    core = result.links.set_index("link")["mean_queue_packets"]
    assert (ours > 0).any()
    for link, mean in ours.items():
        assert mean == pytest.approx(core[link], rel=1e-9, abs=1e-12), link
