"""Figures a reviewer accepts (issue 31): units on every axis, legends outside the data,
log-2 axes for doubling sweeps, categories without lines, intervals inside a metric's range,
shared metrics drawn once, a summary page that holds 50 flows, delay figures, a controller
figure drawn from whatever the controller traced."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from renolab import Scenario, metrics, plot
from renolab.topology import dumbbell

ROOT = Path(__file__).resolve().parents[2]
#: An axis label names its unit in parentheses, or is one of these unitless quantities.
UNIT = re.compile(r"\((s|ms|Mb/s|packets|segments|fraction|bytes|MB|CDF|Mb/s of payload|x btl_bw or BDP)\)")
UNITLESS = ("Jain's fairness index",)


def _run(variant: str = "reno", flows: int = 2, traces=("cwnd", "seq", "queue", "rtt", "hops", "cc"), duration: str = "2s",
         profile: str = "rfc") -> object:
    links = dumbbell(flows, access={"rate": "100Mbps", "delay": "1ms"},
                     bottleneck={"rate": "10Mbps", "delay": "10ms", "queue": {"kind": "droptail", "limit": 25}})
    return Scenario(
        simulation={"seed": 1, "duration": duration, "profile": profile},
        link=links,
        flow=[{"name": f"f{i + 1}", "variant": variant, "src": f"s{i + 1}", "dst": f"d{i + 1}"} for i in range(flows)],
    ).run(trace=list(traces))


@pytest.fixture(scope="module")
def reno():
    return _run()


def _labelled(label: str) -> bool:
    return bool(UNIT.search(label)) or label in UNITLESS


def _boxes_overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _renderer(fig):
    """The Agg renderer of *fig*, drawn once so that every text has its place."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _drawn_texts(fig) -> list:
    """Every text *fig* draws: its own, each axes' title, labels, the tick labels inside the
    view (matplotlib keeps the others, undrawn), legend texts and table cells."""
    texts = list(fig.texts)
    for ax in fig.axes:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        for axis, (low, high) in ((ax.xaxis, sorted(ax.get_xlim())), (ax.yaxis, sorted(ax.get_ylim()))):
            texts += [tick.label1 for tick in axis.get_major_ticks() if low <= tick.get_loc() <= high]
        if ax.get_legend() is not None:
            texts += list(ax.get_legend().get_texts())
        for table in ax.tables:
            texts += [cell.get_text() for cell in table.get_celld().values()]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def _assert_legends_outside(fig) -> None:
    renderer = _renderer(fig)
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None and ax.get_visible() and ax.axison:
            assert not _boxes_overlap(legend.get_window_extent(renderer), ax.get_window_extent(renderer)), ax.get_title()


@pytest.mark.parametrize("kind", ["cwnd", "seq", "throughput", "queue", "rtt", "rtt_cdf", "queue_delay", "queue_delay_cdf"])
def test_every_axis_of_a_run_figure_carries_its_unit_and_the_legend_is_outside_the_data(reno, kind):
    fig = getattr(reno.plot, kind)()
    for ax in fig.axes:
        assert _labelled(ax.get_xlabel()), (kind, ax.get_xlabel())
        assert _labelled(ax.get_ylabel()), (kind, ax.get_ylabel())
    _assert_legends_outside(fig)


def test_the_unit_rule_itself_rejects_a_bare_label():
    assert not _labelled("goodput_bps") and not _labelled("queue") and _labelled("goodput (Mb/s)")


def test_queueing_delays_come_from_the_hops_trace_packet_by_packet(reno):
    delays = metrics.queue_delays(reno.trace("hops"), links=["bottleneck"])
    neck = reno.links.set_index("link").loc["bottleneck"]
    # Every packet put on the bottleneck's wire left its queue once; none waited longer than a
    # full queue (25 packets of 1500 bytes at 10 Mb/s) nor less than nothing.
    assert len(delays) == neck["packets_sent"]
    assert delays["delay_s"].min() == 0.0
    assert delays["delay_s"].max() <= 25 * 1500 * 8 / 10e6 + 1e-9
    assert delays["delay_s"].max() > 20 * 1500 * 8 / 10e6  # the queue did fill
    assert (delays["dequeued_s"].diff().dropna() >= 0).all()
    fig = reno.plot.queue_delay()
    (points,) = fig.axes[0].lines
    np.testing.assert_allclose(points.get_ydata(), delays["delay_s"] * 1e3)
    cdf = reno.plot.queue_delay_cdf().axes[0].lines[0].get_ydata()
    assert cdf[0] == 0.0 and cdf[-1] == 1.0 and (np.diff(cdf) >= 0).all()


def test_the_rtt_figure_draws_every_sample_in_ms(reno):
    rtt = reno.trace("rtt")
    ax = reno.plot.rtt().axes[0]
    samples = [line for line in ax.lines if line.get_label() == "f1 RTT sample"][0]
    np.testing.assert_allclose(samples.get_ydata(), rtt[rtt["flow"] == "f1"]["rtt_s"] * 1e3)


def test_cc_is_drawn_from_what_the_controller_traced_and_not_at_all_when_nothing(reno, tmp_path):
    # Reno traces nothing: no cc figure, and asking for one says why in one line.
    assert "cc" not in plot.available_kinds(reno)
    with pytest.raises(ValueError, match="no congestion controller traced a value"):
        reno.plot.cc()
    cubic = _run("cubic", traces=("cwnd", "cc"), duration="4s", profile="linux")
    fig = cubic.plot.cc()
    assert [ax.get_ylabel() for ax in fig.axes] == ["window at the last loss (segments)", "K, epoch start to W_max (s)"]
    w_max = cubic.trace("cc").dropna(subset=["w_max"])
    assert fig.axes[0].lines and len(w_max) > 0


def test_cc_draws_a_python_controllers_traced_values():
    import sys

    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import python_cc
    finally:
        sys.path.remove(str(ROOT / "examples"))
    scenario = python_cc.against_newreno(python_cc.DelayBased).to_dict()
    scenario["simulation"]["duration"] = "3s"
    run = Scenario.from_dict(scenario).run(trace=["cc"])
    (ax,) = run.plot.cc().axes
    assert ax.get_ylabel() == "queued (as traced)"
    assert [line.get_label() for line in ax.lines] == ["queued"]


def test_bbr_has_no_ssthresh_line(reno):
    bbr = _run("bbr", traces=("cwnd",), profile="linux")
    assert np.isfinite(bbr.trace("cwnd")["ssthresh"]).any()  # the trace has one, the figure leaves it out
    labels = [line.get_label() for line in bbr.plot.cwnd().axes[0].lines]
    assert labels == ["f1 cwnd", "f2 cwnd"]
    assert "f1 ssthresh" in [line.get_label() for line in reno.plot.cwnd().axes[0].lines]


def test_a_summary_page_holds_50_flows_and_long_variant_names_without_overlap():
    long = f"python:{ROOT / 'examples' / 'python_reno.py'}:Reno"
    links = dumbbell(50, access={"rate": "100Mbps", "delay": "1ms"},
                     bottleneck={"rate": "50Mbps", "delay": "10ms", "queue": {"kind": "droptail", "limit": 100}})
    flows = [{"name": f"flow-{i + 1:02d}", "variant": long if i % 7 == 0 else "newreno", "src": f"s{i + 1}", "dst": f"d{i + 1}"}
             for i in range(50)]
    run = Scenario(simulation={"seed": 1, "duration": "0.3s"}, link=links, flow=flows).run(
        trace=["cwnd", "queue"], allow_python=True
    )
    fig = run.plot.summary()
    head = fig.axes[0]
    cells = head.tables[0].get_celld()
    assert max(r for r, _ in cells) == 50  # every flow has its row
    renderer = _renderer(fig)
    page = fig.bbox
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in _drawn_texts(fig)]
    assert len(boxes) > 8 * 51 + 4 * 5  # the table's cells and the panels' texts
    for text, box in boxes:
        assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1, text
    # No two texts overlap (a cell's text stays in its cell; the headline, the table and the
    # panels' titles, labels and ticks stay apart).
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            assert not _boxes_overlap(box_a.shrunk(0.98, 0.9), box_b.shrunk(0.98, 0.9)), (a, b)
    for (row, col), cell in cells.items():
        text = cell.get_text().get_window_extent(renderer)
        assert cell.get_window_extent(renderer).contains(text.x0 + 1, text.y0 + 1), (row, col)
        assert cell.get_window_extent(renderer).contains(text.x1 - 1, text.y1 - 1), (row, col, cell.get_text().get_text())
    assert "python:python_reno.py:Reno" in [cells[(r, 1)].get_text().get_text() for r in range(1, 51)]


def _summary(values: dict[str, list[float]], param: str, x: list, metric_name: str = "jain", ci: float = 0.1,
             flows: tuple[str, ...] = ("f1", "f2")) -> pd.DataFrame:
    rows = []
    for point, xv in enumerate(x):
        for hue, means in values.items():
            for flow in flows:
                m = means[point]
                rows.append({"point": point, param: xv, "flow.f1.variant": hue, "flow": flow, "metric": metric_name, "n": 3,
                             "mean": m, "std": 0.0, "ci95": ci, "ci95_low": m - ci, "ci95_high": m + ci})
    frame = pd.DataFrame(rows)
    return frame[["point", param, "flow.f1.variant", "flow", "metric", "n", "mean", "std", "ci95", "ci95_low", "ci95_high"]]


def test_a_doubling_sweep_gets_a_log2_axis_and_jain_drawn_once_per_series_inside_0_1():
    summary = _summary({"reno": [0.97, 0.99, 0.95, 0.9], "cubic": [0.8, 0.85, 0.9, 0.95]},
                       "link.bottleneck.queue.limit", [25, 50, 100, 200])
    fig = plot.sweep(summary, y="jain")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.xaxis.get_transform().base == 2
    assert [t.get_text() for t in ax.get_xticklabels()] == ["25", "50", "100", "200"]
    assert ax.get_xlabel() == "bottleneck queue limit (packets)" and ax.get_ylabel() == "Jain's fairness index"
    # Jain's index is the run's, the same for both flows: one series per hue value, not per flow.
    assert len(ax.get_legend().get_texts()) == 2
    # Intervals clipped to [0, 1]: no bar reaches above 1 although mean + ci95 does.
    tops = [seg[:, 1].max() for coll in ax.collections for seg in coll.get_segments()]
    assert max(tops) == pytest.approx(1.0) and max(tops) <= 1.0
    _assert_legends_outside(fig)


def test_a_rate_sweep_is_in_mbps_and_categories_get_markers_without_lines():
    summary = _summary({"reno": [4.5e6, 9e6]}, "link.bottleneck.rate_bps", [5e6, 10e6], "goodput_bps", ci=2e5, flows=("f1",))
    ax = plot.sweep(summary, y="goodput_bps").axes[0]
    assert ax.get_ylabel() == "goodput (Mb/s)" and ax.get_xlabel() == "bottleneck rate (Mb/s)"
    (bars,) = ax.containers
    line = bars.lines[0]
    np.testing.assert_allclose(line.get_xdata(), [5.0, 10.0])
    np.testing.assert_allclose(line.get_ydata(), [4.5, 9.0])
    assert ax.get_ylim()[1] < 100  # Mb/s, no raw bit/s with a 1e7 offset
    assert not ax.yaxis.get_major_formatter().get_offset()
    categories = _summary({"x": [0.5, 0.7]}, "flow.f2.variant", ["reno", "cubic"], "link_utilisation", flows=("f1",))
    ax = plot.sweep(categories, x="flow.f2.variant", y="link_utilisation").axes[0]
    assert [c.lines[0].get_linestyle() for c in ax.containers] == ["None"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["reno", "cubic"]
