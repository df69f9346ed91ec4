"""The Result object: flow table, summary, trace decoding and saving."""

from __future__ import annotations

import json

import numpy as np
import pytest

import renolab
from renolab import Scenario


@pytest.fixture
def result(small_scenario):
    return Scenario.from_dict(small_scenario).run(trace=["cwnd"])


def test_flows_has_one_row_per_flow_with_the_core_columns(result):
    assert list(result.flows["flow"]) == ["f1"]
    for column in ["variant", "src", "dst", "bytes_delivered", "completion_time_s", "throughput_bps", "retransmits"]:
        assert column in result.flows.columns
    assert result.flows["completion_time_s"].dtype == np.float64


def test_an_unfinished_flow_has_nan_completion_time(small_scenario):
    small_scenario["simulation"]["duration"] = "50ms"
    flows = Scenario.from_dict(small_scenario).run().flows
    assert flows["completion_time_s"].dtype == np.float64
    assert np.isnan(flows["completion_time_s"].iloc[0])


def test_summary_adds_version_wall_time_and_input_scenario(result, small_scenario):
    assert result.summary["renolab_version"] == renolab.__version__
    assert result.summary["wall_time_s"] >= 0
    assert result.summary["scenario"] == small_scenario
    assert result.summary["seed"] == 1


def test_cwnd_trace_has_seconds_flow_names_and_window_columns(result):
    trace = result.trace("cwnd")
    assert list(trace.columns) == ["time_s", "flow", "cwnd", "ssthresh", "inflated_cwnd"]
    assert len(trace) > 0
    assert set(trace["flow"]) == {"f1"}
    assert trace["time_s"].is_monotonic_increasing
    assert trace["time_s"].iloc[-1] <= result.summary["sim_time_s"]


def test_asking_for_an_unrecorded_trace_names_the_recorded_ones(small_scenario):
    result = Scenario.from_dict(small_scenario).run()
    with pytest.raises(ValueError, match="recorded: none"):
        result.trace("cwnd")


def test_save_writes_flows_summary_and_one_file_per_trace(result, tmp_path):
    written = result.save(tmp_path / "out")
    assert sorted(p.name for p in written) == ["cwnd.parquet", "flows.csv", "links.csv", "summary.json"]
    written = result.save(tmp_path / "csv", format="csv")
    assert sorted(p.name for p in written) == ["cwnd.csv", "flows.csv", "links.csv", "summary.json"]
    text = (tmp_path / "out" / "summary.json").read_text()
    assert json.loads(text)["seed"] == 1
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2) + "\n"


def test_repr_is_a_short_summary(result):
    assert repr(result).startswith("<renolab.Result: 1 flow,")
    assert "<table" in result._repr_html_()


def test_links_has_one_row_per_link_direction(result):
    assert len(result.links) >= 2
    assert {"link", "from", "to", "packets_sent"} <= set(result.links.columns)


def test_rows_without_pandas_match_the_tables_rows(small_scenario, tmp_path):
    # What a sweep's workers store (Result._records) must be what the DataFrames hold, NaN
    # as None, including an unfinished flow's missing completion time; a loaded result too.
    small_scenario["simulation"]["duration"] = "0.5s"
    result = Scenario.from_dict(small_scenario).run()
    for table in ("flows", "links"):
        rows = result._records(table)
        frame = getattr(result, table).astype(object).where(getattr(result, table).notna(), None)
        assert rows == frame.to_dict("records"), table
    assert any(v is None for row in result._records("flows") for v in row.values())
    result.save(tmp_path / "run")
    loaded = renolab.Result.load(tmp_path / "run")
    assert loaded._records("flows")[0]["flow"] == result._records("flows")[0]["flow"]
