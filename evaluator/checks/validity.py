"""Tool-call validity: every call checked against the tool definitions (no LLM).

Definitions come from the scenario's `tools` (OpenAI function schemas, MCP
`inputSchema`, A2E `ToolDefinition` with `input_parameters`; see
`schemas.tool_definitions`), else from the tools the spans offered the model
(`tool_definitions_from_spans`). Each call gets at most one finding per
problem, with A2E's error code where it has one:
- `UNKNOWN_TOOL`: no definition has the call's name;
- `MISSING_ARGUMENT`: a `required` argument is absent;
- `WRONG_TYPE`: a value of the wrong JSON type;
- `NOT_IN_ENUM`: a value outside the definition's `enum`;
- `UNEXPECTED_ARGUMENT`: an argument the definition does not declare (unless its
  schema sets `additionalProperties` itself);
- `INVALID_ARGUMENT`: any other schema violation (pattern, minimum, ...).
JSON-schema validation is `jsonschema`'s, not ours.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tracesim.schemas import GENAI, OPENINFERENCE, MetricResult, ToolCall
from tracesim.schemas.tool_definitions import (
    ToolDefinition,
    ToolDefinitionError,
    tool_definition,
    tool_definitions,
)

__all__ = ["call_findings", "check_validity", "tool_definitions_from_spans"]

_CODES = {
    "required": "MISSING_ARGUMENT",
    "type": "WRONG_TYPE",
    "enum": "NOT_IN_ENUM",
    "const": "NOT_IN_ENUM",
    "additionalProperties": "UNEXPECTED_ARGUMENT",
}


def _closed(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema with undeclared arguments refused, unless it says otherwise itself."""
    out = dict(schema)
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    out.setdefault("type", "object")
    return out


def _validator(definition: ToolDefinition) -> Any:
    from jsonschema import validators

    schema = _closed(definition.input_schema)
    cls = validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except Exception:  # noqa: BLE001 - a broken definition: validate against what it allows
        cls = validators.Draft202012Validator
    return cls(schema)


def _message(error: Any, code: str) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    if code == "MISSING_ARGUMENT":
        return error.message.replace(" is a required property", " is required but missing")
    if code == "UNEXPECTED_ARGUMENT":
        return error.message.replace("Additional properties are not allowed ", "undeclared ")
    return f"{path}: {error.message}" if path else error.message


def call_findings(
    call: ToolCall, definitions: Mapping[str, ToolDefinition], *, validators: dict | None = None
) -> list[tuple[str, str]]:
    """(code, message) for each problem of `call` against `definitions` (by name)."""
    definition = definitions.get(call.name)
    if definition is None:
        known = ", ".join(sorted(definitions)) or "none"
        return [("UNKNOWN_TOOL", f"no tool named {call.name!r} is defined (defined: {known})")]
    cache = validators if validators is not None else {}
    validator = cache.get(call.name)
    if validator is None:
        validator = cache[call.name] = _validator(definition)
    findings = []
    for error in sorted(validator.iter_errors(call.arguments or {}), key=lambda e: list(e.path)):
        code = _CODES.get(str(error.validator), "INVALID_ARGUMENT")
        findings.append((code, _message(error, code)))
    return findings


def check_validity(
    turns: Sequence[Sequence[ToolCall] | None],
    definitions: Sequence[ToolDefinition],
    *,
    turn: int | None = None,
    source: str = "scenario tools",
) -> MetricResult:
    """The `tool_validity` result over `turns` (each turn's calls; `turn` limits to one)."""
    if not definitions:
        return MetricResult(
            name="tool_validity",
            label="not_graded",
            reason="no tool definitions: give the scenario `tools`, or trace the tools offered "
            "to the model (gen_ai.tool.definitions)",
        )
    by_name = {d.name: d for d in definitions}
    scope = [(turn, turns[turn] or ())] if turn is not None else enumerate(turns)
    cache: dict[str, Any] = {}
    problems: list[dict[str, Any]] = []
    total = position = 0
    for turn_id, calls in scope:
        for call in calls or ():
            position += 1
            total += 1
            for code, message in call_findings(call, by_name, validators=cache):
                problems.append(
                    {
                        "call": position,
                        "tool": call.name,
                        "turn": turn_id,
                        "code": code,
                        "message": message,
                    }
                )
    if not total:
        return MetricResult(name="tool_validity", value=1.0, passed=True, reason="no tool calls")
    bad_calls = {p["call"] for p in problems}
    value = (total - len(bad_calls)) / total
    if not problems:
        return MetricResult(
            name="tool_validity",
            value=1.0,
            passed=True,
            reason=f"{total} calls valid against {len(by_name)} {source}",
            details={"problems": [], "definitions": source},
        )
    shown = [
        f"call #{p['call']} {p['tool']} (turn {p['turn']}): {p['code']} {p['message']}"
        for p in problems[:5]
    ]
    more = f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
    return MetricResult(
        name="tool_validity",
        value=value,
        passed=False,
        label=problems[0]["code"],
        reason="; ".join(shown) + more,
        details={"problems": problems, "definitions": source},
    )


def _indexed_schemas(attributes: Mapping[str, Any]) -> Iterable[Any]:
    prefix = OPENINFERENCE.LLM_TOOLS_PREFIX
    for key, value in attributes.items():
        if key.startswith(prefix) and key.endswith(".tool.json_schema"):
            yield value
    functions: dict[str, dict[str, Any]] = {}
    for key, value in attributes.items():
        if key.startswith("llm.request.functions."):
            index, _, field = key[len("llm.request.functions.") :].partition(".")
            functions.setdefault(index, {})[field] = value
    yield from functions.values()


def tool_definitions_from_spans(spans: Iterable[Mapping[str, Any]]) -> list[ToolDefinition]:
    """The tools the spans offered the model: `gen_ai.tool.definitions`, OpenInference
    `llm.tools.{i}.tool.json_schema`, OpenLLMetry `llm.request.functions.{i}.*`. Spans are
    rows with `attributes` already parsed; unreadable definitions are skipped."""
    found: dict[str, ToolDefinition] = {}
    for span in spans:
        attributes = span.get("attributes")
        if not isinstance(attributes, Mapping):
            continue
        raw = attributes.get(GENAI.TOOL_DEFINITIONS)
        if raw:
            try:
                for definition in tool_definitions(raw):
                    found.setdefault(definition.name, definition)
            except ToolDefinitionError:
                pass
        for item in _indexed_schemas(attributes):
            try:
                definition = tool_definition(item)
            except ToolDefinitionError:
                continue
            found.setdefault(definition.name, definition)
    return list(found.values())
