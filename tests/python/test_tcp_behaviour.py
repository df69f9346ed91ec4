"""TCP Reno behaviour seen through the Python API, on deterministic scenarios."""

from __future__ import annotations

import math

import pytest

import renolab

MSS = 1000
HEADER = 40
RATE_BPS = 1_000_000
ONE_WAY_S = 0.050


def one_link(bytes_: int, *, loss=None, options=None) -> renolab.Scenario:
    """A 1 Mb/s link, 50 ms each way, a buffer that never overflows, one Reno flow."""
    link = {"name": "path", "from": "s1", "to": "r1", "rate": "1Mbps", "delay": "50ms",
            "queue": {"kind": "droptail", "limit": 100_000}}
    if loss is not None:
        link["loss"] = loss
    return renolab.Scenario(
        link=[link],
        flow=[{"name": "f1", "variant": "reno", "src": "s1", "dst": "r1", "bytes": bytes_,
               "mss": MSS, "header_bytes": HEADER, "receiver": {"delayed_ack": False},
               "options": {"initial_window": 1, **(options or {})}}],
    )


def tx_s(nbytes: int) -> float:
    return nbytes * 8 / RATE_BPS


def test_an_8_mib_transfer_finishes_when_slow_start_and_serialisation_predict():
    nbytes = 8 * 1024 * 1024
    flows = one_link(nbytes).run().flows
    n = math.ceil(nbytes / MSS)
    rtt0 = tx_s(MSS + HEADER) + 2 * ONE_WAY_S + tx_s(40)
    # Slow-start rounds of 1, 2, 4, ... segments each take one RTT while the link idles
    # between bursts; once a round's burst outlasts the RTT the link never idles again.
    rounds, sent = 0, 0
    while 2**rounds * tx_s(MSS + HEADER) < rtt0:
        sent += 2**rounds
        rounds += 1
    last = nbytes - (n - 1) * MSS
    predicted = rounds * rtt0 + (n - sent - 1) * tx_s(MSS + HEADER) + tx_s(last + HEADER) + ONE_WAY_S
    row = flows.iloc[0]
    assert row.bytes_delivered == nbytes
    assert row.completion_time_s == pytest.approx(predicted, abs=1e-9)
    assert (row.retransmits, row.timeouts, row.drops) == (0, 0, 0)


def test_one_dropped_segment_is_fast_retransmitted_and_halves_cwnd():
    result = one_link(200_000, loss={"kind": "drop", "flow": "f1", "segments": [40]},
                      options={"initial_ssthresh": 20}).run(trace="cwnd")
    row = result.flows.iloc[0]
    assert (row.retransmits, row.fast_retransmits, row.timeouts) == (1, 1, 0)
    assert row.bytes_delivered == 200_000
    cwnd = result.trace("cwnd")
    drops = cwnd[cwnd.ssthresh.diff() < 0]
    assert len(drops) == 1
    before = cwnd.loc[drops.index[0] - 1]
    after = drops.iloc[0]
    # FlightSize / 2 (RFC 5681 eq. 4) without the two segments Limited Transmit sent on the
    # first two duplicates (§3.2 step 2).
    assert after.ssthresh == math.floor(before.cwnd) // 2
    # The controller's window is ssthresh; the sender may fill it plus the three duplicate
    # ACKs' inflation (RFC 5681 §3.2 step 3), traced as its own column.
    assert after.cwnd == after.ssthresh
    assert after.inflated_cwnd == after.ssthresh + 3


def test_conservation_is_audited_after_every_event_under_random_loss():
    scenario = one_link(300_000, loss=[{"kind": "uniform", "p": 0.03}])
    result = scenario.run(check_invariants=True)  # raises SimulationError on a violation
    row = result.flows.iloc[0]
    assert row.bytes_delivered == 300_000
    assert row.drops > 0


def test_the_same_seed_gives_identical_tables():
    scenario = one_link(300_000, loss=[{"kind": "uniform", "p": 0.02}])
    a, b = scenario.run(trace="cwnd"), scenario.run(trace="cwnd")
    assert a.flows.equals(b.flows)
    assert a.trace("cwnd").equals(b.trace("cwnd"))
    c = scenario.with_seed(99).run()
    assert not a.flows.equals(c.flows)
