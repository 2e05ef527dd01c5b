"""A call whose id names a request of another tool (SPEC §5: conflicts are reported, never
resolved silently): the span says what ran and is kept; the disagreement is listed."""

from __future__ import annotations

from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.audit import CONFLICT, Unexplained

from tests.evaluator.rule_rows import model_row, rule_row


def _tool(n: int, name: str, call_id: str) -> dict:
    return rule_row(
        n,
        f"execute_tool {name}",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.call.arguments": '{"city": "Paris"}',
            "gen_ai.tool.call.result": "sunny",
        },
    )


def test_a_span_running_another_tool_than_its_request_is_a_conflict() -> None:
    model = model_row(1, [("call_1", "get_weather", {"city": "Paris"})])
    audit: list[Unexplained] = []
    [call] = extract_tool_calls([model, _tool(2, "weather", "call_1")], audit=audit)
    assert call.name == "weather" and call.id == "call_1"  # what ran
    [item] = audit
    assert (item.kind, item.span_id, item.name) == (CONFLICT, format(2, "016x"), "weather")
    assert "get_weather" in item.detail and "call_1" in item.detail


def test_the_same_name_is_no_conflict() -> None:
    model = model_row(1, [("call_1", "get_weather", {"city": "Paris"})])
    audit: list[Unexplained] = []
    [call] = extract_tool_calls([model, _tool(2, "get_weather", "call_1")], audit=audit)
    assert call.name == "get_weather" and audit == []
