"""Where each span convention keeps a turn's user message and the agent's reply.

One table for every convention tracesim reads messages from (SPEC §14: the
same evidence model as tool calls, §5). Each `MessageSource` says where a
list of chat messages (or one text) lives and in which shape; the evaluator's
`extract.dialogue` reads them in table order and takes the turn's user
message from the first model call's input (its last user message) and the
reply from the last model call's output that has text, falling back to the
agent-level input/output values (OpenInference `input.value`, Vercel AI
`ai.prompt` / `ai.response.text`, Pydantic AI `final_result`).

Shapes:
- `messages`: a JSON list of `{role, content | parts}` (parts `{type: text,
  content | text}`, Gemini `{text}`), on the span or on one of its events (the GenAI
  `gen_ai.client.inference.operation.details` event / log record);
- `indexed`: flattened `{prefix}{i}.{middle}role` / `...content` attributes;
- `event`: an event (or log record) named `key`, its text in `field`
  (`message.content` walks into an object);
- `adk_request` / `adk_response`: Google ADK's `LlmRequest.contents` / `LlmResponse.content`;
- `events_json`: a JSON list of GenAI events (`event.name`, ...) in one attribute;
- `prompt`: Vercel AI's `ai.prompt` JSON (`{prompt}` text or `{messages}`);
- `text`: the value is the text itself (JSON strings and `{"messages"}` unwrapped).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["AGENT_LEVEL", "MESSAGE_SOURCES", "MessageSource"]

Side = Literal["input", "output"]


@dataclass(frozen=True)
class MessageSource:
    """One place a convention keeps chat messages."""

    convention: str
    """Who writes it (reported as the turn's `source_convention`)."""
    side: Side
    """`input` (what the model or agent was asked) or `output` (what it answered)."""
    shape: str
    """How to read it (see the module doc)."""
    key: str
    """The attribute, prefix or event name."""
    middle: str = ""
    """`indexed`: between the index and `role`/`content` (OpenInference `message.`)."""
    field: str = "content"
    """`event`: the event attribute holding the text."""
    when: tuple[tuple[str, str], ...] = ()
    """Attribute values the span must have for the source to count (any-agent writes
    `gen_ai.output` on tool spans too; only a model call's text output is a reply)."""


MESSAGE_SOURCES: tuple[MessageSource, ...] = (
    MessageSource("otel_genai", "input", "messages", "gen_ai.input.messages"),
    MessageSource("otel_genai", "output", "messages", "gen_ai.output.messages"),
    MessageSource("openinference", "input", "indexed", "llm.input_messages.", "message."),
    MessageSource("openinference", "output", "indexed", "llm.output_messages.", "message."),
    MessageSource("openllmetry", "input", "indexed", "gen_ai.prompt."),
    MessageSource("openllmetry", "output", "indexed", "gen_ai.completion."),
    MessageSource("otel_genai_events", "input", "event", "gen_ai.user.message"),
    MessageSource("otel_genai_events", "output", "event", "gen_ai.choice", field="message"),
    MessageSource("otel_genai_events", "output", "event", "gen_ai.assistant.message"),
    MessageSource("adk", "input", "adk_request", "gcp.vertex.agent.llm_request"),
    MessageSource("adk", "output", "adk_response", "gcp.vertex.agent.llm_response"),
    MessageSource("vercel_ai", "input", "messages", "ai.prompt.messages"),
    MessageSource("pydantic_ai", "input", "events_json", "all_messages_events"),
    MessageSource("pydantic_ai", "output", "events_json", "all_messages_events"),
    MessageSource("pydantic_ai", "input", "messages", "pydantic_ai.all_messages"),
    MessageSource("pydantic_ai", "output", "messages", "pydantic_ai.all_messages"),
    MessageSource(
        "any_agent",
        "output",
        "text",
        "gen_ai.output",
        when=(("gen_ai.output.type", "text"), ("gen_ai.operation.name", "call_llm")),
    ),
)
"""Model-call level sources, in the order they are tried on each span."""

AGENT_LEVEL: tuple[MessageSource, ...] = (
    MessageSource("openinference", "input", "text", "input.value"),
    MessageSource("openinference", "output", "text", "output.value"),
    MessageSource("vercel_ai", "input", "prompt", "ai.prompt"),
    MessageSource("vercel_ai", "output", "text", "ai.response.text"),
    MessageSource("pydantic_ai", "output", "text", "final_result"),
)
"""Agent-level values (the whole turn's input and output), used when no model call has them."""
