"""One process pool for many independent runs: sweeps, study reproductions, benchmarks.

:func:`run_each` calls a function on every item, in worker processes, and yields each
outcome as it finishes.  It owns what every caller needs and none should write again:

- the start method: ``fork`` on Linux when no other Python thread runs (workers start in
  milliseconds and inherit the imported modules), otherwise ``forkserver`` with renolab
  preloaded, or ``spawn`` where neither exists; ``RENOLAB_START_METHOD`` overrides it;
- batches: each task carries several consecutive items (:func:`batches`), so that the
  parent, which shares the cores, wakes and passes messages less often;
- Ctrl-C: workers ignore SIGINT and the parent stops them; a worker whose parent died exits;
- a worker process that dies (killed, out of memory): the pool is rebuilt and the items
  not finished run again, up to :data:`MAX_POOL_RESTARTS` times;
- the progress display (:class:`renolab.progress.Progress`), advanced once per item.

An exception raised by the function for one item is that item's outcome; the other items
still run.  With one worker everything runs in this process, in order.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from renolab.progress import Progress

__all__ = ["MAX_BATCH", "MAX_POOL_RESTARTS", "WorkersDied", "batches", "call_each", "cpu_count", "run_each"]

T = TypeVar("T")
R = TypeVar("R")

#: Most items one worker task carries (see :func:`batches`).
MAX_BATCH = 8
#: How many times the pool is rebuilt after a worker process died.
MAX_POOL_RESTARTS = 3


class WorkersDied(RuntimeError):
    """Worker processes kept dying: more than :data:`MAX_POOL_RESTARTS` restarts, or two in
    a row without an item finished.  ``restarts``, ``left`` (items not done) and
    ``any_finished`` say how far it got."""

    def __init__(self, restarts: int, left: int, any_finished: bool) -> None:
        self.restarts, self.left, self.any_finished = restarts, left, any_finished
        super().__init__(f"worker processes died {restarts} times; {left} runs not done")


def cpu_count() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def batches(items: Sequence[T], workers: int) -> Iterator[list[T]]:
    """*items* in consecutive batches of at most :data:`MAX_BATCH`, and at least four batches
    per worker, to keep the load balanced and progress moving."""
    size = max(1, min(MAX_BATCH, len(items) // (4 * workers)))
    for i in range(0, len(items), size):
        yield list(items[i : i + size])


def call_each(function: Callable[[T], R], items: Sequence[T]) -> list[tuple[R | None, Exception | None]]:
    """``(function(item), None)`` or ``(None, the exception it raised)`` for every item, in
    order: one item's failure does not stop the others.  What a worker task runs."""
    outcomes: list[tuple[R | None, Exception | None]] = []
    for item in items:
        try:
            outcomes.append((function(item), None))
        except Exception as exc:  # noqa: BLE001 - the item's outcome, reported by the caller
            outcomes.append((None, exc))
    return outcomes


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker process (set as its ``__cause__``)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return self.text


class _RemoteError:
    """Carries an exception from a worker with its formatted traceback; unpickled in the
    parent, it is the exception itself, its ``__cause__`` that traceback."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _rebuild_error, (self.exc, self.text)


def _rebuild_error(exc: BaseException, text: str) -> BaseException:
    exc.__cause__ = RemoteTraceback(f'\n"""\n{text}"""')
    return exc


def _call_each_in_worker(function: Callable[[T], R], items: Sequence[T]) -> list[tuple[Any, Any]]:
    """:func:`call_each`, each exception sent back with its traceback."""
    return [(value, None if error is None else _RemoteError(error)) for value, error in call_each(function, items)]


def run_each(
    function: Callable[[T], R],
    items: Sequence[T],
    *,
    workers: int | None = None,
    progress: Progress | None = None,
    in_process_errors: tuple[type[BaseException], ...] = (Exception,),
    finished_elsewhere: Callable[[int], bool] | None = None,
) -> Iterator[tuple[int, R | None, BaseException | None]]:
    """Call *function* on every item of *items* and yield ``(index, value, error)`` for each,
    in the order they finish (*error* is None, or the exception the call raised).

    *function* must be picklable (defined at module level).  *workers*: processes (default
    :func:`cpu_count`); with one, the items run here, in order, and only exceptions of
    *in_process_errors* become outcomes (others propagate).  *progress* is advanced once
    per item.  *finished_elsewhere(index)*, asked after a worker process died, says whether
    an unreported item finished anyway (e.g. its result is on disk); such an item yields
    ``(index, None, None)`` instead of running again.  Raises :class:`WorkersDied` if the
    workers keep dying.  Closing the iterator early stops the workers.
    """
    n_workers = max(1, min(workers or cpu_count(), len(items)))
    if n_workers == 1:
        for index, item in enumerate(items):
            try:
                value, error = function(item), None
            except in_process_errors as exc:
                value, error = None, exc
            _advance(progress)
            yield index, value, error
        return
    yield from _run_in_pool(function, items, n_workers, progress, finished_elsewhere)


def _run_in_pool(
    function: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    progress: Progress | None,
    finished_elsewhere: Callable[[int], bool] | None,
) -> Iterator[tuple[int, R | None, BaseException | None]]:
    ctx = _mp_context(getattr(function, "__module__", None))
    remaining = list(range(len(items)))
    finished: set[int] = set()
    restarts = stalled = 0  # pool restarts; restarts in a row without a finished item
    while remaining:
        executor = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)
        in_flight: dict[cf.Future[Any], list[int]] = {}
        progressed = False  # did this pool finish any item?

        def submit(batch: list[int]) -> None:
            in_flight[executor.submit(_call_each_in_worker, function, [items[i] for i in batch])] = batch

        pending = batches(remaining, workers)
        try:
            with _sigint_ignored():  # the workers are created by these first submissions
                for batch in itertools.islice(pending, workers):
                    submit(batch)
            while True:
                for batch in itertools.islice(pending, max(0, 2 * workers - len(in_flight))):
                    submit(batch)
                # Refill before testing: all in-flight tasks may finish in one wait.
                if not in_flight:
                    break
                done, _ = cf.wait(in_flight, timeout=1.0, return_when=cf.FIRST_COMPLETED)
                for future in done:
                    batch = in_flight.pop(future)
                    exc = future.exception()
                    if isinstance(exc, cf.process.BrokenProcessPool):
                        raise exc
                    outcomes = [(None, exc)] * len(batch) if exc is not None else future.result()
                    for index, (value, error) in zip(batch, outcomes):
                        progressed = True
                        finished.add(index)
                        _advance(progress)
                        yield index, value, error
            executor.shutdown(wait=True)
            remaining = []
        except cf.process.BrokenProcessPool:
            _stop_pool(executor)
            restarts += 1
            stalled = 0 if progressed else stalled + 1
            remaining = [i for i in remaining if i not in finished]
            if finished_elsewhere is not None:
                for index in [i for i in remaining if finished_elsewhere(i)]:
                    finished.add(index)
                    _advance(progress)
                    yield index, None, None
                remaining = [i for i in remaining if i not in finished]
            if restarts > MAX_POOL_RESTARTS or stalled >= 2:
                raise WorkersDied(restarts, len(remaining), bool(finished)) from None
            if progress is not None:
                progress.note(f"a worker process died; restarting the pool ({len(remaining)} runs left)")
        except BaseException:
            _stop_pool(executor)
            raise


def _advance(progress: Progress | None) -> None:
    if progress is not None:
        progress.advance()


def _worker_init() -> None:
    """In each worker: ignore Ctrl-C (the parent stops the workers), die of SIGTERM and
    SIGHUP (what the parent stops them with; a forked worker would otherwise inherit the
    command line's handler, which turns them into Ctrl-C), and exit if orphaned."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="renolab-orphan-watch", daemon=True).start()


def _mp_context(module: str | None) -> Any:
    """The multiprocessing context of the pool (see the module documentation)."""
    methods = multiprocessing.get_all_start_methods()
    method = os.environ.get("RENOLAB_START_METHOD", "").strip()
    if method:
        if method not in methods:
            raise ValueError(f"RENOLAB_START_METHOD={method!r}; allowed here: {', '.join(methods)}")
    elif sys.platform.startswith("linux") and threading.active_count() == 1:
        method = "fork"
    elif "forkserver" in methods:
        method = "forkserver"
    else:
        method = "spawn"
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        # Import renolab once in the fork server; each worker then starts in milliseconds.
        preload = ["renolab"] + ([module] if module and module != "__main__" else [])
        ctx.set_forkserver_preload(preload)
    return ctx


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT while worker processes are created, so they start with it ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with warnings.catch_warnings():
            # Python >= 3.12 warns about fork() next to native threads (e.g. OpenBLAS's
            # pool, which is fork-safe); fork is only chosen when no Python thread runs.
            warnings.filterwarnings("ignore", message=".*multi-threaded.*fork", category=DeprecationWarning)
            yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _stop_pool(executor: cf.ProcessPoolExecutor) -> None:
    terminate = getattr(executor, "terminate_workers", None)  # Python >= 3.14
    if terminate is not None:
        try:
            terminate()
        except Exception:
            pass
        executor.shutdown(wait=True, cancel_futures=True)
        return
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=10)
