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
    """Print ``renolab: error: <message>`` (one line, long values cut) on stderr and return
    *code*."""
    from renolab._core import shorten_message

    text = " ".join(str(message).splitlines()).strip() or type(message).__name__
    print(f"renolab: error: {shorten_message(text)}", file=sys.stderr)
    return code


def names(text: str) -> list[str]:
    """The names of a comma-separated option value (``--trace cwnd,seq``), blanks left out."""
    return [name.strip() for name in text.split(",") if name.strip()]


def check_workers(workers: int | None) -> None:
    """``--workers N`` must be at least 1."""
    if workers is not None and workers < 1:
        raise UsageError(f"--workers: {workers} is not a whole number >= 1")


def add_allow_python(parser: object, what: str) -> None:
    """``--allow-python``: the *what*'s Python controllers may be imported (docs/extending.md)."""
    parser.add_argument(  # type: ignore[attr-defined]
        "--allow-python",
        action="store_true",
        help=f'let the {what}\'s Python controllers (variant = "python:...") be imported and run: '
        f"only for a {what} you trust (docs/extending.md)",
    )
