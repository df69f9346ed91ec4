"""Every figure renders to PNG and SVG headless, from a fresh result and from a run directory."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.figure import Figure

from renolab import Result, Scenario, plot
from renolab.cli import main

KINDS = ["cwnd", "seq", "throughput", "queue", "summary"]


@pytest.fixture(scope="module")
def result():
    from conftest import small_scenario_dict

    return Scenario.from_dict(small_scenario_dict()).run(trace=["cwnd", "seq", "queue"])


@pytest.mark.parametrize("kind", KINDS)
def test_each_figure_renders_to_png_and_svg(result, kind, tmp_path):
    fig = getattr(result.plot, kind)()
    assert isinstance(fig, Figure)
    for fmt in ("png", "svg"):
        path = tmp_path / f"{kind}.{fmt}"
        fig.savefig(path)
        assert path.stat().st_size > 1000
    if kind != "summary":
        ax = fig.axes[0]
        assert ax.get_xlabel() == "time (s)"
        assert ax.get_ylabel()
        assert ax.get_legend() is not None


def test_the_summary_page_says_which_trace_is_missing(small_scenario, tmp_path):
    only_cwnd = Scenario.from_dict(small_scenario).run(trace=["cwnd"])
    fig = only_cwnd.plot.summary()
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert any("--trace seq" in t for t in texts)
    assert any("--trace queue" in t for t in texts)
    assert plot.available_kinds(only_cwnd) == ["cwnd", "summary"]
    with pytest.raises(ValueError, match="needs the 'seq' trace"):
        only_cwnd.plot.save(tmp_path, kinds=["seq"])


def test_renolab_plot_draws_a_run_directory(result, tmp_path, capsys):
    run_dir = tmp_path / "run"
    result.save(run_dir, format="csv")
    code = main(["plot", str(run_dir), "--format", "png,svg"])
    assert code == 0, capsys.readouterr().err
    written = sorted(p.name for p in (run_dir / "plots").iterdir())
    assert written == sorted(f"{k}.{f}" for k in KINDS for f in ("png", "svg"))
    assert all((run_dir / "plots" / name).stat().st_size > 1000 for name in written)
    # A chosen figure into a chosen directory; a figure whose trace is missing is a usage error.
    assert main(["plot", str(run_dir), "--kind", "cwnd", "--out", str(tmp_path / "figs")]) == 0
    assert [p.name for p in (tmp_path / "figs").iterdir()] == ["cwnd.png"]
    capsys.readouterr()
    assert main(["plot", str(run_dir), "--kind", "cwnd", "--format", "bmp"]) == 2
    assert "bmp" in capsys.readouterr().err
    assert main(["plot", str(tmp_path / "nowhere")]) == 2


def test_the_cc_figure_draws_bbrs_pacing_rate_and_mode_timeline(small_scenario, tmp_path, capsys):
    small_scenario["flow"][0]["variant"] = "bbr"
    run = Scenario.from_dict(small_scenario).run(trace=["cc"])
    assert plot.available_kinds(run) == ["cc", "summary"]
    fig = run.plot.cc()
    rates, lanes = fig.axes[0], fig.axes[1]
    assert [line.get_label() for line in rates.lines] == ["f1 pacing rate", "f1 btl_bw", "f1 delivery rate"]
    assert lanes.get_xlabel() == "time (s)"
    # Startup, Drain and ProbeBW as bands, in the colours of their legend.
    bands = [c.get_facecolor()[0].tolist() for c in lanes.collections]
    assert [t.get_text() for t in lanes.get_legend().get_texts()][:3] == ["startup", "drain", "probe_bw"]
    assert len(bands) >= 3
    run.save(tmp_path / "run", format="csv")
    assert main(["plot", str(tmp_path / "run"), "--kind", "cc"]) == 0, capsys.readouterr().err
    assert (tmp_path / "run" / "plots" / "cc.png").stat().st_size > 1000


def test_figures_from_a_loaded_parquet_run_match_the_live_one(result, tmp_path):
    result.save(tmp_path)
    loaded = Result.load(tmp_path)
    live, back = result.plot.cwnd(), loaded.plot.cwnd()
    assert len(live.axes[0].lines) == len(back.axes[0].lines) == 2
    for a, b in zip(live.axes[0].lines, back.axes[0].lines):
        np.testing.assert_array_equal(a.get_xydata(), b.get_xydata())
