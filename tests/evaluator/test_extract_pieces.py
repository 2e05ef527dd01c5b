"""One piece type for the call side of the evidence (SPEC §5): tool spans, MCP spans, model
requests and replayed requests are all read as `CallPiece`, and `pair_turn` builds the
calls from them in one step."""

from __future__ import annotations

import json
from datetime import datetime

from tracesim.evaluator.extract.context import ConversationSpans
from tracesim.evaluator.extract.pairing.recover import requested_calls
from tracesim.evaluator.extract.pairing.turn import pair_turn
from tracesim.evaluator.extract.pieces import MCP_SPAN, REPLAY, REQUEST, TOOL_SPAN, CallPiece
from tracesim.evaluator.extract.readers.history import replayed_calls
from tracesim.evaluator.extract.readers.tool_spans import span_piece
from tracesim.evaluator.extract.span import view_of

TRACE = "0" * 31 + "2"


def _view(span_id: str, name: str, attributes: dict, second: int, parent: str | None = None):
    return view_of(
        {
            "trace_id": TRACE,
            "span_id": span_id,
            "parent_span_id": parent,
            "name": name,
            "start_time": datetime(2025, 1, 1, 12, 0, second),
            "end_time": None,
            "duration_ms": 1.0,
            "status_code": "UNSET",
            "status_message": None,
            "attributes": json.dumps(attributes),
            "events": "[]",
        }
    )


def _model(second: int) -> object:
    request = [
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": "call_1", "name": "t", "arguments": {"x": 1}}],
        }
    ]
    replay = [
        *request,
        {
            "role": "tool",
            "parts": [{"type": "tool_call_response", "id": "call_1", "response": "ok"}],
        },
    ]
    return _view(
        "00000000000000c1",
        "chat m",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.output.messages": json.dumps(request),
            "gen_ai.input.messages": json.dumps(replay),
        },
        second,
    )


def test_every_reader_of_the_call_side_yields_a_call_piece() -> None:
    tool = _view("00000000000000a1", "execute_tool t", {"gen_ai.tool.name": "t"}, 2)
    mcp = _view(
        "00000000000000a2",
        "tools/call t",
        {"mcp.method.name": "tools/call", "gen_ai.tool.name": "t"},
        3,
        parent="00000000000000a1",
    )
    model = _model(1)
    pieces = [span_piece(tool), span_piece(mcp), *requested_calls(model), *replayed_calls(model)]
    assert all(type(piece) is CallPiece for piece in pieces)
    assert [piece.kind for piece in pieces] == [TOOL_SPAN, MCP_SPAN, REQUEST, REPLAY]
    assert {piece.name for piece in pieces} == {"t"}
    assert pieces[0].needs  # no id, no arguments: the request holds them


def test_one_pairing_step_makes_one_call_of_a_span_its_mcp_span_and_the_request() -> None:
    """The tool span (no id, no arguments), the MCP span below it (the result) and the
    request (id, arguments) are one call, each field from its source."""
    tool = _view("00000000000000a1", "execute_tool t", {"gen_ai.tool.name": "t"}, 2)
    mcp = _view(
        "00000000000000a2",
        "tools/call t",
        {"mcp.method.name": "tools/call", "gen_ai.tool.name": "t", "gen_ai.tool.call.result": "ok"},
        3,
        parent="00000000000000a1",
    )
    model = _model(1)
    pieces = [span_piece(tool), span_piece(mcp)]
    [call], aliases = pair_turn(pieces, [model], ConversationSpans(None))
    assert (call.id, call.name, call.arguments, call.result) == ("call_1", "t", {"x": 1}, "ok")
    assert call.provenance == {"id": REQUEST, "arguments": REQUEST, "result": MCP_SPAN}
    assert aliases == []
