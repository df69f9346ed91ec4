"""GSO buffers of the linux profile (issue 27): what leaves the sender's host at one instant."""

from __future__ import annotations

import pytest

import renolab


def dumbbell_50mbps(variant: str, options: dict | None = None, seconds: int = 4) -> renolab.Scenario:
    """50 Mb/s, 20 ms, a 1-BDP DropTail buffer, one bulk flow under the linux profile."""
    flow = {"name": "f1", "variant": variant, "src": "s1", "dst": "r1"}
    if options is not None:
        flow["options"] = options
    return renolab.Scenario(
        simulation={"profile": "linux", "seed": 1, "duration": f"{seconds}s"},
        link=[
            {"from": "s1", "to": "g", "rate": "1Gbps", "delay": "1ms"},
            {"name": "bottleneck", "from": "g", "to": "h", "rate": "50Mbps", "delay": "8ms",
             "queue": {"kind": "droptail", "limit": 83}},
            {"from": "h", "to": "r1", "rate": "1Gbps", "delay": "1ms"},
        ],
        flow=[flow],
    )


def trains(result: renolab.Result, after_s: float = 2.0) -> list[int]:
    """Sizes of the groups of data segments entering the sender's link at one instant."""
    hops = result.trace("hops")
    sent = hops[(hops["link"].astype(str) == "s1-g") & (hops["event"].astype(str) == "enqueue")
                & (hops["kind"].astype(str) == "data") & (hops["time_s"] >= after_s)]
    return sent.groupby("time_s").size().tolist()


def test_bbr_at_50_mbps_sends_gso_buffers_of_four_segments_at_one_instant():
    # tcp_tso_autosize(): 2^-10 s at ~50 Mb/s is 6.1 kB, 4 segments of 1448 bytes.
    sizes = trains(dumbbell_50mbps("bbr").run(trace="hops"))
    assert max(set(sizes), key=sizes.count) == 4
    assert sizes.count(4) > 0.6 * len(sizes)


def test_without_gso_bbr_paces_one_segment_at_a_time():
    sizes = trains(dumbbell_50mbps("bbr", {"gso": False}).run(trace="hops"))
    assert sizes.count(1) > 0.95 * len(sizes)


def test_reno_waits_for_whole_buffers_at_50_mbps():
    # Unpaced, the ACK clock frees two segments at a time; tcp_tso_should_defer() holds them
    # for a buffer of 5 (1.2 x cwnd / SRTT at 50 Mb/s: 7.3 kB).
    on = trains(dumbbell_50mbps("reno").run(trace="hops"))
    off = trains(dumbbell_50mbps("reno", {"gso": False}).run(trace="hops"))
    mean = lambda s: sum(x * x for x in s) / sum(s)  # noqa: E731 (the train a packet travels in)
    assert mean(off) < 2.5 < 4 < mean(on)


def test_the_options_resolve_to_the_kernel_defaults_and_bad_values_are_named():
    resolved = dumbbell_50mbps("cubic").validate()
    options = resolved["flow"][0]["options"]
    assert (options["gso"], options["min_tso_segs"], options["pacing_shift"]) == (True, 2, 10)
    for bad, message in [
        ({"min_tso_segs": 0}, "flow[0].options.min_tso_segs"),
        ({"pacing_shift": 40}, "flow[0].options.pacing_shift"),
        ({"gso": "yes"}, "flow[0].options.gso"),
    ]:
        with pytest.raises(renolab.ScenarioError, match=message.replace("[", r"\[").replace("]", r"\]")):
            dumbbell_50mbps("cubic", bad).validate()
    rfc = renolab.Scenario(link=[{"from": "a", "to": "b", "rate": "1Mbps", "delay": "1ms"}],
                           flow=[{"name": "f", "src": "a", "dst": "b", "options": {"gso": False}}])
    with pytest.raises(renolab.ScenarioError, match='needs profile "linux"'):
        rfc.validate()


def test_pacing_shift_sizes_the_buffers_of_bbr():
    # sk_pacing_shift 8: 2^-8 s at ~50 Mb/s, 24 kB, 16 segments (as Wi-Fi drivers set it).
    sizes = trains(dumbbell_50mbps("bbr", {"pacing_shift": 8}).run(trace="hops"))
    assert max(set(sizes), key=sizes.count) >= 14
