"""arksim's scenario cases (tests/unit/test_scenario_entities.py) on tracesim's Scenario."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from tracesim.schemas.scenario import Scenario


def _data(**extra: Any) -> dict[str, Any]:
    return {
        "scenario_id": "sc-1",
        "user_id": "u-1",
        "goal": "book a flight",
        "agent_context": "travel agent",
        "user_profile": "frequent traveler",
        "knowledge": [{"content": "info"}],
        "origin": {"source": "manual"},
        **extra,
    }


def test_valid_scenario_keeps_arksims_fields() -> None:
    scenario = Scenario.model_validate(_data())
    assert scenario.scenario_id == "sc-1" and scenario.knowledge == ["info"]
    assert scenario.model_extra == {"user_id": "u-1", "origin": {"source": "manual"}}


def test_user_attributes_with_profile_ok() -> None:
    scenario = Scenario.model_validate(_data(user_attributes={"age": 30}))
    assert scenario.user_profile == "frequent traveler"


def test_user_attributes_without_profile_raises() -> None:
    with pytest.raises(ValidationError, match="user_attributes"):
        Scenario.model_validate(_data(user_attributes={"age": 30}, user_profile=""))


def test_no_user_attributes_no_profile_ok() -> None:
    assert Scenario.model_validate(_data(user_profile="")).profile_text() == ""


def test_without_knowledge_and_origin() -> None:
    data = _data()
    del data["knowledge"], data["origin"]
    scenario = Scenario.model_validate(data)
    assert scenario.knowledge == [] and "origin" not in (scenario.model_extra or {})
