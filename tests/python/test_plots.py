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


def _line(ax, label):
    lines = [line for line in ax.lines if line.get_label() == label]
    assert len(lines) == 1, (label, [line.get_label() for line in ax.lines])
    return lines[0]


def _time_axes(fig):
    ax = fig.axes[0]
    assert ax.get_xlabel() == "time (s)"
    assert ax.get_legend() is not None
    return ax


def test_cwnd_draws_the_cwnd_trace_as_steps_to_the_end_of_the_run(result):
    ax = _time_axes(result.plot.cwnd())
    trace = result.trace("cwnd")
    end = result.summary["sim_time_s"]
    line = _line(ax, "f1 cwnd")
    assert line.get_drawstyle() == "steps-post"
    np.testing.assert_array_equal(line.get_xdata(), [*trace["time_s"], end])
    np.testing.assert_array_equal(line.get_ydata(), [*trace["cwnd"], trace["cwnd"].iloc[-1]])
    # ssthresh: the unbounded start (4294967295) is not drawn, the values set by losses are.
    ssthresh = _line(ax, "f1 ssthresh").get_ydata()[:-1]
    unbounded = trace["ssthresh"].to_numpy() >= 1e9
    assert unbounded.any() and not unbounded.all()
    assert np.isnan(ssthresh[unbounded]).all()
    np.testing.assert_array_equal(ssthresh[~unbounded], trace["ssthresh"].to_numpy()[~unbounded])
    assert ax.get_ylabel() == "cwnd, no recovery inflation (segments)"


def test_seq_marks_every_event_of_the_trace(result):
    ax = _time_axes(result.plot.seq())
    trace = result.trace("seq")
    for label, event in (("sent", "sent"), ("retransmitted", "retransmitted"), ("dropped", "dropped")):
        rows = trace[trace["event"] == event]
        np.testing.assert_array_equal(_line(ax, label).get_xydata(), rows[["time_s", "seq"]].to_numpy(dtype=float))
    f = result.flows.iloc[0]
    assert len(_line(ax, "retransmitted").get_xdata()) == f["retransmits"] > 0
    assert len(_line(ax, "dropped").get_xdata()) == f["data_drops"] > 0
    acked = trace[trace["event"] == "acked"]
    cumulative = _line(ax, "cumulative ACK").get_ydata()
    np.testing.assert_array_equal(cumulative, np.maximum.accumulate(acked["seq"].to_numpy(dtype=float)))
    # The run stops when the receiver has all 100 segments; the last ACKs are then in flight.
    assert 90 < cumulative[-1] <= 100


def test_throughput_draws_delivered_bins_that_add_up_to_the_transfer(result):
    ax = _time_axes(result.plot.throughput())
    series = result.throughput()
    delivered = _line(ax, "f1 delivered").get_ydata()[:-1]
    np.testing.assert_array_equal(delivered, series["delivered_bps"].to_numpy() / 1e6)
    bin_s = float(series["time_s"].diff().iloc[1])
    assert bin_s == 0.05  # about a hundredth of the 3.07 s run, rounded to 1-2-5
    # Every segment counted once, when it first reached the receiver: the bins add up to the
    # transfer (100 segments of 1000 bytes).
    assert delivered.sum() * 1e6 * bin_s / 8 == pytest.approx(100 * 1000)
    # No bin exceeds the 1 Mb/s bottleneck by more than a segment (a bin boundary), unlike
    # the ACK-based goodput, whose cumulative ACK after a loss covers many segments at once.
    assert delivered.max() <= 1.0 + 1000 * 8 / bin_s / 1e6
    assert series["goodput_bps"].max() / 1e6 > 1.0 + 1000 * 8 / bin_s / 1e6
    # The capacity line is the payload capacity: 1 Mb/s x 1000 / (1000 + 40 header bytes).
    capacity = [line for line in ax.lines if line.get_linestyle() == "--" and len(line.get_ydata()) == 2]
    assert [tuple(line.get_ydata()) for line in capacity] == [pytest.approx((1000 / 1040, 1000 / 1040), rel=1e-12)]
    assert "payload capacity" in " ".join(ax.get_legend_handles_labels()[1])


def test_queue_draws_the_bottleneck_queue_up_to_its_maximum(result):
    ax = _time_axes(result.plot.queue())
    trace = result.trace("queue")
    bottleneck = trace[trace["link"] == "bottleneck"]
    line = _line(ax, "bottleneck")
    np.testing.assert_array_equal(line.get_ydata()[:-1], bottleneck["packets"].to_numpy(dtype=float))
    max_queue = result.links.set_index("link").loc["bottleneck", "max_queue"]
    assert line.get_ydata().max() == max_queue
    # The flows' bottleneck by default, not every direction whose queue ever held a packet.
    assert [line.get_label() for line in ax.lines] == ["bottleneck"]
    busy = result.links.loc[result.links["max_queue"] > 0, "link"].tolist()
    all_busy = _time_axes(result.plot.queue(links=busy))
    assert [line.get_label() for line in all_busy.lines] == busy == ["access", "bottleneck"]


def test_the_summary_page_has_the_flow_table_and_the_four_panels(result):
    fig = result.plot.summary()
    head, *panels = fig.axes
    assert [ax.get_title() for ax in panels] == [
        "Congestion window", "Time-sequence graph: f1", "Delivered throughput (50 ms bins)", "Queue length at the bottleneck"
    ][: len(panels)] and len(panels) == 4
    cells = {(r, c): cell.get_text().get_text() for (r, c), cell in head.tables[0].get_celld().items()}
    assert [cells[(0, c)] for c in range(8)] == ["flow", "variant", "t_c (s)", "goodput (Mb/s)", "mu", "retx", "timeouts", "drops"]
    f = result.flows.iloc[0]
    # "drops" is flows.csv's drops (data and ACKs), as renolab run prints it.
    assert [cells[(1, c)] for c in range(8)] == [
        "■ f1", "reno", f"{f['completion_time_s']:.4g}", f"{f['goodput_bps'] / 1e6:.4g}", f"{f['mu']:.3f}",
        str(f["retransmits"]), str(f["timeouts"]), str(f["drops"]),
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_each_figure_renders_to_png_and_svg(result, kind, tmp_path):
    fig = getattr(result.plot, kind)()
    assert isinstance(fig, Figure)
    fig.savefig(tmp_path / f"{kind}.png")
    fig.savefig(tmp_path / f"{kind}.svg")
    assert (tmp_path / f"{kind}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (tmp_path / f"{kind}.svg").read_text()


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
    assert all((run_dir / "plots" / f"{k}.png").read_bytes()[:4] == b"\x89PNG" for k in KINDS)
    assert all("<svg" in (run_dir / "plots" / f"{k}.svg").read_text() for k in KINDS)
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
    rates, min_rtt, gains, lanes = fig.axes
    assert [line.get_label() for line in rates.lines] == ["pacing rate", "btl_bw", "delivery rate"]
    assert rates.get_ylabel() == "rate (Mb/s of payload)" and min_rtt.get_ylabel() == "min RTT estimate (ms)"
    assert [line.get_label() for line in gains.lines] == ["pacing gain", "cwnd gain"]
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
