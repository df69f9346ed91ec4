"""The command registry, the parser and the mapping of exceptions to exit codes."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import NoReturn

from renolab import __version__
from renolab._core import ScenarioError, SimulationError
from renolab.cli._common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_SIMULATION_FAILED,
    UsageError,
    fail,
)

#: Every command: name -> (module, one-line help), in the order ``renolab --help`` lists
#: them.  The module has ``add_arguments(parser)`` and ``run(args) -> int``.
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("renolab.cli.run", "simulate a scenario and write results"),
    "emulate": ("renolab.cli.emulate", "run the TCP flows with real Linux kernels (root)"),
    "check": ("renolab.cli.check", "validate a scenario without running it"),
    "sweep": ("renolab.cli.sweep", "run a parameter sweep in parallel (resumable)"),
    "summary": ("renolab.cli.summary", "print the summary table of a finished sweep"),
    "bench": ("renolab.cli.bench", "measure renolab's speed, side by side with ns-2"),
    "plot": ("renolab.cli.plot", "draw the figures of a run or sweep directory (PNG, SVG)"),
    "export": ("renolab.cli.export", "write the scenario for another simulator (ns2)"),
    "validate": ("renolab.cli.validate", "run the scenario in renolab and ns-2 (or Linux) and compare"),
    "reproduce": ("renolab.cli.reproduce", "reproduce a published study: figures, tables, report"),
}

#: An example of every command, shown at the end of ``renolab COMMAND --help``.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "run": (
        "renolab run examples/lee2001_w640.toml --out out/demo --trace cwnd,seq",
        "renolab run examples/dumbbell_red.toml --out out/red --trace queue --format csv",
    ),
    "emulate": ("sudo renolab emulate examples/lee2001_w640.toml --out out/kernel --trace cwnd",),
    "check": ("renolab check examples/dumbbell_red.toml",),
    "sweep": ("renolab sweep examples/sweep_variants.toml --out out/variants --workers 2",),
    "summary": ("renolab summary out/variants", "renolab summary out/variants --metric goodput_bps,jain --flow f1"),
    "bench": ("renolab bench --repeat 1",),
    "plot": (
        "renolab plot out/demo --kind cwnd,seq --flow f1",
        "renolab plot out/variants --x link.bottleneck.rate_bps --y goodput_bps --hue flow.f1.variant",
    ),
    "export": ("renolab export ns2 examples/lee2001_w640.toml -o lee2001.tcl",),
    "validate": ("renolab validate examples/lee2001_w640.toml", "renolab validate tests/validation/random_red_two_reno.toml --runs 5"),
    "reproduce": ("renolab reproduce lee2001 --quick --out out/lee2001",),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``renolab`` parser.  Every command is listed; only *command*'s module is
    imported to add its arguments (the others are not needed to parse its command line)."""
    parser = _Parser(prog="renolab", description="Packet-level TCP congestion-control simulator.")
    parser.add_argument("--version", action="version", version=f"renolab {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, help_text) in COMMANDS.items():
        examples = "\n".join(f"  {line}" for line in EXAMPLES.get(name, ()))
        sub = commands.add_parser(
            name,
            help=help_text,
            description=f"renolab {name}: {help_text}.",
            epilog=f"example{'s' * (len(EXAMPLES.get(name, ())) > 1)}:\n{examples}" if examples else None,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if name == command:
            module = importlib.import_module(module_name)
            module.add_arguments(sub)
            sub.set_defaults(handler=module.run)
    return parser


def _show_warning(message: Warning | str, category: type[Warning], *args: object, **kwargs: object) -> None:
    """renolab's own warnings as one line, ``renolab: warning: <message>``, on stderr."""
    from renolab.scenario import RenolabWarning

    if issubclass(category, RenolabWarning):
        print(f"renolab: warning: {message}", file=sys.stderr)
    else:
        _DEFAULT_SHOW_WARNING(message, category, *args, **kwargs)  # type: ignore[arg-type]


_DEFAULT_SHOW_WARNING = warnings.showwarning


def _command_of(argv: Sequence[str]) -> str | None:
    """The command named on the command line: its first word that is not an option."""
    return next((word for word in argv if not word.startswith("-")), None)


#: The signals received while the command ran, in order.
_RECEIVED: list[int] = []
#: Signals that stop a command as Ctrl-C does: what `timeout`, `kill`, SLURM and systemd
#: send (SIGTERM), and a closed terminal (SIGHUP).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def signal_received() -> int | None:
    """The number of the last stop signal the command received, or None."""
    return _RECEIVED[-1] if _RECEIVED else None


def _stop(signum: int, frame: object) -> None:
    _RECEIVED.append(signum)
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextlib.contextmanager
def _stop_signals_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP raise KeyboardInterrupt, as SIGINT does: a run stops and keeps
    what it collected; the exit status is 128 + the signal's number."""
    _RECEIVED.clear()
    try:
        previous = {sig: signal.signal(sig, _stop) for sig in STOP_SIGNALS}
    except ValueError:  # not the main thread: leave the handlers alone
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with *argv* (default ``sys.argv[1:]``) and return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # `renolab` alone: what it can do
        build_parser().print_help()
        return EXIT_OK
    warnings.showwarning = _show_warning
    with _stop_signals_interrupt():
        return _main(argv)


def _main(argv: list[str]) -> int:
    from renolab.results import RunDirectoryError

    try:
        parser = build_parser(_command_of(argv))
        args = parser.parse_args(argv)
    except UsageError as exc:
        return fail(exc, EXIT_BAD_INPUT)
    except SystemExit as exc:  # --help / --version
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    try:
        code: int = args.handler(args)
        return code
    except UsageError as exc:
        return fail(exc, EXIT_BAD_INPUT)
    except (ScenarioError, RunDirectoryError) as exc:
        return fail(exc, EXIT_BAD_INPUT)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return fail(f"{where}{exc.strerror or exc}", EXIT_BAD_INPUT)
    except SimulationError as exc:
        code = fail(f"simulation failed: {exc}", EXIT_SIMULATION_FAILED)
        # A Python controller's error: its own traceback (the user's code only) after the line.
        user_traceback = getattr(exc, "user_traceback", None)
        if user_traceback:
            print(user_traceback.rstrip("\n"), file=sys.stderr)
        return code
    except KeyboardInterrupt as exc:  # a sweep's SweepInterrupted says what was kept
        from renolab.cli.run import exit_status_of

        text = str(exc) if str(exc) and str(exc) not in {s.name for s in signal.Signals} else "interrupted"
        return fail(text, exit_status_of(exc))


if __name__ == "__main__":
    sys.exit(main())
