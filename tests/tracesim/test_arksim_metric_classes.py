"""arksim's custom metric classes run as they are (`checks.arksim_metrics`): a user's
`custom_metrics.py` written for arksim (`from arksim.evaluator import ...`), with a
deterministic metric, an LLM metric using the injected `self.llm` at conversation scope,
and a qualitative one, through a real `tracesim run` against a local stand-in LLM."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import yaml
from click.testing import CliRunner

from tests.fakes.openai_server import chat_completion, fake_openai, judge_reply
from tracesim.cli import cli

METRICS = """
from pydantic import BaseModel

from arksim.evaluator import (
    QualitativeMetric,
    QualResult,
    QuantitativeMetric,
    QuantResult,
    ScoreInput,
    format_chat_history,
)


class MentionsOrder(QuantitativeMetric):
    def __init__(self):
        super().__init__(name="mentions_order", score_range=(0, 5))

    def score(self, score_input: ScoreInput) -> QuantResult:
        reply = score_input.current_turn[-1].content
        calls = [call.name for call in score_input.tool_calls]
        value = 5.0 if "A1" in reply else 1.0
        return QuantResult(name=self.name, value=value, reason=f"calls {calls}",
                           metadata={"knowledge": score_input.knowledge})


class Verdict(BaseModel):
    value: float
    reason: str


class ClarityMetric(QuantitativeMetric):
    def __init__(self, llm=None):
        super().__init__(name="clarity", score_range=(1, 5), llm=llm, scope="conversation")

    def score(self, score_input: ScoreInput) -> QuantResult:
        answer = self.llm.call(
            [{"role": "user", "content": "Rate clarity:\\n" + format_chat_history(score_input.chat_history)}],
            schema=Verdict,
        )
        return QuantResult(name=self.name, value=answer.value, reason=answer.reason)


class Prohibited(QualitativeMetric):
    def __init__(self):
        super().__init__(name="prohibited_statements")

    def evaluate(self, score_input: ScoreInput) -> QualResult:
        bad = "guarantee" in score_input.current_turn[-1].content
        return QualResult(name=self.name, value="violated" if bad else "ok", reason="checked")
"""

AGENT = """
from tracesim import AgentResponse, BaseAgent, ToolCall

class Agent(BaseAgent):
    async def execute(self, user_query, **kwargs):
        if "order" in user_query:
            return AgentResponse(content="Order A1 shipped.",
                                 tool_calls=[ToolCall(name="lookup_order", arguments={"id": "A1"})])
        return "I guarantee a refund."
"""


def _llm(body: dict[str, Any]) -> dict[str, Any]:
    schema = (body.get("response_format") or {}).get("json_schema") or {}
    if schema.get("name") == "Verdict":
        return chat_completion(json.dumps({"value": 4, "reason": "clear"}))
    return judge_reply(body)


def test_an_arksim_metrics_file_runs_unchanged(tmp_path: Path) -> None:
    (tmp_path / "custom_metrics.py").write_text(METRICS)
    (tmp_path / "agent.py").write_text(AGENT)
    scenarios = [
        {
            "scenario_id": "s",
            "goal": "know where order A1 is",
            "knowledge": ["Order A1", "Email a@b.c"],
            "turns": ["where is my order?", "can I get money back?"],
        }
    ]
    (tmp_path / "scenarios.json").write_text(json.dumps(scenarios))
    with fake_openai(_llm) as fake:
        config = {  # arksim's own keys: custom_metrics_file_paths, numeric_thresholds, ...
            "agent_config": {"agent_type": "custom", "module_path": "agent.py"},
            "scenario_file_path": "scenarios.json",
            "output_dir": "results",
            "model": "judge",
            "llm": {"base_url": fake.base_url, "max_retries": 0},
            "metrics_to_run": [],
            "custom_metrics_file_paths": ["./custom_metrics.py"],
            "numeric_thresholds": {"clarity": 3.5},
            "qualitative_failure_labels": {"prohibited_statements": ["violated"]},
        }
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(config))
        result = CliRunner().invoke(cli, ["run", str(path), "--no-progress"])
    output = result.output
    assert "defines arksim metric classes" not in output
    # the qualitative label gate fails the run: turn 1 "guarantees"
    assert result.exit_code == 1, output
    assert "prohibited_statements" in output
    with duckdb.connect(str(tmp_path / "results" / "tracesim.duckdb"), read_only=True) as db:
        rows = db.execute(
            "SELECT metric, turn_id, value, passed, label, details FROM scores "
            "WHERE metric IN ('mentions_order', 'clarity', 'prohibited_statements') "
            "ORDER BY metric, turn_id"
        ).fetchall()
    scores = {(m, t): (v, p, label, json.loads(d)) for m, t, v, p, label, d in rows}
    # deterministic, per turn, in its own 0-5 range; passes at 60% of 5 (arksim's rule)
    assert scores[("mentions_order", 0)][:2] == (5.0, True)
    assert scores[("mentions_order", 1)][:2] == (1.0, False)
    details = scores[("mentions_order", 0)][3]
    assert details["score_range"] == [0, 5]
    assert details["metadata"]["knowledge"] == "Knowledge 1:\nOrder A1\n\nKnowledge 2:\nEmail a@b.c"
    assert details["arksim"] == "MentionsOrder"
    # the LLM metric: one conversation-level score through the injected judge model
    assert scores[("clarity", None)][:2] == (4.0, True)
    assert scores[("clarity", None)][3]["llm"]["requests"] == 1
    assert any(
        (r.get("response_format") or {}).get("json_schema", {}).get("name") == "Verdict"
        for r in fake.requests
    )
    # qualitative: the label is kept
    assert scores[("prohibited_statements", 1)][:3] == (0.0, None, "violated")  # a failure label
    assert scores[("prohibited_statements", 0)][:3] == (1.0, None, "ok")


def test_an_llm_metric_without_a_judge_model_is_not_graded_saying_why(tmp_path: Path) -> None:
    (tmp_path / "custom_metrics.py").write_text(METRICS)
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "scenarios.json").write_text(
        json.dumps([{"scenario_id": "s", "goal": "g", "turns": ["where is my order?"]}])
    )
    config = {
        "agent_config": {"agent_type": "custom", "module_path": "agent.py"},
        "scenario_file_path": "scenarios.json",
        "output_dir": "results",
        "llm": {"api_key_env": "TRACESIM_TEST_UNSET_KEY"},
        "evaluation": {"metrics": [], "custom_metrics_file_paths": ["custom_metrics.py"]},
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    result = CliRunner().invoke(cli, ["run", str(path), "--no-progress"])
    assert "Traceback" not in result.output
    with duckdb.connect(str(tmp_path / "results" / "tracesim.duckdb"), read_only=True) as db:
        value, reason = db.execute(
            "SELECT value, reason FROM scores WHERE metric = 'clarity'"
        ).fetchone()
    assert value is None
    assert "uses self.llm, but no judge model can run" in reason


def test_the_python_api_injects_the_judge_model_too(tmp_path: Path) -> None:
    from tracesim.schemas.eval_config import EvalConfig
    from tracesim.schemas.llm_config import LLMConfig

    import tracesim

    (tmp_path / "custom_metrics.py").write_text(METRICS)
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "scenarios.json").write_text(
        json.dumps([{"scenario_id": "s", "goal": "g", "turns": ["where is my order?"]}])
    )
    config = {
        "agent_config": {"agent_type": "custom", "module_path": "agent.py"},
        "scenario_file_path": "scenarios.json",
        "output_dir": "results",
        "evaluation": {"metrics": []},
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    CliRunner().invoke(cli, ["run", str(tmp_path / "config.yaml"), "--no-progress"])
    with fake_openai(_llm) as fake:
        result = tracesim.evaluate_db(
            str(tmp_path / "results" / "tracesim.duckdb"),
            config=EvalConfig(metrics=[], custom_metrics_file_paths=["custom_metrics.py"]),
            llm=LLMConfig(model="judge", base_url=fake.base_url, max_retries=0),
            base_dir=tmp_path,
            output_dir=tmp_path / "api",
            progress=False,
        )
    assert result.report.summary.metric_means["clarity"] == 4.0  # graded by self.llm
    assert any(
        (r.get("response_format") or {}).get("json_schema", {}).get("name") == "Verdict"
        for r in fake.requests
    )


KNOWLEDGE_METRIC = """
from arksim.evaluator import QuantitativeMetric, QuantResult


class SeenKnowledge(QuantitativeMetric):
    def __init__(self):
        super().__init__(name="seen_knowledge", score_range=(0, 1))

    def score(self, score_input):
        return QuantResult(name=self.name, value=1, reason=score_input.knowledge)
"""


def test_a_turn_metric_sees_the_fact_the_user_was_shown_that_turn(tmp_path: Path) -> None:
    """`user.knowledge: per_turn`: the fact shown is kept on the turn's span, and an arksim
    metric gets it as that turn's `knowledge`, as arksim's evaluator hands it."""
    (tmp_path / "custom_metrics.py").write_text(KNOWLEDGE_METRIC)
    (tmp_path / "agent.py").write_text(AGENT)
    facts = ["Order number: A1", "Email: a@b.c"]
    (tmp_path / "scenarios.json").write_text(
        json.dumps([{"scenario_id": "s", "goal": "track A1", "knowledge": facts}])
    )
    with fake_openai(lambda body: chat_completion("where is my order?")) as fake:
        config = {
            "agent_config": {"agent_type": "custom", "module_path": "agent.py"},
            "scenario_file_path": "scenarios.json",
            "output_dir": "results",
            "max_turns": 2,
            "llm": {"base_url": fake.base_url, "model": "m", "max_retries": 0},
            "user": {"type": "llm", "knowledge": "per_turn"},
            "evaluation": {"metrics": [], "custom_metrics_file_paths": ["custom_metrics.py"]},
        }
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
        result = CliRunner().invoke(cli, ["run", str(tmp_path / "config.yaml"), "--no-progress"])
    assert result.exit_code in (0, 3), result.output
    with duckdb.connect(str(tmp_path / "results" / "tracesim.duckdb"), read_only=True) as db:
        shown = db.execute(
            "SELECT turn_id, attributes->>'$.\"tracesim.user.knowledge\"' FROM spans "
            "WHERE name = 'tracesim.turn' ORDER BY turn_id"
        ).fetchall()
        reasons = db.execute(
            "SELECT turn_id, reason FROM scores WHERE metric = 'seen_knowledge' ORDER BY turn_id"
        ).fetchall()
    assert sorted(fact for _, fact in shown) == sorted(facts)  # one a turn, each once
    assert reasons == [(turn, f"Knowledge 1:\n{fact}") for turn, fact in shown]
