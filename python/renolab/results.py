"""Simulation results: per-flow statistics, run summary, recorded traces, metrics and plots.

Building a :class:`Result` and saving its tables needs neither pandas nor numpy (a sweep's
worker and ``renolab run`` without traces never import them); the DataFrames are built
when first read, and traces are decoded by :mod:`renolab.traces` when asked for.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from renolab import _core, tables
from renolab.outdir import RunDirectoryError, check_one_run, run_id, trace_states
from renolab.routing import bottleneck_rows
from renolab.traces import CHUNK_ROWS, DROP_CAUSES, FORMATS, HOP_EVENTS, PACKET_KINDS, SEQ_EVENTS, TRACE_NAMES
from renolab.units import parse_duration_s, parse_rate_bps

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from renolab.traces.decode import RawTrace

PathLike = Union[str, "os.PathLike[str]"]

__all__ = [
    "DROP_CAUSES",
    "RunDirectoryError",
    "HOP_EVENTS",
    "PACKET_KINDS",
    "SEQ_EVENTS",
    "TRACE_NAMES",
    "Result",
    "TraceNotRecordedError",
]

#: Columns Python adds to the core's per-flow table (see docs/outputs.md).
FLOW_EXTRA_COLUMNS = ("goodput_bps", "sent_bps", "drop_rate", "bottleneck", "bottleneck_bps", "mu")
#: Columns Python adds to the core's per-link table.
LINK_EXTRA_COLUMNS = ("rate_bps", "delay_s")
#: ECN counters (docs/outputs.md), kept after the columns above so that those never move.
FLOW_ECN_COLUMNS = ("ecn_marks", "cwnd_reductions")
LINK_ECN_COLUMNS = ("marks", "l_packets", "l_marks", "l_step_marks", "l_drops", "c_packets", "c_marks", "c_drops")
#: Delays and queue lengths (docs/outputs.md), added after the ECN counters and kept last.
FLOW_DELAY_COLUMNS = ("mean_rtt_s", "rtt_p50_s", "rtt_p99_s", "mean_queue_delay_s")
LINK_DELAY_COLUMNS = ("mean_queue_delay_s", "queue_delay_p50_s", "queue_delay_p99_s", "mean_queue_packets")
#: Outage drops and completion times (docs/outputs.md), added after the delays and kept last.
FLOW_FCT_COLUMNS = ("size_bytes", "fct_s", "ideal_fct_s", "slowdown")
LINK_OUTAGE_COLUMNS = ("outage_drops",)


class TraceNotRecordedError(KeyError, ValueError):
    """Raised by :meth:`Result.trace` for a trace that was not recorded in this run."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class Result:
    """The outcome of :meth:`renolab.Scenario.run` (or a run directory, :meth:`Result.load`).

    Attributes:
        flows: one row per flow, in scenario order (``completion_time_s`` is NaN for flows
            that did not finish), with the core's counters and ``goodput_bps``,
            ``sent_bps``, ``drop_rate``, ``bottleneck``, ``bottleneck_bps`` and ``mu``.
        links: one row per link direction with its counters (packets and bytes sent, drops
            by cause, utilisation, ...) and its ``rate_bps`` and ``delay_s``.
        stations: one row per station of a shared medium (``[[medium]]``) with its MAC's
            counters (frames sent, retries, collisions, drops after the retry limit,
            airtime, ...); empty without media.
        summary: run-level facts from the core (seed, events, sim_time_s, stop_reason, ...)
            plus ``renolab_version``, ``wall_time_s`` (measured around the core call) and
            ``scenario`` (the input scenario dict).
        plot: figures of this run (``result.plot.cwnd()``, ``.seq()``, ``.throughput()``,
            ``.queue()``, ``.rtt()``, ``.rtt_cdf()``, ``.queue_delay()``,
            ``.queue_delay_cdf()``, ``.cc()``, ``.summary()``), see :mod:`renolab.plot`.
    """

    def __init__(
        self,
        raw: Mapping[str, Any],
        *,
        scenario: Mapping[str, Any],
        wall_time_s: float,
        normalised: Mapping[str, Any] | None = None,
        unique: bool = False,
    ) -> None:
        """Wrap the dict returned by ``renolab._core.run`` (or ``emulate``). *normalised*:
        the scenario with its defaults filled in, when the caller has it (the emulator reads
        variants the simulator's validation does not know). *unique*: the run cannot be
        repeated exactly (an emulation), so its run id is drawn at random."""
        self.summary: dict[str, Any] = dict(raw["summary"])
        self.summary["renolab_version"] = _core.__version__
        self.summary["wall_time_s"] = wall_time_s
        self.summary["scenario"] = dict(scenario)
        self._raw: dict[str, RawTrace] = {}
        if raw.get("traces"):
            from renolab.traces.decode import RawTrace

            self._raw = {name: RawTrace(name, entry) for name, entry in raw["traces"].items()}
        self.summary["run_id"] = run_id(self.summary, list(self._raw), unique)
        states = trace_states(list(self._raw), raw.get("trace_failures") or {})
        if states:
            self.summary["traces"] = states
        self._loaded_from: Path | None = None
        self._files: dict[str, Path] = {}
        self._trace_cache: dict[str, pd.DataFrame] = {}
        self._validated: dict[str, Any] | None = dict(normalised) if normalised is not None else None
        links = dict(raw.get("links") or {})
        if "link" in links:
            extras = _link_extras(links, self._scenario_normalised(), self.summary.get("sim_time_s"))
            links.update({k: v for k, v in extras.items() if k not in links})
        flows = dict(raw["flows"])
        flows.update(
            (k, v)
            for k, v in _flow_extras(flows, links, self._scenario_normalised(), self.summary.get("sim_time_s")).items()
            if k not in flows
        )
        for table, names in (
            (flows, FLOW_ECN_COLUMNS + FLOW_DELAY_COLUMNS + FLOW_FCT_COLUMNS),
            (links, LINK_ECN_COLUMNS + LINK_DELAY_COLUMNS + LINK_OUTAGE_COLUMNS),
        ):
            for name in names:
                if name in table:
                    table[name] = table.pop(name)
        # The tables become DataFrames when first read: a sweep's worker only needs their
        # rows, and building two frames costs more than many a short run.
        stations = dict(raw.get("stations") or {})
        self._tables: dict[str, dict[str, list[Any]]] | None = {"flows": flows, "links": links, "stations": stations}

    @functools.cached_property
    def flows(self) -> pd.DataFrame:
        """Per-flow statistics, one row per flow (see the class docstring)."""
        return tables.to_frame(self._tables["flows"])

    @functools.cached_property
    def links(self) -> pd.DataFrame:
        """Per-link-direction statistics, one row per direction."""
        return tables.to_frame(self._tables["links"])

    @functools.cached_property
    def stations(self) -> pd.DataFrame:
        """Per-station statistics of the shared media, one row per station (none without
        media)."""
        return tables.to_frame(self._tables["stations"])

    def _records(self, table: str) -> list[dict[str, Any]]:
        """Rows of ``flows`` or ``links`` as dicts, missing numbers None, without pandas
        (unless the result was loaded from a directory: the frame is all there is then)."""
        columns = self._tables[table] if self._tables is not None else tables.columns_of(getattr(self, table))
        normalised = {name: tables.numeric_or_none(values) for name, values in columns.items()}
        return [dict(zip(normalised, row)) for row in zip(*normalised.values())]

    # ----- construction from a run directory ---------------------------------------------------

    @classmethod
    def load(cls, directory: PathLike) -> Result:
        """Read a run directory written by :meth:`save` or ``renolab run`` (flows.csv,
        links.csv, summary.json and any ``<trace>.parquet`` / ``<trace>.csv``).

        The files must be one run's: :class:`RunDirectoryError` (one line) if a table or a
        trace is not one ``summary.json`` lists, or differs from what it recorded (a CSV's
        size and SHA-256, a Parquet trace's run id). Reading a trace that was cut short (a
        full disk, a second Ctrl-C) warns with :class:`renolab.RenolabWarning`.
        """
        import pandas as pd

        root = Path(directory)
        if not (root / "flows.csv").is_file():
            raise FileNotFoundError(2, "not a renolab run directory (no flows.csv)", str(root))
        summary_path = root / "summary.json"
        summary = json.loads(summary_path.read_text(encoding="utf-8")) if summary_path.is_file() else {}
        found = {}
        for name in TRACE_NAMES:
            for suffix in (".parquet", ".csv"):
                if (root / f"{name}{suffix}").is_file():
                    found.setdefault(name, []).append(root / f"{name}{suffix}")
        files = check_one_run(root, summary, found)
        self = cls.__new__(cls)
        self._tables = None
        self.flows = pd.read_csv(root / "flows.csv")
        self.links = pd.read_csv(root / "links.csv") if (root / "links.csv").is_file() else pd.DataFrame()
        self.stations = pd.read_csv(root / "stations.csv") if (root / "stations.csv").is_file() else pd.DataFrame()
        self.summary = summary
        self._raw = {}
        self._files = files
        self._loaded_from = root
        self._trace_cache = {}
        self._validated = None
        if "rate_bps" not in self.links.columns and "link" in self.links.columns:
            for column, values in _link_extras(
                tables.columns_of(self.links), self._scenario_normalised(), self.summary.get("sim_time_s")
            ).items():
                self.links[column] = values
        if "mu" not in self.flows.columns and len(self.flows):
            extras = _flow_extras(
                tables.columns_of(self.flows),
                tables.columns_of(self.links),
                self._scenario_normalised(),
                self.summary.get("sim_time_s"),
            )
            for column, values in extras.items():
                self.flows[column] = values
        return self

    # ----- traces ---------------------------------------------------------------------------------

    @property
    def trace_names(self) -> list[str]:
        """Names of the traces recorded in this run."""
        return [*self._raw, *(n for n in self._files if n not in self._raw)]

    def has_trace(self, name: str) -> bool:
        """Whether trace *name* was recorded."""
        return name in self._raw or name in self._files

    def trace(self, name: str) -> pd.DataFrame:
        """Return a recorded trace as a DataFrame.

        Columns: ``time_s`` (float seconds), ``flow`` (flow name) for a per-flow trace,
        ``link`` (link direction name) for a per-link one, then the trace's own columns (for
        ``cwnd``: ``cwnd`` and ``ssthresh``, in segments); codes are categoricals (see
        ``docs/outputs.md``).  Raises :class:`TraceNotRecordedError` if *name* was not
        requested when running.  For traces too large for memory use :meth:`iter_trace`.
        """
        from renolab.traces.files import read_table

        self._check_recorded(name)
        self._warn_if_cut(name)
        if name in self._trace_cache:
            return self._trace_cache[name].copy()
        if name in self._raw:
            raw = self._raw[name]
            frame = self._decode(name, raw.read())
            if raw.path is None:  # in memory anyway: keep the decoded table
                self._trace_cache[name] = frame
                return frame.copy()
            return frame
        return read_table(self._files[name], name, flow_names=self._flow_names(), link_names=self._link_names())

    def iter_trace(self, name: str, chunk_rows: int = CHUNK_ROWS) -> Iterator[pd.DataFrame]:
        """Yield a recorded trace as DataFrames of at most *chunk_rows* rows, in order,
        reading a spilled or saved trace piece by piece so memory stays bounded."""
        self._check_recorded(name)
        self._warn_if_cut(name)
        return self._iter_trace(name, chunk_rows)

    def _iter_trace(self, name: str, chunk_rows: int = CHUNK_ROWS) -> Iterator[pd.DataFrame]:
        """:meth:`iter_trace` without its checks."""
        from renolab.traces.decode import restore_types

        if name in self._raw:
            for chunk in self._raw[name].chunks(chunk_rows):
                yield self._decode(name, chunk)
            return
        path = self._files[name]
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq

            for batch in pq.ParquetFile(path).iter_batches(batch_size=chunk_rows):
                yield restore_types(name, batch.to_pandas(), self._flow_names(), self._link_names())
        else:
            import pandas as pd

            for frame in pd.read_csv(path, chunksize=chunk_rows):
                yield restore_types(name, frame, self._flow_names(), self._link_names())

    def _check_recorded(self, name: str) -> None:
        if not self.has_trace(name):
            recorded = ", ".join(self.trace_names) or "none"
            raise TraceNotRecordedError(
                f"trace {name!r} was not recorded (recorded: {recorded}); pass trace=[{name!r}] to Scenario.run"
            )

    def _warn_if_cut(self, name: str) -> None:
        state = (self.summary.get("traces") or {}).get(name) or {}
        if state and not state.get("complete", True):
            import warnings

            from renolab.scenario import RenolabWarning

            at = state.get("truncated_at_s")
            where = f"it stops at t = {at:.6g} s" if isinstance(at, (int, float)) else "it was not written"
            warnings.warn(f"trace {name} is incomplete: {where} ({state.get('error')})", RenolabWarning, stacklevel=3)

    def _decode(self, name: str, records: np.ndarray) -> pd.DataFrame:
        from renolab.traces.decode import decode_records

        return decode_records(name, records, self._flow_names(), self._link_names())

    def _flow_names(self) -> list[str]:
        flows = self._table_columns("flows")
        return [str(f) for f in flows["flow"]] if "flow" in flows else []

    def _link_names(self) -> list[str]:
        """Names of the traces' ``link`` codes: link directions, then media's stations."""
        links = self._table_columns("links")
        stations = self._table_columns("stations")
        names = [str(link) for link in links["link"]] if "link" in links else []
        return names + ([str(s) for s in stations["station"]] if "station" in stations else [])

    def _has_stations(self) -> bool:
        """True when the scenario has a shared medium (without building a DataFrame)."""
        stations = self._table_columns("stations")
        return "station" in stations and len(stations["station"]) > 0

    def _table_columns(self, table: str) -> Mapping[str, Any]:
        """``flows``, ``links`` or ``stations`` as columns: the core's lists, or the DataFrame
        once built."""
        if self._tables is not None and table not in self.__dict__:
            return self._tables[table]
        frame = getattr(self, table)
        return {c: frame[c] for c in frame.columns}

    def _empty_trace(self, name: str) -> pd.DataFrame:
        if name in self._raw:
            return self._decode(name, self._raw[name].empty())
        return self.trace(name).iloc[:0]  # only asked for when the trace is empty

    # ----- saving ---------------------------------------------------------------------------------

    def save(
        self,
        out_dir: PathLike,
        format: str = "parquet",
        *,
        traces: Iterable[str] | None = None,
        ns2_trace: bool = False,
        force: bool = False,
    ) -> list[Path]:
        """Write the run into *out_dir* (created if needed) and return the paths written.

        Always ``flows.csv``, ``links.csv`` and ``summary.json`` (written first); ``stations.csv``
        when the scenario has media; then one ``<trace>.parquet`` (or ``<trace>.csv`` with
        ``format="csv"``) per recorded trace, or per name in *traces*; with *ns2_trace*,
        ``ns2.tr`` (ns-2 trace lines, from the ``hops`` trace).  Traces are written chunk by
        chunk, so a trace spilled to disk by the core never has to fit in memory.  CSV and
        Parquet files are byte-identical for the same scenario and seed (CSV floats use the
        shortest round-tripping representation); ``summary.json`` also holds the wall time
        and so differs between runs.

        One run per directory (docs/outputs.md): what an earlier renolab run wrote in
        *out_dir* (the files its ``summary.json`` lists) is removed first, and a directory
        holding anything else is refused (:class:`renolab.outdir.DirectoryNotEmpty`) unless
        *force*. ``summary.json`` lists the files written (``files``), the run's ``run_id``
        (which Parquet traces carry too) and, per trace, whether it is ``complete`` (else
        ``truncated_at_s`` and ``error``). Files are written under temporary names and
        renamed, never through a symbolic link. A trace that cannot be written whole (a full
        disk) keeps what was written and is marked; Ctrl-C while traces are written marks
        them and raises ``KeyboardInterrupt`` after ``summary.json`` says so.
        """
        from renolab.outdir import run_directory

        if self._loaded_from is not None and Path(out_dir).resolve() == self._loaded_from.resolve():
            raise ValueError(f"{out_dir}: the directory this run was loaded from; save it elsewhere")
        with run_directory(out_dir, force=force) as out:
            return self._save_into(out, format, traces=traces, ns2_trace=ns2_trace)

    def _save_into(
        self,
        out: Path,
        format: str = "parquet",
        *,
        traces: Iterable[str] | None = None,
        ns2_trace: bool = False,
        pcap_from: Path | None = None,
        discard_raw: bool = False,
        time_limit_s: float | None = None,
    ) -> list[Path]:
        """:meth:`save` into *out*, a run directory already prepared (locked and cleared);
        with the pcap files of *pcap_from* moved into ``out/pcap``. *discard_raw*: the
        traces' record files are the caller's scratch: each is removed once written, and all
        of them if the tables could not be written for want of space. *time_limit_s*: the
        seconds the traces get; what is not written by then is marked
        (:mod:`renolab.saving`)."""
        if format not in FORMATS:
            raise ValueError(f"unsupported format {format!r}; allowed: {', '.join(map(repr, FORMATS))}")
        names = self.trace_names if traces is None else list(traces)
        for name in names:
            self._check_recorded(name)
        if ns2_trace:
            self._check_recorded("hops")
            if self._has_stations():
                raise ValueError("ns2.tr: ns-2's trace lines name a link's two nodes, which a medium's frames do not have; run without --ns2-trace")
        from renolab.saving import RunWriter

        return RunWriter(self, out, format, names, ns2_trace, pcap_from, discard_raw, time_limit_s).write()

    def _write_table(self, table: str, f: Any) -> None:
        """Write ``flows`` or ``links`` as CSV: from the core's columns with the standard
        library while no DataFrame was built, else the DataFrame (which may have been
        changed) with pandas; the bytes are the same."""
        if self._tables is not None and table not in self.__dict__:
            tables.write_csv(self._tables[table], f)
        else:
            from renolab.traces.files import write_csv

            write_csv(getattr(self, table), f)

    def write_ns2_trace(self, path: PathLike) -> Path:
        """Write the ``hops`` trace as ns-2 trace lines (``+ - r d`` events) to *path*.

        One line per event: ``<event> <time> <from> <to> <type> <size> ------- <fid>
        <src>.<port> <dst>.<port> <seq> <uid>``; nodes numbered in order of first appearance
        in the links table, ``fid`` and both ports the flow's index, ``type`` ``tcp`` /
        ``ack`` / ``cbr``, time rounded to the microsecond as ns-2 prints it.
        """
        from renolab.traces.decode import hops_columns
        from renolab.traces.ns2 import Ns2Numbering, write_ns2

        self._check_recorded("hops")
        if self._has_stations():
            raise ValueError("ns2.tr: ns-2's trace lines name a link's two nodes, which a medium's frames do not have; run without --ns2-trace")
        numbering = Ns2Numbering(self.links, self.flows)
        target = Path(path)
        if "hops" in self._raw:
            return write_ns2(self._raw["hops"].chunks(), numbering, target)
        names = (self._link_names(), self._flow_names())
        return write_ns2((hops_columns(frame, *names) for frame in self.iter_trace("hops")), numbering, target)

    # ----- metrics --------------------------------------------------------------------------------

    def segment_bytes(self) -> dict[str, float]:
        """Payload bytes per segment (mss, or packet_bytes of a cbr flow) of every flow."""
        return _segment_sizes(self.flows, self._scenario_normalised())

    def header_bytes(self) -> dict[str, float]:
        """Header bytes per data packet of every TCP flow (``header_bytes`` of the scenario,
        defaults resolved; NaN when the scenario is not known)."""
        specs = {str(f.get("name")): f for f in (self._scenario_normalised() or {}).get("flow", [])}
        return {name: float(specs.get(name, {}).get("header_bytes", math.nan)) for name in (str(x) for x in self.flows["flow"])}

    def throughput(self, bin_s: float | None = None) -> pd.DataFrame:
        """Per-flow ``sent_bps`` and ``goodput_bps`` in time bins (default: about 100 bins)
        from the ``seq`` trace, see :func:`renolab.metrics.throughput_series`."""
        from renolab import metrics

        seq = self.trace("seq")
        return metrics.throughput_series(seq, bin_s or self._default_bin(), self.segment_bytes())

    def normalised_throughput(self, bin_s: float | None = None) -> pd.DataFrame:
        """lee2001's T_N(t): goodput per bin over the flow's bottleneck capacity
        (:func:`renolab.metrics.normalised_throughput`)."""
        from renolab import metrics

        capacity = dict(zip(self.flows["flow"].astype(str), self.flows["bottleneck_bps"]))
        return metrics.normalised_throughput(self.trace("seq"), bin_s or self._default_bin(), capacity, self.segment_bytes())

    def recovery_episodes(self) -> pd.DataFrame:
        """joo2000's recovery analysis of every loss episode, from the ``seq`` trace (and
        the ``cwnd`` trace for W, if recorded): :func:`renolab.metrics.recovery_episodes`."""
        from renolab import metrics

        cwnd = self.trace("cwnd") if self.has_trace("cwnd") else None
        return metrics.recovery_episodes(self.trace("seq"), cwnd)

    def fairness(self, bin_s: float | None = None) -> pd.DataFrame:
        """Jain's index over the flows that share a bottleneck.

        Without *bin_s*: one row per bottleneck, ``bottleneck, flows, jain`` over the flows'
        ``goodput_bps``.  With *bin_s*: per time bin (needs the ``seq`` trace), ``bottleneck,
        time_s, jain, flows``.
        """
        import pandas as pd

        from renolab import metrics

        groups = self.flows.groupby("bottleneck", sort=False)["flow"].apply(lambda s: [str(f) for f in s])
        if bin_s is None:
            goodput = dict(zip(self.flows["flow"].astype(str), self.flows["goodput_bps"]))
            return pd.DataFrame(
                [(b, len(f), metrics.jain_index([goodput[x] for x in f])) for b, f in groups.items()],
                columns=["bottleneck", "flows", "jain"],
            )
        series = self.throughput(bin_s)
        frames = []
        for bottleneck, flows in groups.items():
            frame = metrics.jain_series(series, flows=flows)
            frame.insert(0, "bottleneck", bottleneck)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["bottleneck", "time_s", "jain", "flows"])

    def packet_latency(self, kind: str = "data") -> pd.DataFrame:
        """One-way latency of every arrived packet of *kind*, from the ``hops`` trace (of
        links only: for a run with a medium, ``flows.mean_latency_s`` has the mean)."""
        from renolab import metrics

        if self._has_stations():
            raise ValueError(
                "packet_latency: follows packets over links only, not across a medium; flows.mean_latency_s has each flow's mean"
            )
        return metrics.packet_latency(self.trace("hops"), self.flows, self.links, kind=kind)

    def link_utilisation(self, bin_s: float | None = None) -> pd.DataFrame:
        """Per link direction and time bin: the fraction of the bin spent transmitting, from
        the ``hops`` trace (:func:`renolab.metrics.link_utilisation_series`). A medium's
        stations are left out: their airtime is in :attr:`stations`."""
        from renolab import metrics

        rates = dict(zip(self.links["link"].astype(str), self.links["rate_bps"]))
        hops = self.trace("hops")
        if self._has_stations():
            hops = hops[hops["link"].astype(str).isin(rates)]
        return metrics.link_utilisation_series(hops, bin_s or self._default_bin(), rates)

    def drops_by_cause(self, by: str = "link") -> pd.DataFrame:
        """Drops per link direction (or per flow) and cause, from the ``drops`` trace."""
        from renolab import metrics

        return metrics.drops_by_cause(self.trace("drops"), by=by)

    def queue_stats(self) -> pd.DataFrame:
        """Per link direction that queued: mean (over the whole run) and peak queue, in
        packets and bytes, from the ``queue`` trace (:func:`renolab.metrics.queue_stats`)."""
        from renolab import metrics

        return metrics.queue_stats(self.trace("queue"), end_s=float(self.summary["sim_time_s"]))

    def _default_bin(self) -> float:
        duration = float(self.summary.get("sim_time_s") or 0.0)
        if duration <= 0:
            return 0.1
        # A round number near duration / 100: 1, 2 or 5 times a power of ten.
        raw = duration / 100.0
        power = 10.0 ** math.floor(math.log10(raw))
        return next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= raw)

    # ----- plots ----------------------------------------------------------------------------------

    @property
    def plot(self) -> _PlotAccessor:
        """Figures of this run: ``cwnd()``, ``seq()``, ``throughput()``, ``queue()``,
        ``summary()``, ``fct()`` (each returns a :class:`matplotlib.figure.Figure`) and
        ``save(dir)``."""
        return _PlotAccessor(self)

    # ----- internals ------------------------------------------------------------------------------

    def _scenario_normalised(self) -> dict[str, Any] | None:
        if self._validated is None:
            scenario = self.summary.get("scenario")
            self._validated = {}
            if scenario:
                try:
                    self._validated = json.loads(_core.validate(json.dumps(scenario)))
                except Exception:  # an old or foreign summary: extras stay NaN
                    self._validated = {}
        return self._validated or None

    def _headline(self) -> str:
        s = self.summary
        n = len(self.flows)
        sim = s.get("sim_time_s")
        sim_text = f"{sim:.6g} s simulated" if isinstance(sim, (int, float)) else "?"
        traces = ", ".join(self.trace_names) or "none"
        wall = s.get("wall_time_s")
        wall_text = f"{wall:.3g} s" if isinstance(wall, (int, float)) else "?"
        return (
            f"{n} flow{'s' * (n != 1)}, {sim_text}, {s.get('events', '?')} events, "
            f"stop: {s.get('stop_reason', '?')}, wall {wall_text}, traces: {traces}"
        )

    def __repr__(self) -> str:
        return f"<renolab.Result: {self._headline()}>"

    def _repr_html_(self) -> str:
        table = self.flows.to_html(index=False, max_rows=20, na_rep="–")
        import html

        return f"<p><b>renolab.Result</b>: {html.escape(self._headline())}</p>{table}"


class _PlotAccessor:
    """``result.plot``: the figures of :mod:`renolab.plot` for one run."""

    def __init__(self, result: Result) -> None:
        self._result = result

    def cwnd(
        self,
        *,
        flows: Sequence[str] | str | None = None,
        ssthresh: bool = True,
        inflated: bool = False,
        ax: Axes | None = None,
    ) -> Figure:
        """The controller's cwnd (solid) and ssthresh (dashed) vs time, one colour per flow;
        *inflated* adds the window with Reno's fast-recovery inflation (dotted)."""
        from renolab import plot

        return plot.cwnd(self._result, flows=flows, ssthresh=ssthresh, inflated=inflated, ax=ax)

    def seq(self, *, flow: str | None = None, ax: Axes | None = None) -> Figure:
        """Time-sequence graph (tcptrace style) of *flow* (default: the first)."""
        from renolab import plot

        return plot.seq(self._result, flow=flow, ax=ax)

    def throughput(
        self,
        *,
        bin_s: float | None = None,
        flows: Sequence[str] | str | None = None,
        sent: bool = False,
        ax: Axes | None = None,
    ) -> Figure:
        """Delivered throughput at the receiver vs time per flow, in bins of *bin_s*; *sent*
        adds the sending rate."""
        from renolab import plot

        return plot.throughput(self._result, bin_s=bin_s, flows=flows, sent=sent, ax=ax)

    def queue(
        self, *, links: Sequence[str] | str | None = None, average: bool = True, ax: Axes | None = None
    ) -> Figure:
        """Queue length vs time of *links* (default: the bottlenecks), with RED's average."""
        from renolab import plot

        return plot.queue(self._result, links=links, average=average, ax=ax)

    def rtt(self, *, flows: Sequence[str] | str | None = None, ax: Axes | None = None) -> Figure:
        """RTT samples and smoothed RTT vs time per flow, in ms (``rtt`` trace)."""
        from renolab import plot

        return plot.rtt(self._result, flows=flows, ax=ax)

    def rtt_cdf(self, *, flows: Sequence[str] | str | None = None, ax: Axes | None = None) -> Figure:
        """The distribution (CDF) of each flow's RTT samples, in ms."""
        from renolab import plot

        return plot.rtt_cdf(self._result, flows=flows, ax=ax)

    def fct(self) -> Figure:
        """Slowdown against flow size (median and 99th percentile per size bucket) and the
        CDF of the flow completion times (finite flows: a workload's, or ``bytes``)."""
        from renolab import plot

        return plot.fct(self._result)

    def queue_delay(self, *, links: Sequence[str] | str | None = None, ax: Axes | None = None) -> Figure:
        """Each packet's queueing delay vs time at *links* (default: the bottlenecks), in ms
        (``hops`` trace)."""
        from renolab import plot

        return plot.queue_delay(self._result, links=links, ax=ax)

    def queue_delay_cdf(self, *, links: Sequence[str] | str | None = None, ax: Axes | None = None) -> Figure:
        """The distribution (CDF) of the packets' queueing delays at *links*, in ms."""
        from renolab import plot

        return plot.queue_delay_cdf(self._result, links=links, ax=ax)

    def cc(self, *, flows: Sequence[str] | str | None = None) -> Figure:
        """The controllers' traced state vs time per flow (rates, estimates, gains, CUBIC's
        W_max and K, a Python controller's values; BBR's modes)."""
        from renolab import plot

        return plot.cc(self._result, flows=flows)

    def summary(self) -> Figure:
        """One-page summary of the run."""
        from renolab import plot

        return plot.summary(self._result)

    def save(self, out_dir: PathLike, kinds: Sequence[str] | None = None, formats: Sequence[str] = ("png",)) -> list[Path]:
        """Write the figures *kinds* (default: every one the recorded traces allow) as
        ``<kind>.<format>`` into *out_dir*."""
        from renolab import plot

        return plot.save_figures(self._result, out_dir, kinds=kinds, formats=formats)


# ----- helpers --------------------------------------------------------------------------------------


def _link_extras(
    links: Mapping[str, Sequence[Any]], scenario: Mapping[str, Any] | None, end_s: Any = None
) -> dict[str, list[float]]:
    """``rate_bps`` and ``delay_s`` of every link direction, from the normalised scenario; a
    rate or delay that varies gives its mean over the run (``end_s`` seconds; a trace's over
    its period)."""
    by_name = {str(link.get("name")): link for link in (scenario or {}).get("link", [])}
    rates, delays = [], []
    for name in (str(x) for x in links.get("link", [])):
        base, _, rev = name.partition("/")
        spec = by_name.get(name) if name in by_name else by_name.get(base)
        if spec is not None and rev == "rev":
            spec = {**spec, **(spec.get("reverse") or {})}
        rates.append(_mean_value(spec.get("rate"), parse_rate_bps, end_s) if spec else math.nan)
        delays.append(_mean_value(spec.get("delay", "0s"), parse_duration_s, end_s) if spec else math.nan)
    return {"rate_bps": rates, "delay_s": delays}


def _mean_value(value: Any, parse: Callable[[Any], float], end_s: Any) -> float:
    """*value* parsed, or for ``{"schedule": [[time, value], ...]}`` its time-weighted mean
    over ``[0, end_s)`` (its first value when the end is unknown), or for ``{"trace": FILE}``
    the trace's mean rate."""
    if not isinstance(value, Mapping):
        return parse(value)
    if "trace" in value:
        try:
            return _core.trace_rate(str(value["trace"]))
        except ValueError:
            return math.nan
    steps = [(parse_duration_s(t), parse(v)) for t, v in value.get("schedule") or []]
    if not steps:
        return math.nan
    end = float(end_s) if isinstance(end_s, (int, float)) and end_s > 0 else 0.0
    if end <= 0.0:
        return steps[0][1]
    total = 0.0
    for i, (start, v) in enumerate(steps):
        stop = min(steps[i + 1][0], end) if i + 1 < len(steps) else end
        if stop > start:
            total += v * (stop - start)
    return total / end


def _segment_sizes(flows: Mapping[str, Sequence[Any]], scenario: Mapping[str, Any] | None) -> dict[str, float]:
    specs = {str(f.get("name")): f for f in (scenario or {}).get("flow", [])}
    sizes: dict[str, float] = {}
    for i, name in enumerate(str(x) for x in flows["flow"]):
        spec = specs.get(name, {})
        size = spec.get("mss", spec.get("packet_bytes"))
        if size is None:  # infer from the counters
            delivered = flows["segments_delivered"][i] if "segments_delivered" in flows else 0
            size = flows["bytes_delivered"][i] / delivered if delivered else math.nan
        sizes[name] = float(size)
    return sizes


def _nan(value: Any) -> float:
    return math.nan if value is None else float(value)


def _flow_extras(
    flows: Mapping[str, Sequence[Any]],
    links: Mapping[str, Sequence[Any]],
    scenario: Mapping[str, Any] | None,
    sim_time_s: Any,
) -> dict[str, list[Any]]:
    """goodput_bps, sent_bps, drop_rate, bottleneck, bottleneck_bps and mu of every flow
    (plain Python: a run's Result must stay cheap to build)."""
    names = [str(x) for x in flows.get("flow", [])]
    if not names or "bytes_delivered" not in flows:
        return {}
    end = float(sim_time_s) if isinstance(sim_time_s, (int, float)) else math.nan
    sizes = _segment_sizes(flows, scenario)
    if {"from", "to", "link"} <= set(links) and "rate_bps" in links and {"src", "dst"} <= set(flows):
        necks = bottleneck_rows(flows, links)
    else:
        necks = [(n, None, math.nan, []) for n in names]
    out: dict[str, list[Any]] = {c: [] for c in FLOW_EXTRA_COLUMNS}
    for i, name in enumerate(names):
        t_c = _nan(flows["completion_time_s"][i])
        first = _nan(flows["first_send_s"][i]) if "first_send_s" in flows else math.nan
        span = end - first if math.isnan(t_c) else t_c
        delivered = float(flows["bytes_delivered"][i])
        sent = float(flows["segments_sent"][i]) if "segments_sent" in flows else math.nan
        drops = float(flows["data_drops"][i]) if "data_drops" in flows else math.nan
        capacity = necks[i][2]
        out["goodput_bps"].append(delivered * 8.0 / span if span > 0 else 0.0)
        out["sent_bps"].append(sent * sizes[name] * 8.0 / span if span > 0 and not math.isnan(sent * sizes[name]) else 0.0)
        out["drop_rate"].append(drops / sent if sent > 0 else math.nan)
        out["bottleneck"].append(necks[i][1])
        out["bottleneck_bps"].append(capacity)
        out["mu"].append(delivered * 8.0 / (capacity * t_c) if capacity > 0 and t_c > 0 else math.nan)
    return out
