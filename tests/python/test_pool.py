"""renolab.pool and renolab.progress: the one process pool and the one progress display."""

from __future__ import annotations

import io
import os

import pytest

from renolab.pool import batches, call_each, run_each
from renolab.progress import Progress


def _square_or_fail(x: int) -> int:
    if x == 3:
        raise ValueError("three")
    return x * x


def _pid(_: int) -> int:
    return os.getpid()


@pytest.mark.parametrize("workers", [1, 2])
def test_every_item_yields_its_value_or_its_error_once(workers):
    items = list(range(10))
    seen = {index: (value, error) for index, value, error in run_each(_square_or_fail, items, workers=workers)}
    assert sorted(seen) == items
    assert {i: v for i, (v, e) in seen.items() if e is None} == {i: i * i for i in items if i != 3}
    value, error = seen[3]
    assert value is None and isinstance(error, ValueError) and str(error) == "three"


def test_an_error_from_a_worker_carries_its_traceback():
    (_, _, error), = [o for o in run_each(_square_or_fail, [0, 3], workers=2) if o[2] is not None]
    assert "_square_or_fail" in str(error.__cause__) and 'raise ValueError("three")' in str(error.__cause__)


def test_one_worker_runs_in_this_process_and_lets_other_errors_through():
    assert {v for _, v, _ in run_each(_pid, [0, 1, 2], workers=1)} == {os.getpid()}
    with pytest.raises(ValueError, match="three"):
        list(run_each(_square_or_fail, [3], workers=1, in_process_errors=()))
    assert {v for _, v, _ in run_each(_pid, list(range(8)), workers=2)} - {os.getpid()}


def test_call_each_reports_each_items_outcome_in_order():
    assert [(v, type(e).__name__ if e else None) for v, e in call_each(_square_or_fail, [2, 3, 4])] == [
        (4, None), (None, "ValueError"), (16, None)
    ]
    assert [len(b) for b in batches(list(range(10)), 1)] == [2, 2, 2, 2, 2]


def test_the_progress_advances_once_per_item():
    stream = io.StringIO()
    bar = Progress(6, "demo", stream=stream)
    list(run_each(_square_or_fail, list(range(6)), workers=2, progress=bar))
    assert bar.done == 6
    lines = stream.getvalue().splitlines()
    assert lines[0] == "demo: 0/6 runs (0%)"
    assert lines[-1].startswith("demo: 6/6 runs (100%), ") and lines[-1].endswith(" s")


def test_plain_progress_prints_at_each_tenth_and_notes_on_their_own_line():
    stream = io.StringIO()
    bar = Progress(20, "sweep", done=5, stream=stream)
    for _ in range(15):
        bar.advance()
    bar.note("a worker process died")
    lines = stream.getvalue().splitlines()
    assert lines[0] == "sweep: 5/20 runs (25%), 5 already done"
    assert [line.split(" runs")[0] for line in lines[1:-1]] == [f"sweep: {n}/20" for n in (6, 8, 10, 12, 14, 16, 18, 20)]
    assert lines[-1] == "sweep: a worker process died"


def test_disabled_progress_prints_nothing():
    stream = io.StringIO()
    bar = Progress(3, "x", stream=stream, enabled=False)
    bar.advance()
    bar.note("hello")
    bar.close()
    assert stream.getvalue() == ""
