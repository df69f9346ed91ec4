"""summary.json's layout: :func:`renolab.saving.indented_json` (the C encoder's compact text,
laid out by the core) is byte for byte ``json.dumps(value, sort_keys=True, indent=2,
default=str)``, which Python writes with its slower pure-Python encoder."""

from __future__ import annotations

import datetime
import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from renolab import _core
from renolab.saving import indented_json


def _python(value) -> str:
    return json.dumps(value, sort_keys=True, indent=2, default=str)


def test_awkward_values_are_laid_out_as_python_lays_them_out():
    value = {
        "empty": {"list": [], "table": {}, "nested": [[], {}, [[]]]},
        "strings": ['a,b:c', '{"x": [1]}', 'q"uote\\', "back\\\\slash\\\"", "é ü \u2028 \U0001f600", "\n\t\x00"],
        "numbers": [0, -1, 10**40, 1.5e-300, -0.0, 1e16, 0.1, math.nan, math.inf, -math.inf],
        "others": [True, False, None, (1, 2), datetime.date(2024, 1, 2), _Named()],
        "keys": {"": 1, " ": 2, ":": 3, ",": 4, "[": 5},
    }
    assert indented_json(value) == _python(value)


class _Named:
    def __str__(self) -> str:  # written by default=str, as a string
        return 'a "path", with [brackets]'


def test_a_top_level_scalar_or_empty_container_is_left_as_it_is():
    for value in (1, "s", None, [], {}, 2.5):
        assert indented_json(value) == _python(value)


def test_other_indents_are_python_s_too():
    value = {"a": [1, {"b": []}], "c": "d"}
    for indent in (0, 1, 4):
        compact = json.dumps(value, separators=(",", ":"))
        assert _core.indent_json(compact, indent) == json.dumps(value, indent=indent)


_leaves = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
_values = st.recursive(
    _leaves,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_values)
def test_any_json_value_is_laid_out_as_python_lays_it_out(value):
    assert indented_json(value) == _python(value)
