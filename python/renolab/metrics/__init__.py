"""The metrics of the studies renolab reproduces, as pure functions on tables.

Every function takes plain numbers or the DataFrames that :class:`renolab.Result` gives
(``result.flows``, ``result.links``, ``result.trace(name)``, or the same tables read back
from a run directory) and returns numbers or new DataFrames; nothing here runs a simulation.

=======================  ==================================================================
lee2001                  :func:`utilisation` (mu), :func:`normalised_throughput` (T_N(t)),
                         :func:`tn_slope` (Table 2), :func:`buffer_gain` (BG, Fig. 7)
subedi2008               :func:`goodput`, :func:`throughput_series` (sent vs goodput)
joo2000                  :func:`recovery_episodes` (Table 1, Figs. 2-6), :func:`loss_patterns`
fickling                 :func:`drop_rate`, :func:`packet_latency`, :func:`jain_index`,
                         :func:`jain_series`
delay                    :func:`queue_delays` (per-packet queueing delay, ``hops`` trace)
links                    :func:`drops_by_cause`, :func:`queue_stats`,
                         :func:`link_utilisation_series`, :func:`flow_path`,
                         :func:`bottlenecks`
workloads                :func:`fct_summary` (FCT and slowdown by flow size),
                         :func:`size_buckets`
=======================  ==================================================================

Sequence numbers count segments (as in ns-2's one-way agents): segment ``k`` carries payload
bytes ``k * mss .. (k + 1) * mss``, and an ACK's ``seq`` is the next segment expected.
"""

from renolab.metrics.delay import queue_delays
from renolab.metrics.fct import DEFAULT_BUCKETS, FCT_SUMMARY_COLUMNS, fct_summary, size_buckets
from renolab.metrics.flows import bottlenecks, drop_rate, flow_path, goodput, jain_index, utilisation
from renolab.metrics.links import drops_by_cause, link_utilisation_series, packet_latency, queue_stats, rtt_stats
from renolab.metrics.recovery import DETECTIONS, DROP_CLASSES, EPISODE_COLUMNS, loss_patterns, recovery_episodes
from renolab.metrics.series import buffer_gain, jain_series, normalised_throughput, throughput_series, tn_slope

__all__ = [
    "DEFAULT_BUCKETS",
    "DETECTIONS",
    "DROP_CLASSES",
    "EPISODE_COLUMNS",
    "FCT_SUMMARY_COLUMNS",
    "bottlenecks",
    "buffer_gain",
    "drop_rate",
    "drops_by_cause",
    "fct_summary",
    "flow_path",
    "goodput",
    "jain_index",
    "jain_series",
    "link_utilisation_series",
    "loss_patterns",
    "normalised_throughput",
    "packet_latency",
    "queue_delays",
    "queue_stats",
    "recovery_episodes",
    "rtt_stats",
    "size_buckets",
    "throughput_series",
    "tn_slope",
    "utilisation",
]
