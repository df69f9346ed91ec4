"""The progress display of many runs (sweeps, study reproductions): done / total, rate, ETA.

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

__all__ = ["Progress"]

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
