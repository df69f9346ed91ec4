"""The renolab command line: success paths and one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import renolab
from renolab.cli import COMMANDS, main


def _set(path, value):
    """Return a mutator that sets scenario[path...] = value."""

    def mutate(scenario):
        target = scenario
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _duplicate_flow(scenario):
    scenario["flow"].append(dict(scenario["flow"][0]))


BAD_SCENARIOS = {
    "unknown variant": (_set(["flow", 0, "variant"], "cubic-plus-plus"), "flow[0].variant"),
    "negative rate": (_set(["link", 1, "rate"], "-1Mbps"), "link[1].rate"),
    "flow source on no link": (_set(["flow", 0, "src"], "nowhere"), "flow[0].src"),
    "duplicate flow name": (_duplicate_flow, "flow[1].name"),
    "unparseable units": (_set(["link", 0, "rate"], "10 Mbits"), "link[0].rate"),
    "ambiguous units": (_set(["link", 0, "rate"], "10 mbps"), "link[0].rate"),
    "zero mss": (_set(["flow", 0, "mss"], 0), "flow[0].mss"),
}


def _assert_one_line_error(capsys, code, expected_code=2):
    captured = capsys.readouterr()
    assert code == expected_code
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("renolab: error: ")
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.mark.parametrize("case", list(BAD_SCENARIOS), ids=list(BAD_SCENARIOS))
@pytest.mark.parametrize("command", ["run", "check"])
def test_a_bad_scenario_gives_one_error_line_naming_the_field(
    case, command, small_scenario, write_scenario, tmp_path, capsys
):
    mutate, field = BAD_SCENARIOS[case]
    mutate(small_scenario)
    path = write_scenario(small_scenario)
    extra = ["--out", str(tmp_path / "out")] if command == "run" else []
    line = _assert_one_line_error(capsys, main([command, str(path), *extra]))
    assert field in line
    assert not (tmp_path / "out").exists()


def test_a_missing_scenario_file_gives_one_error_line(tmp_path, capsys):
    missing = tmp_path / "missing.toml"
    line = _assert_one_line_error(capsys, main(["run", str(missing), "--out", str(tmp_path / "out")]))
    assert str(missing) in line


def test_a_toml_syntax_error_gives_one_error_line_naming_file_and_line(write_scenario, tmp_path, capsys):
    path = write_scenario('[simulation]\nseed = 1\n\n[[link]\nfrom = "a"\n')
    line = _assert_one_line_error(capsys, main(["run", str(path), "--out", str(tmp_path / "out")]))
    assert f"{path}:4:" in line


def test_an_unknown_trace_name_gives_one_error_line(small_scenario, write_scenario, tmp_path, capsys):
    path = write_scenario(small_scenario)
    line = _assert_one_line_error(
        capsys, main(["run", str(path), "--out", str(tmp_path / "out"), "--trace", "cwnd,nonsense"])
    )
    assert "nonsense" in line


@pytest.mark.parametrize(
    "argv",
    [["frobnicate"], ["run"], ["run", "s.toml"], ["run", "s.toml", "--out", "o", "--seed", "abc"], ["check", "--bogus", "s.toml"]],
    ids=["unknown command", "no scenario", "no --out", "non-integer seed", "unknown flag"],
)
def test_bad_command_lines_give_one_error_line(argv, capsys):
    _assert_one_line_error(capsys, main(argv))


def test_renolab_alone_prints_the_help(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: renolab")
    assert all(name in out for name in COMMANDS)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_help_has_a_description_and_an_example(command, capsys):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert f"renolab {command}: {COMMANDS[command][1]}." in out
    example = out.split("example", 1)[1]
    assert f"renolab {command} " in example


def test_version_prints_the_package_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"renolab {renolab.__version__}"


def test_check_reports_the_number_of_links_and_flows(small_scenario, write_scenario, capsys):
    assert main(["check", str(write_scenario(small_scenario))]) == 0
    assert capsys.readouterr().out.strip() == "ok: 2 links, 1 flow"


def test_run_writes_results_and_prints_a_table(small_scenario, write_scenario, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["run", str(write_scenario(small_scenario)), "--out", str(out), "--trace", "cwnd", "--seed", "5"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.err == ""
    header, row = captured.out.splitlines()[:2]
    assert header.split()[:3] == ["flow", "variant", "bytes"]
    assert row.split()[:3] == ["f1", "reno", "100000"]
    assert sorted(p.name for p in out.iterdir()) == ["cwnd.parquet", "flows.csv", "links.csv", "summary.json"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 5
    assert summary["scenario"]["simulation"]["seed"] == 5


def test_run_prints_each_flows_share_and_jains_index_per_shared_bottleneck(
    small_scenario, write_scenario, tmp_path, capsys
):
    import csv

    small_scenario["link"].append({"name": "side", "from": "s2", "to": "g1", "rate": "10Mbps", "delay": "1ms"})
    small_scenario["flow"].append(dict(small_scenario["flow"][0], name="f2", src="s2", bytes=50_000))
    small_scenario["flow"].append({"name": "alone", "src": "s1", "dst": "g1", "bytes": 10_000})
    out = tmp_path / "out"
    assert main(["run", str(write_scenario(small_scenario)), "--out", str(out), "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[-1] == "share"
    rows = {r["flow"]: r for r in csv.DictReader((out / "flows.csv").open())}
    g1, g2 = float(rows["f1"]["goodput_bps"]), float(rows["f2"]["goodput_bps"])
    shares = {line.split()[0]: line.split()[-1] for line in lines[1:4]}
    assert shares == {"f1": f"{g1 / (g1 + g2):.1%}", "f2": f"{g2 / (g1 + g2):.1%}", "alone": "100.0%"}
    jain = (g1 + g2) ** 2 / (2 * (g1 * g1 + g2 * g2))
    # One line per bottleneck that flows share: "access" carries only the lone flow.
    assert lines[4] == (
        f'Jain\'s index over the 2 flows through "bottleneck": {jain:.4f} '
        "(1 = equal goodputs; share = a flow's part of their sum)"
    )
    assert lines[5] == ""


def test_run_with_format_csv_writes_the_traces_as_csv(small_scenario, write_scenario, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["run", str(write_scenario(small_scenario)), "--out", str(out), "--trace", "cwnd,seq", "--format", "csv"]
    code = main(argv)
    assert code == 0, capsys.readouterr().err
    names = sorted(p.name for p in out.iterdir())
    assert names == ["cwnd.csv", "flows.csv", "links.csv", "seq.csv", "summary.json"]
    assert (out / "cwnd.csv").read_text().splitlines()[0] == "time_s,flow,cwnd,ssthresh,inflated_cwnd"


def test_the_module_entry_point_reports_errors_in_a_subprocess(small_scenario, write_scenario, tmp_path):
    small_scenario["flow"][0]["variant"] = "cubic-plus-plus"
    path = write_scenario(small_scenario)
    proc = subprocess.run(
        [sys.executable, "-m", "renolab", "run", str(path), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith("renolab: error: flow[0].variant")


def test_the_renolab_console_script_points_at_cli_main():
    eps = entry_points()
    group = eps.select(group="console_scripts") if hasattr(eps, "select") else eps.get("console_scripts", [])
    scripts = [ep for ep in group if ep.name == "renolab"]
    assert [ep.value for ep in scripts] == ["renolab.cli:main"]


# ----- the command registry ----------------------------------------------------------------


def test_every_registered_command_has_its_module_and_help(capsys):
    import importlib

    from renolab.cli import COMMANDS

    assert main(["--help"]) == 0
    listing = capsys.readouterr().out
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        assert callable(module.add_arguments) and callable(module.run), name
        assert name in listing and help_text in listing
        assert main([name, "--help"]) == 0
        assert capsys.readouterr().out.startswith(f"usage: renolab {name} ")


def test_the_library_never_imports_the_command_line():
    import ast

    package = Path(renolab.__file__).parent
    offenders = []
    for path in package.rglob("*.py"):
        relative = path.relative_to(package)
        if relative.parts[0] == "cli" or relative.name == "__main__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            if any(n == "renolab.cli" or n.startswith("renolab.cli.") for n in names):
                offenders.append(str(relative))
    assert offenders == []
