"""Congestion controllers written in Python, run by the engine like the built-in variants.

Subclass :class:`CongestionControl`, override the hooks you need, and name the class as a
flow's variant::

    from renolab.cc import CongestionControl

    class Aimd(CongestionControl):
        def on_start(self, conn):
            conn.cwnd = 10
        def on_ack(self, conn, ack):
            if conn.cwnd < conn.ssthresh:
                conn.cwnd += ack.acked
            else:
                conn.cwnd += ack.acked / conn.cwnd
        def on_congestion(self, conn, event):
            conn.ssthresh = max(conn.cwnd / 2, 2)
            conn.cwnd = 1 if event.kind == "timeout" else conn.ssthresh

    Scenario(..., flow=[{"name": "f1", "variant": Aimd, ...}]).run()

A flow's variant may be the class, an instance (``Aimd(gain=2)``: it stands for its class
and the arguments it was built with; every flow of every run gets a fresh object), or, in a
scenario file, ``variant = "python:mymodule:Aimd"`` (an importable module) or
``"python:controllers/aimd.py:Aimd"`` (a file, relative to the scenario file). The flow's
options that are not the sender's (``initial_window``, ``min_rto``, ...) are the class's
keyword arguments. Loss detection, recovery, the retransmission timer and SACK are the
profile's, as for the built-in variants: the class decides the window, the threshold and
optionally a pacing rate. See docs/extending.md.

The engine calls the hooks with three objects it reuses for every call: ``conn``
(:class:`renolab._core.Connection`: ``cwnd``, ``ssthresh``, ``pacing_rate_bps`` to read and
set; ``mss``, ``now_s``, ``now_ns``, ``flow``, ``profile`` to read), ``ack``
(:class:`renolab._core.Ack`: ``acked``, ``sacked``, ``ack``, ``rtt_s``, ``min_rtt_s``,
``srtt_s``, ``in_flight``, ``delivery_rate_bps``, ``app_limited``, ``ce``,
``cwnd_limited``) and ``event`` (:class:`renolab._core.CongestionEvent`: ``kind``, one of
``"fast_retransmit"``, ``"rack_loss"``, ``"timeout"``, ``"ecn"``, and ``window``, what a
halving halves under the profile). Only the hooks a class overrides are called.

Windows are in segments. The engine keeps them in fixed point, 1/2^32 of a segment:
``conn.cwnd`` holds the window exactly, and a value the class sets is rounded down to that
resolution. Float arithmetic rounds differently from the built-ins' fixed point in the last
bits; :func:`ca_increment` gives the built-in Reno's congestion-avoidance step exactly, for
a class that must reproduce it bit for bit (``examples/python_reno.py``).
"""

from __future__ import annotations

from typing import Any

from renolab._core import CC_HOOKS, ca_increment

__all__ = ["HOOKS", "CongestionControl", "ca_increment"]

#: The hooks a controller may override, as the engine calls them.
HOOKS: tuple[str, ...] = tuple(CC_HOOKS)


class CongestionControl:
    """Base class of congestion controllers written in Python (see the module documentation).

    Every hook does nothing here; the engine calls only those a subclass overrides, with
    ``conn`` first. A class attribute ``trace = ("name", ...)`` lists attributes of the
    object (numbers or None) that the ``cc`` trace records whenever one of them changes.
    """

    #: Attributes the ``cc`` trace records (numbers or None), e.g. ``("base_rtt", "diff")``.
    trace: tuple[str, ...] = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> CongestionControl:
        self = super().__new__(cls)
        # What the object was built with: an instance in a scenario stands for its class
        # and these arguments (renolab.cc.load.arguments_of()).
        try:
            vars(self)["_renolab_arguments"] = (args, dict(kwargs))
        except TypeError:  # a class with __slots__ and no __dict__
            pass
        return self

    # -- the hooks (each does nothing here) -----------------------------------------

    def on_start(self, conn: Any) -> None:
        """Before the flow sends anything: ``conn.cwnd`` and ``conn.ssthresh`` hold the
        flow's initial window and threshold (its options or its profile's)."""

    def on_ack(self, conn: Any, ack: Any) -> None:
        """An ACK of new data outside loss recovery: grow the window (Linux's
        ``cong_avoid``)."""

    def on_congestion(self, conn: Any, event: Any) -> None:
        """A congestion signal (``event.kind``): set the threshold and the window the loss
        episode starts from; the recovery may then inflate it (Reno) or bring it down to
        ``conn.ssthresh`` gradually (PRR under the linux profile). Once per episode."""

    def on_ack_sample(self, conn: Any, ack: Any) -> None:
        """Every ACK that acknowledges or SACKs data, in or out of recovery, before the
        sender acts on it (Linux's ``pkts_acked``; the linux profile's recovery only)."""

    def on_dup_ack(self, conn: Any) -> None:
        """A duplicate ACK."""

    def on_sent(self, conn: Any, seq: int, retransmit: bool) -> None:
        """Segment *seq* left (again if *retransmit*). Called for every segment: override it
        only when needed."""

    def on_recovery_end(self, conn: Any) -> None:
        """The loss episode ended (the linux profile's recovery)."""

    def on_undo(self, conn: Any) -> None:
        """The last reduction was spurious: restore the window it took (Linux's
        ``undo_cwnd``)."""

    def on_tx_start(self, conn: Any, idle_s: float) -> None:
        """New data leaves while nothing is in flight, *idle_s* after the last send (the
        linux profile's recovery)."""

    def on_syn_ack(self, conn: Any, rtt_s: float) -> None:
        """The SYN-ACK arrived, *rtt_s* after the first SYN left (with a handshake)."""
