"""The ns-2 validation suite (tests/validation): renolab against ns-2.35, scenario by scenario.

Each scenario file carries its tolerance and whether it is expected to agree; the ns-2 side
comes from ``tests/validation/ns2_reference.json`` (written by ``python
tests/validation/suite.py regenerate``), so a change to renolab that moves any validated
figure outside its tolerance fails here with or without ns-2 installed. With ns-2 installed,
the reference is also rerun to check it is still what ns-2 says.

Scenarios that disagree are marked ``expect = "disagree"`` with the reason (each is a
difference on renolab's side, written up in docs/validation.md); they run as strict xfails,
so fixing one makes the suite ask for its file and the documentation to be updated.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from renolab import ns2

VALIDATION_DIR = Path(__file__).resolve().parents[1] / "validation"
sys.path.insert(0, str(VALIDATION_DIR))
import suite  # noqa: E402

CASES = suite.cases()
REFERENCE = suite.load_reference()
DOCS = Path(__file__).resolve().parents[2] / "docs" / "validation.md"
NS_MISSING = shutil.which("ns") is None
#: Seeds of a random scenario rerun by the live check (all with RENOLAB_NS2_FULL=1).
LIVE_SEEDS = None if os.environ.get("RENOLAB_NS2_FULL") else 5


def _params():
    for case in CASES:
        marks = []
        if not case.expect_agreement:
            marks.append(pytest.mark.xfail(strict=True, reason=case.reason or "known disagreement"))
        yield pytest.param(case, id=case.name, marks=marks)


def test_the_suite_covers_every_variant_queue_and_loss_model():
    kinds = set()
    for case in CASES:
        norm = case.scenario.validate()
        for f in norm["flow"]:
            kinds.add(f.get("variant", f["kind"]))
            if f["kind"] == "tcp" and f["receiver"]["delayed_ack"]:
                kinds.add("delayed_ack")
        if len(norm["flow"]) > 1:
            kinds.add("competing flows")
        for link in norm["link"]:
            for d in (link, link["reverse"]):
                kinds.add(d["queue"]["kind"])
                kinds.update(loss["kind"] for loss in d["loss"])
    expected = {"tahoe", "reno", "newreno", "sack", "vegas", "cbr", "delayed_ack", "competing flows",
                "droptail", "red", "drop", "uniform", "ber", "gilbert_elliott"}
    assert expected <= kinds, expected - kinds
    random = [c for c in CASES if c.random]
    assert random and all(len(c.seeds) >= 30 for c in random)


def test_every_scenario_has_an_ns2_reference():
    missing = [c.name for c in CASES if c.name not in REFERENCE]
    assert not missing, f"no ns-2 reference for {missing}; run python tests/validation/suite.py regenerate"


def test_every_disagreement_is_explained_in_the_docs():
    text = DOCS.read_text()
    for case in CASES:
        if not case.expect_agreement:
            assert case.reason, f"{case.name}: expect = 'disagree' needs a reason"
            assert f"`{case.name}`" in text or case.name in text, f"{case.name} is not explained in docs/validation.md"


@pytest.mark.parametrize("case", list(_params()))
def test_renolab_agrees_with_ns2(case):
    entry = REFERENCE[case.name]
    assert entry["fingerprint"] == suite.fingerprint(case.tcl()), (
        f"the exported script of {case.name} changed since the reference was made; "
        "run python tests/validation/suite.py regenerate (needs ns-2)"
    )
    report = suite.compare(case, entry)
    assert report.ok, "\n" + report.format()


def test_the_deterministic_suite_meets_the_agreement_target():
    # Target: >= 95 % of the deterministic scenarios within tolerance.
    det = [c for c in CASES if not c.random]
    agreeing = sum(c.expect_agreement for c in det)
    assert agreeing >= 0.95 * len(det), f"{agreeing} of {len(det)}"


@pytest.mark.skipif(NS_MISSING, reason="ns-2 is not installed (apt-get install ns2); the stored reference is used")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_reference_is_what_ns2_says_today(case):
    entry = REFERENCE[case.name]
    tcl = case.tcl()
    runs = entry["runs"] if LIVE_SEEDS is None else entry["runs"][:LIVE_SEEDS]
    for stored in runs:
        live = ns2.run_ns2(tcl, seed=stored["seed"])
        assert live.flows == stored["flows"], f"{case.name}, seed {stored['seed']}"
