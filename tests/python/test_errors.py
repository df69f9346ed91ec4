"""Every row of docs/errors.md: bad input gets exactly its documented one-line message.

The table in docs/errors.md is the source: each row's input is applied to the base scenario
(or sweep), the command runs in-process through :func:`renolab.cli.main`, and the exit
status and the single stderr line must match the row.  ``RENOLAB_UPDATE_ERRORS=1`` writes
the messages actually produced back into the table instead of failing (review the diff).
A few rows also run as a separate process, to show that no traceback escapes at all.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from renolab import Scenario, ScenarioError
from renolab.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11
    import tomli as tomllib

DOC = Path(__file__).resolve().parents[2] / "docs" / "errors.md"
UPDATE = os.environ.get("RENOLAB_UPDATE_ERRORS") == "1"
HEADER = "| # | class | input | exit | message |"


@dataclass
class Row:
    table: str  # "Scenarios" or "Sweeps"
    number: str
    cls: str
    input: str
    exit: int
    message: str
    line: int  # index of the row in the file's lines

    @property
    def id(self) -> str:
        return f"{self.table.lower()}-{self.number}-{re.sub(r'[^a-z0-9]+', '-', self.cls.lower()).strip('-')}"


def _cells(line: str) -> list[str]:
    parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [p.strip().replace("\\|", "|") for p in parts]


def _code(cell: str) -> str:
    """The text of a code span (``` `` a `b` `` ``` when it holds backticks)."""
    match = re.fullmatch(r"(`+) ?(.*?) ?\1", cell)
    return match.group(2) if match else cell


def _as_code(text: str) -> str:
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _rows() -> tuple[list[Row], dict[str, Any], dict[str, Any]]:
    lines = DOC.read_text(encoding="utf-8").splitlines()
    blocks = re.findall(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    base_scenario, base_sweep = tomllib.loads(blocks[0]), tomllib.loads(blocks[1])
    rows, table = [], ""
    for i, line in enumerate(lines):
        if line.startswith("## "):
            table = line[3:].strip()
        if table in ("Scenarios", "Sweeps") and line.startswith("| ") and line.strip() != HEADER:
            number, cls, inp, code, message = _cells(line)
            rows.append(Row(table, number, cls, _code(inp), int(code), _code(message), i))
    return rows, base_scenario, base_sweep


ROWS, BASE_SCENARIO, BASE_SWEEP = _rows()


# -- applying a row's edits -------------------------------------------------------------


def _split(text: str, sep: str) -> list[str]:
    """Split on *sep* outside quotes and brackets."""
    parts, depth, quote, current = [], 0, "", ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += ch
    parts.append(current.strip())
    return [p for p in parts if p]


def _path(text: str) -> list[str | int]:
    tokens = re.findall(r'"([^"]*)"|([A-Za-z_][\w-]*)|\[(\d+)\]', text)
    return [quoted or name or int(index) for quoted, name, index in tokens]


def _value(text: str) -> Any:
    return tomllib.loads(f"v = {text}")["v"]


def _walk(doc: Any, path: list[str | int]) -> Any:
    for key in path:
        if isinstance(key, int):
            doc = doc[key]
        else:
            doc = doc.setdefault(key, {})
    return doc


def _edit(doc: dict[str, Any], edits: str) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    for edit in _split(edits, ";"):
        if edit.startswith("del "):
            *parent, last = _path(edit[4:])
            del _walk(doc, parent)[last]
        elif edit.startswith("+ "):
            section, value = edit[2:].split("=", 1)
            doc.setdefault(section.strip(), []).append(_value(value.strip()))
        else:
            path, value = edit.split("=", 1)
            *parent, last = _path(path)
            _walk(doc, parent)[last] = _value(value.strip())
    return doc


# -- running a row ----------------------------------------------------------------------


def _expand(text: str) -> str:
    """Expand ``<<TEXT*N>>`` (TEXT repeated N times): inputs too long to write out."""
    return re.sub(r"<<(.*?)\*(\d+)>>", lambda m: m.group(1) * int(m.group(2)), text)


def _prepare(row: Row, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], dict[str, str]]:
    """Write the row's input; return the command line and the placeholders of messages."""
    sweep = row.table == "Sweeps"
    path = tmp_path / ("sweep.toml" if sweep else "scenario.toml")
    out = tmp_path / "out"
    missing = tmp_path / "missing.toml"
    places = {"{file}": str(path), "{out}": str(out), "{missing}": str(missing), "{dir}": str(tmp_path)}
    base = {**BASE_SWEEP, "base": BASE_SCENARIO} if sweep else BASE_SCENARIO
    args: list[str] = []
    text = _expand(row.input)
    if text.startswith("beside "):
        # `beside NAME "TEXT"; EDITS`: a file NAME holding TEXT beside the scenario file.
        first, _, text = text.partition(";")
        name, content = first[len("beside ") :].split(" ", 1)
        (tmp_path / name).write_text(_value(content), encoding="utf-8")
        text = text.strip()
    edits = [e for e in _split(text, ";") if not e.startswith("args: ")]
    for edit in _split(text, ";"):
        if edit.startswith("args: ") and edit != text:
            args += shlex.split(edit[len("args: ") :])
    kind, _, rest = text.partition(": ")
    if kind == "file":
        path.write_text(rest.replace("\\n", "\n"), encoding="utf-8")
    elif kind == "bytes":
        path.write_bytes(rest.encode("ascii").decode("unicode_escape").encode("latin-1"))
    elif kind == "path":  # the scenario "file" is something else
        if rest == "fifo":
            os.mkfifo(path)
        elif rest == "directory":
            path.mkdir()
        elif rest == "larger than 64 MiB":
            with open(path, "wb") as f:
                f.truncate(64 * 2**20 + 1)
        else:
            places[rest] = rest
            return ["sweep" if sweep else "run", rest, "--out", str(out)], places
    else:
        if kind == "args":
            args = shlex.split(rest.replace("{missing}", str(missing)))
        elif kind == "env":
            name, value = rest.split("=", 1)
            monkeypatch.setenv(name, value)
        doc = base if kind in ("args", "env") else _edit(base, "; ".join(edits))
        path.write_text(tomli_w.dumps(doc), encoding="utf-8")
    command = "sweep" if sweep else "run"
    if args and not args[0].startswith("-"):
        return [command, *args, "--out", str(out)], places
    return [command, str(path), "--out", str(out), *args], places


def _actual(row: Row, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    monkeypatch.delenv("RUST_BACKTRACE", raising=False)  # a panic would print a backtrace
    if row.input.startswith("python: "):
        call = row.input[len("python: ") :]
        match = re.fullmatch(r"run\((.*)\)", call)
        assert match, call
        kwargs = eval(f"dict({match.group(1)})")  # noqa: S307 - our own doc's literal
        try:
            Scenario.from_dict(BASE_SCENARIO).run(**kwargs)
        except ScenarioError as exc:
            return 2, str(exc)
        return 0, ""
    argv, places = _prepare(row, tmp_path, monkeypatch)
    code = main(argv)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("renolab: error: "), lines[0]
    message = lines[0][len("renolab: error: ") :]
    return code, _normalise(message, places)


def _normalise(message: str, places: dict[str, str]) -> str:
    """Put the placeholders back: paths of this test's files, the source location of a panic."""
    for placeholder, value in places.items():
        message = message.replace(value, placeholder)
    return re.sub(r"\(at [^()]*:\d+:\d+\)", "(at {location})", message)


_updates: dict[int, tuple[int, str]] = {}


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_bad_input_gets_its_documented_message(row, tmp_path, monkeypatch, capsys):
    code, message = _actual(row, tmp_path, monkeypatch, capsys)
    if UPDATE:
        _updates[row.line] = (code, message)
        return
    assert (code, message) == (row.exit, row.message)


def teardown_module(module: Any) -> None:
    if not (UPDATE and _updates):
        return
    lines = DOC.read_text(encoding="utf-8").splitlines()
    for index, (code, message) in _updates.items():
        cells = re.split(r"(?<!\\)\|", lines[index])
        cells[4] = f" {code} "
        cells[5] = " " + _as_code(message.replace("|", "\\|")) + " "
        lines[index] = "|".join(cells)
    DOC.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_every_row_is_numbered_once_per_table():
    for table in ("Scenarios", "Sweeps"):
        numbers = [r.number for r in ROWS if r.table == table]
        assert numbers == [str(i) for i in range(1, len(numbers) + 1)], table


@pytest.mark.parametrize("cls", ["unit: unknown rate unit", "enormous: more events than", "internal error"])
def test_as_a_separate_process_the_error_is_one_line_without_traceback(cls, tmp_path):
    row = next(r for r in ROWS if r.table == "Scenarios" and r.cls.startswith(cls))
    env = {k: v for k, v in os.environ.items() if k != "RUST_BACKTRACE"}
    monkeypatch = pytest.MonkeyPatch()
    try:
        argv, places = _prepare(row, tmp_path, monkeypatch)
        env.update({k: v for k, v in os.environ.items() if k == "RENOLAB_TEST_PANIC"})
    finally:
        monkeypatch.undo()
    proc = subprocess.run(
        [sys.executable, "-m", "renolab", *argv], capture_output=True, text=True, env=env, timeout=120
    )
    message = _normalise(proc.stderr.strip(), places)
    assert (proc.returncode, message) == (row.exit, "renolab: error: " + row.message)
