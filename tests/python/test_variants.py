"""Variant behaviour on the studies' own setups."""

from __future__ import annotations

import pytest

from renolab.experiments import lee2001


def test_hoe_estimates_the_pipe_of_lee2001s_largest_path():
    # W* = 640 (C = 32 Mb/s); the paper reports an estimate of 626 packets.
    result = lee2001.scenario(32, 320, "newreno").run(trace="cwnd")
    ssthresh = result.trace("cwnd").ssthresh
    estimate = ssthresh[ssthresh < 100_000].iloc[0]
    assert estimate == pytest.approx(626, abs=5)


@pytest.mark.parametrize("fraction", [0.5, 0.75, 1.0])
def test_newreno_with_hoe_leaves_slow_start_without_loss_when_the_buffer_is_half_the_pipe(fraction):
    for capacity in (8, 16, 32):
        row = lee2001.scenario(capacity, lee2001.buffer_packets(capacity, fraction), "newreno").run().flows.iloc[0]
        assert row.drops == 0 and row.timeouts == 0, (capacity, fraction)


def test_without_hoe_newreno_overshoots_the_same_buffer():
    row = lee2001.scenario(32, 320, "newreno", hoe=False).run().flows.iloc[0]
    assert row.drops > 100


def test_cubic_takes_the_larger_share_of_a_long_fat_path_from_reno():
    # examples/cubic_vs_reno.toml: 100 Mb/s, 100 ms, a buffer of one BDP, both with SACK.
    from pathlib import Path

    from renolab import Scenario

    example = Path(__file__).resolve().parents[2] / "examples" / "cubic_vs_reno.toml"
    flows = Scenario.from_toml(example).run().flows.set_index("flow")
    assert flows.loc["cubic", "timeouts"] == 0
    assert flows.loc["cubic", "goodput_bps"] > 2 * flows.loc["reno", "goodput_bps"]
    assert flows.goodput_bps.sum() > 90e6
