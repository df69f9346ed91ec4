"""Scenario construction, conversion and validation hand-off."""

from __future__ import annotations

import json

import pytest

from renolab import Scenario, ScenarioError


def test_dict_survives_a_round_trip_through_toml(small_scenario):
    scenario = Scenario.from_dict(small_scenario)
    assert Scenario.from_toml_str(scenario.to_toml()).to_dict() == small_scenario


def test_from_toml_reads_the_file_written_by_to_toml(small_scenario, tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(Scenario.from_dict(small_scenario).to_toml(), encoding="utf-8")
    assert Scenario.from_toml(path).to_dict() == small_scenario
    assert Scenario.from_toml(str(path)) == Scenario.from_dict(small_scenario)


def test_keyword_construction_equals_from_dict(small_scenario):
    scenario = Scenario(
        simulation=small_scenario["simulation"], link=small_scenario["link"], flow=small_scenario["flow"]
    )
    assert scenario == Scenario.from_dict(small_scenario)


def test_to_json_encodes_the_same_structure(small_scenario):
    assert json.loads(Scenario.from_dict(small_scenario).to_json()) == small_scenario


def test_to_dict_returns_an_independent_copy(small_scenario):
    scenario = Scenario.from_dict(small_scenario)
    copy = scenario.to_dict()
    copy["flow"][0]["bytes"] = 1
    small_scenario["flow"][0]["bytes"] = 2
    assert scenario.to_dict()["flow"][0]["bytes"] == 100_000


def test_with_seed_returns_a_copy_and_leaves_the_original_alone(small_scenario):
    original = Scenario.from_dict(small_scenario)
    reseeded = original.with_seed(42)
    assert reseeded.to_dict()["simulation"]["seed"] == 42
    assert original.to_dict()["simulation"]["seed"] == 1
    assert {k: v for k, v in reseeded.to_dict().items() if k != "simulation"} == {
        k: v for k, v in small_scenario.items() if k != "simulation"
    }


def test_with_seed_creates_the_simulation_table_when_missing(small_scenario):
    del small_scenario["simulation"]
    assert Scenario.from_dict(small_scenario).with_seed(7).to_dict()["simulation"] == {"seed": 7}


def test_toml_syntax_error_names_the_file_and_line(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('[simulation]\nseed = 1\nduration = "30s\n', encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        Scenario.from_toml(path)
    message = str(info.value)
    assert str(path) in message
    assert f"{path}:3:" in message
    assert "\n" not in message


def test_scenario_error_is_a_value_error():
    assert issubclass(ScenarioError, ValueError)


def test_a_missing_file_is_a_scenario_error_naming_it(tmp_path):
    # Every failure to read a scenario is one ScenarioError (docs/errors.md).
    with pytest.raises(ScenarioError, match=r"nope\.toml: No such file or directory$"):
        Scenario.from_toml(tmp_path / "nope.toml")


def test_validate_returns_the_normalised_scenario(small_scenario):
    normalised = Scenario.from_dict(small_scenario).validate()
    assert [f["name"] for f in normalised["flow"]] == ["f1"]
    assert len(normalised["link"]) == 2
    assert normalised["simulation"]["seed"] == 1


def test_validate_reports_the_field_path_of_a_bad_value(small_scenario):
    small_scenario["flow"][0]["variant"] = "no-such-variant"
    with pytest.raises(ScenarioError, match=r"flow\[0\]\.variant"):
        Scenario.from_dict(small_scenario).validate()


def test_non_finite_numbers_are_rejected_with_their_path(small_scenario):
    small_scenario["flow"][0]["bytes"] = float("inf")
    with pytest.raises(ScenarioError, match=r"^flow\[0\]\.bytes: "):
        Scenario.from_dict(small_scenario).to_json()


def test_none_values_are_left_out_when_serialising(small_scenario):
    small_scenario["simulation"]["duration"] = None
    scenario = Scenario.from_dict(small_scenario)
    assert "duration" not in json.loads(scenario.to_json())["simulation"]
    assert "duration" not in Scenario.from_toml_str(scenario.to_toml()).to_dict()["simulation"]
