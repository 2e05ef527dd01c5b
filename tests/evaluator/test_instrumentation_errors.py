"""A span whose instrumentation raised inside its own code while recording it (SPEC §5):
the content it was writing is missing, and tracesim says so (`instrumentation_error`),
once per span, instead of an unexplained `unread_request`. A call's own failure (the
provider's error propagated through the wrapper) is not one."""

from __future__ import annotations

import json

from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.audit import INSTRUMENTATION_ERROR, UNREAD_REQUEST

PY_INSTRUMENTATION = (
    "Traceback (most recent call last):\n"
    '  File "/venv/lib/python3.11/site-packages/openlit/instrumentation/groq/groq.py", '
    "line 152, in wrapper\n    response = process_chat_response(\n"
    '  File "/venv/lib/python3.11/site-packages/openlit/instrumentation/groq/utils.py", '
    'line 428, in common_chat_logic\n    scope._tools.get("function")\n'
    "AttributeError: 'list' object has no attribute 'get'\n"
)
PY_PROVIDER = (
    "Traceback (most recent call last):\n"
    '  File "/venv/site-packages/opentelemetry/instrumentation/openai_v2/patch.py", '
    "line 60, in traced_method\n    result = wrapped(*args, **kwargs)\n"
    '  File "/venv/site-packages/openai/_base_client.py", line 1047, in request\n'
    "    raise self._make_status_error_from_response(err.response) from None\n"
    "openai.RateLimitError: Error code: 429\n"
)
V8_INSTRUMENTATION = (
    "TypeError: Cannot read properties of undefined (reading 'map')\n"
    "    at _setResponseAttributes (/app/node_modules/@traceloop/instrumentation-openai/"
    "dist/index.js:412:31)\n"
    "    at /app/node_modules/@traceloop/instrumentation-openai/dist/index.js:300:18\n"
    "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)"
)


def _model(stack: str, kind: str = "AttributeError") -> dict:
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.response.finish_reasons": ["tool_calls"],
        "error.type": kind,
    }
    event = {
        "name": "exception",
        "attributes": {
            "exception.type": kind,
            "exception.message": "boom",
            "exception.stacktrace": stack,
        },
    }
    return {
        "trace_id": "t",
        "span_id": "m1",
        "name": "chat m",
        "status_code": "ERROR",
        "attributes": json.dumps(attributes),
        "events": json.dumps([event]),
    }


def _kinds(row: dict) -> list[str]:
    audit: list = []
    extract_tool_calls([row], audit=audit)
    return [item.kind for item in audit]


def test_an_exception_raised_inside_the_instrumentation_is_said_once() -> None:
    assert _kinds(_model(PY_INSTRUMENTATION)) == [INSTRUMENTATION_ERROR]
    assert _kinds(_model(V8_INSTRUMENTATION, "TypeError")) == [INSTRUMENTATION_ERROR]
    audit: list = []
    extract_tool_calls([_model(PY_INSTRUMENTATION)], audit=audit)
    assert "openlit/instrumentation/groq/utils.py:428" in audit[0].detail


def test_the_calls_own_failure_through_the_wrapper_is_not_an_instrumentation_error() -> None:
    # the provider raised: the innermost frame is the client's, the wrapper only passed it on
    assert _kinds(_model(PY_PROVIDER, "RateLimitError")) == [UNREAD_REQUEST]


def test_a_call_stopped_from_outside_is_no_instrumentation_error() -> None:
    """A consumer that stops iterating throws into the instrumentation's generator wrapper
    at its `yield` (OpenInference's AutoGen AgentChat wrapper, on a cancelled stream)."""
    cancelled = (
        "Traceback (most recent call last):\n"
        '  File "/venv/site-packages/openinference/instrumentation/autogen_agentchat/'
        '_wrappers.py", line 231, in wrapped_generator\n    yield event\n'
        "asyncio.exceptions.CancelledError\n"
    )
    assert _kinds(_model(cancelled, "asyncio.exceptions.CancelledError")) == [UNREAD_REQUEST]
    thrown_in = cancelled.replace("CancelledError", "StopConsuming")
    assert _kinds(_model(thrown_in, "StopConsuming")) == [UNREAD_REQUEST]  # at its `yield`
