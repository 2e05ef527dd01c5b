"""evaluate_db chunk by chunk: same rows whatever the chunk size; the results.json digest."""

from __future__ import annotations

from pathlib import Path

import duckdb
from tracesim.evaluator.load.load import DecodedSpans, load_chunk, plan_chunks
from tracesim.evaluator.output.results_file import failure_details, read_results
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.evaluator.scoring.tally import MetricTally
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.llm_config import LLMConfig

from tests.evaluator.test_pipeline import _judge_answers, build_db
from tests.fakes.openai_server import fake_openai

SCORE_COLUMNS = "chat_id, turn_id, metric, value, passed, threshold, label, reason, details"


def _rows(db: Path, eval_id: str) -> tuple[list[tuple], list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        scores = con.execute(
            f"SELECT {SCORE_COLUMNS} FROM scores WHERE eval_id = ? ORDER BY ALL", [eval_id]
        ).fetchall()
        calls = con.execute("SELECT * FROM tool_calls ORDER BY ALL").fetchall()
    finally:
        con.close()
    return scores, calls


def test_chunk_size_changes_nothing_stored(tmp_path: Path) -> None:
    config = EvalConfig(metrics=[], thresholds={"trajectory": 1.0})
    whole = build_db(tmp_path / "whole.duckdb")
    one_by_one = build_db(tmp_path / "one.duckdb")
    a = evaluate_db(whole, config=config, output_dir=tmp_path / "a", progress=False)
    b = evaluate_db(
        one_by_one, config=config, output_dir=tmp_path / "b", progress=False, chunk_rows=1
    )
    assert _rows(whole, a.eval_id) == _rows(one_by_one, b.eval_id)
    assert a.summary == b.summary and a.gates == b.gates and a.exit_code == b.exit_code == 1
    assert [c.model_dump() for c in a.report.conversations] == [
        c.model_dump() for c in b.report.conversations
    ]


def test_plan_chunks_keeps_conversations_whole(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    con = duckdb.connect(str(db))
    try:
        plan = plan_chunks(con, max_rows=1)
        assert plan.chunks == [["chat-bad"], ["chat-ok"]] and plan.num_turns == 3
        assert plan_chunks(con).chunks == [["chat-bad", "chat-ok"]]
        assert plan_chunks(con, run_id="other").chunks == []
        (ok,) = load_chunk(con, ["chat-ok"], span_columns=("chat_id", "turn_id", "attributes"))
    finally:
        con.close()
    assert [t["turn_id"] for t in ok.turns] == [0, 1]
    assert sorted(ok.spans_by_turn) == [0, 1] and len(ok.spans_by_turn[1]) == 2
    # span JSON stays text: extraction parses only the spans that can be tool calls
    assert isinstance(ok.spans_by_turn[0][0]["attributes"], str)


def test_results_json_is_a_digest(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    result = evaluate_db(db, config=EvalConfig(), output_dir=tmp_path / "o", progress=False)
    report = read_results(result.results_path)
    assert report.schema_version == 2 and report.summary == result.summary
    by_chat = {c.chat_id: c for c in report.conversations}
    ok, bad = by_chat["chat-ok"], by_chat["chat-bad"]
    assert ok.turn_success == [t.success for t in ok.turns] == [True, True]
    # a passing check keeps its value, not its per-call details
    (args,) = [m for m in ok.turns[1].metrics if m.name == "tool_call_args"]
    assert (
        args.value == 1.0 and args.passed is True and args.details is None and args.reason is None
    )
    # a failed check keeps why, call by call
    (missed,) = [m for m in bad.metrics if m.name == "trajectory"]
    assert missed.passed is False and missed.reason and missed.details
    assert missed.details["kind"] == "check" and missed.details["missing"]
    assert "pairs" not in missed.details and "extra" not in missed.details  # nothing went right
    # judges that could not run: label only, the reason is llm_usage.reason
    not_run = [m for m in ok.metrics if m.label == "not_run"]
    assert len(not_run) == 7 and all(m.reason is None for m in not_run)
    assert report.llm_usage.reason
    assert all(m.name != "turn_success" for t in ok.turns for m in t.metrics)


def test_tally_counts_failing_values_per_gate() -> None:
    tally = MetricTally(EvalConfig(thresholds={"a": 0.5}, max_thresholds={"a": 0.8}))
    for value in (0.2, 0.6, 0.9):
        tally.add("a", value)
    assert tally.mean("a") == (0.2 + 0.6 + 0.9) / 3 and tally.mean("b") is None
    assert tally.gate_stats("a", "min").failing == 1
    assert tally.gate_stats("a", "max").failing == 1
    assert tally.gate_stats("a", "max").graded == 3


def test_failure_details_keep_what_failed() -> None:
    details = {
        "kind": "check",
        "calls": [{"expected": "a()", "matched": True}, {"expected": "b()", "matched": False}],
        "pairs": [{"expected": "a()", "actual": "a()"}],
        "tools": {"a": {"passed": True}, "b": {"passed": False, "actual": 0}},
        "missing": ["b()"],
        "extra": [],
        "matched": 0,
    }
    assert failure_details(details) == {
        "kind": "check",
        "calls": [{"expected": "b()", "matched": False}],
        "tools": {"b": {"passed": False, "actual": 0}},
        "missing": ["b()"],
        "matched": 0,
    }


def test_decoded_spans_parse_json_on_access() -> None:
    rows = [{"attributes": '{"a": 1}', "events": "[]", "links": None}, {"attributes": "junk"}]
    spans = DecodedSpans(rows)
    assert len(spans) == 2 and isinstance(rows[0]["attributes"], str)  # nothing parsed yet
    assert spans[0]["attributes"] == {"a": 1} and spans[0]["links"] == []
    assert [s["attributes"] for s in spans] == [{"a": 1}, {}]  # junk: the column's default


def test_judges_share_one_client_and_cache_across_chunks(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    config = EvalConfig(thresholds={"final_score": 0.7})
    with fake_openai(_judge_answers) as fake:
        llm = LLMConfig(base_url=fake.base_url, model="judge", input_cost_per_mtok=2.0)
        first = evaluate_db(
            db, config=config, llm=llm, output_dir=tmp_path / "a", progress=False, chunk_rows=1
        )
        made = len(fake.requests)
        second = evaluate_db(
            db, config=config, llm=llm, output_dir=tmp_path / "b", progress=False, chunk_rows=1
        )
        assert len(fake.requests) == made == 2 * 1 + 3 * 6
    assert first.report.llm_usage.requests == made and first.report.llm_usage.cost_usd > 0
    assert second.report.llm_usage.cached == made and second.report.llm_usage.requests == 0
    finals = {c.chat_id: (c.final_score, c.status) for c in first.report.conversations}
    # chat-bad: its failed conversation-level check caps 0.75 at 0.0 (issue 23 item 2)
    assert finals == {"chat-ok": (1.0, "Done"), "chat-bad": (0.0, "Failed")}
