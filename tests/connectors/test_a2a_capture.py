"""a2a_capture: tool calls from hand-built artifacts and event sequences (SPEC §8)."""

from __future__ import annotations

from typing import Any

from tracesim.schemas import A2A_TOOL_CALL_EXTENSION_URI, ToolCallSource
from tracesim.simulator.connectors.a2a_capture import (
    TOOL_CALLS_METADATA_KEY,
    CaptureAccumulator,
    normalize_struct_numbers,
    parse_tool_call_entries,
    tool_calls_from_artifact,
)

URI = A2A_TOOL_CALL_EXTENSION_URI


def _artifact(
    entries: list[Any], *, artifact_id: str = "a1", text: str = "", tagged: bool = True
) -> dict:
    artifact: dict[str, Any] = {
        "artifactId": artifact_id,
        "metadata": {TOOL_CALLS_METADATA_KEY: entries},
    }
    if text:
        artifact["parts"] = [{"text": text}]
    if tagged:
        artifact["extensions"] = [URI]
    return artifact


def _call(name: str, call_id: str = "", **arguments: Any) -> dict:
    return {"id": call_id, "name": name, "arguments": arguments}


def test_key_is_derived_from_the_uri() -> None:
    assert TOOL_CALLS_METADATA_KEY == "https://arksim.arklex.ai/a2a/tool-call-capture/v1/tool_calls"


def test_valid_entries_become_a2a_tool_calls() -> None:
    calls = tool_calls_from_artifact(
        _artifact(
            [
                {
                    "id": "c1",
                    "name": "lookup_order",
                    "arguments": {"order_id": "ORD-1"},
                    "result": "ok",
                }
            ]
        )
    )
    assert len(calls) == 1
    call = calls[0]
    assert (call.id, call.name, call.arguments, call.result, call.error) == (
        "c1",
        "lookup_order",
        {"order_id": "ORD-1"},
        "ok",
        None,
    )
    assert call.source is ToolCallSource.A2A_PROTOCOL


def test_bad_entries_are_skipped_and_defaults_applied() -> None:
    entries = [
        "not an object",
        42,
        {"arguments": {"a": 1}},  # missing name
        {"name": 7, "arguments": {}},  # non-string name
        {"name": "x", "arguments": [1, 2]},  # non-object arguments
        {"name": "x", "arguments": "a=1"},  # non-object arguments
        {"name": "minimal"},  # id "" and arguments {}
    ]
    calls = parse_tool_call_entries(entries)
    assert [(c.id, c.name, c.arguments) for c in calls] == [("", "minimal", {})]


def test_non_string_result_and_error_are_json_encoded() -> None:
    (call,) = parse_tool_call_entries(
        [{"name": "refund", "result": {"amount": 10, "ok": True}, "error": ["a", 1]}]
    )
    assert call.result == '{"amount": 10, "ok": true}'
    assert call.error == '["a", 1]'
    (call,) = parse_tool_call_entries([{"name": "n", "result": 3}])
    assert call.result == "3"


def test_artifact_without_the_extension_listed_yields_nothing() -> None:
    assert tool_calls_from_artifact(_artifact([_call("x")], tagged=False)) == []
    other = _artifact([_call("x")])
    other["extensions"] = ["https://example.com/other-extension"]
    assert tool_calls_from_artifact(other) == []
    assert parse_tool_call_entries({"name": "x"}) == []  # not a list


def test_streaming_updates_accumulate_and_status_updates_change_nothing() -> None:
    acc = CaptureAccumulator()
    acc.on_task({"id": "t1", "contextId": "ctx", "status": {"state": "TASK_STATE_SUBMITTED"}})
    acc.on_artifact_update({"taskId": "t1", "artifact": _artifact([_call("a", "c1")], text="Hel")})
    acc.on_status_update({"taskId": "t1", "status": {"state": "TASK_STATE_WORKING"}})
    acc.on_artifact_update(
        {"taskId": "t1", "append": True, "artifact": _artifact([_call("b", "c2")], text="lo")}
    )
    acc.on_artifact_update(
        {"taskId": "t1", "artifact": _artifact([_call("c", "c3")], artifact_id="a2")}
    )
    acc.on_status_update({"taskId": "t1", "status": {"state": "TASK_STATE_COMPLETED"}})
    assert [c.name for c in acc.tool_calls] == ["a", "b", "c"]
    assert acc.text == "Hello"
    assert (acc.context_id, acc.task_id, acc.task_state) == ("ctx", "t1", "TASK_STATE_COMPLETED")


def test_a_non_append_update_replaces_its_artifact() -> None:
    acc = CaptureAccumulator()
    acc.on_artifact_update({"artifact": _artifact([_call("a")])})
    acc.on_artifact_update({"artifact": _artifact([_call("b")])})
    assert [c.name for c in acc.tool_calls] == ["b"]


def test_final_task_snapshot_replaces_what_was_accumulated() -> None:
    acc = CaptureAccumulator()
    acc.on_artifact_update({"artifact": _artifact([_call("a"), _call("b")], text="draft")})
    acc.on_task(
        {
            "id": "t1",
            "contextId": "ctx",
            "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [
                _artifact([_call("a")], text="final"),
                _artifact([_call("z")], artifact_id="u", tagged=False),
            ],
        }
    )
    assert [c.name for c in acc.tool_calls] == ["a"]
    assert acc.text == "final"


def test_reply_text_falls_back_to_status_then_message() -> None:
    acc = CaptureAccumulator()
    acc.on_status_update(
        {"status": {"state": "TASK_STATE_COMPLETED", "message": {"parts": [{"text": "done"}]}}}
    )
    assert acc.response().content == "done"
    acc = CaptureAccumulator()
    acc.on_message({"contextId": "c", "parts": [{"text": "hi"}, {"data": {}}, {"text": "there"}]})
    assert acc.response().model_dump()["content"] == "hi\nthere"


def test_struct_numbers_are_restored_as_ints() -> None:
    assert normalize_struct_numbers({"a": 1.0, "b": [2.0, 2.5], "c": {"d": "1.0"}}) == {
        "a": 1,
        "b": [2, 2.5],
        "c": {"d": "1.0"},
    }


def test_status_update_tool_progress_text_and_objects() -> None:
    """Seed 004: text forms pair by name; objects by id; a result alone is still a call."""
    from tracesim.simulator.connectors.a2a_status import StatusToolProgress

    def status(text: str, **metadata: Any) -> dict:
        message: dict[str, Any] = {"parts": [{"text": text}]}
        if metadata:
            message["metadata"] = metadata
        return {"status": {"state": "TASK_STATE_WORKING", "message": message}}

    accumulator = CaptureAccumulator()
    for event in (
        status("🔧 Calling tool: **list_clusters**"),
        status(
            "🔧 Calling tool: **get_app**",
            tool_call={"name": "get_app", "args": {"a": 1}, "id": "c9"},
        ),
        status(
            "❌ Tool **get_app** failed",
            tool_result={"name": "get_app", "status": "error", "id": "c9"},
        ),
        status("✅ Tool **list_clusters** completed"),
        status("❌ Tool **sync** failed"),
    ):
        accumulator.on_status_update(event)
    calls = accumulator.tool_calls
    assert [(c.name, c.id, c.arguments, c.error is not None) for c in calls] == [
        ("list_clusters", "", {}, False),
        ("get_app", "c9", {"a": 1}, True),
        ("sync", "", {}, True),
    ]
    assert {c.source for c in calls} == {ToolCallSource.A2A_STATUS}
    progress = StatusToolProgress()
    progress.on_status_message("not a message")
    assert progress.calls == []


def test_artifact_calls_win_over_status_progress() -> None:
    accumulator = CaptureAccumulator()
    accumulator.on_status_update(
        {"status": {"message": {"parts": [{"text": "🔧 Calling tool: **x**"}]}}}
    )
    accumulator.on_artifact_update({"artifact": _artifact([_call("x", "c1")])})
    assert [(c.name, c.source) for c in accumulator.tool_calls] == [
        ("x", ToolCallSource.A2A_PROTOCOL)
    ]
