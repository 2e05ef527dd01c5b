"""Server-sent events framing: turn a stream of text lines into event payloads.

Only what chat-completions streams use: `data:` lines (several per event are
joined with a newline), comments (`:` keep-alives) and the blank line that
ends an event. `event:`/`id:`/`retry:` fields are ignored.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

__all__ = ["DONE", "iter_sse_data"]

DONE = "[DONE]"
"""The payload OpenAI-compatible servers send as their last event."""


async def iter_sse_data(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    """Yield the `data` payload of each event in `lines` (a trailing unterminated event too)."""
    chunks: list[str] = []
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if chunks:
                yield "\n".join(chunks)
                chunks = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            chunks.append(value[1:] if value.startswith(" ") else value)
    if chunks:
        yield "\n".join(chunks)
