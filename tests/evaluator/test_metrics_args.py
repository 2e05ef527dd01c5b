"""tool_call_args: UiPath semantics with optimal pairing; the seed's worked examples."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tracesim.evaluator import extract_tool_calls
from tracesim.evaluator.metrics import tool_call_args
from tracesim.schemas import ToolCall


def t(name: str, **args) -> ToolCall:
    return ToolCall(name=name, arguments=args)


def _calls_from_openinference_spans(*spans: tuple[str, str]) -> list[ToolCall]:
    """Build real SDK spans as UiPath's examples do: `tool.name` + a Python-literal `input.value`."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("uipath-examples")
    for name, input_value in spans:
        with tracer.start_as_current_span(
            name, attributes={"tool.name": name, "input.value": input_value}
        ):
            pass
    provider.shutdown()
    return extract_tool_calls(exporter.get_finished_spans())


# --- the reference's worked examples --------------------------------------------


def test_example_basic_exact_match_scores_1() -> None:
    actual = _calls_from_openinference_spans(
        ("update_user", "{'user_id': 123, 'fields': {'email': 'user@example.com'}, 'notify': True}")
    )
    expected = [
        {
            "name": "update_user",
            "args": {"user_id": 123, "fields": {"email": "user@example.com"}, "notify": True},
        }
    ]
    assert tool_call_args(actual, expected).value == 1.0


def test_example_strict_mode_scores_1() -> None:
    actual = _calls_from_openinference_spans(
        (
            "api_request",
            "{'endpoint': '/api/users', 'method': 'GET', 'headers': {'Authorization': 'Bearer token123'}}",
        )
    )
    expected = [
        {
            "name": "api_request",
            "args": {
                "endpoint": "/api/users",
                "method": "GET",
                "headers": {"Authorization": "Bearer token123"},
            },
        }
    ]
    result = tool_call_args(actual, expected, strict=True)
    assert (result.value, result.passed) == (1.0, True)


PROPORTIONAL_SPANS = (
    ("validate_input", "{'data': {'user_id': 123}}"),
    ("fetch_user", "{'user_id': 999}"),
    ("update_profile", "{'user_id': 123, 'updates': {'name': 'John Doe'}}"),
)
PROPORTIONAL_EXPECTED = [
    {"name": "validate_input", "args": {"data": {"user_id": 123}}},
    {"name": "fetch_user", "args": {"user_id": 123}},
    {"name": "update_profile", "args": {"user_id": 123, "updates": {"name": "John Doe"}}},
]


def test_example_proportional_scores_two_thirds() -> None:
    actual = _calls_from_openinference_spans(*PROPORTIONAL_SPANS)
    result = tool_call_args(actual, PROPORTIONAL_EXPECTED)
    assert result.value == pytest.approx(2 / 3)  # the reference prints 0.66
    assert result.passed is False
    [missing] = result.details["missing"]
    assert missing.startswith("fetch_user")
    fetch = result.details["calls"][1]
    assert fetch["matched"] is False and '"user_id":999' in fetch["actual"]


def test_example_proportional_in_strict_mode_scores_0() -> None:
    actual = _calls_from_openinference_spans(*PROPORTIONAL_SPANS)
    assert tool_call_args(actual, PROPORTIONAL_EXPECTED, strict=True).value == 0.0


def test_example_subset_mode_scores_1() -> None:
    actual = _calls_from_openinference_spans(
        (
            "send_email",
            "{'to': 'user@example.com', 'subject': 'Welcome', 'cc': 'admin@example.com', 'body': 'Welcome to our platform!'}",
        )
    )
    expected = [{"name": "send_email", "args": {"to": "user@example.com", "subject": "Welcome"}}]
    assert tool_call_args(actual, expected, subset=True).value == 1.0
    assert tool_call_args(actual, expected, subset=False).value == 0.0  # subset changes the outcome


def test_example_multiple_tool_calls_score_1() -> None:
    spans = (
        ("validate_input", "{'data': {'user_id': 123}}"),
        ("fetch_user", "{'user_id': 123}"),
        ("update_profile", "{'user_id': 123, 'updates': {'name': 'John Doe'}}"),
    )
    actual = _calls_from_openinference_spans(*spans)
    assert tool_call_args(actual, PROPORTIONAL_EXPECTED).value == 1.0


def test_example_nested_arguments_score_1() -> None:
    actual = _calls_from_openinference_spans(
        (
            "create_order",
            "{'customer': {'id': 123, 'name': 'John Doe', 'address': {'street': '123 Main St', "
            "'city': 'New York', 'zip': '10001'}}, 'items': [{'product_id': 1, 'quantity': 2}, "
            "{'product_id': 2, 'quantity': 1}], 'total': 99.99}",
        )
    )
    expected = [
        {
            "name": "create_order",
            "args": {
                "customer": {
                    "id": 123,
                    "name": "John Doe",
                    "address": {"street": "123 Main St", "city": "New York", "zip": "10001"},
                },
                "items": [{"product_id": 1, "quantity": 2}, {"product_id": 2, "quantity": 1}],
                "total": 99.99,
            },
        }
    ]
    assert tool_call_args(actual, expected).value == 1.0


def test_example_justification_subset_cases() -> None:
    actual = [
        t("update_user", user_id=123, status="active"),
        t("send_email", to="user@example.com", subject="Hello"),
        t("log_event", type="info", message="Success"),
    ]
    expected = [
        {"name": "update_user", "args": {"user_id": 123, "status": "active"}},
        {"name": "send_email", "args": {"to": "user@example.com"}},
        {"name": "log_event", "args": {"type": "info"}},
    ]
    assert tool_call_args(actual, expected, subset=True).value == 1.0
    assert tool_call_args(actual, expected).value == pytest.approx(1 / 3)


# --- our fixes and edge cases ---------------------------------------------------


def test_optimal_pairing_finds_the_pair_greedy_loses() -> None:
    actual = [t("t", x=1), t("t", x=2)]
    expected = [{"name": "t", "args": {}}, {"name": "t", "args": {"x": 1}}]
    result = tool_call_args(actual, expected)
    assert result.value == 0.5
    assert result.details["calls"][1]["matched"] is True
    assert result.details["calls"][1]["actual_index"] == 0


def test_optimal_pairing_with_subset_matches_both() -> None:
    actual = [t("t", x=1), t("t", x=2)]
    expected = [{"name": "t", "args": {}}, {"name": "t", "args": {"x": 1}}]
    assert tool_call_args(actual, expected, subset=True).value == 1.0


def test_each_actual_call_used_once() -> None:
    actual = [t("t", x=1)]
    expected = [{"name": "t", "args": {"x": 1}}, {"name": "t", "args": {"x": 1}}]
    assert tool_call_args(actual, expected).value == 0.5


def test_empty_expected_args_match_only_empty_actual_args() -> None:
    assert tool_call_args([t("t")], [{"name": "t", "args": {}}]).value == 1.0
    assert tool_call_args([t("t", a=1)], [{"name": "t"}]).value == 0.0
    assert tool_call_args([t("t", a=1)], [{"name": "t"}], subset=True).value == 1.0


def test_canonical_values() -> None:
    assert tool_call_args([t("t", n=1.0)], [{"name": "t", "args": {"n": 1}}]).value == 1.0
    assert tool_call_args([t("t", n="1")], [{"name": "t", "args": {"n": 1}}]).value == 0.0
    assert tool_call_args([t("t", n=1)], [{"name": "t", "args": {"n": True}}]).value == 0.0


def test_missing_tool_and_extra_calls() -> None:
    result = tool_call_args([t("other")], [ToolCall(name="wanted", arguments={"a": 1})])
    assert result.value == 0.0
    assert result.details["calls"][0]["actual"] is None
    assert result.details["extra"] == ["other({})"]


def test_not_graded_cases() -> None:
    result = tool_call_args([t("x")], None)
    assert result.value is None and not result.graded
    # an explicit [] is an expectation: "this turn calls no tool" (issue 13)
    assert (tool_call_args([t("x")], []).value, tool_call_args([], []).passed) == (0.0, True)
    bad = tool_call_args([t("x")], [{"args": {}}])
    assert bad.value is None and bad.label == "invalid_expected" and "name" in bad.reason


def test_arguments_key_alias() -> None:
    assert tool_call_args([t("t", a=1)], [{"name": "t", "arguments": {"a": 1}}]).value == 1.0
