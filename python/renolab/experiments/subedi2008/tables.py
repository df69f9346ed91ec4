"""subedi2008's tables: the TCP parameters beside the slides' (Table 1), the response times
(Tables 2-3), the base station's MAC (Table 2b), the scripted-loss runs (Table 4), and
throughput against goodput (Table 5)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from renolab.experiments.subedi2008.runs import Results
from renolab.experiments.subedi2008.scenarios import CASE_LABELS, LABELS, VARIANTS, WIRED_CASES, wired
from renolab.scenario import Scenario


def parameter_table(paper: dict[str, Any]) -> pd.DataFrame:
    """Table 1: the slides' TCP parameters beside renolab's ``opnet`` profile, as validated."""
    from renolab.units import parse_duration_s

    tcp = paper["setup"]["tcp"]
    flow = Scenario.from_dict(wired("reno", "random").to_dict()).validate()["flow"][0]
    opts, rcv = flow["options"], flow["receiver"]
    rows = [
        ("Slow start initial count (MSS)", tcp["initial_window_mss"], opts["initial_window"]),
        ("Receive buffer size (bytes)", tcp["receive_buffer_bytes"], opts["window"] * flow["mss"]),
        ("Maximum ACK segment", tcp["max_ack_segments"], rcv["ack_every"] if rcv["delayed_ack"] else 1),
        ("Initial RTO (s)", tcp["initial_rto_s"], parse_duration_s(opts["initial_rto"])),
        ("Minimum RTO (s)", tcp["min_rto_s"], parse_duration_s(opts["min_rto"])),
        ("Maximum RTO (s)", tcp["max_rto_s"], parse_duration_s(opts["max_rto"])),
        ("RTT gain", tcp["rtt_gain"], 0.125),
        ("Deviation gain", tcp["deviation_gain"], 0.25),
        ("RTT deviation coefficient", tcp["rtt_deviation_coefficient"], 4.0),
        ("Duplicate ACK threshold", tcp["dupack_threshold"], opts["dupack_threshold"]),
    ]
    return pd.DataFrame(rows, columns=["parameter", "paper", "renolab"])


def response_table(summary: pd.DataFrame, case: str, paper: dict[str, float]) -> pd.DataFrame:
    """Tables 2-3: each variant's response time with its CI and timeouts, beside the slides'."""
    rows = []
    for v in VARIANTS:
        row = summary[(summary["case"] == case) & (summary["variant"] == v)].iloc[0]
        rows.append(
            {
                "variant": LABELS[v],
                "renolab_response_s": round(float(row["response_s"]), 2),
                "renolab_ci95_s": round(float(row["response_s_ci95"]), 2),
                "renolab_timeouts": round(float(row["timeouts"]), 1),
                "paper_response_s": paper[v],
                "renolab_relative": round(float(row["response_s"]) / float(summary[summary["case"] == case]["response_s"].min()), 4),
                "paper_relative": round(paper[v] / min(paper.values()), 4),
            }
        )
    return pd.DataFrame(rows)


def mac_table(r: Results) -> pd.DataFrame:
    """Table 2b: the base station's MAC retries and losses, and TCP's retransmissions and
    timeouts, per wireless download."""
    to_w = r.by_variant("wireless", "timeouts")
    mac = {m: r.by_variant("wireless", m) for m in ("mac_retries", "mac_drops", "buffer_drops", "retransmits")}
    return pd.DataFrame(
        [
            {
                "variant": LABELS[v],
                "mac_retries": round(mac["mac_retries"][v]),
                "given_up_after_7_attempts": round(mac["mac_drops"][v], 1),
                "refused_by_full_buffer": round(mac["buffer_drops"][v], 1),
                "tcp_retransmits": round(mac["retransmits"][v], 1),
                "tcp_timeouts": round(to_w[v], 1),
            }
            for v in VARIANTS
        ]
    )


def scripted_loss_table(r: Results) -> pd.DataFrame:
    """Table 4: the single and two scripted losses: response, timeouts, retransmissions, cwnd."""
    det = []
    for case in ("single", "two"):
        for v in VARIANTS:
            det.append(
                {
                    "case": CASE_LABELS[case],
                    "variant": LABELS[v],
                    "renolab_response_s": round(r.value(case, v, "response_s"), 3),
                    "renolab_timeouts": r.value(case, v, "timeouts"),
                    "renolab_retransmits": r.value(case, v, "retransmits"),
                    "renolab_min_cwnd_after_loss": r.value(case, v, "min_cwnd_after_loss"),
                    "renolab_avg_cwnd": round(r.value(case, v, "avg_cwnd"), 2),
                    "renolab_avg_window": round(r.value(case, v, "avg_window"), 2),
                }
            )
    return pd.DataFrame(det)


def rates_table(r: Results) -> pd.DataFrame:
    """Table 5: throughput (retransmissions included) and goodput (each byte once) per case."""
    rates = []
    for case in ("wireless", *WIRED_CASES):
        for v in VARIANTS:
            rates.append(
                {
                    "scenario": "wireless" if case == "wireless" else f"wired, {CASE_LABELS[case]}",
                    "variant": LABELS[v],
                    "renolab_throughput_mbps": round(r.value(case, v, "throughput_bps") / 1e6, 4),
                    "renolab_goodput_mbps": round(r.value(case, v, "goodput_bps") / 1e6, 4),
                    "renolab_goodput_over_throughput": round(r.value(case, v, "goodput_bps") / r.value(case, v, "throughput_bps"), 4),
                }
            )
    return pd.DataFrame(rates)
