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
