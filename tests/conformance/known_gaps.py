"""Where today's extraction misses the truth of a recording added by the issue-24 corpus:
(variant, check) -> what is wrong, for the evidence model to fix. `test_replay` expects these
checks to FAIL (strictly: one that starts passing fails, so the list only shrinks).

Checks: tool_calls, model_calls (count and tokens), keyed (conversation), screening (the
per-turn span extraction of `test_extraction_text_screening_changes_no_answer`), explained
(`test_every_piece_of_evidence_is_explained`).
"""

from __future__ import annotations

__all__ = ["CORPUS_GAPS"]

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
