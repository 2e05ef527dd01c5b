"""The offline customer-service example, end to end through the real embedded Collector."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.simulator.conftest import query
from tracesim.config_loader import load_run_config
from tracesim.run import RunOutcome, run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service" / "config.yaml"


def _run(tmp_path: Path, **overrides: str) -> RunOutcome:
    loaded = load_run_config(EXAMPLE, {"output_dir": str(tmp_path / "results"), **overrides})
    outcome = run(loaded, show_progress=False)
    assert outcome.exit_code == 0, outcome.error
    return outcome


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> RunOutcome:
    return _run(tmp_path_factory.mktemp("example"))


def test_every_turn_span_is_stored_with_its_routing_keys(example_run: RunOutcome) -> None:
    rows = query(
        example_run.db_path,
        """SELECT chat_id, turn_id, attributes->>'tracesim.chat_id',
                  CAST(attributes->>'tracesim.turn_id' AS INTEGER)
           FROM spans WHERE name = 'tracesim.turn'""",
    )
    assert len(rows) == example_run.result.num_turns == 8
    assert all(r[0] == r[2] and r[1] == r[3] for r in rows)


def test_turns_and_conversations_hold_the_transcript(example_run: RunOutcome) -> None:
    turns = query(
        example_run.db_path,
        "SELECT scenario_id, turn_id, user_message, agent_message, status FROM turns "
        "WHERE run_id = ? ORDER BY scenario_id, turn_id",
        [example_run.run_id],
    )
    by_scenario = {(t[0], t[1]): t for t in turns}
    assert by_scenario[("order-status", 0)][2] == "Hi, where is my order A1001?"
    assert "shipped" in by_scenario[("order-status", 0)][3]
    assert by_scenario[("cancel-processing-order", 1)][3] == "Done: order A1002 is cancelled."
    assert {t[4] for t in turns} == {"ok"}
    conversations = query(
        example_run.db_path,
        "SELECT scenario_id, num_turns, status, scenario FROM conversations WHERE run_id = ?",
        [example_run.run_id],
    )
    assert len(conversations) == 6
    assert {c[2] for c in conversations} == {"completed"}
    scenario = json.loads(next(c[3] for c in conversations if c[0] == "order-status"))
    assert scenario["goal"] == "Find out where order A1001 is."


def test_tool_spans_join_their_turn_and_carry_the_model_call_id(example_run: RunOutcome) -> None:
    tools = query(
        example_run.db_path,
        """SELECT s.trace_id, s.chat_id, s.turn_id, s.tool_name,
                  s.attributes->>'gen_ai.tool.call.id', s.attributes->>'gen_ai.tool.call.arguments',
                  t.chat_id, t.turn_id, s.attributes->>'tracesim.chat_id'
           FROM spans s JOIN spans t ON t.trace_id = s.trace_id AND t.name = 'tracesim.turn'
           WHERE s.operation = 'execute_tool'""",
    )
    names = sorted(t[3] for t in tools)
    assert names == sorted(
        [
            "lookup_order",
            "lookup_order",
            "verify_identity",
            "verify_identity",
            "verify_identity",
            "cancel_order",
            "request_refund",
            "get_policy",
        ]
    )
    for _trace, chat_id, turn_id, _, call_id, _, turn_chat, turn_turn, baggage_chat in tools:
        assert (chat_id, turn_id) == (turn_chat, turn_turn)
        assert baggage_chat == chat_id
        assert call_id and call_id.startswith("call_")
    # The id equals the one the model put in its response (the chat span's tool_call parts).
    requested = {}
    for (messages,) in query(
        example_run.db_path,
        "SELECT attributes->>'gen_ai.output.messages' FROM spans WHERE operation = 'chat'",
    ):
        for part in json.loads(messages)[0]["parts"]:
            if part["type"] == "tool_call":
                requested[part["id"]] = (part["name"], part["arguments"])
    for _, _, _, name, call_id, arguments, *_ in tools:
        assert requested[call_id] == (name, json.loads(arguments))


def test_explicit_tool_calls_share_the_traced_ids(tmp_path: Path) -> None:
    outcome = _run(tmp_path, **{"agent_config.init_kwargs.report_tool_calls": "true"})
    explicit = {}
    for (calls,) in query(
        outcome.db_path, "SELECT explicit_tool_calls FROM turns WHERE run_id = ?", [outcome.run_id]
    ):
        for call in json.loads(calls):
            assert call["source"] == "agent_response"
            explicit[call["id"]] = call["name"]
    traced = dict(
        query(
            outcome.db_path,
            "SELECT attributes->>'gen_ai.tool.call.id', tool_name FROM spans "
            "WHERE operation = 'execute_tool'",
        )
    )
    assert explicit and explicit == traced


def test_run_summary_is_written(example_run: RunOutcome) -> None:
    summary = json.loads(Path(example_run.summary_path).read_text())
    assert summary["run_id"] == example_run.run_id
    assert summary["counts"]["conversations"] == 6
    assert summary["counts"]["tool_spans"] == 8
    assert summary["counts"]["spans_stored"] == example_run.spans_stored > 8
    assert {c["status"] for c in summary["conversations"]} == {"completed"}
