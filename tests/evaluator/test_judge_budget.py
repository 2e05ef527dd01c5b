"""`max_judge_cost` stops judging once spent; the evaluation itself goes on."""

from __future__ import annotations

from pathlib import Path

import duckdb
from tracesim.evaluator import evaluate_db
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.llm_config import LLMConfig

from tests.evaluator.test_dialogue import _production_db
from tests.fakes.openai_server import fake_openai, judge_reply


def test_budget_stops_judging_not_the_run(tmp_path: Path) -> None:
    db = _production_db(tmp_path / "prod.duckdb")
    with fake_openai(lambda body: judge_reply(body, prompt_tokens=1000)) as fake:
        llm = LLMConfig(
            model="judge", base_url=fake.base_url, max_concurrency=1, input_cost_per_mtok=1000.0
        )  # each answer costs $1
        config = EvalConfig(
            metrics=["goal_completion", "helpfulness"],
            llm=llm,
            max_judge_cost=1.5,
            tool_checks=True,
        )
        result = evaluate_db(db, config=config, output_dir=tmp_path / "out", progress=False)
        made = len(fake.requests)
    assert made == 2  # $1 spent after one, $2 after two: the third is not asked
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT metric, turn_id, value, label, reason FROM scores WHERE eval_id = ? "
            "AND metric IN ('goal_completion', 'helpfulness') ORDER BY metric, turn_id",
            [result.eval_id],
        ).fetchall()
    graded = [r for r in rows if r[2] is not None]
    stopped = [r for r in rows if r[3] == "not_run"]
    assert len(graded) == 2 and len(stopped) == 1
    assert stopped[0][4].startswith("judge budget reached: $2.0000 of max_judge_cost $1.5000")
    assert result.report.summary.num_conversations == 1  # the run itself finished


def test_a_known_judge_model_is_priced_from_the_built_in_table(tmp_path: Path) -> None:
    """gpt-4o-mini with no cost in the config used to cost $0.0000, so `max_judge_cost` never
    stopped anything: its list price ($0.15 / $0.60 per million tokens) counts now."""
    db = _production_db(tmp_path / "prod.duckdb")
    reply = lambda body: judge_reply(body, prompt_tokens=1_000_000, completion_tokens=0)  # noqa: E731
    with fake_openai(reply) as fake:
        llm = LLMConfig(model="gpt-4o-mini", base_url=fake.base_url, max_concurrency=1)
        config = EvalConfig(metrics=["goal_completion", "helpfulness"], llm=llm, max_judge_cost=0.2)
        result = evaluate_db(db, config=config, output_dir=tmp_path / "out", progress=False)
        made = len(fake.requests)
    assert made == 2  # $0.15 after one, $0.30 after two: the third is not asked
    usage = result.report.llm_usage
    assert usage.priced and abs(usage.cost_usd - 0.30) < 1e-9


def test_a_budget_on_a_judge_model_of_unknown_price_runs_no_judge(tmp_path: Path) -> None:
    db = _production_db(tmp_path / "prod.duckdb")
    with fake_openai(judge_reply) as fake:
        llm = LLMConfig(model="my-local-judge", base_url=fake.base_url)
        config = EvalConfig(metrics=["goal_completion"], llm=llm, max_judge_cost=1.0)
        result = evaluate_db(db, config=config, output_dir=tmp_path / "out", progress=False)
        made = len(fake.requests)
    assert made == 0 and not result.report.llm_usage.priced
    with duckdb.connect(str(db), read_only=True) as con:
        (reason,) = con.execute(
            "SELECT DISTINCT reason FROM scores WHERE eval_id = ? AND metric = 'goal_completion'",
            [result.eval_id],
        ).fetchone()
    assert reason.startswith("max_judge_cost cannot be kept: no price for judge model")
    assert "llm.input_cost_per_mtok" in reason


def test_a_judge_model_of_unknown_price_says_cost_unknown_not_zero(tmp_path: Path) -> None:
    db = _production_db(tmp_path / "prod.duckdb")
    with fake_openai(judge_reply) as fake:
        llm = LLMConfig(model="my-local-judge", base_url=fake.base_url)
        config = EvalConfig(metrics=["goal_completion"], llm=llm)
        result = evaluate_db(db, config=config, output_dir=tmp_path / "out", progress=False)
    usage = result.report.llm_usage
    assert usage.requests >= 1 and not usage.priced and usage.cost_usd == 0.0
    from tracesim.evaluator.report.summary_html import _usage_line

    assert "cost unknown (no price for the judge model)" in _usage_line(usage.model_dump())
