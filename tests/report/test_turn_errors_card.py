"""The report's "turn errors" card and score bands (issue 23 items 2 and 10)."""

from __future__ import annotations

from pathlib import Path

from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.evaluator.report import write_report
from tracesim.schemas.eval_config import EvalConfig

from tests.evaluator.test_pipeline import build_db


def test_errored_conversations_get_a_turn_errors_card_by_source(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb", extra_turn_status="error")
    result = evaluate_db(db, config=EvalConfig(metrics=[]), output_dir=tmp_path, progress=False)
    html = write_report(db, tmp_path / "report.html", eval_id=result.eval_id).read_text()
    assert '<div class="v">1</div><div class="k">turn errors (agent 1)</div>' in html
    assert "<h3>Score bands</h3>" in html and "judge 3" in html
    assert "Interrupted" in html  # the statuses table names every status


def test_no_card_when_nothing_errored(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    result = evaluate_db(db, config=EvalConfig(metrics=[]), output_dir=tmp_path, progress=False)
    html = write_report(db, tmp_path / "report.html", eval_id=result.eval_id).read_text()
    assert "turn errors (" not in html
