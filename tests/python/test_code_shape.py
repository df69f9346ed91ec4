"""The shape of the Python code (issue 26): the studies' code is short functions, one job
each, and no source file outside the tests grows past 800 lines."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = ROOT / "python" / "renolab" / "experiments"
#: The longest function python/renolab/experiments/ may have, in lines (def to last line).
MAX_FUNCTION_LINES = 80
#: The longest Python source file outside tests/, in lines.
MAX_FILE_LINES = 800
#: Directories that hold no source of ours: tests, virtual environments, build outputs.
NOT_SOURCE = {"tests", "target", "build", "dist", "node_modules", "__pycache__"}


def long_functions(source: str, limit: int) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function or method in *source* longer than
    *limit* lines, nested ones included."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1  # type: ignore[operator]
            if length > limit:
                found.append((node.name, node.lineno, length))
    return found


def python_sources() -> list[Path]:
    """Every .py file of the repository outside tests and hidden or build directories."""
    return sorted(
        p for p in ROOT.rglob("*.py")
        if not any(part in NOT_SOURCE or part.startswith(".") or part == "site-packages" for part in p.relative_to(ROOT).parts[:-1])
    )


def test_the_length_check_finds_a_long_function() -> None:
    body = "\n".join(f"        x{i} = {i}" for i in range(80))
    source = f"def short():\n    return 1\n\n\nclass C:\n    def long(self):\n{body}\n"
    assert long_functions(source, MAX_FUNCTION_LINES) == [("long", 6, 81)]


def test_no_function_in_the_experiments_is_over_80_lines() -> None:
    files = sorted(EXPERIMENTS.rglob("*.py"))
    assert len(files) > 20, files  # every study's package is there
    long = [
        f"{path.relative_to(ROOT)}:{line} {name}() has {length} lines"
        for path in files
        for name, line, length in long_functions(path.read_text(encoding="utf-8"), MAX_FUNCTION_LINES)
    ]
    assert not long, "split these by job (grid, runs, claims, figures, report):\n" + "\n".join(long)


def test_every_study_is_split_into_the_same_modules() -> None:
    from renolab.experiments import STUDIES

    jobs = {"__init__.py", "scenarios.py", "grid.py", "runs.py", "claims.py", "figures.py", "tables.py", "report.py"}
    for study in STUDIES:
        present = {p.name for p in (EXPERIMENTS / study).glob("*.py")}
        assert jobs <= present, (study, sorted(jobs - present))


def test_no_python_source_file_outside_tests_is_over_800_lines() -> None:
    files = python_sources()
    assert any(p.name == "scenario.py" for p in files)
    assert not any(p.relative_to(ROOT).parts[0] == "tests" for p in files)
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in files if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES]
    assert not long, "split these files by job:\n" + "\n".join(long)


def rust_sources() -> list[Path]:
    """Every .rs file of the crates outside tests (`tests/` directories, `tests.rs` modules)
    and build directories."""
    return sorted(
        p for p in (ROOT / "crates").rglob("*.rs")
        if p.name != "tests.rs" and not any(part in ("tests", "target", "benches") for part in p.relative_to(ROOT).parts)
    )


def test_no_rust_source_file_outside_tests_is_over_800_lines() -> None:
    files = rust_sources()
    assert any(p.name == "lib.rs" for p in files)
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in files if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES]
    assert not long, "split these files by job:\n" + "\n".join(long)
