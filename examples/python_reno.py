"""The built-in Reno and NewReno, window arithmetic only, written as Python controllers.

A flow with ``variant = Reno`` (or ``"python:examples/python_reno.py:Reno"`` in a scenario
file) runs exactly as ``variant = "reno"``: the same completion time, retransmits,
timeouts and drops, under every profile; ``NewReno`` as ``variant = "newreno"`` (with
``recovery = "newreno"``, the built-in NewReno's default; and with
``ssthresh_estimation=True`` and ``options.hoe_sending = true`` as ``ssthresh_estimation =
true``). tests/python/test_python_cc.py checks that; ``renolab bench --python-cc`` times
``Reno`` against the built-in.

What the built-in does, and so what this does (crates/renolab-core/src/tcp/cc/reno.rs):

- the window grows by one segment per ACK in slow start and by 1/cwnd per ACK above
  ssthresh (ns-2's ``opencwnd()``, RFC 5681 without byte counting), except under the linux
  profile, which grows as Linux's ``tcp_reno_cong_avoid()`` does: by segments acknowledged,
  in whole segments, only while the sender used its whole window;
- a loss halves the window the profile says (``event.window``: the flight size, ns-2's
  min(cwnd, receiver window) or Linux's cwnd), at least two segments for ssthresh; ns-2
  keeps the fraction of the half in cwnd; a timeout leaves one segment;
- the linux profile's undo restores the window before the last reduction.

Python floats round 1/cwnd differently from the engine's fixed point (1/2^32 of a
segment), so congestion avoidance uses ``renolab.cc.ca_increment``, the built-in's step
to the bit; everything else here is exact in floats.
"""

from __future__ import annotations

from renolab.cc import CongestionControl, ca_increment


class Reno(CongestionControl):
    """TCP Reno's window arithmetic, as the built-in ``reno`` variant computes it."""

    def on_start(self, conn):
        # The built-in's growth and halving depend on the profile's dialect.
        self.linux = conn.profile == "linux"
        self.keep_fraction = conn.profile == "ns2"  # ns-2's precisionReduce_
        self.ca_count = 0  # Linux snd_cwnd_cnt
        self.prior_cwnd = conn.cwnd

    def on_ack(self, conn, ack):
        if self.linux:
            self.linux_cong_avoid(conn, ack)
        elif conn.cwnd < conn.ssthresh:
            conn.cwnd += 1
        else:
            conn.cwnd += ca_increment(conn.cwnd)

    def linux_cong_avoid(self, conn, ack):
        """Linux ``tcp_reno_cong_avoid()``: ``tcp_slow_start()``, then
        ``tcp_cong_avoid_ai()``, in whole segments."""
        if not ack.cwnd_limited:
            return
        cwnd = int(conn.cwnd)
        acked = ack.acked + ack.sacked
        if conn.cwnd < conn.ssthresh:
            grown = min(cwnd + acked, int(conn.ssthresh))
            acked -= min(max(grown - cwnd, 0), acked)
            cwnd = max(grown, cwnd)
        if acked > 0 and cwnd >= conn.ssthresh:
            w = max(cwnd, 1)
            if self.ca_count >= w:
                self.ca_count = 0
                cwnd += 1
            self.ca_count += acked
            if self.ca_count >= w:
                cwnd += self.ca_count // w
                self.ca_count %= w
        conn.cwnd = cwnd

    def on_congestion(self, conn, event):
        self.prior_cwnd = conn.cwnd
        conn.ssthresh = max(int(event.window / 2), 2)
        if event.kind == "timeout":
            self.ca_count = 0
            conn.cwnd = 1
        elif self.keep_fraction:
            conn.cwnd = max(event.window / 2, 1)
        else:
            conn.cwnd = conn.ssthresh

    def on_undo(self, conn):
        conn.cwnd = max(conn.cwnd, self.prior_cwnd)


class NewReno(Reno):
    """NewReno's window arithmetic: Reno's, plus, with ``ssthresh_estimation``, Hoe's
    start-up threshold: the RTT of the first segment times the rate of the 2nd and 3rd ACKs
    (ns-2 ``newreno_changes_``; crates/renolab-core/src/tcp/cc/newreno.rs). NewReno's
    partial ACKs are the recovery's (``recovery = "newreno"``)."""

    def __init__(self, ssthresh_estimation=False):
        self.ssthresh_estimation = ssthresh_estimation

    def on_start(self, conn):
        super().on_start(conn)
        self.estimating = self.ssthresh_estimation
        self.first_sent_ns = None
        self.acks = 0
        self.base_rtt_ns = 0
        self.second_ack_ns = 0

    def on_sent(self, conn, seq, retransmit):
        if self.estimating and self.first_sent_ns is None:
            self.first_sent_ns = conn.now_ns

    def on_syn_ack(self, conn, rtt_s):
        # ns-2 counts the SYN-ACK as the first ACK and times the SYN.
        if self.estimating:
            self.acks = 1
            self.base_rtt_ns = round(rtt_s * 1e9)

    def on_ack(self, conn, ack):
        if self.estimating:
            self.hoe(conn)
        super().on_ack(conn, ack)

    def hoe(self, conn):
        now = conn.now_ns
        self.acks += 1
        if self.acks == 1:
            self.base_rtt_ns = now - (self.first_sent_ns if self.first_sent_ns is not None else now)
        elif self.acks == 2:
            self.second_ack_ns = now
        elif self.acks == 3:
            spacing = now - self.second_ack_ns
            if spacing > 0:
                estimate = self.base_rtt_ns // spacing
                conn.ssthresh = min(conn.ssthresh, max(estimate, 2))
            self.estimating = False

    def on_congestion(self, conn, event):
        self.estimating = False
        super().on_congestion(conn, event)
