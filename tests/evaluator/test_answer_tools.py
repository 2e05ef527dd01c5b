"""An agent's answer tool is not a tool call (SPEC §5, `extract.answer_tools`): the turn's last
call whose one text argument is what the turn answered, whatever the tool's name; DSPy's
`finish` by its own signature (specific). Each is listed as ignored, never dropped silently."""

from __future__ import annotations

import json

from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.audit import IGNORED_SPAN, UNANSWERED_REQUEST, Unexplained

from tests.evaluator.rule_rows import model_row, rule_row

ANSWER = "It is sunny in Paris, and order A1 was not found."


def _agent(n: int, output: str = ANSWER) -> dict:
    return rule_row(n, "agent", {"openinference.span.kind": "AGENT", "output.value": output})


def _tool(n: int, name: str, arguments: dict, output: str = "ok", **attrs) -> dict:
    return rule_row(
        n,
        name,
        {
            "openinference.span.kind": "TOOL",
            "tool.name": name,
            "input.value": json.dumps(arguments),
            "output.value": output,
            **attrs,
        },
    )


def _extract(rows: list[dict]) -> tuple[list, list[Unexplained]]:
    audit: list[Unexplained] = []
    calls = extract_tool_calls(rows, audit=audit)
    return [c.name for c in calls], audit


def test_the_last_call_carrying_the_turns_answer_is_the_answer_not_a_call() -> None:
    for name in ("final_answer", "reply_to_user"):  # the name plays no part
        rows = [
            _agent(0),
            model_row(1, [("c1", "get_weather", {"city": "Paris"})]),
            _tool(2, "get_weather", {"city": "Paris"}, "Sunny", **{"tool_call.id": "c1"}),
            model_row(3, [("c2", name, {"response": ANSWER})]),
            _tool(4, name, {"response": ANSWER}, "Message has been sent"),
        ]
        names, audit = _extract(rows)
        assert names == ["get_weather"]
        assert [(i.kind, i.name, i.span_id) for i in audit] == [
            (IGNORED_SPAN, name, format(4, "016x"))
        ]  # listed; its model request is explained by it, not left unanswered


def test_a_model_reply_is_the_turns_answer_too() -> None:
    reply = rule_row(
        5,
        "chat m",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}]
            ),
        },
    )
    names, audit = _extract([_tool(1, "say", {"text": f"  {ANSWER} "}), reply])
    assert names == [] and [i.kind for i in audit] == [IGNORED_SPAN]


def test_calls_that_only_look_like_answers_stay_calls() -> None:
    # one text argument that is not the answer
    names, _ = _extract([_agent(0), _tool(1, "lookup", {"q": "Paris"})])
    assert names == ["lookup"]
    # the answer as an argument, but not the turn's last call
    names, _ = _extract(
        [_agent(0), _tool(1, "notify", {"text": ANSWER}), _tool(2, "log", {"k": 1})]
    )
    assert names == ["notify", "log"]
    # the answer among other arguments
    names, _ = _extract([_agent(0), _tool(1, "send", {"to": "me", "body": ANSWER})])
    assert names == ["send"]
    # no answer anywhere else in the turn
    names, _ = _extract([_tool(1, "final_answer", {"answer": ANSWER}, ANSWER)])
    assert names == ["final_answer"]


def test_dspy_finish_by_its_signature_only() -> None:
    rows = [_tool(1, "get_weather", {"city": "Paris"}), _tool(2, "finish", {}, '"Completed."')]
    names, audit = _extract(rows)
    assert names == ["get_weather"]
    assert [(i.kind, i.name) for i in audit] == [(IGNORED_SPAN, "finish")]
    names, audit = _extract([_tool(1, "finish", {"task": "x"}, "Completed.")])
    assert names == ["finish"] and UNANSWERED_REQUEST not in [i.kind for i in audit]


def test_the_turns_recorded_answer_is_the_turns_answer_too() -> None:
    turn = rule_row(0, "tracesim.turn", {"tracesim.agent_message": ANSWER})
    names, audit = _extract([turn, _tool(1, "respond", {"message": ANSWER}, "sent")])
    assert names == [] and [i.kind for i in audit] == [IGNORED_SPAN]


def _under(row: dict, parent: int) -> dict:
    return {**row, "parent_span_id": format(parent, "016x")}


def test_a_delegate_agents_answer_tool_is_its_answer_not_a_call() -> None:
    # A managed agent run inside the `ask_delegate` call answers it through its own answer
    # tool: the last call below the delegate's call, its one text argument in that call's
    # result (the caller's framework may wrap the answer in text of its own).
    delegate_answer = "Sunny, 21 C in Paris"
    wrapped = f"Here is the final answer from your managed agent:\n{delegate_answer}"
    rows = [
        _tool(1, "ask_delegate", {"task": "Weather in Paris?"}, wrapped),
        _under(rule_row(2, "delegate", {"openinference.span.kind": "AGENT"}), 1),
        _under(_tool(3, "get_weather", {"city": "Paris"}, delegate_answer), 2),
        _under(_tool(4, "respond", {"answer": delegate_answer}, delegate_answer), 2),
        _tool(5, "lookup", {"order_id": "A1"}, "none"),
    ]
    names, audit = _extract(rows)
    assert names == ["ask_delegate", "get_weather", "lookup"]
    assert [(i.kind, i.name, i.span_id) for i in audit] == [
        (IGNORED_SPAN, "respond", format(4, "016x"))
    ]


def test_calls_below_a_delegate_that_only_look_like_its_answer_stay_calls() -> None:
    answer = "Sunny, 21 C in Paris"
    # the delegate's last call, but its argument is not in the delegate call's result
    rows = [
        _tool(1, "ask_delegate", {"task": "Weather?"}, answer),
        _under(_tool(2, "notify", {"text": "Cloudy"}), 1),
    ]
    assert _extract(rows)[0] == ["ask_delegate", "notify"]
    # in the result, but not the delegate's last call
    rows = [
        _tool(1, "ask_delegate", {"task": "Weather?"}, answer),
        _under(_tool(2, "notify", {"text": answer}), 1),
        _under(_tool(3, "log", {"k": 1}), 1),
    ]
    assert _extract(rows)[0] == ["ask_delegate", "notify", "log"]
    # the delegate's last call, its argument only a word of the delegate's answer
    rows = [
        _tool(1, "ask_delegate", {"task": "Weather?"}, answer),
        _under(_tool(2, "get_weather", {"city": "Paris"}, answer), 1),
    ]
    assert _extract(rows)[0] == ["ask_delegate", "get_weather"]
    # a parent cycle between tool spans ends the walk (no enclosing call is invented)
    rows = [
        {**_tool(1, "a", {"text": answer}, answer), "parent_span_id": format(2, "016x")},
        {**_tool(2, "b", {"text": answer}, answer), "parent_span_id": format(1, "016x")},
    ]
    assert _extract(rows)[0] == ["a", "b"]
