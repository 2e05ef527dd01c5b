"""The lane's attacks (`test_lane_attacks`) through the real pipeline: every attack turn
stored in a DuckDB file and evaluated with the lane on and off (`TRACESIM_NO_LANE=1`, the
general evidence model for every turn) gives the same `tool_calls` rows, scores, evidence
counts and exit code; so does every conformance recording the lane claims a turn of.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest
from tracesim.evaluator.inspect.inspect import inspect_db
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.evaluator.pipeline.stages import NO_LANE
from tracesim.schemas import create_all
from tracesim.schemas.eval_config import EvalConfig

from tests.conformance.replay import discover, load, store
from tests.evaluator.test_lane_attacks import (
    ATTACKS,
    BASE,
    delegate_answer,
    instrumentation_error_on_model_span,
)
from tests.evaluator.test_lane_equivalence import _stored, compare_turns

SCENARIO = {
    "scenario_id": "s",
    "goal": "answer",
    "assertions": [{"type": "tool_calls", "expected": [{"name": "weather"}]}],
}


def _attack_turns() -> dict[str, list[dict[str, Any]]]:
    turns = {
        "delegate": delegate_answer(),
        "instrumentation": instrumentation_error_on_model_span(),
    }
    for name, build in ATTACKS.items():
        built = build()
        if isinstance(built, tuple):  # rows of this turn, then a later turn's
            rows, context = built
            turns[name] = rows
            turns[name + " (later)"] = [r for r in context if r not in rows]
            continue
        turns[name] = built
    return turns


def _build(db: Path) -> None:
    con = duckdb.connect(str(db))
    create_all(con)
    for chat_index, (name, rows) in enumerate(_attack_turns().items()):
        chat_id = f"chat-{chat_index:02d}"
        later = name.endswith(" (later)")
        if later:
            chat_id = f"chat-{chat_index - 1:02d}"
        turn = 1 if later else 0
        con.execute(
            "INSERT INTO turns (chat_id, turn_id, run_id, scenario_id, user_message, "
            "agent_message, explicit_tool_calls, status, start_time) "
            "VALUES (?, ?, 'run-1', 's', 'hi', 'Hello there', '[]', 'ok', ?)",
            [chat_id, turn, BASE + timedelta(seconds=turn)],
        )
        if not later:
            con.execute(
                "INSERT INTO conversations (chat_id, run_id, scenario_id, num_turns, status, "
                "scenario) VALUES (?, 'run-1', 's', 1, 'completed', ?)",
                [chat_id, json.dumps(SCENARIO)],
            )
        for span in rows:
            stored = {
                **span,
                # each chat its own ids: a trace per chat and turn
                "trace_id": f"{chat_index:02d}{span['trace_id'][2:]}",
                "kind": "INTERNAL",
                "service_name": "agent",
                "scope_name": "attack",
                "resource_attributes": "{}",
                "links": "[]",
                "chat_id": chat_id,
                "turn_id": turn,
                "operation": orjson.loads(span["attributes"]).get("gen_ai.operation.name"),
                "tool_name": orjson.loads(span["attributes"]).get("gen_ai.tool.name"),
                "received_at": span["start_time"],
            }
            columns = list(stored)
            con.execute(
                # a span stored twice is one row (the key): the duplicate-id attack is the unit's
                f"INSERT OR IGNORE INTO spans ({', '.join(columns)}) "
                f"VALUES ({', '.join('?' for _ in columns)})",
                [stored[c] for c in columns],
            )
    con.close()


def _outcome(db: Path, out: Path) -> tuple[Any, ...]:
    result = evaluate_db(db, config=EvalConfig(), output_dir=out, progress=False)
    con = duckdb.connect(str(db), read_only=True)
    try:
        calls = con.execute(
            "SELECT chat_id, turn_id, seq, id, name, arguments, result, error, span_id, source "
            "FROM tool_calls ORDER BY chat_id, turn_id, seq"
        ).fetchall()
        scores = con.execute(
            "SELECT chat_id, turn_id, metric, value, label FROM scores ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()
    return calls, scores, result.report.unexplained_evidence, result.exit_code


def test_every_attack_evaluates_the_same_with_and_without_the_lane(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _build(tmp_path / "lane.duckdb")
    (tmp_path / "general.duckdb").write_bytes((tmp_path / "lane.duckdb").read_bytes())
    with_lane = _outcome(tmp_path / "lane.duckdb", tmp_path / "out-lane")
    monkeypatch.setenv(NO_LANE, "1")
    without = _outcome(tmp_path / "general.duckdb", tmp_path / "out-general")
    assert with_lane[0] and with_lane[1]  # calls and scores were written
    assert with_lane == without


def _evaluated(db: Path, out: Path) -> tuple[Any, ...]:
    """Everything an evaluation wrote that extraction decides: every `tool_calls` column,
    the scores (but their evaluation's id and time), `inspect`, evidence counts."""
    result = evaluate_db(db, config=EvalConfig(), output_dir=out, progress=False)
    con = duckdb.connect(str(db), read_only=True)
    try:
        calls = con.execute("SELECT * FROM tool_calls ORDER BY ALL").fetchall()
        scores = con.execute(
            "SELECT * EXCLUDE (eval_id, created_at) FROM scores ORDER BY ALL"
        ).fetchall()
        inspection = inspect_db(con)
    finally:
        con.close()
    return calls, scores, inspection, result.report.unexplained_evidence, result.exit_code


def test_every_recording_the_lane_claims_a_turn_of_evaluates_the_same_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conformance corpus through `evaluate_db`, lane on and off: identical rows.
    Only recordings where the lane claims a turn can differ (the others never reach it),
    so only those are evaluated twice (the whole corpus: 152 recordings, same answer)."""
    compared = 0
    for index, folder in enumerate(discover()):
        workdir = tmp_path / str(index)
        workdir.mkdir()
        db = store(load(folder), transport="grpc", workdir=workdir)
        claimed, _ = compare_turns(_stored(db))
        if not claimed:
            continue
        other = workdir / "general.duckdb"
        other.write_bytes(db.read_bytes())
        monkeypatch.delenv(NO_LANE, raising=False)
        with_lane = _evaluated(db, workdir / "lane")
        monkeypatch.setenv(NO_LANE, "1")
        without = _evaluated(other, workdir / "general")
        assert with_lane == without, folder.name
        compared += 1
    assert compared > 0
