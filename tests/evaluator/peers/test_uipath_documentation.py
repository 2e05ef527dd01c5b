"""Cases ported from UiPath/uipath-python (packages/uipath/tests/evaluators): the tool-call examples of their documentation (test_documentation_examples.py)."""

from __future__ import annotations

import pytest
from tracesim.evaluator import extract_tool_calls
from tracesim.evaluator.metrics import (
    tool_call_args,
    tool_call_count,
    tool_call_order,
    tool_call_output,
)
from tracesim.schemas import ToolCall

from tests.evaluator.peers._common import span_row


def calls(*names: str) -> list[ToolCall]:
    return [ToolCall(name=n) for n in names]


def outs(*pairs) -> list[ToolCall]:
    return [ToolCall(name=n, result=o) for n, o in pairs]


def trace(*spans: dict) -> list[ToolCall]:
    """Extract the calls of UiPath-style spans (tool.name, input.value, output.value)."""
    return extract_tool_calls(
        [span_row(a, i + 1, a.get("tool.name", "span")) for i, a in enumerate(spans)]
    )


# --- documentation examples (test_documentation_examples.py) -------------------------------


@pytest.mark.parametrize(
    ("actual", "expected", "order", "value"),
    [
        (
            ["validate_user", "check_inventory", "create_order"],
            ["validate_user", "check_inventory", "create_order"],
            "in_order",
            1.0,
        ),
        (
            ["authenticate_user", "verify_permissions", "access_resource"],
            ["authenticate_user", "verify_permissions", "access_resource"],
            "strict",
            1.0,
        ),
        (
            ["search", "filter", "display"],
            ["search", "filter", "sort", "display"],
            "in_order",
            0.75,
        ),
        (
            ["begin_transaction", "validate_data", "update_records", "commit_transaction"],
            ["begin_transaction", "validate_data", "update_records", "commit_transaction"],
            "strict",
            1.0,
        ),
        (
            ["get_api_token", "fetch_user_data", "enrich_data", "post_to_webhook", "log_result"],
            ["get_api_token", "fetch_user_data", "enrich_data", "post_to_webhook", "log_result"],
            "in_order",
            1.0,
        ),
        (["init", "process", "cleanup"], ["init", "process", "cleanup"], "in_order", 1.0),
    ],
    ids=[
        "basic",
        "strict",
        "lcs_partial_credit",
        "db_transaction",
        "api_workflow",
        "default_criteria",
    ],
)
def test_doc_order(actual, expected, order, value) -> None:
    result = tool_call_order(trace(*({"tool.name": n} for n in actual)), expected, order=order)
    assert result.value == value
    if value < 1:
        assert result.details["longest_common_subsequence"] == ["search", "filter", "display"]


@pytest.mark.parametrize(
    ("actual", "expected", "strict"),
    [
        (
            ["fetch_data"] + ["process_item"] * 5 + ["send_notification"],
            {"fetch_data": ("=", 1), "process_item": ("=", 5), "send_notification": ("=", 1)},
            False,
        ),
        (
            ["validate", "retry_api", "log_event", "expensive_call"],
            {
                "validate": (">=", 1),
                "retry_api": ("<=", 3),
                "log_event": (">", 0),
                "expensive_call": ("<", 2),
            },
            False,
        ),
        (
            ["authenticate", "fetch_records", "close_connection"],
            {"authenticate": ("=", 1), "fetch_records": ("=", 1), "close_connection": ("=", 1)},
            True,
        ),
        (
            ["expensive_api_call", "database_query", "database_query", "llm_call"],
            {"expensive_api_call": ("<=", 1), "database_query": ("<=", 3), "llm_call": ("<=", 2)},
            False,
        ),
        (
            ["process_item", "validate_item", "save_result"] * 10,
            {"process_item": ("=", 10), "validate_item": ("=", 10), "save_result": ("=", 10)},
            False,
        ),
    ],
    ids=["basic", "operators", "strict_all_or_nothing", "redundant_calls", "loop"],
)
def test_doc_count(actual, expected, strict) -> None:
    got = trace(*({"tool.name": n} for n in actual))
    assert tool_call_count(got, expected, all_or_nothing=strict).value == 1.0


@pytest.mark.parametrize(
    ("spans", "expected", "kwargs", "value"),
    [
        (
            [
                (
                    "update_user",
                    "{'user_id': 123, 'fields': {'email': 'user@example.com'}, 'notify': True}",
                )
            ],
            [
                (
                    "update_user",
                    {"user_id": 123, "fields": {"email": "user@example.com"}, "notify": True},
                )
            ],
            {},
            1.0,
        ),
        (
            [
                (
                    "send_email",
                    "{'to': 'user@example.com', 'subject': 'Hello', 'body': 'Test message'}",
                )
            ],
            [
                (
                    "send_email",
                    {"to": "user@example.com", "subject": "Hello", "body": "Test message"},
                )
            ],
            {"all_or_nothing": True},
            1.0,
        ),
        (
            [
                (
                    "create_user",
                    "{'username': 'john_doe', 'email': 'john@example.com', 'role': 'admin', 'active': True}",
                )
            ],
            [("create_user", {"username": "john_doe", "email": "john@example.com"})],
            {"arg_mode": "subset"},
            1.0,
        ),
        (
            [
                ("fetch_data", "{'source': 'database', 'query': 'SELECT * FROM users'}"),
                ("process_data", "{'data': [{'id': 1}], 'operation': 'filter'}"),
                ("save_results", "{'destination': 'cache', 'ttl': 3600}"),
            ],
            [
                ("fetch_data", {"source": "database", "query": "SELECT * FROM users"}),
                ("process_data", {"data": [{"id": 1}], "operation": "filter"}),
                ("save_results", {"destination": "cache", "ttl": 3600}),
            ],
            {},
            1.0,
        ),
        (
            [
                (
                    "configure_service",
                    "{'service': 'api', 'config': {'host': 'api.example.com', 'port': 443, "
                    "'ssl': {'enabled': True, 'cert_path': '/path/to/cert'}}}",
                )
            ],
            [
                (
                    "configure_service",
                    {
                        "service": "api",
                        "config": {
                            "host": "api.example.com",
                            "port": 443,
                            "ssl": {"enabled": True, "cert_path": "/path/to/cert"},
                        },
                    },
                )
            ],
            {},
            1.0,
        ),
        (
            [
                ("validate_input", "{'data': {'user_id': 123}}"),
                ("fetch_user", "{'user_id': 999}"),
                ("update_profile", "{'user_id': 123, 'updates': {'name': 'John Doe'}}"),
            ],
            [
                ("validate_input", {"data": {"user_id": 123}}),
                ("fetch_user", {"user_id": 123}),
                ("update_profile", {"user_id": 123, "updates": {"name": "John Doe"}}),
            ],
            {},
            2 / 3,
        ),
    ],
    ids=["basic", "strict", "subset", "multiple", "nested", "proportional"],
)
def test_doc_args(spans, expected, kwargs, value) -> None:
    got = trace(*({"tool.name": n, "input.value": v} for n, v in spans))
    result = tool_call_args(got, [{"name": n, "args": a} for n, a in expected], **kwargs)
    assert result.value == pytest.approx(value, abs=0.01)


def _envelope(text: str) -> str:
    import json

    return json.dumps({"content": text})


@pytest.mark.parametrize(
    ("spans", "expected", "value"),
    [
        (
            [
                (
                    "get_user",
                    '{"user_id": 123, "name": "John Doe", "email": "john@example.com", "status": "active"}',
                )
            ],
            [
                (
                    "get_user",
                    '{"user_id": 123, "name": "John Doe", "email": "john@example.com", "status": "active"}',
                )
            ],
            1.0,
        ),
        (
            [("calculate", '{"result": 42, "operation": "multiply"}')],
            [("calculate", '{"result": 42, "operation": "multiply"}')],
            1.0,
        ),
        (
            [("fetch", '{"data": ["item1", "item2"]}'), ("process", '{"processed": true}')],
            [("fetch", '{"data": ["item1", "item2"]}'), ("process", '{"processed": true}')],
            1.0,
        ),
        (
            [("validate_input", '{"valid": false, "error": "Invalid email format"}')],
            [("validate_input", '{"valid": false, "error": "Invalid email format"}')],
            1.0,
        ),
        (
            [
                ("fetch_data", '{"records": 150, "status": "success"}'),
                ("process_data", '{"processed": 100, "errors": 5}'),
                ("save_results", '{"saved": 150, "location": "/data/results.csv"}'),
            ],
            [
                ("fetch_data", '{"records": 150, "status": "success"}'),
                ("process_data", '{"processed": 150, "errors": 0}'),
                ("save_results", '{"saved": 150, "location": "/data/results.csv"}'),
            ],
            2 / 3,
        ),
    ],
    ids=["basic", "strict", "multiple", "error_handling", "proportional"],
)
def test_doc_output(spans, expected, value) -> None:
    got = trace(*({"tool.name": n, "output.value": _envelope(o)} for n, o in spans))
    result = tool_call_output(got, [{"name": n, "output": o} for n, o in expected])
    assert result.value == pytest.approx(value, abs=0.01)
