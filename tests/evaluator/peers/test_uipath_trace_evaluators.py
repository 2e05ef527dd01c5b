"""Cases ported from UiPath/uipath-python (packages/uipath/tests/evaluators): the tool-call evaluators run on a trace (test_evaluator_methods.py)."""

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


def tc(name, **args):
    return ToolCall(name=name, args=args)


def calls(*names: str) -> list[ToolCall]:
    return [ToolCall(name=n) for n in names]


def outs(*pairs) -> list[ToolCall]:
    return [ToolCall(name=n, result=o) for n, o in pairs]


def trace(*spans: dict) -> list[ToolCall]:
    """Extract the calls of UiPath-style spans (tool.name, input.value, output.value)."""
    return extract_tool_calls(
        [span_row(a, i + 1, a.get("tool.name", "span")) for i, a in enumerate(spans)]
    )


# --- evaluators on a trace (test_evaluator_methods.py) ------------------------------------

TRACE = [
    {
        "tool.name": "tool1",
        "input.value": "{'arg1': 'value1'}",
        "output.value": '{"content": "output1"}',
    },
    {
        "tool.name": "tool2",
        "input.value": "{'arg2': 'value2'}",
        "output.value": '{"content": "output2"}',
    },
    {
        "tool.name": "tool1",
        "input.value": "{'arg1': 'value1'}",
        "output.value": '{"content": "output1"}',
    },
    {
        "tool.name": "tool2",
        "input.value": "{'arg2': 'value2'}",
        "output.value": '{"content": "output2"}',
    },
]


@pytest.mark.parametrize(
    ("expected", "order", "value"),
    [
        (["tool1", "tool2", "tool1", "tool2"], "strict", 1.0),
        (["tool1", "tool1", "tool2", "tool2"], "strict", 0.0),
        (["tool1", "tool1", "tool2", "tool2"], "in_order", 0.75),
        (["tool1", "tool2", "tool1", "tool2"], "strict", 1.0),
    ],
    ids=["perfect", "no_perfect_match", "lcs", "raw_criteria"],
)
def test_order_evaluator(expected, order, value) -> None:
    assert tool_call_order(trace(*TRACE), expected, order=order).value == value


@pytest.mark.parametrize(
    ("expected", "strict", "value"),
    [
        ({"tool1": ("=", 2), "tool2": ("=", 2)}, True, 1.0),
        ({"tool1": (">", 1), "tool2": (">", 1)}, True, 1.0),
        ({"tool1": ("=", 2), "tool2": ("=", 1)}, True, 0.0),
        ({"tool1": ("=", 2), "tool2": ("=", 1)}, False, 0.5),
        ({"tool1": ["=", 2], "tool2": ["=", 2]}, True, 1.0),
    ],
    ids=["exact", "gt", "no_exact_match", "partial", "raw_criteria"],
)
def test_count_evaluator(expected, strict, value) -> None:
    assert tool_call_count(trace(*TRACE), expected, all_or_nothing=strict).value == value


@pytest.mark.parametrize(
    ("expected", "strict", "value"),
    [
        (
            [
                tc("tool1", arg1="value1"),
                tc("tool2", arg2="value2"),
                tc("tool1", arg1="value1"),
                tc("tool2", arg2="value2"),
            ],
            True,
            1.0,
        ),
        (
            [
                tc("tool1", arg1="value1"),
                tc("tool2", arg2="value1"),
                tc("tool1", arg1="value1"),
                tc("tool2", arg2="value2"),
            ],
            False,
            0.75,
        ),
        (
            [
                {"name": "tool1", "args": {"arg1": "value1"}},
                {"name": "tool2", "args": {"arg2": "value2"}},
                {"name": "tool1", "args": {"arg1": "value1"}},
                {"name": "tool2", "args": {"arg2": "value2"}},
            ],
            True,
            1.0,
        ),
    ],
    ids=["perfect", "partial", "raw_criteria"],
)
def test_args_evaluator(expected, strict, value) -> None:
    assert tool_call_args(trace(*TRACE), expected, all_or_nothing=strict).value == value


@pytest.mark.parametrize(
    ("expected", "strict", "value"),
    [
        pytest.param(
            [
                ("tool1", "output1"),
                ("tool2", "output2"),
                ("tool1", "output1"),
                ("tool2", "output2"),
            ],
            True,
            1.0,
            id="perfect",
        ),
        pytest.param(
            [
                ("tool1", "output1"),
                ("tool2", "wrong_output"),
                ("tool1", "output1"),
                ("tool2", "output2"),
            ],
            False,
            0.75,
            id="partial",
        ),
        pytest.param(
            [
                ("tool1", "wrong_output1"),
                ("tool2", "output2"),
                ("tool1", "output1"),
                ("tool2", "output2"),
            ],
            True,
            0.0,
            id="no_match_strict",
        ),
        pytest.param(
            [("tool1", "wrong_output1"), ("tool2", "output2")],
            False,
            0.5,
            id="partial_non_strict",
        ),
        pytest.param(
            [
                ("tool1", "output1"),
                ("tool2", "output2"),
                ("tool1", "output1"),
                ("tool2", "output2"),
            ],
            True,
            1.0,
            id="raw_criteria",
        ),
    ],
)
def test_output_evaluator(expected, strict, value) -> None:
    result = tool_call_output(trace(*TRACE), outs(*expected), all_or_nothing=strict)
    assert result.value == value


def test_output_evaluator_empty_criteria() -> None:
    assert tool_call_output(trace(*TRACE), []).value == 0.0
