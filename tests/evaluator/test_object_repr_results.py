"""A tool result that is a Python object's default repr is no result (SPEC §5: placeholders
are missing): the next source, the answer a later model input carried, gives it."""

from __future__ import annotations

from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.provenance import source_of
from tracesim.evaluator.extract.readers.envelopes import is_placeholder

from tests.evaluator.rule_rows import model_row, responses_row, tool_row

GENERATOR = "<generator object _delegate.<locals>.delegate_task at 0x55b5186a0470>"


def test_object_reprs_are_placeholders_and_texts_are_not() -> None:
    assert is_placeholder(GENERATOR)
    assert is_placeholder("<app.tools.Result object at 0x7F3A2C1D9E80>")
    assert is_placeholder("  <function lookup at 0x10>  ")
    assert not is_placeholder("<b>Sunny</b> at 0x10 degrees")  # markup, not a repr
    assert not is_placeholder("Sunny, 21 C")
    assert not is_placeholder("<Result ok>")


def test_a_repr_result_gives_way_to_the_model_inputs_answer() -> None:
    """Agno's delegate tool under OpenLIT: gen_ai.tool.call.result is the generator's repr;
    the member's answer is in the leader's next model input, under the call's id."""
    rows = [
        model_row(1, [("call_1", "t", {"a": 1})]),
        tool_row(2, {"gen_ai.tool.call.id": "call_1", "gen_ai.tool.call.result": GENERATOR}),
        responses_row(3, [("call_1", "Sunny, 21 C in Paris")], trace=1),
    ]
    audit: list = []
    [call] = extract_tool_calls(rows, context=rows, audit=audit)
    assert call.result == "Sunny, 21 C in Paris"
    assert source_of(call, "result") == "model_input"
    assert audit == []  # no conflict: the repr was never a result
