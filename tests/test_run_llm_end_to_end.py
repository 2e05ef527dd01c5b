"""The online path end to end, offline: an LLM-played user drives the Agents SDK example,
then every LLM judge grades it; both talk to the local OpenAI-compatible stand-in over
HTTP through the real `openai` client (the only fake: a paid LLM API)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import yaml
from tracesim.schemas.eval_config import JUDGE_NAMES

from tests.fakes.openai_server import chat_completion, fake_openai, judge_reply
from tracesim.config_loader import load_run_config
from tracesim.run import run

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "customer_service"
SCENARIO = {
    "scenario_id": "llm-order-status",
    "goal": "Learn where order A1001 is.",
    "user_profile": {"name": "Dana", "communication_style": "brief"},
    "knowledge": ["Order number: A1001"],
    "assertions": [
        {
            "type": "tool_calls",
            "turn": 0,
            "match_mode": "contains",
            "expected": [{"name": "lookup_order", "args": {"order_id": "A1001"}}],
        }
    ],
}


def _llm(body: dict[str, Any]) -> dict[str, Any]:
    """Judges ask for a json_schema; the simulated user does not."""
    if "response_format" in body:
        return judge_reply(body, scale=5)
    replies = sum(m["role"] == "assistant" for m in body["messages"][1:])
    return chat_completion("Where is my order A1001?" if replies == 0 else "Thanks. ###STOP###")


def test_llm_user_and_judges_through_tracesim_run(tmp_path: Path) -> None:
    (tmp_path / "scenarios.json").write_text(json.dumps([SCENARIO]))
    with fake_openai(_llm) as fake:
        config = {
            "agent_config": {
                "agent_type": "custom",
                "module_path": str(EXAMPLE / "agent.py"),
                "class_name": "CustomerServiceAgent",
            },
            "scenario_file_path": "scenarios.json",
            "output_dir": "results",
            "user": {"type": "llm"},
            "llm": {"base_url": fake.base_url, "model": "stand-in", "api_key_env": "NO_KEY"},
            "evaluation": {
                "metrics": list(JUDGE_NAMES),
                "thresholds": {"final_score": 0.9, "helpfulness": 0.9},
            },
        }
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
        outcome = run(load_run_config(tmp_path / "config.yaml"), show_progress=False)
        requests = list(fake.requests)
    assert outcome.exit_code == 0, outcome.error
    user_requests = [r for r in requests if "response_format" not in r]
    judge_requests = [r for r in requests if "response_format" in r]
    assert len(user_requests) == 2  # the opening message, then the stop token
    # the simulated user's model use is counted (and priced: the stand-in has no price)
    summary = json.loads(Path(outcome.summary_path).read_text())
    assert summary["user_llm_usage"] == {
        "model": "stand-in", "requests": 2, "input_tokens": 20, "output_tokens": 10,
        "cost_usd": None,
    }  # fmt: skip
    assert "A1001" in user_requests[0]["messages"][0]["content"]  # knowledge in its prompt
    assert {r["response_format"]["json_schema"]["name"] for r in judge_requests} == set(
        config["evaluation"]["metrics"]
    )
    assert all(r["temperature"] == 0 for r in judge_requests)
    with duckdb.connect(str(outcome.db_path), read_only=True) as con:
        turns = con.execute("SELECT user_message, agent_message FROM turns").fetchall()
        scores = dict(
            con.execute(
                "SELECT metric, value FROM scores WHERE run_id = ? AND value IS NOT NULL "
                "AND (turn_id IS NULL OR turn_id = 0)",
                [outcome.run_id],
            ).fetchall()
        )
        calls = con.execute("SELECT name, source, traced FROM tool_calls").fetchall()
    assert turns == [("Where is my order A1001?", turns[0][1])] and "shipped" in turns[0][1]
    assert calls == [("lookup_order", "traced", True)]
    assert scores["helpfulness"] == 1.0 and scores["goal_completion"] == 1.0
    assert scores["trajectory"] == 1.0 and scores["final_score"] == 1.0
