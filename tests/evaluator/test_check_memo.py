"""Checks computed once per distinct input (`evaluator.checks.memo`) answer what checking
every turn answers: on hand-made edge cases, on the conformance corpus's real calls, and
through `evaluate_db` on synthetic turns (scores rows and results.json compared whole)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest
from tracesim.evaluator.checks import memo as memo_module
from tracesim.evaluator.checks.assertions import check_assertions, parse_assertions
from tracesim.evaluator.checks.memo import CheckSet
from tracesim.evaluator.output.shared import SharedResult
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.schemas import ToolCall
from tracesim.schemas.eval_config import EvalConfig

from benchmarks.synthetic_turns import build_database

CORPUS = Path(__file__).resolve().parents[1] / "conformance"


def _assertions_for(expected: list[dict[str, Any]], turns: int) -> list[dict[str, Any]]:
    """Every call-check kind, on each turn and on the whole conversation."""
    names = sorted({e["name"] for e in expected})
    with_ids = [dict(e, id=e["id"]) for e in expected if e.get("id")]
    out: list[dict[str, Any]] = []
    for turn in [*range(turns), None]:
        at = {} if turn is None else {"turn": turn}
        out += [
            {"type": "tool_call_args", "expected": expected, **at},
            {"type": "tool_call_args", "expected": expected, "subset": True, **at},
            {"type": "tool_call_args", "expected": expected, "strict": True, **at},
            {"type": "tool_call_order", "expected": expected, **at},
            {"type": "tool_call_order", "expected": expected, "strict": True, **at},
            {"type": "tool_call_count", "expected": {n: ["<=", 1] for n in names}, **at},
            {"type": "tool_calls", "expected": expected, "match_mode": "strict", **at},
            {"type": "tool_calls", "expected": expected, "arg_match_mode": "exact", **at},
            {"type": "tool_calls", "expected": expected, "forbidden": names[:1], **at},
            {"type": "tool_call_output", "expected": expected, **at},
            {"type": "tool_call_f1", "expected": expected, **at},
            {"type": "tool_call_stats", **at},
            {"type": "tool_error_rate", "threshold": 0.2, **at},
            {"type": "tool_latency", "threshold": 150, **at},
        ]
        if with_ids:
            out.append({"type": "tool_call_args", "expected": with_ids, **at})
            out.append({"type": "tool_call_count", "expected": {with_ids[0]["id"]: 1}, **at})
    return out


def _dumped(results: list[tuple[int | None, Any]]) -> list[Any]:
    return [(turn, r.model_dump(mode="json")) for turn, r in results]


def _same(raw: list[dict[str, Any]], turns: list[list[ToolCall] | None]) -> CheckSet:
    """Assert that the memo answers what `check_assertions` answers, twice (cold, warm)."""
    checks = CheckSet(parse_assertions(raw, where="test"))
    plain = _dumped(check_assertions(parse_assertions(raw, where="test"), turns, kind="check"))
    assert _dumped(checks.check(turns, kind="check")) == plain
    assert _dumped(checks.check(turns, kind="check")) == plain
    return checks


def _calls(truth: list[dict[str, Any]], **change: Any) -> list[ToolCall]:
    return [
        ToolCall(
            name=c["name"],
            arguments=c.get("arguments") or {},
            result=c.get("result"),
            error=c.get("error"),
            id=c.get("id") or "",
            duration_ms=100.0 + i,
            **change,
        )
        for i, c in enumerate(truth)
    ]


def test_conversations_with_the_same_calls_share_one_result_and_the_rest_do_not() -> None:
    base = [
        {"name": "search", "arguments": {"q": "a", "n": 1}, "id": "c1"},
        {"name": "refund", "arguments": {"amount": 10.0}, "id": "c2"},
    ]
    expected = [{"name": c["name"], "args": c["arguments"], "id": c["id"]} for c in base]
    variants: dict[str, list[ToolCall]] = {
        "base": _calls(base, span_id="s1"),
        "other spans": _calls(base, span_id="s2"),  # what no check reads: shared
        "named id": [c.model_copy(update={"id": "other"}) for c in _calls(base)],
        "int": [c.model_copy(update={"arguments": {"amount": 10}}) for c in _calls(base)],
        "nan": [c.model_copy(update={"arguments": {"x": math.nan}}) for c in _calls(base)],
        "none": [c.model_copy(update={"arguments": {"x": None}}) for c in _calls(base)],
        "group": [c.model_copy(update={"group": "m1"}) for c in _calls(base)],
        "same pattern": [c.model_copy(update={"group": "m2"}) for c in _calls(base)],
        "two groups": [
            c.model_copy(update={"group": g})
            for c, g in zip(_calls(base), ("m1", "m2"), strict=True)
        ],
        "no json": [c.model_copy(update={"arguments": {"k": {1, 2}}}) for c in _calls(base)],
        "slower": [c.model_copy(update={"duration_ms": 700.0}) for c in _calls(base)],
    }
    raw = _assertions_for(expected, 2)
    checks = CheckSet(parse_assertions(raw, where="test"))
    got: dict[str, list[Any]] = {}
    for name, calls in variants.items():
        turns: list[list[ToolCall] | None] = [calls, None, []]
        _same(raw, turns)
        got[name] = [r for _, r in checks.check(turns, kind="check")]

    def shared(a: str, b: str) -> bool:
        pairs = [(x, y) for x, y in zip(got[a], got[b], strict=True) if x.label != "not_run"]
        return all(x is y for x, y in pairs)

    assert shared("base", "other spans")
    assert shared("group", "same pattern")
    for other in ("named id", "int", "nan", "none", "group", "no json", "slower"):
        assert not shared("base", other), other  # some results differ: not all shared
    assert not shared("nan", "none")
    assert not shared("group", "two groups")
    assert not any(type(r) is SharedResult for r in got["no json"])
    with pytest.raises(TypeError, match="read-only"):
        got["base"][0].value = 0.0


@pytest.mark.parametrize(
    "folder",
    sorted(p.parent for p in CORPUS.glob("*/*/truth.json")),
    ids=lambda p: p.name,
)
def test_the_conformance_corpus_calls_get_the_same_answers(folder: Path) -> None:
    truth = json.loads((folder / "truth.json").read_text())["tool_calls"]
    if not truth:
        pytest.skip("no tool calls in this recording")
    expected = [
        {
            "name": c["name"],
            "args": c.get("arguments") or {},
            "output": c.get("result"),
            **({"id": c["id"]} if c.get("id") else {}),
        }
        for c in truth
    ]
    calls = _calls(truth)
    turns: list[list[ToolCall] | None] = [
        calls,
        _calls(truth, span_id="again"),
        calls[::-1],
        calls[:-1],
        [c.model_copy(update={"error": "boom", "duration_ms": 900.0}) for c in calls],
        calls,
    ]
    _same(_assertions_for(expected, len(turns)), turns)


def _rows(db: Path) -> tuple[list[tuple], list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        scores = con.execute(
            "SELECT run_id, chat_id, turn_id, metric, value, passed, threshold, label, reason, "
            "details FROM scores ORDER BY ALL"
        ).fetchall()
        calls = con.execute("SELECT * FROM tool_calls ORDER BY chat_id, turn_id, seq").fetchall()
    finally:
        con.close()
    return scores, calls


def _entries(path: Path) -> list[Any]:
    return orjson.loads(path.read_bytes())["conversations"]


def test_evaluate_db_stores_the_same_with_and_without_the_memo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "turns.duckdb"
    build_database(str(source), 600, scenarios=True)
    shutil.copy(source, tmp_path / "plain.duckdb")
    shutil.copy(source, tmp_path / "memo.duckdb")
    memo = evaluate_db(tmp_path / "memo.duckdb", config=EvalConfig(), output_dir=tmp_path / "m")

    def every_time(self: CheckSet, turns: Any, *, facts: Any = None, kind: Any = None) -> Any:
        return check_assertions(self.assertions, turns, facts=facts, kind=kind)

    monkeypatch.setattr(memo_module.CheckSet, "check", every_time)
    plain = evaluate_db(tmp_path / "plain.duckdb", config=EvalConfig(), output_dir=tmp_path / "p")
    assert _rows(tmp_path / "memo.duckdb") == _rows(tmp_path / "plain.duckdb")
    assert _entries(memo.results_path) == _entries(plain.results_path)
    scores, _ = _rows(tmp_path / "memo.duckdb")
    assert sum(1 for row in scores if row[5] is False) > 0  # failures are in the comparison


def test_inputs_that_never_repeat_stop_the_keying_and_keep_the_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(memo_module, "_SAMPLE", 20)
    monkeypatch.setattr(memo_module, "_PAUSE", 3)
    raw = [
        {"type": "tool_call_args", "expected": [{"name": "f", "args": {"x": 1}}], "turn": 0},
        {"type": "tool_latency", "threshold": 150, "turn": 0},
    ]
    checks = CheckSet(parse_assertions(raw, where="test"))
    kinds = []
    for n in range(40):
        turns: list[list[ToolCall] | None] = [[ToolCall(name="f", arguments={"x": n})]]
        _same(raw, turns)  # a fresh set: keyed
        results = checks.check(turns, kind="check")
        assert _dumped(results) == _dumped(
            check_assertions(parse_assertions(raw, where="test"), turns, kind="check")
        )
        kinds.append(type(results[0][1]) is SharedResult)
    assert kinds[:10] == [True] * 10  # sampling: 2 lookups a conversation
    assert kinds[10:13] == [False] * 3  # none found: paused for 3 conversations
    assert kinds[13] is True  # then sampling again


def test_results_kept_are_bounded_across_every_scenario(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo_module, "_LIMIT", 10)
    sets = []
    for n in range(6):  # six scenarios, each its own CheckSet
        raw = [{"type": "tool_call_args", "expected": [{"name": "f", "args": {"x": n}}]}]
        checks = CheckSet(parse_assertions(raw, where="test"))
        sets.append(checks)
        for m in range(4):
            turns: list[list[ToolCall] | None] = [[ToolCall(name="f", arguments={"x": m})]]
            checks.check(turns, kind="check")
            assert sum(len(s._results) for s in sets) <= 11
