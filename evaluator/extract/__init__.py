"""Spans -> tool calls (SPEC §5): which spans record a tool call under every convention we
read, and how each field is read from what real frameworks emit.

- `calls`: `extract_tool_calls`, the entry point (ordering, recovery, message-only calls);
- `context`: a conversation's spans, read once for all its turns;
- `span`: one lazy view over SDK spans and `spans` rows;
- `fields`: the field-by-field precedence over the conventions;
- `envelopes`: unwrapping the envelopes frameworks put around a tool's values;
- `recover`: the model requests read from model spans (ids, bare arguments);
- `assign`: which request each tool call answers;
- `messages`: calls from model messages alone (requested, or replayed in a later input);
- `answers`: tool answers carried in model inputs as evidence pieces, and their pairing;
- `history`: the calls a model input's history replays;
- `reused`: ids made up per request (an answered id requested again is a new call).
"""

from tracesim.evaluator.extract.calls import extract_tool_calls
from tracesim.evaluator.extract.context import ConversationSpans

__all__ = ["ConversationSpans", "extract_tool_calls"]
