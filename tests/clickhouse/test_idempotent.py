"""Re-evaluating a ClickHouse store replaces tracesim's rows, never duplicates them, and
the views read the newest evaluation."""

from __future__ import annotations

from pathlib import Path

from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.schemas.eval_config import EvalConfig

from tests.clickhouse.conftest import StoreDB, query, two_chats_request


def test_reevaluation_replaces_rows(store_db: StoreDB, tmp_path: Path) -> None:
    url = store_db(two_chats_request())
    first = evaluate_db(url, config=EvalConfig(), output_dir=tmp_path / "a", progress=False)
    second = evaluate_db(
        url, config=EvalConfig(), output_dir=tmp_path / "b", progress=False, chunk_rows=5
    )
    assert first.eval_id != second.eval_id
    calls = query(url, "SELECT chat_id, turn_id, seq FROM tool_calls ORDER BY ALL")
    assert calls == [{"chat_id": c, "turn_id": t, "seq": 0} for c in ("c1", "c2") for t in range(2)]
    latest = query(url, "SELECT DISTINCT eval_id FROM latest_scores")
    assert latest == [{"eval_id": second.eval_id}]
    runs = query(url, "SELECT count() AS n, uniqExact(eval_id) AS evals FROM runs FINAL")
    assert runs == [{"n": 2, "evals": 2}]
    summary = query(url, "SELECT chat_id, num_tool_calls, final_status FROM conversation_summary")
    assert summary == []  # no tracesim.conversation spans were sent
    turns = query(
        url, "SELECT chat_id, turn_id, num_spans, num_tool_calls FROM turn_summary ORDER BY ALL"
    )
    assert [(r["num_spans"], r["num_tool_calls"]) for r in turns] == [(2, 1)] * 4
    stats = query(url, "SELECT name, calls, traced FROM tool_stats")
    assert stats == [{"name": "lookup", "calls": 4, "traced": 4}]


def test_cli_writes_report_and_junit_from_clickhouse(store_db: StoreDB, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tracesim.cli import cli

    url = store_db(two_chats_request())
    junit = tmp_path / "junit.xml"
    result = CliRunner().invoke(
        cli,
        [
            "evaluate",
            "--db",
            url,
            "--output-dir",
            str(tmp_path / "out"),
            "--no-progress",
            "--junit-xml",
            str(junit),
        ],
    )
    assert result.exit_code == 3, result.output  # nothing graded (no judge ran): exit 3, SPEC §13
    assert (tmp_path / "out" / "report.html").is_file()
    text = junit.read_text()
    # one per conversation, and the verdict as an <error>: nothing could be graded
    assert "<testsuites" in text and text.count("<testcase") == 3 and 'errors="1"' in text
