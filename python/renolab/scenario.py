"""Scenarios: the simulated network (links, shared media), the traffic (flows) and the run
settings.

A :class:`Scenario` is a thin wrapper around a plain nested dict with exactly the
structure of a scenario TOML file (``simulation``, ``link``, ``medium``, ``flow`` and an
optional free-text ``description``).  All
validation happens in the Rust core; this module only converts between
representations and hands the scenario over.
"""

from __future__ import annotations

import copy
import datetime
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Union

from renolab import _core
from renolab._core import ScenarioError, SimulationError
from renolab._files import check_depth, parse_toml, read_text

if TYPE_CHECKING:
    from renolab.results import Result

PathLike = Union[str, "os.PathLike[str]"]


class RenolabWarning(UserWarning):
    """A scenario that runs but will not do what its author probably meant (no flow sends
    anything, ...); ``renolab run`` prints it as ``renolab: warning: ...``."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :meth:`Scenario.run`; :attr:`result` holds what the run collected up
    to then (its ``summary["stop_reason"]`` is ``"interrupted"``)."""

    def __init__(self, result: Result) -> None:
        at = result.summary.get("sim_time_s")
        super().__init__(f"interrupted at t = {at:.6g} s" if isinstance(at, (int, float)) else "interrupted")
        self.result = result


class RunError(SimulationError):
    """A run that could not do all it was asked and stopped short of it, keeping what it
    collected in :attr:`result`:

    - ``kind`` ``"memory"``: memory ran short (the run's ``simulation.max_memory``, by
      default the smaller of 8 GiB and what the machine has available, or the machine
      itself); the run stopped there, ``result.summary["stop_reason"]`` is ``"memory"``;
    - ``kind`` ``"trace"``: a trace could not be recorded whole (a full disk, a file-size
      limit, its in-memory limit); the run finished, and each such trace holds its records
      up to ``result.summary["traces"][name]["truncated_at_s"]``.

    The command line writes ``result`` (``flows.csv``, ``links.csv`` and ``summary.json``
    first) and exits with status 1.
    """

    def __init__(self, message: str, *, kind: str, result: Result) -> None:
        super().__init__(message)
        self.kind = kind
        self.result = result
        self.seed = result.summary.get("seed")
        self.scenario = json.dumps(result.summary.get("scenario"), default=str)


class Scenario:
    """A simulation scenario: links, flows and run settings.

    Build one from a TOML file (:meth:`from_toml`), a TOML string
    (:meth:`from_toml_str`), a nested dict (:meth:`from_dict`) or keywords::

        Scenario(
            simulation={"seed": 1},
            link=[{"from": "s1", "to": "r1", "rate": "10Mbps", "delay": "10ms"}],
            flow=[{"name": "f1", "variant": "reno", "src": "s1", "dst": "r1",
                   "bytes": 1_000_000}],
        )

    Construction never validates; :meth:`validate` and :meth:`run` do (in the
    Rust core) and raise :class:`renolab.ScenarioError` naming the offending
    field, e.g. ``link[0].rate: ...``.
    """

    # _json and _normalised keep what to_json and the core's validation made of _data, for
    # validate() then run() (the command line's order): None until made, and never made
    # while _data holds controller objects, whose state may change (see _memo_json).
    __slots__ = ("_data", "_json", "_normalised")

    def __init__(
        self,
        simulation: Mapping[str, Any] | None = None,
        link: Iterable[Mapping[str, Any]] | None = None,
        flow: Iterable[Mapping[str, Any]] | None = None,
        description: str | None = None,
        medium: Iterable[Mapping[str, Any]] | None = None,
        topology: Iterable[Mapping[str, Any]] | None = None,
        workload: Iterable[Mapping[str, Any]] | None = None,
    ) -> None:
        data: dict[str, Any] = {}
        if description is not None:
            data["description"] = description
        if simulation is not None:
            data["simulation"] = _table(simulation, "simulation")
        if topology is not None:  # [[topology]] helpers (docs/scenario.md), before the links
            data["topology"] = _tables(topology, "topology")
        if link is not None:
            data["link"] = _tables(link, "link")
        if medium is not None:
            data["medium"] = _tables(medium, "medium")
        if flow is not None:
            data["flow"] = _tables(flow, "flow")
        if workload is not None:  # [[workload]]: flows created as the run goes (docs/workloads.md)
            data["workload"] = _tables(workload, "workload")
        check_depth(data)
        self._own(copy.deepcopy(data))

    def _own(self, data: dict[str, Any]) -> None:
        """Make *data*, which nothing else holds, this scenario's."""
        self._data = data
        self._json: str | None = None
        self._normalised: str | None = None

    @classmethod
    def _owning(cls, data: dict[str, Any]) -> Scenario:
        """A scenario of *data*, checked for depth but not copied: the caller's own fresh
        dict, which nothing else holds (a parsed file)."""
        check_depth(data)
        scenario = cls.__new__(cls)
        scenario._own(data)
        return scenario

    # -- construction -----------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scenario:
        """Wrap a (deep-copied) nested dict with the structure of a scenario file.
        Raises :class:`ScenarioError` for anything but a mapping, and for data nested more
        than 64 levels deep or holding itself."""
        if not isinstance(data, Mapping):
            raise ScenarioError(f"scenario: expected a table (a dict), got {type(data).__name__}")
        check_depth(data)
        scenario = cls.__new__(cls)
        scenario._own(copy.deepcopy(dict(data)))
        return scenario

    @classmethod
    def from_toml_str(cls, text: str, *, source: str = "<string>") -> Scenario:
        """Parse a scenario from TOML text.

        A TOML syntax error raises :class:`ScenarioError` whose message starts
        with ``source:line:column``; so does TOML nested more than 64 levels deep or with
        a dotted key of more than 64 parts.
        """
        return cls._owning(parse_toml(text, source))

    @classmethod
    def from_toml(cls, path: PathLike) -> Scenario:
        """Read a scenario TOML file.

        A file read as data from a stranger: it must be a regular file of at most 64 MiB,
        in UTF-8 TOML; a missing or unreadable file, or one that is not that, raises
        :class:`ScenarioError` naming the file (and the line, for syntax errors). A Python
        controller it names by file (``"python:ctl.py:Class"``) is found relative to the
        scenario file and must be in its directory or below; it is imported only when a run
        is given ``allow_python=True`` (docs/extending.md).
        """
        source = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
        text = read_text(source)
        scenario = cls.from_toml_str(text, source=str(source))
        folder = os.path.dirname(os.path.abspath(source))
        if "python:" in text:
            from renolab.cc.load import absolute_paths

            # A controller's file is relative to the scenario file, not to where it runs.
            absolute_paths(scenario._data, folder)
        if "trace" in text or "cdf" in text:
            absolute_trace_paths(scenario._data, folder)
        return scenario

    # -- conversion -------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return a deep copy of the scenario as a nested dict."""
        return copy.deepcopy(self._data)

    def to_toml(self) -> str:
        """Serialise to TOML text (keys whose value is ``None`` are left out)."""
        import tomli_w

        return tomli_w.dumps(_plain(self._plain_data(), "", for_json=False))

    def to_json(self) -> str:
        """Serialise to compact JSON, the form the Rust core consumes."""
        if self._json is not None:
            return self._json
        text = json.dumps(_plain(self._plain_data(), "", for_json=True), separators=(",", ":"), allow_nan=False)
        if self._memo_json():
            self._json = text
        return text

    def _memo_json(self) -> bool:
        """Whether to_json's text (and what the core made of it) may be kept: _data is this
        scenario's own and nothing changes it once read (from_toml fixes its paths first),
        but a controller object in it may change between calls."""
        return not _holds_controller_objects(self._data)

    def _plain_data(self) -> dict[str, Any]:
        """The data with Python controller classes and instances written by name
        (``"python:module:Class"``, an instance's arguments in its flow's options)."""
        if not _holds_controller_objects(self._data):
            return self._data
        from renolab.cc.load import plain_variants

        return plain_variants(self._data)

    def with_seed(self, seed: int) -> Scenario:
        """Return a copy whose ``simulation.seed`` is *seed*."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ScenarioError(f"simulation.seed: expected a whole number, got {type(seed).__name__}")
        data = self.to_dict()
        simulation = data.setdefault("simulation", {})
        if not isinstance(simulation, dict):
            raise ScenarioError("simulation: expected a table; cannot set the seed")
        simulation["seed"] = seed
        return Scenario.from_dict(data)

    # -- Rust core --------------------------------------------------------

    def validate(self, *, allow_python: bool = False) -> dict[str, Any]:
        """Validate in the core and return the normalised scenario (all defaults filled in).

        Raises :class:`ScenarioError` on the first problem found. A Python controller named
        by a string (``"python:module:Class"``) is imported, to check that its class exists
        and takes the flow's arguments, only with *allow_python* (validating runs no code
        otherwise); a class object the scenario holds is always checked.
        """
        scenario_json = self.to_json()
        text = self._normalised or _core.validate(scenario_json)
        if self._json is not None:  # kept: so is what the core made of it
            self._normalised = text
        normalised: dict[str, Any] = json.loads(text)
        from renolab.cc.load import controllers, names_python_controller, names_python_code

        if names_python_controller(self._data) and (allow_python or not names_python_code(self._data)):
            controllers(self._data, scenario_json, allow_python=allow_python)
        return normalised

    def run(
        self,
        trace: str | Iterable[str] = (),
        check_invariants: bool = False,
        *,
        trace_dir: PathLike | None = None,
        pcap_dir: PathLike | None = None,
        trace_memory_limit: int | None = None,
        progress: Callable[[float, int], object] | None = None,
        allow_python: bool = False,
    ) -> Result:
        """Simulate the scenario and return a :class:`renolab.Result`.

        *trace* names the time series to record (``"cwnd"``, ``"seq"``, ``"rtt"``,
        ``"queue"``, ``"drops"``, ``"hops"``, ``"cc"``); with *trace_dir* they stream to files there
        instead of memory. Kept in memory, each trace may take at most
        *trace_memory_limit* bytes (default 2 GiB): a run whose estimate says it would
        record more is refused before it starts, and one that outgrows the limit anyway
        stops with :class:`renolab.SimulationError`. *pcap_dir* receives one pcap file per
        link. *check_invariants* enables the core's (slower) internal consistency checks.
        Raises :class:`ScenarioError` for an invalid scenario, a trace name or a limit
        (``simulation.max_events``, ``max_memory``, the trace limit) and
        :class:`renolab.SimulationError` if the simulation itself fails; the latter carries
        ``kind`` (``"panic"``, ``"invariant"`` or ``"trace"``), ``seed`` and ``scenario``
        (the JSON text that was run) to reproduce it.

        *progress*, if given, is called as ``progress(sim_time_s, events)`` about every
        50 ms of wall-clock time while the run goes on (e.g.
        :meth:`renolab.progress.RunProgress.update`). Ctrl-C stops the run within about
        50 ms and raises :class:`RunInterrupted` (a ``KeyboardInterrupt``) whose ``result``
        holds what was collected. A run in which no flow sends anything (no flows, or every
        flow starting after the end) warns with :class:`RenolabWarning`, saying why.
        A flow's variant may be a Python controller (:mod:`renolab.cc`): the run then holds
        the GIL throughout, and an exception in the controller's code raises
        :class:`renolab.SimulationError` with ``kind`` ``"controller"``, a one-line message
        naming the class, the method and the simulated time, the user's traceback in
        ``user_traceback`` and the exception as its ``__cause__``. A controller named by a
        string (``"python:module:Class"``, as scenario files do) is imported only with
        *allow_python*: a scenario is data, and importing runs its code
        (docs/extending.md); a class object the scenario holds needs no permission.

        The run may add at most ``simulation.max_memory`` to the process's memory (by
        default the smaller of 8 GiB and what the machine has available: a scenario whose
        estimate needs more is refused before it starts). Memory running short stops the
        run and raises :class:`RunError` (``kind`` ``"memory"``) holding what was
        collected; so does a trace that could not be recorded whole (``kind`` ``"trace"``:
        a full disk, a file-size limit), after the run finished.
        """
        from renolab.cc.load import controllers, names_python_controller
        from renolab.results import Result

        traces = _trace_names(trace)
        limit = _whole_number(trace_memory_limit, "trace_memory_limit")
        if progress is not None and not callable(progress):
            raise ScenarioError(f"progress: expected a function progress(sim_time_s, events), got {type(progress).__name__}")
        directories = [_directory(d, name) for d, name in ((trace_dir, "trace_dir"), (pcap_dir, "pcap_dir"))]
        scenario_json = self.to_json()
        python = (
            controllers(self._data, scenario_json, allow_python=bool(allow_python))
            if names_python_controller(self._data)
            else None
        )
        for directory in directories:
            if directory is not None:
                os.makedirs(directory, exist_ok=True)
        start = time.perf_counter()
        raw = _core.run(
            scenario_json,
            traces,
            bool(check_invariants),
            *directories,
            limit,
            progress,
            python,
            _memory_available(),
        )
        wall_time_s = time.perf_counter() - start
        # What validate() found already: the result need not validate the same text again.
        known = json.loads(self._normalised) if self._normalised is not None else None
        result = Result(raw, scenario=json.loads(scenario_json), wall_time_s=wall_time_s, normalised=known)
        stopped_short(result)
        reason = idle_reason(result)
        if reason is not None:
            import warnings

            warnings.warn(reason, RenolabWarning, stacklevel=2)
        return result

    # -- dunder -----------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scenario):
            return NotImplemented
        return self._data == other._data

    __hash__ = None  # type: ignore[assignment]  # mutable contents

    def __repr__(self) -> str:
        links = self._data.get("link")
        flows = self._data.get("flow")
        n_links = len(links) if isinstance(links, list) else 0
        n_flows = len(flows) if isinstance(flows, list) else 0
        return f"<renolab.Scenario: {n_links} link{'s' * (n_links != 1)}, {n_flows} flow{'s' * (n_flows != 1)}>"


def stopped_short(result: Result) -> None:
    """Raises what *result* calls for: :class:`RunInterrupted` after Ctrl-C (or SIGTERM,
    SIGHUP), :class:`RunError` if memory ran short or a trace was cut."""
    summary = result.summary
    at = summary.get("sim_time_s")
    if summary.get("stop_reason") == "interrupted":
        raise RunInterrupted(result)
    if summary.get("stop_reason") == "memory":
        raise RunError(
            f"{summary.get('memory_error', 'memory ran short')}; the run stopped at t = {at:.6g} s "
            "with what it had collected (shorten the run, record fewer traces in memory, or free memory)",
            kind="memory",
            result=result,
        )
    cut = {name: state for name, state in (summary.get("traces") or {}).items() if not state.get("complete", True)}
    if cut:
        name, state = next(iter(cut.items()))
        others = f" ({len(cut) - 1} more trace(s) cut too)" if len(cut) > 1 else ""
        raise RunError(
            f"{state.get('error')}; the trace stops at t = {state.get('truncated_at_s'):.6g} s{others}; "
            "the run finished and its other results are whole",
            kind="trace",
            result=result,
        )


def _memory_available() -> int | None:
    """What this process may still allocate (bytes), or None where it cannot be measured."""
    available: int | None = _core.available_memory()
    return available


def _trace_names(trace: Any) -> list[str]:
    if isinstance(trace, str):
        return [trace]
    try:
        names = list(trace)
    except TypeError:
        raise ScenarioError(f"trace: expected a trace name or a list of them, got {type(trace).__name__}") from None
    for name in names:
        if not isinstance(name, str):
            raise ScenarioError(f"trace: expected trace names (strings), got {type(name).__name__}")
    return names


def _whole_number(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**64:
        raise ScenarioError(f"{name}: expected a whole number of bytes from 0 to 2^64 - 1, got {value!r:.60}")
    return value


def _directory(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise ScenarioError(f"{name}: expected a directory path, got {type(value).__name__}")
    path = os.fspath(value)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not path or "\0" in path:
        raise ScenarioError(f"{name}: {path!r} is not a directory path")
    return path


def _table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ScenarioError(f"{where}: expected a table (a dict), got {type(value).__name__}")
    return dict(value)


def _tables(value: Any, where: str) -> list[Any]:
    if isinstance(value, Mapping):
        return [dict(value)]
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ScenarioError(f"{where}: expected a list of tables, got {type(value).__name__}")
    return list(value)


def absolute_trace_paths(data: dict[str, Any], base_dir: str | os.PathLike[str]) -> None:
    """Makes each link's ``rate = { trace = "FILE" }`` (in ``[[link]]`` tables, their
    ``reverse`` tables and ``[[topology]]`` link settings) and each workload's ``sizes = {
    cdf = "FILE" }`` absolute, relative to *base_dir* (the scenario file's directory), in
    place."""

    def fix(table: Any) -> None:
        if not isinstance(table, dict):
            return
        rate = table.get("rate")
        if isinstance(rate, dict) and isinstance(rate.get("trace"), str) and not os.path.isabs(rate["trace"]):
            rate["trace"] = os.path.normpath(os.path.join(os.fspath(base_dir), rate["trace"]))
        fix(table.get("reverse"))

    for section in ("link", "topology"):
        tables = data.get(section)
        for table in tables if isinstance(tables, list) else [tables]:
            fix(table)
            if section == "topology" and isinstance(table, dict):
                for settings in table.values():
                    fix(settings)
    workloads = data.get("workload")
    for table in workloads if isinstance(workloads, list) else [workloads]:
        sizes = table.get("sizes") if isinstance(table, dict) else None
        if isinstance(sizes, dict) and isinstance(sizes.get("cdf"), str) and not os.path.isabs(sizes["cdf"]):
            sizes["cdf"] = os.path.normpath(os.path.join(os.fspath(base_dir), sizes["cdf"]))


def idle_reason(result: Result) -> str | None:
    """Why no flow of *result*'s run sent anything, or None if one did."""
    rows = result._records("flows")
    if not rows:
        return "the scenario has no flows ([[flow]] tables): nothing was sent; add a [[flow]] to simulate traffic"
    if any(row.get("first_send_s") is not None for row in rows):
        return None
    normalised = result._scenario_normalised() or {}
    end = result.summary.get("sim_time_s")
    starts = []
    for flow in normalised.get("flow", []):
        start = flow.get("start", "0s")
        if isinstance(start, dict):  # { uniform = [low, high] }
            start = (start.get("uniform") or ["0s"])[0]
        starts.append((flow.get("name"), _seconds(start)))
    if starts and isinstance(end, (int, float)) and all(s is not None and s >= end for _, s in starts):
        name, first = min(starts, key=lambda item: item[1])
        return (
            f"every flow starts at or after the end of the run ({end:g} s; the first, {name}, at {first:g} s): "
            "nothing was sent; lengthen simulation.duration or start the flows earlier"
        )
    return "no flow sent anything during the run"


def _seconds(duration: Any) -> float | None:
    from renolab.units import parse_duration_s

    try:
        return float(parse_duration_s(duration))
    except (TypeError, ValueError):
        return None


def _holds_controller_objects(data: Mapping[str, Any]) -> bool:
    """True if a flow's variant is an object (a Python controller's class or instance), not a name."""
    flows = data.get("flow")
    items = flows if isinstance(flows, list) else [flows]
    return any(isinstance(f, Mapping) and not isinstance(f.get("variant", ""), str) for f in items)


#: Values _plain returns as they are, checked before anything else (most of a scenario is
#: these): exact types only, as a subclass may be a numpy scalar; ints are range-checked.
_AS_THEY_ARE = frozenset({str, bool})


def _plain(value: Any, path: str, *, for_json: bool) -> Any:
    """Convert *value* to plain TOML/JSON-compatible Python objects.

    Numpy scalars become Python numbers, tuples become lists, ``None`` table
    entries are dropped, dates become ISO strings (JSON only).  Values that cannot
    be represented at all raise :class:`ScenarioError` naming their *path*.
    """
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ScenarioError(_core.shorten_message(f"{path or 'scenario'}: key {key!r} is not a string"))
            if type(item) in _AS_THEY_ARE:
                out[key] = item
            elif item is not None:
                out[key] = _plain(item, f"{path}.{key}" if path else key, for_json=for_json)
        return out
    if isinstance(value, (list, tuple)):
        return [item if type(item) in _AS_THEY_ARE else _plain(item, f"{path}[{i}]", for_json=for_json) for i, item in enumerate(value)]
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        # Beyond any field's range, and past 4300 digits not even printable.
        raise ScenarioError(f"{path or 'scenario'}: a whole number of about {int(value.bit_length() * 0.30103)} digits is out of range")
    if isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if for_json and not math.isfinite(value):
            raise ScenarioError(f"{path}: {value!r} is not a finite number")
        return value
    if isinstance(value, (datetime.date, datetime.time)):  # TOML dates/times
        return value.isoformat() if for_json else value
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        return _plain(value.item(), path, for_json=for_json)
    raise ScenarioError(_core.shorten_message(f"{path or 'scenario'}: {type(value).__name__} values are not allowed in a scenario"))
