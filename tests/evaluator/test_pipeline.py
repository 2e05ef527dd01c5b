"""evaluate_db over a DuckDB file filled with the real DDL: tables, results.json, cache."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest
from tracesim.evaluator.output.results_file import read_results
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.evaluator.scoring.gates import EvalConfigError
from tracesim.schemas import create_all
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.llm_config import LLMConfig

from tests.fakes.openai_server import fake_openai, judge_reply

T0 = datetime(2026, 1, 1, 12, 0, 0)

SCENARIO_OK = {
    "scenario_id": "refund",
    "goal": "get a refund for order 42",
    "knowledge": ["order 42 was paid 30 EUR"],
    "assertions": [
        {
            "type": "tool_calls",
            "expected": [{"name": "lookup_order", "args": {"order_id": 42}}],
            "turn": 0,
        },
        {
            "type": "tool_call_args",
            "expected": [{"name": "refund", "args": {"order_id": 42}}],
            "turn": 1,
        },
    ],
}
SCENARIO_BAD = {
    "scenario_id": "cancel",
    "goal": "cancel order 7",
    "assertions": [
        {"type": "tool_calls", "expected": [{"name": "cancel_order", "args": {"order_id": 7}}]}
    ],
}


def _span(
    chat: str, turn: int, n: int, *, name: str, attrs: dict[str, Any], status: str = "OK"
) -> dict:
    start = T0 + timedelta(seconds=turn * 10 + n)
    return {
        "trace_id": f"{abs(hash((chat, turn))) % (16**32):032x}",
        "span_id": f"{abs(hash((chat, turn, n))) % (16**16):016x}",
        "parent_span_id": None,
        "name": name,
        "kind": "INTERNAL",
        "start_time": start,
        "end_time": start + timedelta(milliseconds=20),
        "duration_ms": 20.0,
        "status_code": status,
        "status_message": None,
        "service_name": "agent",
        "scope_name": "test",
        "attributes": json.dumps(attrs),
        "resource_attributes": "{}",
        "events": "[]",
        "links": "[]",
        "chat_id": chat,
        "turn_id": turn,
        "operation": attrs.get("gen_ai.operation.name"),
        "tool_name": attrs.get("gen_ai.tool.name"),
        "model": None,
        "input_tokens": None,
        "output_tokens": None,
        "received_at": start,
    }


def _tool_span(chat: str, turn: int, n: int, tool: str, args: dict, result: str) -> dict:
    attrs = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool,
        "gen_ai.tool.call.arguments": json.dumps(args),
        "gen_ai.tool.call.result": result,
        "gen_ai.tool.call.id": f"call_{chat}_{turn}_{n}",
    }
    return _span(chat, turn, n, name=f"execute_tool {tool}", attrs=attrs)


def build_db(path: Path, *, extra_turn_status: str | None = None) -> Path:
    """Two conversations: `chat-ok` passes its assertions, `chat-bad` misses its tool."""
    con = duckdb.connect(str(path))
    create_all(con)
    turns = [
        ("chat-ok", 0, "refund", "I want a refund for order 42", "Found order 42.", [], "ok"),
        (
            "chat-ok",
            1,
            "refund",
            "Yes please refund it",
            "Refunded 30 EUR.",
            [{"name": "refund", "arguments": {"order_id": 42}, "source": "agent_response"}],
            "ok",
        ),
        ("chat-bad", 0, "cancel", "Cancel order 7", "Sure, done!", [], extra_turn_status or "ok"),
    ]
    for chat, turn, scenario, user, agent, explicit, status in turns:
        con.execute(
            "INSERT INTO turns (chat_id, turn_id, run_id, scenario_id, user_message, agent_message, "
            "explicit_tool_calls, status, start_time) VALUES (?, ?, 'run-1', ?, ?, ?, ?, ?, ?)",
            [chat, turn, scenario, user, agent, json.dumps(explicit), status, T0],
        )
    for chat, scenario in (("chat-ok", SCENARIO_OK), ("chat-bad", SCENARIO_BAD)):
        con.execute(
            "INSERT INTO conversations (chat_id, run_id, scenario_id, num_turns, status, scenario) "
            "VALUES (?, 'run-1', ?, 1, 'completed', ?)",
            [chat, scenario["scenario_id"], json.dumps(scenario)],
        )
    spans = [
        _tool_span("chat-ok", 0, 1, "lookup_order", {"order_id": 42}, '{"paid": 30}'),
        # absorbed by the explicit call of turn 1:
        _tool_span("chat-ok", 1, 1, "refund", {"order_id": 42}, "refunded"),
        _span("chat-ok", 1, 0, name="chat gpt", attrs={"gen_ai.operation.name": "chat"}),
    ]
    columns = list(spans[0])
    for span in spans:
        con.execute(
            f"INSERT INTO spans ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
            [span[c] for c in columns],
        )
    con.close()
    return path


def _judge_answers(body: dict[str, Any]) -> dict[str, Any]:
    done = "Refunded" in body["messages"][-1]["content"]
    return judge_reply(body, scale=5, goal_done=done)


def test_deterministic_evaluation_writes_tables_and_results(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    config = EvalConfig(thresholds={"trajectory": 1.0})
    result = evaluate_db(db, config=config, output_dir=tmp_path / "out", progress=False)

    assert result.exit_code == 1  # chat-bad never called cancel_order
    (gate,) = result.gates
    assert gate.metric == "trajectory" and gate.passed is False and gate.observed == 0.5

    con = duckdb.connect(str(db))
    calls = con.execute(
        "SELECT chat_id, turn_id, seq, name, source, traced, span_id IS NOT NULL, result "
        "FROM tool_calls ORDER BY chat_id, turn_id, seq"
    ).fetchall()
    assert calls == [
        ("chat-ok", 0, 0, "lookup_order", "traced", True, True, '{"paid": 30}'),
        ("chat-ok", 1, 0, "refund", "agent_response", True, True, "refunded"),
    ]
    scores = con.execute(
        "SELECT chat_id, turn_id, metric, value, label FROM scores WHERE eval_id = ? ORDER BY ALL",
        [result.eval_id],
    ).fetchall()
    by_metric = {(c, t, m): (v, lab) for c, t, m, v, lab in scores}
    assert by_metric[("chat-ok", 0, "trajectory")][0] == 1.0
    assert by_metric[("chat-ok", 1, "tool_call_args")][0] == 1.0
    assert by_metric[("chat-ok", None, "final_score")] == (1.0, "Done")
    assert by_metric[("chat-bad", None, "trajectory")][0] == 0.0
    # no turn-level check and no judge, but a failed conversation-level check: it fails
    # the conversation (issue 23 item 2), never "Not graded, assertions 0/1"
    assert by_metric[("chat-bad", None, "final_score")] == (0.0, "Failed")
    # judges not configured: one not_run per judge and conversation, value NULL
    not_run = [k for k, (v, lab) in by_metric.items() if lab == "not_run"]
    assert len(not_run) == 2 * 7 and all(by_metric[k][0] is None for k in not_run)
    run = con.execute(
        "SELECT run_id, kind, num_conversations, num_turns, exit_code, gates_passed FROM runs"
    ).fetchall()
    assert run == [("run-1", "evaluate", 2, 3, 1, False)]
    con.close()

    report = orjson.loads((tmp_path / "out" / "results.json").read_bytes())
    assert report["exit_code"] == 1 and report["summary"]["num_turns"] == 3
    assert (
        report["summary"]["assertions_passed"] == 2 and report["summary"]["assertions_total"] == 3
    )
    ok = next(c for c in report["conversations"] if c["chat_id"] == "chat-ok")
    assert (
        ok["status"] == "Done" and ok["num_tool_calls"] == 2 and ok["turns"][1]["success"] is True
    )


def test_reevaluation_replaces_tool_calls_and_appends_scores(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    first = evaluate_db(
        db, config=EvalConfig(metrics=[]), output_dir=tmp_path / "a", progress=False
    )
    second = evaluate_db(
        db, config=EvalConfig(metrics=[]), output_dir=tmp_path / "b", progress=False
    )
    assert first.eval_id != second.eval_id and first.exit_code == second.exit_code == 0
    con = duckdb.connect(str(db))
    assert con.execute("SELECT count(*) FROM tool_calls").fetchone()[0] == 2
    counts = con.execute("SELECT eval_id, count(*) FROM scores GROUP BY eval_id").fetchall()
    assert len(counts) == 2 and counts[0][1] == counts[1][1]
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 2


def test_judged_evaluation_uses_cache_on_second_pass(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    config = EvalConfig(thresholds={"final_score": 0.7, "goal_completion": 0.9})
    with fake_openai(_judge_answers) as fake:
        llm = LLMConfig(base_url=fake.base_url, model="judge", input_cost_per_mtok=2.0)
        first = evaluate_db(db, config=config, llm=llm, output_dir=tmp_path / "a", progress=False)
        made = len(fake.requests)
        second = evaluate_db(db, config=config, llm=llm, output_dir=tmp_path / "b", progress=False)
        assert len(fake.requests) == made == 2 * 1 + 3 * 6  # goal per chat + 6 turn judges per turn
    ok = next(c for c in first.report.conversations if c.chat_id == "chat-ok")
    bad = next(c for c in first.report.conversations if c.chat_id == "chat-bad")
    assert ok.final_score == 1.0 and ok.status == "Done"
    # its failed conversation-level trajectory check caps the formula's 0.75 (issue 23 item 2)
    assert bad.goal_completion == 0.0 and bad.final_score == 0.0 and bad.status == "Failed"
    assert first.report.llm_usage.requests == made and first.report.llm_usage.cost_usd > 0
    assert second.report.llm_usage.cached == made and second.report.llm_usage.requests == 0
    assert [c.final_score for c in first.report.conversations] == [
        c.final_score for c in second.report.conversations
    ]
    gates = {g.metric: g for g in first.gates}
    assert gates["final_score"].passed is False and gates["goal_completion"].passed is False
    assert first.exit_code == 1


def test_errored_turn_is_an_error_not_an_agent_mistake(tmp_path: Path) -> None:
    """Issue 23 item 2: a timed-out turn is ungradeable: its conversation's checks are not
    graded (never a trajectory failure), the conversation is an Error of the agent."""
    db = build_db(tmp_path / "t.duckdb", extra_turn_status="timeout")
    result = evaluate_db(
        db,
        config=EvalConfig(metrics=[], thresholds={"trajectory": 1.0}),
        output_dir=tmp_path / "o",
        progress=False,
    )
    bad = next(c for c in result.report.conversations if c.chat_id == "chat-bad")
    assert bad.turn_success[0] is None and bad.final_score is None and bad.status == "Error"
    assert bad.error == "turn 0 timeout" and bad.error_source == "agent"
    entry = next(
        c for c in read_results(result.results_path).conversations if c.chat_id == "chat-bad"
    )
    assert entry.turns[0].success is None and entry.turns[0].status == "timeout"
    (trajectory,) = [m for m in entry.metrics if m.name == "trajectory"]
    assert trajectory.value is None and trajectory.label == "not_graded"
    # the trajectory gate saw only chat-ok's graded values: passed, but an errored
    # conversation under gates cannot pass silently (exit 3, the verdict says why)
    (gate,) = result.gates
    assert gate.passed is True and gate.graded == 1
    assert result.exit_code == 3
    assert result.report.verdict == (
        "incomplete: gates passed on 1 graded conversation, but 1 conversation ended by an "
        "error could not be graded"
    )


def test_run_id_filter_and_missing_file(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    result = evaluate_db(
        db, config=EvalConfig(metrics=[]), run_id="other", output_dir=tmp_path / "o", progress=False
    )
    assert result.summary.num_conversations == 0 and result.exit_code == 0
    with pytest.raises(EvalConfigError, match="does not exist"):
        evaluate_db(tmp_path / "nope.duckdb", config=EvalConfig(), progress=False)


def test_unknown_gate_metric_is_a_config_error(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    with pytest.raises(EvalConfigError, match="evaluation.thresholds.finalscore"):
        evaluate_db(db, config=EvalConfig(thresholds={"finalscore": 0.5}), progress=False)
