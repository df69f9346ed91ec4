"""Figures of a run: cwnd, time-sequence graph, throughput, queue length, RTT and queueing
delay over time and their distributions, the controllers' state (whatever they traced) and
a summary page; and a sweep's metric against its parameters.

Every function takes a :class:`renolab.Result` -- fresh from a run, or read back from a run
directory with :meth:`renolab.Result.load` -- and returns a :class:`matplotlib.figure.Figure`
(no pyplot state, so they work headless and in notebooks alike)::

    fig = result.plot.cwnd()            # or renolab.plot.cwnd(result)
    fig.savefig("cwnd.svg")

``renolab plot DIR [--kind cwnd,seq,throughput,queue,rtt,rtt_cdf,queue_delay,queue_delay_cdf,cc,summary,fct]
[--format png,svg]``
(:mod:`renolab.cli.plot`) writes them from the saved files of a run directory.

The modules: :mod:`~renolab.plot.figure` (the one figure factory, for every figure renolab
draws, and the conventions every figure follows), :mod:`~renolab.plot.quantities` (units
and ranges of metrics and parameters), :mod:`~renolab.plot.time_series`,
:mod:`~renolab.plot.delay`, :mod:`~renolab.plot.controller`,
:mod:`~renolab.plot.summary_page`, :mod:`~renolab.plot.sweep_figure` and
:mod:`~renolab.plot.files` (``renolab plot``'s choice of figures and their files).
"""

from __future__ import annotations

from renolab.plot._common import KINDS, NEEDS, bottlenecks
from renolab.plot.controller import MODE_COLOURS, cc
from renolab.plot.delay import queue_delay, queue_delay_cdf, rtt, rtt_cdf
from renolab.plot.fct import fct
from renolab.plot.files import IMAGE_FORMATS, available_kinds, save_figures
from renolab.plot.summary_page import summary
from renolab.plot.sweep_figure import sweep, sweep_axes, sweep_params
from renolab.plot.time_series import cwnd, queue, seq, throughput

__all__ = [
    "IMAGE_FORMATS",
    "KINDS",
    "MODE_COLOURS",
    "NEEDS",
    "available_kinds",
    "bottlenecks",
    "cc",
    "cwnd",
    "fct",
    "queue",
    "queue_delay",
    "queue_delay_cdf",
    "rtt",
    "rtt_cdf",
    "save_figures",
    "seq",
    "summary",
    "sweep",
    "sweep_axes",
    "sweep_params",
    "throughput",
]
