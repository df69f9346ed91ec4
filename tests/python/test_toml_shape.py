"""The bound on TOML before the parser sees it (renolab._files._check_toml_shape): the same
verdicts as the plain one-token-at-a-time scan, which looks at every newline, '=' and ','
(the check skips them while no dot is counted, for speed)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from renolab import ScenarioError, _files


def _plain_scan(text: str, depth_limit: int, parts_limit: int) -> str | None:
    """The reference: every token looked at, as the check did before it skipped some."""
    depth, dots, pos = 0, 0, 0
    while True:
        match = _files._TOKEN.search(text, pos)
        if match is None:
            return None
        token, pos = match.group(), match.end()
        skip = _files._SKIP.get(token)
        if skip is not None:
            pos = skip.match(text, match.start()).end()
        elif token in "[{":
            depth, dots = depth + 1, 0
            if depth > depth_limit:
                return f"depth at {match.start()}"
        elif token in "]}":
            depth, dots = max(depth - 1, 0), 0
        elif token == ".":
            dots += 1
            if dots >= parts_limit:
                return f"parts at {match.start()}"
        else:
            dots = 0


def _verdict(text: str) -> str | None:
    try:
        _files._check_toml_shape(text, "f")
    except ScenarioError as exc:
        return str(exc)
    return None


def _expected(text: str) -> str | None:
    found = _plain_scan(text, _files.MAX_TOML_DEPTH, _files.MAX_KEY_PARTS)
    if found is None:
        return None
    kind, offset = found.split(" at ")
    why = (
        f"nested more than {_files.MAX_TOML_DEPTH} levels deep"
        if kind == "depth"
        else f"a dotted key of more than {_files.MAX_KEY_PARTS} parts"
    )
    return f"{_files._where('f', text, int(offset))}: invalid TOML: {why}"


@pytest.fixture
def small_limits(monkeypatch):
    # Limits of 3 levels and 4 parts let short random texts reach them.
    monkeypatch.setattr(_files, "MAX_TOML_DEPTH", 3)
    monkeypatch.setattr(_files, "MAX_KEY_PARTS", 4)


@pytest.mark.parametrize(
    "text, refused",
    [
        ("a.b.c = 1\nd.e.f = 2\n", False),  # dots of two keys are not added up
        ("a.b.c = 1.5\n", False),  # '=' ends the key
        ("x = [1.5, 2.5, 3.5, 4.5]\n", False),  # ',' ends each value
        ("a.b.c.d.e = 1\n", True),
        ("a.b.c.d\n.e = 1", False),
        ('a."b.c.d.e".f = 1', False),  # dots in a quoted key are not counted
        ("[[a.b.c]]\n[x]\n[y]\n", False),
        ("a = [[[[1]]]]", True),
        ("a = [[[1]]]\nb = [[[1]]]", False),
        ("# [[[[.....\na = 1", False),
        ('s = """a.b.c.d.e\n[[[[["""', False),
        ('a.b."=,".c.d = 1', True),  # '=' and ',' in a quoted part end no key
    ],
)
def test_small_cases_get_the_plain_scans_verdict(small_limits, text, refused):
    assert (_verdict(text) is not None) == refused
    assert _verdict(text) == _expected(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab .=,\n[]{}#\"'\\", max_size=60))
def test_any_text_gets_the_plain_scans_verdict(text):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_files, "MAX_TOML_DEPTH", 3)
        patch.setattr(_files, "MAX_KEY_PARTS", 4)
        assert _verdict(text) == _expected(text)


def test_the_real_limits_hold_at_their_edges():
    assert _verdict("a" + ".a" * 63 + " = 1\n" + "b" + ".b" * 63 + " = 1") is None
    assert "more than 64 parts" in _verdict("a" + ".a" * 64 + " = 1")
    assert _verdict("a = " + "[" * 64 + "]" * 64) is None
    assert "more than 64 levels" in _verdict("a = " + "[" * 65 + "]" * 65)
