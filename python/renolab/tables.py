"""Small tables as plain columns: the per-flow and per-link tables of a run.

The core returns these tables as dicts of lists (a few rows each).  A run keeps them that
way until someone reads ``Result.flows`` / ``Result.links``: :func:`to_frame` builds the
DataFrame then, and :func:`write_csv` writes ``flows.csv`` / ``links.csv`` with the standard
library, byte for byte what ``DataFrame.to_csv(index=False, lineterminator="\\n")`` writes
for :func:`to_frame`'s frame, so ``renolab run`` never imports pandas for them.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from typing import IO, Any

__all__ = ["columns_of", "numeric_or_none", "to_frame", "write_csv"]

Columns = Mapping[str, list[Any]]

#: Exact types of a column of numbers, missing ones None or NaN, as the core returns them.
_NUMBER_KINDS = {int, float, type(None)}
#: Exact types of which no value is missing (a float subclass, numpy's, may be NaN).
_NEVER_MISSING = {int, str, bool}


def numeric_or_none(values: list[Any]) -> list[Any]:
    """A numeric column with missing values (None or NaN) as floats and None, as a DataFrame
    holds it (floats and NaN); any other column as it is (the same list)."""
    kinds = set(map(type, values))
    if kinds <= _NEVER_MISSING or (kinds <= _NUMBER_KINDS and not any(v is None or v != v for v in values)):
        return values  # the common columns, known complete without the general checks
    if any(map(_is_missing, values)) and all(_is_number_or_none(v) for v in values):
        return [None if _is_missing(v) else float(v) for v in values]
    return values


def to_frame(columns: Columns) -> Any:
    """A DataFrame of *columns*; numeric columns with missing values become float with NaN."""
    import numpy as np
    import pandas as pd

    data: dict[str, Any] = {}
    for name, values in columns.items():
        normalised = numeric_or_none(values)
        if normalised is values:
            data[name] = values
        else:
            data[name] = np.array([math.nan if v is None else v for v in normalised], dtype=np.float64)
    return pd.DataFrame(data)


def columns_of(frame: Any) -> dict[str, list[Any]]:
    """A DataFrame as a dict of lists, NaN as None (the shape the core's tables come in)."""
    return {c: [None if isinstance(v, float) and math.isnan(v) else v for v in frame[c].tolist()] for c in frame.columns}


def write_csv(columns: Columns, target: IO[str]) -> None:
    """Write *columns* as CSV to *target* (opened with ``newline=""``): a header, then one
    line per row, ``\\n`` line ends, floats in their shortest round-tripping form, missing
    values empty, as pandas writes the frame :func:`to_frame` builds."""
    names = list(columns)
    formatted = [_cells(list(columns[name])) for name in names]
    writer = csv.writer(target, lineterminator="\n")
    writer.writerow(names)
    writer.writerows(zip(*formatted))


def _cells(values: list[Any]) -> list[str]:
    """:func:`_format_column` of :func:`numeric_or_none` of *values*, faster for a column of
    plain ints, or of ints, floats and missing values (most of a run's tables)."""
    kinds = set(map(type, values))
    if kinds == {int}:
        return list(map(str, values))  # int64
    if kinds and kinds <= _NUMBER_KINDS:
        # float64: whole numbers as floats, None and NaN empty (all missing: all empty too).
        return ["" if v is None or v != v else repr(float(v)) for v in values]
    return _format_column(numeric_or_none(values))


def _format_column(values: list[Any]) -> list[str]:
    """The cells of one column as pandas writes them, by the dtype pandas infers for it."""
    present = [v for v in values if not _is_missing(v)]
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present)
    if numbers and present and (len(present) < len(values) or any(isinstance(v, float) for v in present)):
        return ["" if _is_missing(v) else repr(float(v)) for v in values]  # float64
    if numbers and present:
        return [str(int(v)) for v in values]  # int64
    return ["" if _is_missing(v) else str(v) for v in values]  # bool, str, object


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _is_number_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))
