"""Experiments of the published studies renolab reproduces, one module per study.

Each study module ``renolab.experiments.<study>`` exposes
``reproduce(out: Path, quick: bool = False, workers: int | None = None) -> Path``
(the path of the ``report.md`` it wrote); ``renolab reproduce STUDY`` calls it.
The framework: :mod:`renolab.experiments.report` (Report, paper_values) and
:mod:`renolab.experiments.runner` (run_many).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Callable

#: Study name -> module path, in the order ``renolab reproduce all`` runs them.
STUDIES: dict[str, str] = {
    "lee2001": "renolab.experiments.lee2001",
    "subedi2008": "renolab.experiments.subedi2008",
    "joo2000": "renolab.experiments.joo2000",
    "charalambous1998": "renolab.experiments.charalambous1998",
    "fickling": "renolab.experiments.fickling",
}


class StudyNotAvailable(LookupError):
    """A registered study whose module (or its ``reproduce``) does not exist yet."""


def study_module(name: str) -> ModuleType:
    """Import the module of study *name*; KeyError if unknown, StudyNotAvailable if not written yet."""
    if name not in STUDIES:
        raise KeyError(name)
    path = STUDIES[name]
    try:
        module = importlib.import_module(path)
    except ModuleNotFoundError as exc:
        if exc.name == path:
            raise StudyNotAvailable(f"study {name!r} is not available yet") from None
        raise
    if not callable(getattr(module, "reproduce", None)):
        raise StudyNotAvailable(f"study {name!r} is not available yet")
    return module


def reproducer(name: str) -> Callable[..., Path]:
    """The ``reproduce`` function of study *name*."""
    return study_module(name).reproduce  # type: ignore[no-any-return]


# ----- the ``renolab reproduce`` command ------------------------------------------------------


def add_arguments(parser: object) -> None:
    """Arguments of ``renolab reproduce`` (called by :mod:`renolab.cli`)."""
    names = ", ".join([*STUDIES, "all"])
    parser.add_argument("study", metavar="STUDY", help=f"study to reproduce: {names}")  # type: ignore[attr-defined]
    parser.add_argument(  # type: ignore[attr-defined]
        "--out", metavar="DIR", help="output directory (default: reproduce-<STUDY>); 'all' writes DIR/<study>/"
    )
    parser.add_argument(  # type: ignore[attr-defined]
        "--quick", action="store_true", help="reduced grid / fewer seeds: under a minute on 2 cores (CI, demo)"
    )
    parser.add_argument("--workers", type=int, metavar="N", help="worker processes (default: every core)")  # type: ignore[attr-defined]
    parser.add_argument(  # type: ignore[attr-defined]
        "--emulate",
        action="store_true",
        help="run the study with real Linux kernels through the emulated path (charalambous1998; root)",
    )


def run_command(args: object) -> int:
    """Handler of ``renolab reproduce``: exit 0, or 2 (unknown / unavailable study, bad option)."""
    import sys
    import time

    study: str = args.study  # type: ignore[attr-defined]
    workers = args.workers  # type: ignore[attr-defined]
    quick = bool(args.quick)  # type: ignore[attr-defined]
    if workers is not None and workers < 1:
        print(f"renolab: error: --workers: {workers} is not a whole number >= 1", file=sys.stderr)
        return 2
    if study != "all" and study not in STUDIES:
        print(f"renolab: error: unknown study {study!r}; studies: {', '.join([*STUDIES, 'all'])}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path(f"reproduce-{study}")  # type: ignore[attr-defined]
    names = list(STUDIES) if study == "all" else [study]
    emulate = bool(getattr(args, "emulate", False))
    if emulate and names != ["charalambous1998"]:
        print("renolab: error: --emulate: only charalambous1998 runs with real kernels", file=sys.stderr)
        return 2
    missing = []
    for name in names:
        try:
            reproduce = reproducer(name)
        except StudyNotAvailable as exc:
            if study != "all":
                print(f"renolab: error: {exc}", file=sys.stderr)
                return 2
            missing.append(name)
            print(f"{name}: not available yet, skipped", file=sys.stderr)
            continue
        target = out / name if study == "all" else out
        start = time.perf_counter()
        if emulate:
            from renolab.emulate import EmulationError, unsupported_reason

            reason = unsupported_reason()
            if reason:
                print(f"renolab: error: {reason}", file=sys.stderr)
                return 2
            try:
                report = reproduce(target, quick=quick, workers=workers, emulate=True)
            except EmulationError as exc:
                print(f"renolab: error: emulation failed: {exc}", file=sys.stderr)
                return 1
        else:
            report = reproduce(target, quick=quick, workers=workers)
        print(f"{name}: wrote {report} ({time.perf_counter() - start:.1f} s)")
    if missing and len(missing) == len(names):
        print("renolab: error: no study is available yet", file=sys.stderr)
        return 2
    return 0
