"""Load `scenarios.json`: a list of scenarios, or `{"scenarios": [...]}` (arksim's forms).

Every problem names the file, the scenario (index and id) and the field, so
it can be fixed without reading code; duplicate ids are an error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from tracesim.schemas.scenario import Scenario
from tracesim.schemas.text_file import TextFileError, read_text_file

__all__ = ["ScenarioError", "load_scenarios", "parse_scenarios"]


class ScenarioError(ValueError):
    """The scenarios file is missing or invalid; the message says where and what."""


def load_scenarios(path: str | Path) -> list[Scenario]:
    """Read and validate a scenarios file."""
    path = Path(path)
    try:
        data = json.loads(read_text_file(path))
    except FileNotFoundError:
        raise ScenarioError(f"{path}: scenario file not found (scenario_file_path)") from None
    except TextFileError as exc:
        raise ScenarioError(f"{path}: {exc} (scenario_file_path)") from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"{path}: not UTF-8 text (byte {exc.start}): a scenario file is JSON"
        ) from None
    except RecursionError:
        raise ScenarioError(
            f"{path}: nested too deeply to read (a scenario nests a few levels)"
        ) from None
    try:
        return parse_scenarios(data, source=str(path))
    except RecursionError:
        raise ScenarioError(
            f"{path}: a value is nested too deeply to check (a scenario nests a few levels)"
        ) from None


def parse_scenarios(data: Any, *, source: str = "<scenarios>") -> list[Scenario]:
    """Validate already-parsed scenarios data."""
    if isinstance(data, dict):
        if "scenarios" not in data:
            raise ScenarioError(
                f"{source}: expected a list of scenarios or an object with a 'scenarios' list; "
                f"found keys {sorted(data)}"
            )
        data = data["scenarios"]
    if not isinstance(data, list):
        raise ScenarioError(f"{source}: 'scenarios' must be a list, got {type(data).__name__}")
    if not data:
        raise ScenarioError(f"{source}: no scenarios")
    scenarios: list[Scenario] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(data):
        label = _label(index, raw)
        if not isinstance(raw, dict):
            raise ScenarioError(f"{source}: {label}: must be an object, got {type(raw).__name__}")
        try:
            scenario = Scenario.model_validate(raw)
        except ValidationError as exc:
            raise ScenarioError(f"{source}: {label}: {_describe(exc)}") from None
        if scenario.scenario_id in seen:
            raise ScenarioError(
                f"{source}: {label}: duplicate scenario_id {scenario.scenario_id!r} "
                f"(first used by scenario #{seen[scenario.scenario_id]})"
            )
        seen[scenario.scenario_id] = index
        scenarios.append(scenario)
    return scenarios


def _label(index: int, raw: Any) -> str:
    sid = raw.get("scenario_id", raw.get("id")) if isinstance(raw, dict) else None
    return f"scenario #{index} ({sid!r})" if sid is not None else f"scenario #{index}"


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        loc = ".".join(str(p) for p in error["loc"]) or "(scenario)"
        msg = error["msg"].removeprefix("Value error, ")
        parts.append(f"field {loc!r}: {msg}")
    return "; ".join(parts)
