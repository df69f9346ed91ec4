"""Outputs written safely, one run per directory (issues 31 and 32).

A run never writes through a symbolic link planted in --out; it removes what an earlier
renolab run wrote there (the files its summary.json lists) and refuses a directory holding
anything else unless --force; summary.json carries a run id that Parquet traces carry too
(CSV files: their size and SHA-256 in summary.json), and Result.load / renolab plot refuse a
directory that mixes runs. The ns-2 exporter escapes what it copies from the scenario.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pandas as pd
import pytest
import tomli_w
from conftest import small_scenario_dict

from renolab import Result, Scenario
from renolab.cli import main
from renolab.outdir import DirectoryNotEmpty
from renolab.results import RunDirectoryError
from renolab.traces.files import parquet_run_id


@pytest.fixture
def scenario_file(tmp_path):
    data = small_scenario_dict()
    data["simulation"]["profile"] = "ns2"
    path = tmp_path / "scenario.toml"
    path.write_text(tomli_w.dumps(data))
    return path


def test_planted_symbolic_links_are_replaced_never_followed(scenario_file, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    targets = {}
    for name in ("flows.csv", "summary.json", "cwnd.csv", "links.csv"):
        targets[name] = elsewhere / name
        targets[name].write_text("precious")
        (out / name).symlink_to(targets[name])
    (elsewhere / "pcap").mkdir()
    (out / "pcap").symlink_to(elsewhere / "pcap")
    args = ["run", str(scenario_file), "--out", str(out), "--trace", "cwnd", "--format", "csv", "--pcap"]
    # Links it did not write: the directory is refused as it is ...
    assert main(args) == 2
    assert "did not write" in capsys.readouterr().err
    # ... and with --force, written beside them without following one.
    assert main([*args, "--force"]) == 0
    assert all(t.read_text() == "precious" for t in targets.values())
    assert list((elsewhere / "pcap").iterdir()) == []
    for name in ("flows.csv", "summary.json", "cwnd.csv", "links.csv", "pcap"):
        assert not (out / name).is_symlink(), name
    assert (out / "pcap" / "bottleneck.pcap").stat().st_size > 24
    assert json.loads((out / "summary.json").read_text())["stop_reason"] == "all_flows_finished"


def test_a_rerun_replaces_the_earlier_runs_files_and_never_mixes_them(scenario_file, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "--trace", "cwnd,seq"]) == 0
    assert main(["plot", str(out), "--kind", "cwnd"]) == 0
    assert (out / "plots" / "cwnd.png").is_file()
    other = small_scenario_dict()
    other["flow"][0]["bytes"] = 50_000
    (tmp_path / "b.toml").write_text(tomli_w.dumps(other))
    assert main(["run", str(tmp_path / "b.toml"), "--out", str(out), "--trace", "queue", "--pcap"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert sorted(p.name for p in out.iterdir()) == ["flows.csv", "links.csv", "pcap", "queue.parquet", "summary.json"]
    assert sorted(summary["files"]) == sorted(
        ["flows.csv", "links.csv", "summary.json", "queue.parquet", *(f"pcap/{p.name}" for p in (out / "pcap").iterdir())]
    )
    assert parquet_run_id(out / "queue.parquet") == summary["run_id"]
    # A fourth run without pcap removes the third's pcap directory too.
    assert main(["run", str(tmp_path / "b.toml"), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["flows.csv", "links.csv", "summary.json"]
    capsys.readouterr()


def test_an_older_renolabs_run_directory_is_recognised_by_its_names(scenario_file, tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "--trace", "cwnd"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    for key in ("files", "run_id", "traces"):
        del summary[key]
    (out / "summary.json").write_text(json.dumps(summary))
    assert main(["run", str(scenario_file), "--out", str(out), "--trace", "seq"]) == 0
    assert not (out / "cwnd.parquet").exists()


def test_a_directory_of_other_files_is_refused_unless_forced(scenario_file, tmp_path, capsys):
    out = tmp_path / "home"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    assert main(["run", str(scenario_file), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"renolab: error: {out}: holds files a renolab run did not write (thesis.tex)")
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]
    assert main(["run", str(scenario_file), "--out", str(out), "--force"]) == 0
    assert (out / "thesis.tex").read_text() == "years of work"
    # Its own files go on being replaced; the others stay.
    assert main(["run", str(scenario_file), "--out", str(out), "--force"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["flows.csv", "links.csv", "summary.json", "thesis.tex"]
    with pytest.raises(DirectoryNotEmpty):
        Scenario.from_toml(scenario_file).run().save(tmp_path / "home")


def test_a_summary_listing_paths_outside_the_directory_removes_nothing_there(scenario_file, tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out)]) == 0
    victim = tmp_path / "victim.csv"
    victim.write_text("keep me")
    summary = json.loads((out / "summary.json").read_text())
    summary["files"]["../victim.csv"] = {}
    summary["files"]["/etc/hostname"] = {}
    (out / "summary.json").write_text(json.dumps(summary))
    assert main(["run", str(scenario_file), "--out", str(out)]) == 0
    assert victim.read_text() == "keep me"


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_load_and_plot_refuse_a_trace_from_another_run(scenario_file, tmp_path, fmt, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["run", str(scenario_file), "--out", str(a), "--trace", "cwnd,seq", "--format", fmt]) == 0
    other = small_scenario_dict()
    other["flow"][0]["bytes"] = 60_000
    (tmp_path / "b.toml").write_text(tomli_w.dumps(other))
    assert main(["run", str(tmp_path / "b.toml"), "--out", str(b), "--trace", "cwnd", "--format", fmt]) == 0
    Result.load(b)  # whole: fine
    shutil.copy(a / f"seq.{fmt}", b / f"seq.{fmt}")  # not one of b's files
    with pytest.raises(RunDirectoryError, match=f"seq.{fmt} is not one of the files run"):
        Result.load(b)
    (b / f"seq.{fmt}").unlink()
    shutil.copy(a / f"cwnd.{fmt}", b / f"cwnd.{fmt}")  # b's name, a's content
    with pytest.raises(RunDirectoryError, match=f"cwnd.{fmt} (has|carries|is not the file)"):
        Result.load(b)
    capsys.readouterr()
    assert main(["plot", str(b)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "mixes runs" in err


def test_the_same_run_gives_the_same_files_byte_for_byte(scenario_file, tmp_path):
    for name in ("a", "b"):
        assert main(["run", str(scenario_file), "--out", str(tmp_path / name), "--trace", "cwnd"]) == 0
    assert (tmp_path / "a" / "cwnd.parquet").read_bytes() == (tmp_path / "b" / "cwnd.parquet").read_bytes()
    ids = [json.loads((tmp_path / n / "summary.json").read_text())["run_id"] for n in "ab"]
    assert ids[0] == ids[1]


def test_a_loaded_cut_trace_warns_when_read(scenario_file, tmp_path):
    from renolab import RenolabWarning

    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "--trace", "cwnd", "--format", "csv"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    summary["traces"]["cwnd"].update(complete=False, truncated_at_s=0.5, error="cannot write: No space left on device")
    (out / "summary.json").write_text(json.dumps(summary))
    with pytest.warns(RenolabWarning, match="trace cwnd is incomplete: it stops at t = 0.5 s"):
        Result.load(out).trace("cwnd")


def test_pandas_and_the_csv_module_read_csv_traces_as_before(scenario_file, tmp_path):
    # The run id of a CSV trace is kept out of the file (in summary.json): no comment line.
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--out", str(out), "--trace", "cwnd", "--format", "csv"]) == 0
    frame = pd.read_csv(out / "cwnd.csv")
    assert list(frame.columns[:3]) == ["time_s", "flow", "cwnd"]


# -- the ns-2 exporter ------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (ns) is not installed")
def test_the_ns2_script_escapes_a_hostile_file_name_and_description(tmp_path):
    marker = tmp_path / "PWNED"
    data = small_scenario_dict()
    data["simulation"]["profile"] = "ns2"
    data["description"] = "x\nexec touch PWNED\n#"
    path = tmp_path / "a\nexec touch PWNED\\"
    path.mkdir()
    scenario = path / "b\nexec touch PWNED\\.toml"
    scenario.write_text(tomli_w.dumps(data))
    script = tmp_path / "x.tcl"
    assert main(["export", "ns2", str(scenario), "-o", str(script)]) == 0
    text = script.read_text()
    assert not any(line.lstrip().startswith("exec") for line in text.splitlines())
    assert not any(line.startswith("#") and line.endswith("\\") for line in text.splitlines())
    proc = subprocess.run(["ns", str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()


def test_comments_of_the_ns2_script_hold_one_line_of_plain_ascii():
    from renolab.ns2.export import _comment

    assert _comment("a\nb\\") == "a<U+000A>b<U+005C>"
    assert _comment("é\r") == "<U+00E9><U+000D>"


def test_export_writes_to_standard_output_without_a_traceback_for_a_bad_name(tmp_path):
    data = small_scenario_dict()
    data["link"][1]["name"] = "x\\"
    (tmp_path / "s.toml").write_text(tomli_w.dumps(data))
    proc = subprocess.run(
        [sys.executable, "-m", "renolab", "export", "ns2", str(tmp_path / "s.toml")], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "is not a valid name" in proc.stderr and "Traceback" not in proc.stderr
