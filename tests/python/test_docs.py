"""Honest documentation: every command the documentation shows runs, and code prints what the
page says it prints.

Commands come from README.md, CONTRIBUTING.md, docs/ and examples/ (their README and the
headers of the scenario files): the lines of shell code blocks and the inline code spans
that start with ``renolab``; and from every ``renolab COMMAND --help`` example
(``renolab.cli.main.EXAMPLES``). A span with a placeholder (an upper-case word such as
``SCENARIO.toml`` or ``DIR``, ``[...]``, ``...``) or naming a command without its arguments
(``renolab run``, ``renolab run --allow-python``) is a synopsis or a mention, not a command,
and is left out.

Each command runs in a scratch directory holding a copy of examples/ and the repository's
tests/ and benchmarks/, so that ``out/...`` lands there: ``renolab`` in-process through
:func:`renolab.cli.main`, ``python`` in a subprocess; it must exit with status 0. A command
that reads a directory another command writes (``renolab plot out/demo``) first runs that
command. Long commands run in a quick variant (:data:`QUICK`): a study reproduction with
``--quick`` (run once per session and study, shared with the studies' tests), a benchmark
with one repetition of one simulated second, the BBR buffer sweep on 2-second runs. Commands
that need what CI does not have are skipped with the reason (:func:`skip_reason`): ns-2
(``ns``), root and network namespaces (``renolab emulate``), a Dask cluster, and the commands
that install renolab or run this very suite.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from renolab.cli import main
from renolab.cli.main import EXAMPLES

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "examples" / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
#: Commands that take a positional argument: named alone (``renolab run``) they are a mention.
NEEDS_ARGUMENT = {"run", "emulate", "check", "sweep", "summary", "plot", "export", "validate", "reproduce"}
PLACEHOLDER = re.compile(r"(^|\s)[A-Z][A-Z0-9_]*(\.[a-z]+)?(?=\s|$|,)|\[|\.\.\.|\||<")


@dataclass(frozen=True)
class Command:
    """A command and where it is shown."""

    source: str
    text: str

    @property
    def argv(self) -> list[str]:
        """The words of the command (none for a command spread over lines of its block)."""
        try:
            return shlex.split(self.text)
        except ValueError:
            return []


def _shell_lines(body: str) -> list[str]:
    """The commands of a shell code block: continuation lines joined, prompts and comments off."""
    out = []
    for line in body.replace("\\\n", " ").splitlines():
        line = line.strip().removeprefix("$ ")
        line = re.sub(r"\s+#.*$", "", line)
        if re.match(r"(sudo )?(renolab|python|pytest|cargo|pip) ", line + " ") and not line.startswith("renolab:"):
            out.append(line)
    return out


def _page_commands(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    found = []
    for lang, body in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
        # A transcript of a failure (docs/extending.md) is checked with its own test.
        if lang in ("sh", "bash", "shell", "console", "") and "renolab: error:" not in body:
            found += _shell_lines(body)
    found += [" ".join(span.split()) for span in re.findall(r"`((?:sudo )?renolab [^`]+)`", text)]
    return found


def _example_commands(path: Path) -> list[str]:
    """The commands in a scenario file's header comment: lines ``#   renolab ...`` or
    ``# Run it:  renolab ...``, up to a comment in parentheses."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        match = re.match(r"#\s+(?:[A-Z][a-z ]*:\s+)?((?:sudo )?renolab [^(`]*?)\s*(\(.*)?$", line)
        if match:
            found.append(" ".join(match.group(1).split()))
    return found


def _is_command(text: str) -> bool:
    if not re.match(r"(sudo )?(renolab|python|pytest|cargo|pip)( |$)", text) or PLACEHOLDER.search(text.removeprefix("sudo ")):
        return False
    words = text.removeprefix("sudo ").split()
    if words[0] == "renolab" and len(words) > 1 and words[1] in NEEDS_ARGUMENT:
        # Named with options only (`renolab run --allow-python`): a mention of the option.
        return any(not w.startswith("-") for w in words[3 if words[1] == "export" else 2 :])
    return words[0] != "renolab" or len(words) > 1 and not re.match(r"\d", words[1])


def all_commands() -> list[Command]:
    found: dict[str, Command] = {}
    sources = [(str(p.relative_to(REPO)), _page_commands(p)) for p in PAGES]
    sources += [(f"examples/{p.name}", _example_commands(p)) for p in sorted((REPO / "examples").glob("*.toml"))]
    sources += [(f"renolab {name} --help", list(lines)) for name, lines in EXAMPLES.items()]
    for source, texts in sources:
        for text in texts:
            for part in (p.strip() for p in text.split("&&")):
                if part and _is_command(part) and part not in found:
                    found[part] = Command(source, part)
    return list(found.values())


COMMANDS = all_commands()

# ----- what cannot run here, and quick variants ---------------------------------------------

#: The commands that install renolab or run this suite: running them here would recurse.
SUITE = ("pip ", "pytest", "python -m pytest", "cargo ", "python -m venv")


def _root_and_namespaces() -> str | None:
    from renolab import emulate

    return emulate.unsupported_reason()


def skip_reason(command: Command) -> str | None:
    """Why *command* cannot run in this environment, or None."""
    text = command.text.removeprefix("sudo ")
    if text.startswith(SUITE):
        return "installs renolab or runs its test suite: this suite is that run"
    if text.startswith("python -c") and "assert_frame_equal" in text:
        return "compares the outputs of two cluster runs (docs/cluster.md)"
    argv = shlex.split(text)
    if "--scheduler" in argv:
        return "needs a running Dask scheduler (docs/cluster.md)"
    if "--dask" in argv:
        try:
            import distributed  # noqa: F401
        except ImportError:
            return "needs the dask extra (pip install 'renolab[dask]')"
    if argv[:2] == ["python", "tests/validation/suite.py"] and "regenerate" in argv:
        return "needs ns-2 and rewrites the stored reference (test_ns2_validation.py reruns ns-2 against it)"
    if argv[1:2] == ["emulate"] or "--emulate" in argv or ("--against" in argv and "linux" in argv):
        if "--emulate" in argv:
            return "needs root; runs the study's testbed in real time for minutes (test_emulate.py runs emulated studies)"
        reason = _root_and_namespaces()
        if reason:
            return f"needs root and network namespaces: {reason}"
    needs_ns2 = argv[1:2] == ["validate"] or ("--against" in argv and "ns2" in argv)
    if needs_ns2 and shutil.which("ns") is None:
        return "needs ns-2.35 (`ns`): apt-get install ns2 (docs/validation.md)"
    return None


def _quick_bbr_buffer(workspace: Path) -> None:
    """examples/sweep_bbr_buffer.toml on 2-second runs, one replication (30 one-minute runs)."""
    path = workspace / "examples" / "sweep_bbr_buffer.toml"
    text = path.read_text(encoding="utf-8").replace("replications = 5", "replications = 1")
    path.write_text(text.replace("[sweep.grid]\n", '[sweep.grid]\n"simulation.duration" = ["2s"]\n'), encoding="utf-8")


def quick(argv: list[str], workspace: Path) -> list[str]:
    """The quick variant of a long command (the command itself when it is short)."""
    argv = list(argv)
    if argv[1:2] == ["reproduce"] and "--quick" not in argv:
        argv.append("--quick")
    if argv[1:2] == ["bench"]:
        argv += [*(["--repeat", "1"] if "--repeat" not in argv else []), *(["--duration", "1s"] if "--duration" not in argv else [])]
    if argv[1:2] == ["sweep"] and argv[2].endswith("sweep_bbr_buffer.toml"):
        _quick_bbr_buffer(workspace)
    # Absolute output directories (/tmp/..., /shared/...) move into the workspace.
    return [a.lstrip("/") if a.startswith(("/tmp/", "/shared/")) else a for a in argv]


# ----- running ----------------------------------------------------------------------------------


def _output_of(argv: list[str]) -> str | None:
    for flag in ("--out", "-o"):
        if flag in argv:
            return argv[argv.index(flag) + 1].lstrip("/")
    return None


def _inputs(argv: list[str]) -> list[str]:
    """Paths under out/ (or a moved tmp/) the command reads."""
    out = _output_of(argv)
    return [a for a in argv[2:] if a.startswith(("out/", "tmp/")) and a != out]


def _traces(argv: list[str]) -> int:
    return len(argv[argv.index("--trace") + 1].split(",")) if "--trace" in argv else 0


def _producer(path: str, source: str) -> Command | None:
    """The command that writes the directory *path* reads from: preferably one shown beside it,
    else the one recording the most traces."""
    candidates = [c for c in COMMANDS if (o := _output_of(c.argv)) and (path == o or path.startswith(o + "/"))]
    candidates.sort(key=lambda c: (c.source != source, -_traces(c.argv)))
    return candidates[0] if candidates else None


class Workspace:
    """The scratch directory, and the commands already run in it."""

    def __init__(self, root: Path, reproduce):
        self.root, self.reproduce, self.done = root, reproduce, set()
        shutil.copytree(REPO / "examples", root / "examples")
        for name in ("tests", "benchmarks"):
            (root / name).symlink_to(REPO / name)

    def run(self, command: Command) -> None:
        if command.text in self.done:
            return
        argv = quick(shlex.split(command.text.removeprefix("sudo ")), self.root)
        for path in _inputs(argv):
            producer = _producer(path, command.source)
            assert producer is not None, f"{command.text}: nothing shown writes {path}"
            self.run(producer)
        self.done.add(command.text)
        if argv[:2] == ["renolab", "reproduce"] and "--quick" in argv and "--emulate" not in argv:
            self._reproduced(argv)
            return
        if argv[0] == "renolab":
            cwd = os.getcwd()
            os.chdir(self.root)
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    code = main(argv[1:])
            finally:
                os.chdir(cwd)
        else:
            env = {**os.environ, "MPLBACKEND": "Agg"}
            code = subprocess.run(argv, cwd=self.root, env=env, capture_output=True, text=True, timeout=600).returncode
        assert code == 0, f"{command.source}: `{command.text}` exited with {code}"

    def _reproduced(self, argv: list[str]) -> None:
        """`renolab reproduce STUDY --quick --out DIR`: the session's run of it, at DIR."""
        from renolab.experiments import STUDIES

        study = argv[2]
        out = self.root / (_output_of(argv) or f"reproduce-{study}")
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.exists():  # the same study into the same directory, shown twice
            return
        if study == "all":
            out.mkdir(exist_ok=True)
            for name in STUDIES:
                (out / name).symlink_to(self.reproduce(name))
        else:
            out.symlink_to(self.reproduce(study))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, reproduce) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("docs"), reproduce)


def test_the_commands_are_found_everywhere_they_are_shown():
    sources = {c.source for c in COMMANDS}
    assert {"README.md", "docs/sweeps.md", "examples/README.md", "renolab run --help", "renolab summary --help"} <= sources
    texts = {c.text for c in COMMANDS}
    assert "renolab reproduce lee2001 --quick --out out/lee2001" in texts  # the Quick start's
    assert "renolab plot out/parking --kind queue --link A1-A2,A2-A3,A3-A4" in texts  # an example header's
    assert not any("SCENARIO" in t or "DIR" in t.split() for t in texts)
    for name, lines in EXAMPLES.items():
        assert set(lines) <= texts, name


@pytest.mark.parametrize("command", COMMANDS, ids=[f"{c.source}: {c.text}"[:120] for c in COMMANDS])
def test_every_documented_command_runs(command, workspace):
    reason = skip_reason(command)
    if reason:
        pytest.skip(reason)
    workspace.run(command)


# ----- docs/extending.md: its code prints what the page shows -------------------------------------


def _extending_blocks() -> list[tuple[str, str]]:
    """(language, body) of every code block of docs/extending.md, in order."""
    return re.findall(r"```(\w*)\n(.*?)```", (REPO / "docs" / "extending.md").read_text(encoding="utf-8"), re.S)


def test_the_extending_pages_code_prints_what_the_page_shows(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__main__"}
    blocks = _extending_blocks()
    checked = 0
    for (lang, body), (next_lang, next_body) in zip(blocks, blocks[1:] + [("", "")]):
        if lang != "python" or body.startswith("# ctl/"):
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(body, "docs/extending.md", "exec"), namespace)
        if next_lang == "" and not next_body.startswith("$ "):
            assert printed.getvalue() == next_body, "docs/extending.md: the printed table moved"
            checked += 1
    assert checked >= 1


def test_the_failing_controller_of_the_extending_page_fails_as_shown(tmp_path):
    blocks = _extending_blocks()
    boom = next(body for lang, body in blocks if lang == "python" and body.startswith("# ctl/boom.py"))
    scenario = next(body for lang, body in blocks if lang == "toml" and body.startswith("# scenario.toml"))
    shown = next(body for lang, body in blocks if lang == "" and body.startswith("$ renolab run scenario.toml"))
    argv = shown.splitlines()[0].removeprefix("$ ").split()
    (tmp_path / "ctl").mkdir()
    (tmp_path / "ctl" / "boom.py").write_text(boom, encoding="utf-8")
    (tmp_path / "scenario.toml").write_text(scenario, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", *argv], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    got = f"$ {' '.join(argv)}\n{done.stderr}$ echo $?\n{done.returncode}\n"
    assert got.replace(str(tmp_path), "/home/me") == shown
