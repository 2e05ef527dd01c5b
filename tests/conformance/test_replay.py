"""Every conformance recording, replayed into a real collector over gRPC and evaluated:
tracesim must find the truth (SPEC §3 and §5). Replayed over HTTP as recorded, the collector
must store exactly the same spans and log records (the evaluation is a function of them, so
the HTTP path meets the same truth). A failure names the variant."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.known_gaps import CORPUS_GAPS
from tests.conformance.replay import (
    Outcome,
    Recording,
    discover,
    load,
    replay,
    store,
    stored_rows,
)

RECORDINGS = discover()

KNOWN_GAPS: dict[tuple[str, str], str] = {
    **CORPUS_GAPS,  # the issue-24 recordings (tests/conformance/known_gaps.py)
}
"""(variant, check) -> why tracesim does not meet that recording's truth yet. A listed check
that starts passing fails the test, so the list only shrinks."""


@contextmanager
def _known_gap(recording: Recording, check: str) -> Iterator[None]:
    reason = KNOWN_GAPS.get((recording.variant, check))
    if reason is None:
        yield
        return
    try:
        yield
    except AssertionError:
        pytest.xfail(f"{recording.variant}: {reason}")
    pytest.fail(f"{recording.variant} now meets its {check} truth: remove it from KNOWN_GAPS")


@pytest.fixture(scope="module", params=RECORDINGS, ids=[p.name for p in RECORDINGS])
def recording(request: pytest.FixtureRequest) -> Recording:
    return load(request.param)


@pytest.fixture(scope="module")
def outcome(recording: Recording, tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    workdir: Path = tmp_path_factory.mktemp(f"{recording.variant}-grpc")
    return replay(recording, transport="grpc", workdir=workdir)


def test_http_stores_what_grpc_stores(
    recording: Recording, outcome: Outcome, tmp_path_factory: pytest.TempPathFactory
) -> None:
    http_db = store(
        recording, transport="http", workdir=tmp_path_factory.mktemp(f"{recording.variant}-http")
    )
    assert outcome.db is not None
    grpc_spans, grpc_logs = stored_rows(outcome.db)
    http_spans, http_logs = stored_rows(http_db)
    assert len(http_spans) == len(grpc_spans) > 0, recording.variant
    assert http_spans == grpc_spans, recording.variant
    assert http_logs == grpc_logs, recording.variant


def _gaps(truth: dict[str, Any]) -> set[str]:
    return set(truth.get("expected_gaps") or ())


def _listed(truth: dict[str, Any], key: str) -> set[int]:
    """Indexes of the truth's calls listed under `key` (`not_in_telemetry`,
    `unattributable`: SPEC §5, "not in the telemetry, and said")."""
    return {index for entry in truth.get(key) or () for index in entry["calls"]}


def _present_calls(truth: dict[str, Any]) -> list[dict[str, Any]]:
    """The truth's calls the telemetry holds: what tracesim must find."""
    missing = _listed(truth, "not_in_telemetry")
    return [call for index, call in enumerate(truth["tool_calls"]) if index not in missing]


def test_tool_calls(recording: Recording, outcome: Outcome) -> None:
    with _known_gap(recording, "tool_calls"):
        _check_tool_calls(recording, outcome)


def _check_tool_calls(recording: Recording, outcome: Outcome) -> None:
    truth = recording.truth
    expected = _present_calls(truth)
    found = outcome.tool_calls
    assert [c["name"] for c in found] == [c["name"] for c in expected], recording.variant
    gaps = _gaps(truth)
    missing = _listed(truth, "not_in_telemetry")
    present = [i for i in range(len(truth["tool_calls"])) if i not in missing]
    unattributable = _listed(truth, "unattributable")
    for index, want, got in zip(present, expected, found, strict=True):
        where = f"{recording.variant} call {index} ({want['name']})"
        if "arguments" not in gaps:
            assert got["arguments"] == want["arguments"], where
        if index in unattributable:  # its outcome is in no trace it could be paired in
            assert got["result"] is None and got["error"] is None, where
            continue
        # a failure the telemetry does not show ("error" gap) leaves its text as the result
        if "result" not in gaps and not ("error" in gaps and want["error"] is not None):
            assert got["result"] == want["result"], where
        if "error" not in gaps:
            assert got["error"] == want["error"], where
        if want.get("id") is not None and "id" not in gaps:
            assert got["id"] == want["id"], where


def test_model_calls_and_tokens(recording: Recording, outcome: Outcome) -> None:
    with _known_gap(recording, "model_calls"):
        _check_model_calls(recording, outcome)


def _check_model_calls(recording: Recording, outcome: Outcome) -> None:
    truth = recording.truth
    gaps = _gaps(truth)
    if "model_calls" not in gaps:
        assert outcome.model_calls == truth["model_calls"], recording.variant
    if truth.get("input_tokens") is not None and "tokens" not in gaps:
        assert outcome.input_tokens == truth["input_tokens"], recording.variant
        assert outcome.output_tokens == truth["output_tokens"], recording.variant


def test_conversation_keyed(recording: Recording, outcome: Outcome) -> None:
    with _known_gap(recording, "keyed"):
        _check_keyed(recording, outcome)


def _check_keyed(recording: Recording, outcome: Outcome) -> None:
    truth = recording.truth
    conversation = truth.get("conversation_id")
    if conversation is not None:
        if outcome.tool_calls or _present_calls(truth):
            assert {c["chat_id"] for c in outcome.tool_calls} == {conversation}, recording.variant
        else:  # no call in the telemetry: its spans are keyed
            assert conversation in outcome.chats, recording.variant
        assert outcome.inspection.unkeyed == [], recording.variant
    else:  # no conversation notion: each trace is a conversation of its own
        assert all(c["chat_id"] for c in outcome.tool_calls), recording.variant


def test_every_piece_of_evidence_is_explained(recording: Recording, outcome: Outcome) -> None:
    """What tracesim understands of a recording it explains whole: no request left
    unanswered, no result without a call, no tool span skipped, no conflict (SPEC §5),
    except what the truth lists under `expected_unexplained` (kind -> count)."""
    from tracesim.evaluator.extract.audit import WARNED_KINDS

    with _known_gap(recording, "explained"):
        counts: dict[str, int] = {}
        for item in outcome.inspection.unexplained:
            if item.kind in WARNED_KINDS:
                counts[item.kind] = counts.get(item.kind, 0) + 1
        assert counts == (recording.truth.get("expected_unexplained") or {}), (
            recording.variant,
            [i for i in outcome.inspection.unexplained if i.kind in WARNED_KINDS][:5],
        )


def _turn_rows(db: Path) -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """(turn's span rows, conversation's span rows) as stored: attributes/events JSON text,
    the log records of each span among its events, as the evaluation reads them."""
    import duckdb
    from tracesim.evaluator.load.load_logs import attach_logs, has_span_logs

    con = duckdb.connect(str(db), read_only=True)
    try:
        cursor = con.execute(
            "SELECT trace_id, span_id, parent_span_id, name, start_time, end_time, status_code, "
            "status_message, attributes, events, chat_id, turn_id FROM spans "
            "ORDER BY chat_id, turn_id, start_time, span_id"
        )
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]
        if has_span_logs(con):
            attach_logs(con, rows)
    finally:
        con.close()
    chats: dict[Any, list[dict[str, Any]]] = {}
    turns: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
    for row in rows:
        chats.setdefault(row["chat_id"], []).append(row)
        turns.setdefault((row["chat_id"], row["turn_id"]), []).append(row)
    return [(spans, chats[chat]) for (chat, _), spans in turns.items()]


def test_extraction_text_screening_changes_no_answer(
    recording: Recording, outcome: Outcome
) -> None:
    with _known_gap(recording, "screening"):
        _check_screening(recording, outcome)


def _check_screening(recording: Recording, outcome: Outcome) -> None:
    """Stored rows (JSON text) take extraction's fast paths: spans screened by a substring
    test before any parse, views built from rows. Rows whose JSON is already decoded skip
    every text test (the general path); both must give the same calls, turn by turn, and so
    must one `ConversationSpans` shared by a conversation's turns (read once)."""
    import orjson
    from tracesim.evaluator.extract import ConversationSpans, extract_tool_calls

    assert outcome.db is not None

    def decoded(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {
                **row,
                "attributes": orjson.loads(row["attributes"] or "{}"),
                "events": orjson.loads(row["events"] or "[]"),
            }
            for row in rows
        ]

    checked = 0
    shared: dict[int, ConversationSpans] = {}  # one per conversation, reused by its turns
    for spans, conversation in _turn_rows(outcome.db):
        fast = extract_tool_calls([dict(r) for r in spans], context=[dict(r) for r in conversation])
        general = extract_tool_calls(decoded(spans), context=decoded(conversation))
        assert [c.model_dump() for c in fast] == [c.model_dump() for c in general], (
            recording.variant
        )
        context = shared.setdefault(id(conversation), ConversationSpans(conversation))
        reused = extract_tool_calls([dict(r) for r in spans], context=context)
        assert [c.model_dump() for c in reused] == [c.model_dump() for c in fast], recording.variant
        checked += len(fast)
    assert checked or not _present_calls(recording.truth), recording.variant


def test_what_the_truth_says_is_not_in_the_telemetry_is_not_and_is_said(
    recording: Recording, outcome: Outcome
) -> None:
    """A call the truth lists as `not_in_telemetry` is in no value of the recording (its
    arguments, as a recorded call shows them), and tracesim raises the entry's warning in
    that conversation; an `unattributable` call's result is in no trace of the conversation
    tracesim found the call in, and tracesim reports results without a call. Claims are
    checked, never trusted (`absent.py`)."""
    from tests.conformance.absent import span_end, texts_of, where_arguments, where_text

    truth = recording.truth
    entries = [*(truth.get("not_in_telemetry") or ()), *(truth.get("unattributable") or ())]
    if not entries:
        return
    texts = texts_of(recording)
    calls = truth["tool_calls"]
    chats = _trace_chats(outcome)
    for entry in truth.get("not_in_telemetry") or ():
        assert entry["why"] and entry["calls"], (recording.variant, entry)
        for index in entry["calls"]:
            found = where_arguments(calls[index]["arguments"], texts)
            assert not found, (recording.variant, f"call {index} IS recorded", found[:3])
        _assert_warned(recording, outcome, chats, entry["warning"])
    missing = _listed(truth, "not_in_telemetry")
    present = [i for i in range(len(calls)) if i not in missing]
    by_index = dict(zip(present, outcome.tool_calls, strict=False))
    for entry in truth.get("unattributable") or ():
        assert entry["why"] and entry["warning"] == "result_without_call", entry
        for index in entry["calls"]:
            want, got = calls[index], by_index[index]
            traces = {got["chat_id"]} | {t for t, c in chats.items() if c == got["chat_id"]}
            text = want["error"] if want["error"] is not None else want["result"]
            after = span_end(got["span_id"], texts)
            assert after, (recording.variant, f"call {index}: no span gave it")
            found = where_text(text, texts, traces, after=after)
            assert not found, (recording.variant, f"call {index}'s result IS there", found[:3])
        _assert_warned(recording, outcome, chats, entry["warning"])


def _trace_chats(outcome: Outcome) -> dict[str, Any]:
    """trace id -> the conversation its spans are keyed to (None: unkeyed)."""
    import duckdb

    assert outcome.db is not None
    con = duckdb.connect(str(outcome.db), read_only=True)
    try:
        rows = con.execute("SELECT DISTINCT trace_id, chat_id FROM spans").fetchall()
    finally:
        con.close()
    chats: dict[str, Any] = {}
    for trace, chat in rows:
        chats[trace] = chat if chat is not None else chats.get(trace)
    return chats


def _assert_warned(recording: Recording, outcome: Outcome, chats: dict, kind: str) -> None:
    """tracesim raised `kind` in the recording's conversation (each unkeyed trace is one
    when the truth has no conversation id)."""
    from tracesim.evaluator.extract.audit import WARNED_KINDS

    assert kind in WARNED_KINDS, (recording.variant, kind)
    conversation = recording.truth.get("conversation_id")
    raised = [
        item
        for item in outcome.inspection.unexplained
        if item.kind == kind and chats.get(item.trace_id) == conversation
    ]
    assert raised, (recording.variant, f"no {kind} in conversation {conversation}")


def test_the_scan_sees_every_call_the_telemetry_holds(recording: Recording) -> None:
    """The scan that checks "not in the telemetry" finds, in every recording, the arguments
    of each call whose truth says they are recorded: it would catch a false claim."""
    from tests.conformance.absent import texts_of, where_arguments

    truth = recording.truth
    if "arguments" in _gaps(truth):
        return
    texts = texts_of(recording)
    for call in _present_calls(truth):
        if call["arguments"]:
            assert where_arguments(call["arguments"], texts), (recording.variant, call)
