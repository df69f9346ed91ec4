"""Experiments of the published studies renolab reproduces, one module per study.

Each study module ``renolab.experiments.<study>`` exposes
``reproduce(out: Path, quick: bool = False, workers: int | None = None) -> Path``
(the path of the ``report.md`` it wrote); ``renolab reproduce STUDY`` calls it
(:mod:`renolab.cli.reproduce`).
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
