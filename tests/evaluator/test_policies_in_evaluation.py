"""`evaluation.policies` / `evaluation.tool_validity` on production conversations (no scenario)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
from tracesim.evaluator import evaluate_db
from tracesim.schemas import create_all
from tracesim.schemas.eval_config import EvalConfig

T0 = datetime(2025, 3, 1, 9, 0, 0)
TOOLS = [
    {
        "type": "function",
        "name": "refund",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    },
    {"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {}}},
]


def _span(trace: int, n: int, *, tool: str | None, args: dict | None = None) -> dict:
    attrs: dict = {"gen_ai.operation.name": "chat", "gen_ai.tool.definitions": json.dumps(TOOLS)}
    name = "chat model"
    if tool is not None:
        attrs = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.arguments": json.dumps(args or {}),
        }
        name = f"execute_tool {tool}"
    attrs["gen_ai.conversation.id"] = "prod-1"
    start = T0 + timedelta(seconds=trace * 10 + n)
    return {
        "trace_id": f"{trace:032x}",
        "span_id": f"{trace:08x}{n:08x}",
        "name": name,
        "start_time": start,
        "end_time": start + timedelta(milliseconds=10),
        "duration_ms": 10.0,
        "status_code": "UNSET",
        "attributes": json.dumps(attrs),
        "events": "[]",
        "chat_id": "prod-1",
        "turn_id": None,
        "tool_name": tool,
    }


def _db(path: Path) -> Path:
    con = duckdb.connect(str(path))
    create_all(con)
    spans = [
        _span(1, 0, tool=None),
        _span(1, 1, tool="refund", args={"order_id": 7}),  # wrong type, and before any lookup
        _span(2, 0, tool=None),
        _span(2, 1, tool="lookup"),
        _span(2, 2, tool="delete_account"),  # unknown, and forbidden
    ]
    for span in spans:
        columns = list(span)
        con.execute(
            f"INSERT INTO spans ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
            [span[c] for c in columns],
        )
    con.close()
    return path


def _scores(db: Path, metric: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(
            "SELECT value, passed, label, reason FROM scores WHERE chat_id = 'prod-1' "
            "AND metric = ?",
            [metric],
        ).fetchall()


def test_policies_and_validity_grade_a_production_conversation(tmp_path: Path) -> None:
    db = _db(tmp_path / "prod.duckdb")
    config = EvalConfig(
        metrics=[],
        policies=[{"never": ["delete_account"]}, {"before": ["lookup", "refund"]}],
        tool_validity=True,
    )
    evaluate_db(db, config=config, output_dir=tmp_path / "out", progress=False)
    policies = _scores(db, "policy")
    assert len(policies) == 2 and all(p[1] is False for p in policies)
    reasons = " | ".join(p[3] for p in policies)
    assert "never: call #3 delete_account in turn 1" in reasons
    assert "before: call #1 refund in turn 0 with no lookup before it" in reasons
    [(value, passed, label, reason)] = _scores(db, "tool_validity")
    assert passed is False and value == 1 / 3
    assert "call #1 refund (turn 0): WRONG_TYPE" in reason
    assert "call #3 delete_account (turn 1): UNKNOWN_TOOL" in reason


def test_without_policies_nothing_extra_is_graded(tmp_path: Path) -> None:
    db = _db(tmp_path / "prod.duckdb")
    evaluate_db(db, config=EvalConfig(metrics=[]), output_dir=tmp_path / "out", progress=False)
    assert _scores(db, "policy") == [] and _scores(db, "tool_validity") == []


def test_a_bad_policy_in_the_config_is_refused_before_evaluating(tmp_path: Path) -> None:
    import pytest
    from tracesim.evaluator.scoring.gates import EvalConfigError

    db = _db(tmp_path / "prod.duckdb")
    bad = EvalConfig(metrics=[], policies=[{"never": ["x"]}, {"before": ["only-one"]}])
    with pytest.raises(EvalConfigError, match=r"^evaluation.policies\[1\].before: must be"):
        evaluate_db(db, config=bad, output_dir=tmp_path / "out", progress=False)
