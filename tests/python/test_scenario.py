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


# -- what validate() leaves for run() -----------------------------------------------------


def _comparable(result) -> dict:
    summary = {k: v for k, v in result.summary.items() if k not in ("wall_time_s", "core_wall_time_s")}
    return {"summary": summary, "flows": result._tables["flows"], "links": result._tables["links"]}


def test_a_run_after_validate_gives_what_a_run_alone_gives(small_scenario):
    small_scenario["flow"].append(dict(small_scenario["flow"][0], name="late", start="10s"))
    small_scenario["simulation"]["duration"] = "5s"
    alone = Scenario.from_dict(small_scenario).run()
    scenario = Scenario.from_dict(small_scenario)
    scenario.validate()
    after = scenario.run()
    assert _comparable(after) == _comparable(alone)
    assert after._scenario_normalised() == alone._scenario_normalised()


def test_validate_returns_a_new_dict_each_time(small_scenario):
    scenario = Scenario.from_dict(small_scenario)
    first = scenario.validate()
    first["flow"][0]["name"] = "changed"
    assert scenario.validate()["flow"][0]["name"] == small_scenario["flow"][0]["name"]
    assert scenario.run()._scenario_normalised()["flow"][0]["name"] == small_scenario["flow"][0]["name"]


def test_a_parsed_scenario_is_its_own_and_to_dict_still_copies(tmp_path):
    text = 'description = "d"\n[simulation]\nseed = 3\n'
    scenario = Scenario.from_toml_str(text)
    data = scenario.to_dict()
    data["simulation"]["seed"] = 4
    assert scenario.to_dict()["simulation"]["seed"] == 3
    assert scenario.to_json() == Scenario.from_dict({"description": "d", "simulation": {"seed": 3}}).to_json()


def test_the_json_of_a_scenario_holding_controller_objects_is_not_kept(small_scenario):
    from renolab.cc import CongestionControl

    class Fixed(CongestionControl):
        def __init__(self, window=10):
            self.window = window

    small_scenario["flow"][0]["variant"] = Fixed
    scenario = Scenario.from_dict(small_scenario)
    scenario.validate()
    assert scenario._json is None and scenario._normalised is None  # an object may change
    plain = Scenario.from_dict(scenario.to_dict() | {"flow": [dict(small_scenario["flow"][0], variant="reno")]})
    plain.validate()
    assert plain._json == plain.to_json() and plain._normalised is not None


def test_data_nested_64_levels_is_taken_and_65_refused_whatever_the_leaves():
    from renolab._files import check_depth

    def deep(containers: int, leaf):  # *containers* tables/lists, *leaf* at the bottom
        data = leaf
        for i in range(containers):
            data = {"k": data, "s": "v"} if i % 2 else [data, 1, 2.5, None, True]
        return data

    for leaf in ("s", 1, 2.5, None, True):
        check_depth(deep(64, leaf))  # scalars at the bottom add no level
        with pytest.raises(ScenarioError, match=r"^scenario: nested more than 64 levels deep$"):
            check_depth(deep(65, leaf))
    with pytest.raises(ScenarioError, match=r"^scenario: nested more than 64 levels deep$"):
        check_depth(deep(64, ()))  # an empty tuple is a container, one level more
    loop: dict = {"a": ["s", 1]}
    loop["a"].append(loop)
    with pytest.raises(ScenarioError, match=r"^scenario: holds itself \(a table or list inside itself\)$"):
        check_depth(loop)
