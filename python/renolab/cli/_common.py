"""What every command shares: exit codes, the usage error, the one-line error message."""

from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_SIMULATION_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A command-line usage problem: reported as one line, exit status 2."""


def fail(message: object, code: int) -> int:
    """Print ``renolab: error: <message>`` (one line) on stderr and return *code*."""
    text = " ".join(str(message).split("\n")).strip() or type(message).__name__
    print(f"renolab: error: {text}", file=sys.stderr)
    return code


def check_workers(workers: int | None) -> None:
    """``--workers N`` must be at least 1."""
    if workers is not None and workers < 1:
        raise UsageError(f"--workers: {workers} is not a whole number >= 1")
