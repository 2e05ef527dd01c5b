"""Spans -> tool calls (SPEC §5): one evidence model per turn, gathered, then paired once.

- `calls`: `extract_tool_calls`, the entry point (gather the turn's pieces, pair, audit);
- `pieces`: `CallPiece`, the one piece type of the call side (tool span, MCP span, model
  request, replayed request);
- `tool_spans`: tool and MCP spans as pieces (every tool convention);
- `recover`: model requests as pieces (output messages of every convention);
- `history`: the calls a model input's history replays, as pieces;
- `answers`: tool answers carried in model inputs as evidence pieces;
- `answer_pairing`: the one pairing of answers with calls;
- `pairing`: the one pairing step (pieces and answers -> calls);
- `doubles`: a model span nested in another repeating its requests (one reply, two ids);
- `nested`: tool spans of one call (MCP client/server, a second instrumentation, a
  lifecycle event) as one;
- `assign`: which request each tool span answers;
- `request_calls`: requests no span answered, as calls;
- `reused`: ids made up per request (an answered id requested again is a new call);
- `context`: a conversation's spans, read once for all its turns;
- `span`: one lazy view over SDK spans and `spans` rows;
- `fields`, `errors`: the field-by-field precedence over the conventions;
- `wrapped_errors`: a wrapper's status message over a cause two sources agree on;
- `envelopes`: unwrapping the envelopes frameworks put around a tool's values;
- `audit`: the evidence that did not become a call.
"""

from tracesim.evaluator.extract.calls import extract_tool_calls
from tracesim.evaluator.extract.context import ConversationSpans

__all__ = ["ConversationSpans", "extract_tool_calls"]
