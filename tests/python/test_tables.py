"""renolab.tables: flows.csv and links.csv written with the standard library are the bytes
pandas writes for the same table."""

from __future__ import annotations

import io
import math
import random

import numpy as np
import pandas as pd
import pytest

from renolab import Scenario, tables


def _pandas_csv(columns) -> str:
    out = io.StringIO()
    tables.to_frame(columns).to_csv(out, index=False, lineterminator="\n")
    return out.getvalue()


def _stdlib_csv(columns) -> str:
    out = io.StringIO()
    tables.write_csv(columns, out)
    return out.getvalue()


def test_a_runs_tables_are_written_as_pandas_writes_them(small_scenario):
    small_scenario["flow"].append(dict(small_scenario["flow"][0], name="late", start="10s"))
    small_scenario["simulation"]["duration"] = "5s"
    result = Scenario.from_dict(small_scenario).run()
    for name in ("flows", "links"):
        columns = result._tables[name]
        assert _stdlib_csv(columns) == _pandas_csv(columns), name
    # The flow that never started has missing numbers (empty cells).
    assert ",," in _stdlib_csv(result._tables["flows"]).splitlines()[2]


def test_every_kind_of_column_is_written_as_pandas_writes_it():
    rng = random.Random(5)

    def number() -> float:
        return rng.choice([0.1, 1.0, 1e-7, 2.5e16, 123456789.123, 1 / 3, 1e300, 7.0])

    makers = {
        "int": lambda: rng.randint(0, 10**12),
        "float": number,
        "int_and_float": lambda: rng.choice([rng.randint(0, 9), number()]),
        "float_or_missing": lambda: rng.choice([None, math.nan, number()]),
        "int_or_missing": lambda: rng.choice([None, rng.randint(0, 9)]),
        "str": lambda: rng.choice(["a", "b,c", 'q"x', "bottleneck/rev", ""]),
        "str_or_missing": lambda: rng.choice(["a", None]),
        "bool": lambda: rng.choice([True, False]),
    }
    for rows in (0, 1, 2, 7):
        for _ in range(20):
            columns = {name: [make() for _ in range(rows)] for name, make in makers.items()}
            columns["all_missing"] = [None] * rows
            columns["all_nan"] = [math.nan] * rows
            columns["int_or_nan"] = [rng.choice([math.nan, rng.randint(-9, 9)]) for _ in range(rows)]
            columns["int_or_bool"] = [rng.choice([True, rng.randint(0, 9)]) for _ in range(rows)]
            assert _stdlib_csv(columns) == _pandas_csv(columns)


def test_to_frame_gives_missing_numbers_as_nan_floats():
    frame = tables.to_frame({"a": [1, None], "b": ["x", None], "c": [1, 2]})
    assert frame["a"].dtype == "float64" and math.isnan(frame["a"][1])
    assert frame["c"].dtype == "int64"
    assert tables.columns_of(frame) == {"a": [1.0, None], "b": ["x", None], "c": [1, 2]}


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_changed_frame_is_saved_as_changed(small_scenario, tmp_path, fmt):
    result = Scenario.from_dict(small_scenario).run()
    result.flows["note"] = "edited"
    result.save(tmp_path, format=fmt)
    assert pd.read_csv(tmp_path / "flows.csv")["note"].tolist() == ["edited"]


@pytest.mark.parametrize(
    "values, expected",
    [
        ([1, 2], [1, 2]),
        ([1, None], [1.0, None]),
        ([1, math.nan, 2.5], [1.0, None, 2.5]),
        ([None, None], [None, None]),
        ([math.nan], [None]),
        (["a", None], ["a", None]),  # not numbers: as they are
        ([True, None], [True, None]),
        ([np.float64("nan"), 1], [None, 1.0]),  # numpy's float is a float, and may be NaN
        ([np.int64(3), None], [np.int64(3), None]),  # not an int: not a number column
        ([], []),
    ],
)
def test_numeric_or_none_gives_missing_numbers_as_none_among_floats(values, expected):
    got = tables.numeric_or_none(values)
    assert got == expected and [type(v) for v in got] == [type(v) for v in expected]


def test_numeric_or_none_returns_a_column_with_nothing_missing_itself():
    for values in ([1, 2], [1.5, 2], ["a", "b"], [True, 1], [np.float64(1.5)], []):
        assert tables.numeric_or_none(values) is values
