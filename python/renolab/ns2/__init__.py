"""Cross-validation with ns-2.35: export a scenario as an ns-2 Tcl script, run it, compare.

:func:`to_tcl` turns a scenario into a standalone ns-2.35 script (nodes, simplex links with
their queues and loss models, one-way TCP agents or CBR sources, start and stop times) that
prints, after the line ``# renolab-ns2 flows``, one CSV row per flow with the figures renolab
reports (completion time, delivered bytes, retransmissions, timeouts, drops, ...).
:func:`run_ns2` runs such a script with ``ns`` and parses that table, and :func:`validate`
runs both simulators (over several seeds when the scenario is random) and compares them flow
by flow against a :class:`Tolerance`.

The script is built from the *normalised* scenario (:meth:`renolab.Scenario.validate`), so it
mirrors exactly what renolab runs, and every renolab setting is mapped to the ns-2 variable
that does the same (see ``docs/ns2-behaviour.md``). Settings ns-2.35 cannot reproduce raise
:class:`renolab.ScenarioError` naming the field. How each one is mapped:

=====================================  ==========================================================
renolab                                ns-2.35
=====================================  ==========================================================
flow ``profile``                       only ``"ns2"``: the rfc/opnet profiles' RFC arithmetic
                                       (flight-size halving, RFC 6298 timer) is not ns-2's
``variant``                            Agent/TCP (tahoe), /Reno, /Newreno, /Sack1, /Vegas
``mss``, ``header_bytes``              ``packetSize_``; ``tcpip_base_hdr_size_`` and
                                       ``useHeaders_`` (off when 0); Vegas never adds a
                                       header, so its ``packetSize_`` is mss + header
``bytes``                              ``produce`` ceil(bytes / mss) segments (ns-2 sends
                                       whole segments: a short last segment is sent full)
``initial_window``, ``window``         ``windowInit_``, ``window_``
``initial_ssthresh``                   ns-2 resets ``ssthresh_`` to ``window_`` when the run
                                       starts; a different value is set when the flow starts
``dupack_threshold``                   ``numdupacks_``
``initial_rto``/``min_rto``/``max_rto``  ``rtxcur_init_``/``minrto_``/``maxrto_``
``clock_granularity``                  ``tcpTick_`` (0 refused)
``clock_phase``                        ``boot_time_`` is not settable from Tcl: the agent's
                                       reset draws it from the default RNG, which the script
                                       reseeds just before; with an explicit phase it searches
                                       20000 seeds for the closest (within ~1 us). The phase in
                                       force is printed (``clock_phase_s``).
``handshake``                          ``syn_`` and ``delay_growth_``
``limited_transmit``                   ``singledup_``
newreno ``partial_window_deflation``   ``partial_window_deflation_``
newreno ``timer_reset``                ``newreno_changes1_`` (impatient 1, slow_but_steady 0)
newreno ``careful``                    ``bugFix_`` (true 1, false 0); "less" refused (the
                                       RFC 6582 §4.1 heuristic is neither ns-2's
                                       ``lessCareful_`` nor its ``bugfix_ack_``)
newreno ``ssthresh_estimation``        ``newreno_changes_``
sack ``sack_recovery``                 ``"ns2"`` only (Agent/TCP/Sack1); rfc6675 refused
vegas ``alpha``/``beta``/``gamma``     ``v_alpha_``/``v_beta_``/``v_gamma_``
receiver                               Agent/TCPSink[/Sack1][/DelAck]; ``ack_bytes`` is
                                       ``packetSize_``, ``delack_timeout`` ``interval_``;
                                       ``ack_every`` other than 2 refused with delayed ACKs
droptail ``limit``/``limit_bytes``     ``limit_`` (bytes: ``queue_in_bytes_``,
                                       ``mean_pktsize_ 1``); ``counts_transmitting = false``
                                       is emulated exactly with a limit one larger
red                                    Queue/RED ``limit_``, ``thresh_``, ``maxthresh_``,
                                       ``linterm_`` = 1/max_p, ``q_weight_``, ``gentle_``,
                                       ``wait_``, ``bytes_``, ``queue_in_bytes_``,
                                       ``mean_pktsize_``, ``targetdelay_``
codel, fq_codel, dualpi2               refused (not in ns-2.35)
loss ``drop``                          ``ErrorModel/List`` (packets); ``segments`` through
                                       ``Filter/Field`` on seqno, flow id and packet type
                                       feeding a per-segment ``ErrorModel/List``
loss ``uniform``                       ``ErrorModel`` unit pkt, ``rate_`` p
loss ``ber``                           ``ErrorModel`` unit byte, ``rate_`` 1-(1-BER)^8 (unit
                                       bit ignores the packet length in ns-2.35)
loss ``gilbert_elliott``               an ``ErrorModel/MultiState`` whose Tcl ``corrupt``
                                       runs renolab's per-packet two-state chain
loss ``applies_to``                    ``Filter/Field`` on the packet type (ns-2 counts a SYN
                                       as data and a SYN-ACK as an ACK)
latency ``fixed``                      added to the link's delay; other latencies refused
cbr                                    Application/Traffic/CBR on Agent/UDP (``random_`` 1
                                       for jitter 1; other jitters refused)
``start``, ``stop``                    ``$ns at``; a uniform start is drawn from an RNG
                                       seeded from the run's seed; TCP stop = no new data
=====================================  ==========================================================

Loss models sit after the link (``link-lossmodel``'s place): a lost packet has used the
wire, as in renolab.

The package, by job: :mod:`~renolab.ns2.export` (the script; its support procedures are
``preamble.tcl``), :mod:`~renolab.ns2.run` (running ns-2, reading its table) and
:mod:`~renolab.ns2.compare` (tolerances, the report, :func:`validate`).
"""

from renolab.ns2.compare import METRICS, Report, Row, Tolerance, compare, renolab_rows, validate
from renolab.ns2.export import PHASE_SEARCH_SEEDS, is_random, load, to_tcl
from renolab.ns2.run import (
    COLUMNS,
    INSTALL_HINT,
    TABLE_MARKER,
    Ns2Error,
    Ns2NotFound,
    Ns2Run,
    find_ns,
    parse_table,
    run_ns2,
)

__all__ = [
    "COLUMNS",
    "INSTALL_HINT",
    "METRICS",
    "PHASE_SEARCH_SEEDS",
    "TABLE_MARKER",
    "Ns2Error",
    "Ns2NotFound",
    "Ns2Run",
    "Report",
    "Row",
    "Tolerance",
    "compare",
    "find_ns",
    "is_random",
    "load",
    "parse_table",
    "renolab_rows",
    "run_ns2",
    "to_tcl",
    "validate",
]
