"""arksim's A2A tool-call capture cases (tests/unit/test_a2a_tool_capture.py) on tracesim's
capture (SPEC §8), fed the JSON form of the same Tasks, Messages and stream events."""

from __future__ import annotations

from typing import Any

import pytest
from tracesim.schemas import A2A_TOOL_CALL_EXTENSION_URI, ToolCallSource
from tracesim.simulator.connectors.a2a_capture import TOOL_CALLS_METADATA_KEY, CaptureAccumulator

URI = A2A_TOOL_CALL_EXTENSION_URI


def artifact(
    text: str | None = None,
    tool_calls: Any = None,
    *,
    metadata: dict[str, Any] | None = None,
    extensions: list[str] | None = None,
    artifact_id: str = "a1",
) -> dict[str, Any]:
    meta = dict(metadata or {})
    if tool_calls is not None:
        meta[TOOL_CALLS_METADATA_KEY] = tool_calls
        extensions = [URI] if extensions is None else extensions
    out: dict[str, Any] = {"artifactId": artifact_id, "parts": []}
    if text is not None:
        out["parts"] = [{"text": text}]
    if meta:
        out["metadata"] = meta
    if extensions:
        out["extensions"] = extensions
    return out


def task(artifacts: list[dict], status_text: str | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"state": "TASK_STATE_COMPLETED"}
    if status_text is not None:
        status["message"] = {"role": "ROLE_AGENT", "parts": [{"text": status_text}]}
    return {"id": "t1", "contextId": "c1", "status": status, "artifacts": artifacts}


def reply_of(*events: tuple[str, dict]) -> Any:
    accumulator = CaptureAccumulator()
    for kind, event in events:
        getattr(accumulator, f"on_{kind}")(event)
    return accumulator.response()


def update(art: dict[str, Any]) -> tuple[str, dict]:
    return ("artifact_update", {"taskId": "t1", "contextId": "c1", "artifact": art})


CALL = {"id": "c1", "name": "lookup", "arguments": {"q": "x"}, "result": "found"}


def test_artifact_with_text_and_tool_calls() -> None:
    reply = reply_of(("task", task([artifact("Here.", [CALL])])))
    assert reply.content == "Here."
    [call] = reply.tool_calls
    assert (call.id, call.name, call.arguments, call.result) == (
        "c1",
        "lookup",
        {"q": "x"},
        "found",
    )
    assert call.source == ToolCallSource.A2A_PROTOCOL


def test_text_only_artifact() -> None:
    reply = reply_of(("task", task([artifact("Just text.")])))
    assert (reply.content, reply.tool_calls) == ("Just text.", [])


def test_tool_calls_without_the_extension_uri_are_ignored() -> None:
    reply = reply_of(("task", task([artifact("T.", [CALL], extensions=[])])))
    assert reply.tool_calls == []


def test_multiple_artifacts_collect_all() -> None:
    second = {**CALL, "id": "c2", "name": "cancel"}
    arts = [artifact("A.", [CALL], artifact_id="a1"), artifact("B.", [second], artifact_id="a2")]
    assert [c.name for c in reply_of(("task", task(arts))).tool_calls] == ["lookup", "cancel"]


def test_falls_back_to_the_status_message_without_artifact_text() -> None:
    reply = reply_of(("task", task([artifact(None, [CALL])], status_text="Done via status.")))
    assert reply.content == "Done via status." and len(reply.tool_calls) == 1


def test_empty_task_and_artifact_without_parts() -> None:
    assert reply_of(("task", task([]))).content == ""
    assert reply_of(("task", task([{"artifactId": "a1"}]))).tool_calls == []


@pytest.mark.parametrize(
    "entries",
    [
        [{"id": "c1", "arguments": {}}],  # missing name
        ["not-a-dict"],
        [{"id": "c1", "name": "t", "arguments": "not-a-dict"}],
        {"not": "a list"},
        [{"id": "c1", "name": 42, "arguments": {}}],  # truthy non-string name
        [{"id": "c1", "name": "t", "arguments": None}],  # explicit null arguments
        None,  # explicit null metadata value
    ],
    ids=[
        "missing_name",
        "entry_not_dict",
        "args_not_dict",
        "not_a_list",
        "int_name",
        "null_args",
        "null",
    ],
)
def test_malformed_entries_are_skipped(entries: Any) -> None:
    art = artifact("Text.", metadata={TOOL_CALLS_METADATA_KEY: entries}, extensions=[URI])
    reply = reply_of(("task", task([art])))
    assert reply.content == "Text." and reply.tool_calls == []


def test_non_string_result_and_error_become_json_and_error_is_kept() -> None:
    entries = [
        {"id": "c1", "name": "a", "arguments": {}, "result": {"rows": [1, 2]}},
        {"id": "c2", "name": "b", "arguments": {}, "error": {"code": 500}},
        {"id": "c3", "name": "c", "arguments": {}, "error": "timeout"},
    ]
    calls = reply_of(("task", task([artifact("T.", entries)]))).tool_calls
    assert calls[0].result == '{"rows": [1, 2]}'
    assert calls[1].error == '{"code": 500}'
    assert calls[2].error == "timeout"


def test_message_reply_text() -> None:
    reply = reply_of(("message", {"role": "ROLE_AGENT", "parts": [{"text": "Hello there."}]}))
    assert (reply.content, reply.tool_calls) == ("Hello there.", [])


def test_streamed_update_then_the_same_artifact_in_the_snapshot_is_one_call() -> None:
    art = artifact("Streamed.", [CALL])
    reply = reply_of(update(art), ("task", task([art])))
    assert [c.name for c in reply.tool_calls] == ["lookup"]


def test_update_without_a_snapshot_is_captured() -> None:
    assert len(reply_of(update(artifact("Partial.", [CALL]))).tool_calls) == 1


def test_status_update_does_not_wipe_what_was_streamed() -> None:
    status = ("status_update", {"taskId": "t1", "status": {"state": "TASK_STATE_WORKING"}})
    assert [c.name for c in reply_of(update(artifact("S.", [CALL])), status).tool_calls] == [
        "lookup"
    ]


def test_final_snapshot_replaces_partial_updates() -> None:
    old = artifact("Stale.", [{"id": "c_old", "name": "old_tool", "arguments": {}}])
    new = artifact("Final.", [{"id": "c_new", "name": "new_tool", "arguments": {}, "result": "r"}])
    reply = reply_of(update(old), ("task", task([new])))
    assert [c.name for c in reply.tool_calls] == ["new_tool"] and reply.content == "Final."


def test_final_snapshot_with_more_artifacts_keeps_them_all() -> None:
    streamed = artifact("S.", [{**CALL, "name": "stream_tool"}], artifact_id="a1")
    extra = artifact("E.", [{**CALL, "id": "e1", "name": "extra_tool"}], artifact_id="a2")
    reply = reply_of(update(streamed), ("task", task([streamed, extra])))
    assert {c.name for c in reply.tool_calls} == {"stream_tool", "extra_tool"}
