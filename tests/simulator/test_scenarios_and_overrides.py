"""Scenario file forms and command-line override parsing (pure functions)."""

from __future__ import annotations

import pytest
from tracesim.simulator.scenarios import ScenarioError, parse_scenarios

from tracesim.config_loader import ConfigError, apply_overrides, parse_override_args


def test_arksim_forms_are_accepted() -> None:
    wrapped = parse_scenarios(
        {
            "scenarios": [
                {
                    "id": 7,
                    "goal": {"primary": "refund"},
                    "user_profile": "Sam",
                    "knowledge": [{"content": "order A1"}, "paid by card"],
                    "expected_behavior": {"x": 1},
                }
            ]
        }
    )
    scenario = wrapped[0]
    assert scenario.scenario_id == "7" and scenario.knowledge == ["order A1", "paid by card"]
    assert "refund" in scenario.goal_text() and scenario.profile_text() == "Sam"
    assert scenario.model_extra == {"expected_behavior": {"x": 1}}
    assert not scenario.scripted
    listed = parse_scenarios([{"scenario_id": "s", "turns": ["a", "b"], "max_turns": 2}])
    assert listed[0].scripted and listed[0].turns == ["a", "b"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"cases": []}, "'scenarios' list"),
        ([], "no scenarios"),
        (["x"], "scenario #0: must be an object"),
        ([{"id": "a"}], "needs a 'goal'"),
        ([{"id": "a", "goal": "g", "knowledge": [{"text": "x"}]}], "knowledge[0]"),
        ([{"id": "a", "goal": "g"}, {"id": "a", "goal": "h"}], "duplicate scenario_id 'a'"),
    ],
)
def test_scenario_errors_say_where(data: object, expected: str) -> None:
    with pytest.raises(ScenarioError, match="s.json") as info:
        parse_scenarios(data, source="s.json")
    assert expected in str(info.value)


def test_override_arguments() -> None:
    assert parse_override_args(["--max_turns", "3", "--agent_config.module_path=x.py"]) == {
        "max_turns": "3",
        "agent_config.module_path": "x.py",
    }
    with pytest.raises(ConfigError, match="needs a value"):
        parse_override_args(["--max_turns"])
    with pytest.raises(ConfigError, match="unexpected argument"):
        parse_override_args(["oops"])


def test_overrides_are_yaml_scalars_set_on_a_copy() -> None:
    raw = {"agent_config": {"agent_type": "custom"}, "max_turns": 5}
    out = apply_overrides(
        raw, {"max_turns": "3", "agent_config.init_kwargs.flag": "true", "seed": "null"}
    )
    assert out == {
        "agent_config": {"agent_type": "custom", "init_kwargs": {"flag": True}},
        "max_turns": 3,
        "seed": None,
    }
    assert raw["max_turns"] == 5
    with pytest.raises(ConfigError, match="max_turns is not a mapping"):
        apply_overrides(raw, {"max_turns.x": "1"})
