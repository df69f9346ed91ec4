"""``renolab reproduce STUDY [--out DIR] [--quick] [--workers N] [--force]``: reproduce a
published study (:mod:`renolab.experiments`); ``all`` runs every study into
``DIR/<study>/``. A study's directory holds one reproduction, as a run directory holds one
run (:func:`renolab.outdir.study_directory`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from renolab.cli._common import EXIT_BAD_INPUT, EXIT_OK, EXIT_SIMULATION_FAILED, UsageError, check_workers, fail
from renolab.experiments import STUDIES, StudyNotAvailable, reproducer
from renolab.outdir import checked_path, studies_directory, study_directory


def add_arguments(parser: argparse.ArgumentParser) -> None:
    names = ", ".join([*STUDIES, "all"])
    parser.add_argument("study", metavar="STUDY", help=f"study to reproduce: {names}")
    parser.add_argument(
        "--out", metavar="DIR", help="output directory (default: reproduce-<STUDY>); 'all' writes DIR/<study>/"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="reduced grid / fewer seeds: under a minute on 2 cores (CI, demo); a claim that no 95 %% interval "
        "or exact value decides is 'inconclusive (quick run)'"
    )
    parser.add_argument("--workers", type=int, metavar="N", help="worker processes (default: every core)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into a directory holding files renolab reproduce did not write (they stay; "
        "without it such a directory is refused)",
    )
    parser.add_argument(
        "--emulate",
        action="store_true",
        help="run the study with real Linux kernels through the emulated path (charalambous1998; root)",
    )


def run(args: argparse.Namespace) -> int:
    """Exit 0, or 2 (unknown / unavailable study, bad option, a directory holding files
    renolab reproduce did not write)."""
    check_workers(args.workers)
    study: str = args.study
    if study != "all" and study not in STUDIES:
        raise UsageError(f"unknown study {study!r}; studies: {', '.join([*STUDIES, 'all'])}")
    try:
        out = checked_path(args.out) if args.out is not None else Path(f"reproduce-{study}")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    names = list(STUDIES) if study == "all" else [study]
    if args.emulate:
        if names != ["charalambous1998"]:
            raise UsageError("--emulate: only charalambous1998 runs with real kernels")
        from renolab.emulate import unsupported_reason

        reason = unsupported_reason()
        if reason:
            return fail(reason, EXIT_BAD_INPUT)
    if study == "all":
        studies_directory(out, names, force=args.force)
    missing = []
    for name in names:
        try:
            reproduce = reproducer(name)
        except StudyNotAvailable as exc:
            if study != "all":
                return fail(exc, EXIT_BAD_INPUT)
            missing.append(name)
            print(f"{name}: not available yet, skipped", file=sys.stderr)
            continue
        start = time.perf_counter()
        with study_directory(out / name if study == "all" else out, force=args.force) as directory:
            if args.emulate:
                from renolab.emulate import EmulationError

                try:
                    report = reproduce(directory, quick=bool(args.quick), workers=args.workers, emulate=True)
                except EmulationError as exc:
                    return fail(f"emulation failed: {exc}", EXIT_SIMULATION_FAILED)
            else:
                report = reproduce(directory, quick=bool(args.quick), workers=args.workers)
        html = Path(report).with_suffix(".html")
        also = f" and {html.name}" if html.is_file() else ""
        print(f"{name}: wrote {report}{also} ({time.perf_counter() - start:.1f} s)")
    if missing and len(missing) == len(names):
        return fail("no study is available yet", EXIT_BAD_INPUT)
    return EXIT_OK
