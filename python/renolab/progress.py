"""The progress displays: of many runs (sweeps, study reproductions: :class:`Progress`, done /
total, rate, ETA) and of one long run (``renolab run``: :class:`RunProgress`, simulated
time, events per second, ETA).

On a terminal, and in a Jupyter notebook, it is a tqdm bar (``tqdm.auto``: the notebook gets
its widget); tqdm is imported only then.  Elsewhere (a log file, CI) it prints a plain line
at every 10 % and at least every 30 s::

    sweep: 12/40 runs (30%), 3 already done, 4.1 runs/s, ETA 7.0 s

:meth:`Progress.note` prints a message on a line of its own (``sweep: a worker process
died; ...``) without breaking the bar.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from renolab._text import format_duration

__all__ = ["Progress", "RunProgress"]

#: Seconds between two plain lines, at most (a line is also printed at every 10 %).
PLAIN_INTERVAL_S = 30.0


class Progress:
    """Progress of *total* runs named *desc* (``"sweep"``, ``"lee2001"``), *done* of them
    finished before it started (counted, and said, as "already done")."""

    def __init__(
        self, total: int, desc: str = "runs", *, done: int = 0, stream: TextIO | None = None, enabled: bool = True
    ) -> None:
        self.total, self.done, self.skipped = total, done, done
        self.desc = desc or "runs"
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and total > 0
        self.start = time.perf_counter()
        self._bar: Any = None
        self._last_draw = 0.0
        self._last_decile = -1
        if self.enabled:
            if _interactive(self.stream):
                self._bar = _tqdm_bar(self)
            else:
                self._print(force=True)

    def advance(self, n: int = 1) -> None:
        """Count *n* more runs as finished."""
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(n)
        else:
            self._print(force=self.done >= self.total)

    def note(self, message: str) -> None:
        """Print ``<desc>: <message>`` on a line of its own."""
        if not self.enabled:
            return
        line = f"{self.desc}: {message}"
        if self._bar is not None:
            self._bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def line(self) -> str:
        """The plain progress line."""
        elapsed = time.perf_counter() - self.start
        new = self.done - self.skipped
        pct = 100.0 * self.done / self.total if self.total else 100.0
        text = f"{self.desc}: {self.done}/{self.total} runs ({pct:.0f}%)"
        if self.skipped:
            text += f", {self.skipped} already done"
        if new > 0 and elapsed > 0:
            rate = new / elapsed
            text += f", {rate:.3g} runs/s"
            if self.done < self.total:
                text += f", ETA {format_duration((self.total - self.done) / rate)}"
            else:
                text += f", {format_duration(elapsed)}"
        return text

    def close(self) -> None:
        """End the display (the bar stays on screen)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _print(self, force: bool = False) -> None:
        now = time.perf_counter()
        decile = int(10 * self.done / self.total) if self.total else 10
        if force or decile != self._last_decile or now - self._last_draw >= PLAIN_INTERVAL_S:
            print(self.line(), file=self.stream, flush=True)
            self._last_decile, self._last_draw = decile, now


def _interactive(stream: TextIO) -> bool:
    """A terminal, or the standard error of a Jupyter kernel (where tqdm draws a widget)."""
    if getattr(stream, "isatty", lambda: False)():
        return True
    return stream is sys.stderr and "ipykernel" in sys.modules


def _tqdm_bar(progress: Progress) -> Any:
    from tqdm.auto import tqdm

    return tqdm(
        total=progress.total,
        initial=progress.done,
        desc=progress.desc,
        unit="run",
        file=progress.stream,
        dynamic_ncols=True,
        mininterval=0.1,
        leave=True,
    )


class RunProgress:
    """Progress of one run on a terminal: a line ``run: simulated 12.3 of 300 s (4%),
    5.1 M events/s, ETA 1 min 03 s`` redrawn in place (*total_s*: the run's duration, None
    when it ends with its flows: no percentage or ETA then).

    Nothing is drawn on a stream that is not a terminal, nor for runs shorter than
    :attr:`DELAY_S`; :meth:`close` erases the line.  Pass :meth:`update` as
    ``Scenario.run(progress=...)``.
    """

    #: Wall-clock seconds before the line first appears, and between redraws.
    DELAY_S = 0.5
    REDRAW_S = 0.2

    def __init__(self, total_s: float | None, *, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total_s = total_s if total_s and total_s > 0 else None
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.perf_counter()
        self._drawn = 0  # characters on screen
        self._last_draw = 0.0

    def update(self, sim_time_s: float, events: int) -> None:
        """The run has simulated *sim_time_s* seconds in *events* events."""
        if not self.enabled:
            return
        now = time.perf_counter()
        elapsed = now - self.start
        if elapsed < self.DELAY_S or now - self._last_draw < self.REDRAW_S:
            return
        self._last_draw = now
        self._draw(self.line(sim_time_s, events, elapsed))

    def line(self, sim_time_s: float, events: int, elapsed: float) -> str:
        """The progress line after *elapsed* wall-clock seconds."""
        text = f"run: simulated {sim_time_s:.4g}"
        if self.total_s is not None:
            text += f" of {self.total_s:.4g} s ({100.0 * min(sim_time_s / self.total_s, 1.0):.0f}%)"
        else:
            text += " s"
        if elapsed > 0:
            text += f", {_si(events / elapsed)} events/s"
            if self.total_s is not None and sim_time_s > 0:
                text += f", ETA {format_duration((self.total_s - sim_time_s) * elapsed / sim_time_s)}"
        return text

    def close(self) -> None:
        """Erase the line, if one was drawn."""
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _draw(self, text: str) -> None:
        self.stream.write("\r" + text.ljust(self._drawn))
        self.stream.flush()
        self._drawn = max(self._drawn, len(text))


def _si(value: float) -> str:
    """``"512"``, ``"12.3 k"``, ``"5.1 M"``."""
    for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3g} {prefix}"
    return f"{value:.3g}"
