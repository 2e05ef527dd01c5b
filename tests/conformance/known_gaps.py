"""Where today's extraction misses the truth of a recording added by the issue-24 corpus:
(variant, check) -> what is wrong, for the evidence model to fix. `test_replay` expects these
checks to FAIL (strictly: one that starts passing fails, so the list only shrinks).

Checks: tool_calls, model_calls (count and tokens), keyed (conversation), screening (the
per-turn span extraction of `test_extraction_text_screening_changes_no_answer`), explained
(`test_every_piece_of_evidence_is_explained`).
"""

from __future__ import annotations

__all__ = ["CORPUS_GAPS", "HELD_OUT_GAPS"]

CORPUS_GAPS: dict[tuple[str, str], str] = {
    # Gemini API (google-genai): calls have no ids
    ("google-genai-otel-events", "tool_calls"): (
        "the recording carries no message at all: its log records "
        "(gen_ai.client.inference.operation.details) and spans hold usage only, no "
        "gen_ai.input/output.messages (content capture 'true' is not a mode of that "
        "instrumentation's latest semconv): to re-record with EVENT_ONLY"
    ),
    ("google-genai-otel-events", "screening"): "no call in the recording (see tool_calls)",
    # LiteLLM's own OTel callback: a usage record (raw_gen_ai_request) under each call
    ("litellm-otel", "tool_calls"): (
        "the calls are found (legacy gen_ai.completion.0.function_call, no id), but each "
        "litellm.completion is a trace of its own with no conversation key: the answers are "
        "only in the NEXT trace's gen_ai.input.messages (and the ids only in the "
        "raw_gen_ai_request child's llm.openai.choices, a Python repr): no call gets its "
        "result; unkeyed traces are not linked by their message history"
    ),
    ("litellm-otel", "explained"): (
        "6 results without a call: each trace's input answers calls made in earlier traces "
        "(see tool_calls)"
    ),
}

HELD_OUT_GAPS: dict[tuple[str, str], str] = {
    # Recorded for the issue-24 held-out measurement (tests/conformance/README.md, "held-out
    # results"): frameworks the extraction had never seen, replayed before any fix.
    ("mistral-openllmetry-stream", "tool_calls"): (
        "no call in the telemetry at all: the streamed replies' tool calls and the prompts' "
        "contents are not recorded (only the final text). Class: model spans whose content "
        "is missing; tracesim cannot find the calls (the 3 model calls whose finish reason "
        "says tool_calls are now warned about: unread_request)"
    ),
    ("mistral-openllmetry-stream", "keyed"): "no call found (see tool_calls)",
    ("mistral-openllmetry-stream", "screening"): "no call found (see tool_calls)",
    ("genkit-node", "tool_calls"): (
        "no call at all, and nothing said: Genkit's own convention (genkit:metadata:subtype "
        "tool|model, genkit:name, genkit:input / genkit:output JSON, toolRequest {name, ref, "
        "input} in the model action's output) matches no tool or model convention, and the "
        "trace has no key, so it is not evaluated. Class: an unknown convention whose "
        "spans carry JSON input/output (no longer silent: an unread_turn, prefix genkit:)"
    ),
    ("genkit-node", "model_calls"): (
        "0 of 3: the model action spans (genkit:metadata:subtype=model, usage inside "
        "genkit:output) are no model convention"
    ),
    ("genkit-node", "screening"): "no call found (see tool_calls)",
    ("openlit-groq", "tool_calls"): (
        "no call: OpenLIT's groq instrumentation raises on every tool-call reply (its span "
        "is ERROR with the instrumentation's own AttributeError, no messages); only the "
        "last request's log record lists the results (ids, no names). The calls are not in "
        "the telemetry; tracesim reports 3 results without a call but not that 3 model "
        "spans failed inside the instrumentation"
    ),
    ("openlit-groq", "keyed"): "no call found (see tool_calls)",
    ("openlit-groq", "screening"): "no call found (see tool_calls)",
    ("openlit-groq", "explained"): (
        "3 results without a call (the log record's tool_call_response parts) and 3 model "
        "calls that asked for tools unreadably (unread_request): the calls are not in the "
        "telemetry (see tool_calls); warned about, as it should be"
    ),
}

CORPUS_GAPS.update(HELD_OUT_GAPS)
