"""Writing a run into its directory so that nothing finished is lost (:meth:`Result.save`).

Order: ``flows.csv``, ``links.csv`` (and ``stations.csv``), then ``summary.json``, listing
every file the run is about to write and each trace as not written yet; then the traces one
by one, ``summary.json`` rewritten after each to say how it went; then ``ns2.tr`` and the
pcap files. So whatever stops the writing (a full disk, a file-size limit, a second Ctrl-C,
even SIGKILL) the per-flow results are there, and ``summary.json`` says which traces are
whole: per trace ``complete``, and for one that is not, ``truncated_at_s`` (it holds every
record before that time) and ``error``.

A trace that cannot be written whole keeps its whole chunks (a CSV cut at a line, a
Parquet file closed after its last whole row group) and the next trace is tried; Ctrl-C
marks the trace being written and those after it, then goes on as ``KeyboardInterrupt``
once ``summary.json`` is written (signals are held back while it is).

The traces of a run that was interrupted (``renolab run`` and ``emulate`` after Ctrl-C,
SIGTERM or SIGHUP) get :data:`INTERRUPTED_WRITE_S` seconds: whoever stopped the run waits
for its tables, not for gigabytes of CSV. They are written shortest first; the one being
written when the time is up keeps its whole chunks, and it and those after it are marked as a
full disk marks them.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from renolab._files import new_file
from renolab.outdir import PCAP_DIR, real_subdirectory

if TYPE_CHECKING:
    from renolab.results import Result

__all__ = ["INTERRUPTED_WRITE_S", "RunWriter", "signals_held"]

#: The state of a trace while the traces are written: what stays if renolab is killed.
PENDING = "not written: renolab stopped while writing the traces"
#: Errors that mean the file system has no room for a file.
_NO_ROOM = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
#: The summary's entry for ns2.tr among the traces.
NS2_TRACE = "ns2_trace"
#: Seconds spent writing the traces of an interrupted run (Ctrl-C, SIGTERM, SIGHUP): the CSV
#: traces of a long run can take minutes (docs/benchmarks.md: 97 s for 9.5 million hops).
INTERRUPTED_WRITE_S = 5.0
#: Rows per chunk while the time is counted: the last chunk ends soon after it is up.
_TIMED_CHUNK_ROWS = 1 << 16


class OutOfTime(Exception):
    """The time for writing the traces is up (see the module documentation)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"cut short: the run was interrupted, and its traces get {seconds:g} s to be written"
        )


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold back SIGINT, SIGTERM and SIGHUP for the block (they are handled after it):
    what it writes is never left half done by them."""
    held = {signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", signal.SIGTERM)}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):  # not the main thread, or not POSIX
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _why(exc: BaseException) -> str:
    if isinstance(exc, OutOfTime):
        return str(exc)
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (Ctrl-C or a signal) while it was written"
    if isinstance(exc, OSError):
        where = f"{Path(exc.filename).name}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


def indented_json(value: Any) -> str:
    """``json.dumps(value, sort_keys=True, indent=2, default=str)``, byte for byte, in a
    fraction of its time: Python encodes with indentation in pure Python, so the C encoder
    writes it compactly and the core lays it out."""
    from renolab import _core

    return _core.indent_json(json.dumps(value, sort_keys=True, separators=(",", ":"), default=str), 2)


class RunWriter:
    """Writes one :class:`Result` into a prepared run directory (see the module
    documentation)."""

    def __init__(
        self,
        result: Result,
        out: Path,
        format: str,
        traces: list[str],
        ns2_trace: bool,
        pcap_from: Path | None,
        discard_raw: bool,
        time_limit_s: float | None = None,
    ) -> None:
        self.result = result
        self.summary = result.summary
        self.out = out
        self.format = format
        self.traces = traces
        self.ns2_trace = ns2_trace
        self.pcap_from = pcap_from
        self.discard_raw = discard_raw
        self.files: dict[str, dict[str, Any]] = {}
        self.written: list[Path] = []
        self.states: dict[str, dict[str, Any]] = dict(self.summary.get("traces") or {})
        #: Seconds the traces get (None: as long as they take), from the start of write().
        self.time_limit_s = time_limit_s
        self.deadline: float | None = None

    # -- the order ----------------------------------------------------------------------

    def write(self) -> list[Path]:
        if self.time_limit_s is not None:
            self.deadline = time.monotonic() + self.time_limit_s
        with signals_held():
            self._tables()
            self._plan()
            self._write_summary()
        interrupted: KeyboardInterrupt | None = None
        try:
            for name in self._in_order():
                self._trace(name)
            if self.ns2_trace:
                self._ns2()
        except KeyboardInterrupt as exc:
            interrupted = exc
        with signals_held():
            for state in self.states.values():
                if state.get("error") == PENDING:
                    state["error"] = "not written: interrupted (Ctrl-C or a signal) before it"
                    self.files.pop(state.pop("file", None) or "", None)
                    state["file"] = None
                    state.pop("pending", None)
            self._pcap()
            self._write_summary()
        if interrupted is not None:
            raise interrupted
        return self.written

    # -- the parts ------------------------------------------------------------------------

    def _tables(self) -> None:
        try:
            self._write_tables()
        except OSError as exc:
            if exc.errno not in _NO_ROOM or not self.discard_raw or not self.traces:
                raise
            # The traces filled the disk: they go, so that the run's results stay.
            lost = {
                "complete": False,
                "truncated_at_s": 0.0,
                "error": f"not written: no room left for the tables after the run ({_why(exc)}); dropped to keep them",
                "file": None,
            }
            for name in self.traces:
                self._discard(name, ns2_done=True)
                self.states[name] = dict(lost)
            self.traces, self.ns2_trace = [], False
            for path in self._pcap_files():
                path.unlink()
            if self.pcap_from is not None:
                self.states["pcap"] = dict(lost)
            self._write_tables()

    def _write_tables(self) -> None:
        tables = ["flows", "links"] + (["stations"] if self.result._has_stations() else [])
        for table in tables:
            path = self.out / f"{table}.csv"
            with new_file(path, "w", encoding="utf-8", newline="") as f:
                self.result._write_table(table, f)
            self._listed(path, sha256=True)

    def _plan(self) -> None:
        for name in self.traces:
            state = self.states.setdefault(name, {"complete": True, "truncated_at_s": None, "error": None})
            file = f"{name}.{self.format}"
            state["file"] = file
            state["pending"] = (state.get("complete", True), state.get("truncated_at_s"), state.get("error"))
            state.update(complete=False, error=PENDING)
            self.files[file] = {}
        if self.ns2_trace:
            self.states[NS2_TRACE] = {"file": "ns2.tr", "complete": False, "truncated_at_s": None, "error": PENDING}
            self.files["ns2.tr"] = {}
        for path in self._pcap_files():
            self.files[f"{PCAP_DIR}/{path.name}"] = {}
        if self.pcap_from is not None:
            self.states.setdefault("pcap", {"complete": True, "truncated_at_s": None, "error": None})

    def _trace(self, name: str) -> None:
        from renolab.traces.files import WriteStopped, for_file, write_trace

        state = self.states[name]
        complete, truncated_at, error = state.pop("pending")
        path = self.out / state["file"]
        empty = lambda: for_file(name, self.result._empty_trace(name))  # noqa: E731
        try:
            written = write_trace(self._frames(name), path, self.format, empty, run_id=self.summary.get("run_id"))
        except WriteStopped as stop:
            kept = stop.written
            if kept is None:
                self.files.pop(state["file"], None)
                state.update(file=None, rows=0, truncated_at_s=0.0)
            else:
                self._listed(path, size=kept.bytes, sha256=kept.sha256)
                at = kept.last_time_s if kept.last_time_s is not None else 0.0
                state.update(rows=kept.rows, truncated_at_s=min(at, truncated_at) if truncated_at is not None else at)
            state.update(complete=False, error=f"{_why(stop.cause)}" + (f"; before that, {error}" if error else ""))
            self._discard(name)
            if isinstance(stop.cause, KeyboardInterrupt):
                raise stop.cause from None
            if not isinstance(stop.cause, (OSError, OutOfTime)):
                raise stop.cause
        else:
            self._listed(path, size=written.bytes, sha256=written.sha256)
            state.update(rows=written.rows, complete=complete, truncated_at_s=truncated_at, error=error)
            self._discard(name)
        with signals_held():
            self._write_summary()

    def _in_order(self) -> list[str]:
        """The traces in the order they are written: as asked or, with the time counted,
        the shortest first (the most whole files when it is up)."""
        if self.deadline is None:
            return self.traces
        raw = self.result._raw
        return sorted(self.traces, key=lambda name: len(raw[name]) if name in raw else 0)

    def _frames(self, name: str) -> Iterator[Any]:
        """Trace *name*'s chunks as its file holds them; :class:`OutOfTime` instead of the
        next one once the time is up."""
        from renolab.traces import CHUNK_ROWS
        from renolab.traces.files import for_file

        self._check_time()
        for frame in self.result._iter_trace(name, CHUNK_ROWS if self.deadline is None else _TIMED_CHUNK_ROWS):
            yield for_file(name, frame)
            self._check_time()

    def _check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfTime(self.time_limit_s or 0.0)

    def _ns2(self) -> None:
        state = self.states[NS2_TRACE]
        path = self.out / "ns2.tr"
        try:
            self._check_time()
        except OutOfTime as exc:
            self.files.pop("ns2.tr", None)
            state.update(file=None, error=_why(exc))
            return
        try:
            self.result.write_ns2_trace(path)
            self._discard("hops", ns2_done=True)
        except OSError as exc:
            self.files.pop("ns2.tr", None)
            state.update(file=None, error=_why(exc))
            return
        except KeyboardInterrupt:
            self.files.pop("ns2.tr", None)
            state.update(file=None, error=_why(KeyboardInterrupt()))
            raise
        hops = self.states.get("hops", {})
        state.update(complete=hops.get("complete", True), truncated_at_s=hops.get("truncated_at_s"), error=hops.get("error"))
        self._listed(path)

    def _pcap_files(self) -> list[Path]:
        if self.pcap_from is None or not self.pcap_from.is_dir():
            return []
        return sorted(p for p in self.pcap_from.iterdir() if p.suffix == ".pcap" and p.is_file())

    def _pcap(self) -> None:
        files = self._pcap_files()
        if not files:
            return
        target = real_subdirectory(self.out, PCAP_DIR)
        for path in files:
            final = target / path.name
            os.replace(path, final)  # a rename within the directory: never half done
            self._listed(final)

    # -- bookkeeping ---------------------------------------------------------------------

    def _listed(self, path: Path, *, size: int | None = None, sha256: str | bool | None = None) -> None:
        """Records *path* as written (its size; and its SHA-256, given or computed when
        *sha256* is True)."""
        relative = path.relative_to(self.out).as_posix()
        if sha256 is True:
            digest = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
            sha256 = digest.hexdigest()
        info: dict[str, Any] = {"bytes": path.stat().st_size if size is None else size}
        if sha256:
            info["sha256"] = sha256
        self.files[relative] = info
        if path not in self.written:
            self.written.append(path)

    def _discard(self, name: str, *, ns2_done: bool = False) -> None:
        """Remove trace *name*'s record file if it is the caller's scratch (space for the
        next one on a full disk); ``hops`` stays until ns2.tr is written from it."""
        if name == "hops" and self.ns2_trace and not ns2_done:
            return
        raw = self.result._raw.get(name)
        if self.discard_raw and raw is not None and raw.path is not None:
            with contextlib.suppress(OSError):
                raw.path.unlink()

    def _write_summary(self) -> None:
        self.summary["files"] = {"summary.json": {}, **self.files}
        if self.states:
            self.summary["traces"] = {
                name: {k: v for k, v in state.items() if k != "pending"} for name, state in self.states.items()
            }
        path = self.out / "summary.json"
        with new_file(path, "w", encoding="utf-8") as f:
            f.write(indented_json(self.summary) + "\n")
        if path not in self.written:
            self.written.insert(min(2, len(self.written)), path)  # after flows.csv, links.csv
