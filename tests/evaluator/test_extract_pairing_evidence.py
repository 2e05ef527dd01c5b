"""One evidence model per turn (SPEC §5), the pairing side: tool spans with ids of their own,
rewritten ids, lifecycle and nested spans, position pairing and replayed history, on
hand-built rows shaped like what real instrumentations emit. Each test names the frameworks
behind the rule it checks."""

from __future__ import annotations

import json

from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.provenance import source_of

from tests.evaluator.evidence_rows import _model, _row, _tool


def test_tool_span_with_its_own_id_and_empty_values_takes_the_request() -> None:
    """ADK: `gen_ai.tool.call.id=adk-...` and `{}` arguments on the span; the model request
    and the next model input carry the real ones under the model's id, which is the call's
    (the id its answers and explicit reports use)."""
    model_1 = _model("00000000000000c1", 1, calls=[("call_9", "get_weather", '{"city": "Oslo"}')])
    tool = _row(
        "00000000000000a2",
        "execute_tool get_weather",
        {
            "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "adk-1f2e",
            "gen_ai.tool.call.arguments": "{}",
            "gen_ai.tool.call.result": "{}",
        },
        second=2,
    )
    model_2 = _model("00000000000000c3", 3, answers=[("call_9", "Rain")])
    [call] = extract_tool_calls([model_1, tool, model_2])
    assert call.arguments == {"city": "Oslo"}
    assert call.result == "Rain"
    assert call.id == "call_9"
    assert source_of(call, "arguments") == "model_request"
    assert source_of(call, "result") == "model_input"
    assert source_of(call, "id") == "model_request"


def test_tool_span_with_a_run_id_joins_the_unanswered_request_of_its_name() -> None:
    """OpenLIT on LangChain: the tool span carries LangChain's run id (a uuid no request
    names) with full arguments; it is the call the unanswered request of its name and
    arguments asked for, under the request's id (ADK's `adk-` ids: the same rule)."""
    model_1 = _model(
        "00000000000000c1",
        1,
        calls=[("call_w1", "get_weather", '{"city": "Paris"}')],
    )
    weather = _tool("00000000000000a2", 2, "get_weather", "call_w1", '{"city": "Paris"}')
    model_2 = _model("00000000000000c3", 3, calls=[("call_o1", "lookup_order", '{"id": "A1"}')])
    order = _tool("00000000000000a4", 4, "lookup_order", "01a2179f-34a1", '{"id": "A1"}')
    audit: list = []
    first, second = extract_tool_calls([model_1, weather, model_2, order], audit=audit)
    assert (first.id, source_of(first, "id")) == ("call_w1", "tool_span")
    assert (second.id, source_of(second, "id")) == ("call_o1", "model_request")
    assert audit == []  # the request is answered by the span


def test_tool_span_with_its_own_id_never_takes_a_request_of_other_arguments() -> None:
    """The own-id span joins only a request of its arguments (when both have some): a
    request for other arguments stays unanswered, and said."""
    model_1 = _model("00000000000000c1", 1, calls=[("call_o1", "lookup_order", '{"id": "B2"}')])
    order = _tool("00000000000000a2", 2, "lookup_order", "run-7", '{"id": "A1"}')
    audit: list = []
    [call] = extract_tool_calls([model_1, order], audit=audit)
    assert call.id == "run-7"
    assert [item.detail for item in audit] == ["call_o1"]


def test_a_lifecycle_child_tool_span_is_its_parent_call() -> None:
    """BeeAI (OpenInference): a failing tool's `error` event is a child TOOL span of the
    tool span, input `{error, input, options}`; one call, and the error is the cause the
    output prints, not the wrapper's generic 'Tool Error'."""
    output = (
        "ToolError(beeai_framework.tools.errors): Tool Error\n"
        '  Context: {"name": "lookup_order"}\n'
        "  ValueError(builtins): order A1 not found"
    )
    exception = [
        {
            "name": "exception",
            "attributes": {"exception.type": "ToolError", "exception.message": "Tool Error"},
        }
    ]
    parent = _row(
        "00000000000000a1",
        "lookup_order",
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "lookup_order",
            "input.value": '{"order_id": "A1"}',
            "output.value": output,
        },
        second=1,
        status_code="ERROR",
        events=json.dumps(exception),
    )
    child = _row(
        "00000000000000a2",
        "error",
        {
            "openinference.span.kind": "TOOL",
            "input.value": '{"error": "Tool Error", "input": {"order_id": "A1"}}',
            "output.value": output,
        },
        second=2,
        parent_span_id="00000000000000a1",
        status_code="ERROR",
        events=json.dumps(exception),
    )
    [call] = extract_tool_calls([parent, child])
    assert (call.name, call.arguments) == ("lookup_order", {"order_id": "A1"})
    assert call.error == "order A1 not found"


def test_a_nested_tool_span_under_an_id_of_its_own_is_another_call() -> None:
    """A tool that calls a tool of the same name (a delegate): the inner span's own id
    names another call, which stays a call."""
    outer = _tool("00000000000000a1", 1, "ask", "call_1", '{"q": "x"}')
    inner = _tool(
        "00000000000000a2", 2, "ask", "call_2", '{"q": "y"}', parent_span_id=outer["span_id"]
    )
    assert [c.id for c in extract_tool_calls([outer, inner])] == ["call_1", "call_2"]


def test_result_under_a_rewritten_id_pairs_by_position() -> None:
    """Frameworks that rewrite ids between the request and the answer: the new tool
    messages no request names are the answers, in order, when exactly as many."""
    model_1 = _model(
        "00000000000000c1",
        1,
        calls=[("call_1", "a", '{"x": 1}'), ("call_2", "b", '{"y": 2}')],
    )
    tool_a = _row(
        "00000000000000a2",
        "execute_tool a",
        {
            "gen_ai.tool.name": "a",
            "gen_ai.tool.call.id": "call_1",
            "gen_ai.tool.call.arguments": '{"x": 1}',
        },
        second=2,
    )
    tool_b = _row(
        "00000000000000a3",
        "execute_tool b",
        {
            "gen_ai.tool.name": "b",
            "gen_ai.tool.call.id": "call_2",
            "gen_ai.tool.call.arguments": '{"y": 2}',
        },
        second=3,
    )
    model_2 = _model("00000000000000c4", 4, answers=[("tc-0", "A!"), ("tc-1", "B!")])
    first, second = extract_tool_calls([model_1, tool_a, tool_b, model_2])
    assert (first.result, second.result) == ("A!", "B!")
    assert first.provenance["result"] == "model_input_position"


def test_position_pairing_never_guesses_when_counts_differ() -> None:
    model_1 = _model("00000000000000c1", 1, calls=[("call_1", "a", "{}")])
    tool_a = _row(
        "00000000000000a2",
        "execute_tool a",
        {
            "gen_ai.tool.name": "a",
            "gen_ai.tool.call.id": "call_1",
            "gen_ai.tool.call.arguments": '{"x": 1}',
        },
        second=2,
    )
    model_2 = _model("00000000000000c4", 4, answers=[("tc-0", "A!"), ("tc-1", "B!")])
    [call] = extract_tool_calls([model_1, tool_a, model_2])
    assert call.result is None


def test_history_answers_are_not_new_answers() -> None:
    """Every model input repeats the conversation's earlier tool messages: those are not
    answers to this turn's calls."""
    model_1 = _model("00000000000000c1", 1, answers=[("old", "from turn 0")])
    tool_a = _row(
        "00000000000000a2",
        "execute_tool a",
        {"gen_ai.tool.name": "a", "gen_ai.tool.call.arguments": '{"x": 1}'},
        second=2,
    )
    model_2 = _model("00000000000000c4", 4, answers=[("old", "from turn 0")])
    [call] = extract_tool_calls([model_1, tool_a, model_2])
    assert call.result is None
