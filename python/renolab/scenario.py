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
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Union

from renolab import _core
from renolab._core import ScenarioError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

if TYPE_CHECKING:
    from renolab.results import Result

PathLike = Union[str, "os.PathLike[str]"]

_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


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

    __slots__ = ("_data",)

    def __init__(
        self,
        simulation: Mapping[str, Any] | None = None,
        link: Iterable[Mapping[str, Any]] | None = None,
        flow: Iterable[Mapping[str, Any]] | None = None,
        description: str | None = None,
        medium: Iterable[Mapping[str, Any]] | None = None,
        topology: Iterable[Mapping[str, Any]] | None = None,
    ) -> None:
        data: dict[str, Any] = {}
        if description is not None:
            data["description"] = description
        if simulation is not None:
            data["simulation"] = copy.deepcopy(dict(simulation))
        if topology is not None:  # [[topology]] helpers (docs/scenario.md), before the links
            data["topology"] = copy.deepcopy(list(topology))
        if link is not None:
            data["link"] = copy.deepcopy(list(link))
        if medium is not None:
            data["medium"] = copy.deepcopy(list(medium))
        if flow is not None:
            data["flow"] = copy.deepcopy(list(flow))
        self._data = data

    # -- construction -----------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scenario:
        """Wrap a (deep-copied) nested dict with the structure of a scenario file."""
        if not isinstance(data, Mapping):
            raise TypeError(f"a scenario must be a mapping, not {type(data).__name__}")
        scenario = cls.__new__(cls)
        scenario._data = copy.deepcopy(dict(data))
        return scenario

    @classmethod
    def from_toml_str(cls, text: str, *, source: str = "<string>") -> Scenario:
        """Parse a scenario from TOML text.

        A TOML syntax error raises :class:`ScenarioError` whose message starts
        with ``source:line:column``.
        """
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ScenarioError(_describe_toml_error(source, exc)) from None
        return cls.from_dict(data)

    @classmethod
    def from_toml(cls, path: PathLike) -> Scenario:
        """Read a scenario TOML file.

        A missing or unreadable file raises :class:`OSError`; a file that is not
        valid UTF-8 TOML raises :class:`ScenarioError` naming the file (and the
        line, for syntax errors).
        """
        source = os.fspath(path)
        with open(source, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ScenarioError(f"{source}: not a UTF-8 text file ({exc.reason} at byte {exc.start})") from None
        scenario = cls.from_toml_str(text, source=source)
        if "python:" in text:
            from renolab.cc.load import absolute_paths

            # A controller's file is relative to the scenario file, not to where it runs.
            absolute_paths(scenario._data, os.path.dirname(os.path.abspath(source)))
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
        return json.dumps(_plain(self._plain_data(), "", for_json=True), separators=(",", ":"), allow_nan=False)

    def _plain_data(self) -> dict[str, Any]:
        """The data with Python controller classes and instances written by name
        (``"python:module:Class"``, an instance's arguments in its flow's options)."""
        if not _holds_controller_objects(self._data):
            return self._data
        from renolab.cc.load import plain_variants

        return plain_variants(self._data)

    def with_seed(self, seed: int) -> Scenario:
        """Return a copy whose ``simulation.seed`` is *seed*."""
        data = self.to_dict()
        simulation = data.setdefault("simulation", {})
        if not isinstance(simulation, dict):
            raise ScenarioError("simulation: expected a table; cannot set the seed")
        simulation["seed"] = seed
        return Scenario.from_dict(data)

    # -- Rust core --------------------------------------------------------

    def validate(self) -> dict[str, Any]:
        """Validate in the core and return the normalised scenario (all defaults filled in).

        Raises :class:`ScenarioError` on the first problem found.
        """
        scenario_json = self.to_json()
        normalised: dict[str, Any] = json.loads(_core.validate(scenario_json))
        from renolab.cc.load import controllers, names_python_controller

        if names_python_controller(self._data):
            controllers(self._data, scenario_json)  # the classes exist and take the arguments
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
        ``user_traceback`` and the exception as its ``__cause__``.
        """
        from renolab.cc.load import controllers, names_python_controller
        from renolab.results import Result

        traces = [trace] if isinstance(trace, str) else list(trace)
        scenario_json = self.to_json()
        python = controllers(self._data, scenario_json) if names_python_controller(self._data) else None
        for directory in (trace_dir, pcap_dir):
            if directory is not None:
                os.makedirs(directory, exist_ok=True)
        start = time.perf_counter()
        raw = _core.run(
            scenario_json,
            traces,
            bool(check_invariants),
            None if trace_dir is None else os.fspath(trace_dir),
            None if pcap_dir is None else os.fspath(pcap_dir),
            None if trace_memory_limit is None else int(trace_memory_limit),
            progress,
            python,
        )
        wall_time_s = time.perf_counter() - start
        result = Result(raw, scenario=json.loads(scenario_json), wall_time_s=wall_time_s)
        if result.summary.get("stop_reason") == "interrupted":
            raise RunInterrupted(result)
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


def _describe_toml_error(source: str, exc: Exception) -> str:
    """Turn a TOMLDecodeError into ``source:line:col: invalid TOML: reason``."""
    message = str(exc)
    match = _TOML_POSITION.search(message)
    if match:
        reason = message[: match.start()]
        return f"{source}:{match.group(1)}:{match.group(2)}: invalid TOML: {reason}"
    return f"{source}: invalid TOML: {message}"


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
                raise ScenarioError(f"{path or 'scenario'}: key {key!r} is not a string")
            if item is not None:
                out[key] = _plain(item, f"{path}.{key}" if path else key, for_json=for_json)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(item, f"{path}[{i}]", for_json=for_json) for i, item in enumerate(value)]
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
    raise ScenarioError(f"{path or 'scenario'}: {type(value).__name__} values are not allowed in a scenario")
