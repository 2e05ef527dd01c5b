"""The report's data and page, without a browser: what is embedded, escaped and chosen."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import orjson
import pytest
from plotly.offline import get_plotlyjs
from tracesim.evaluator.report import iter_details, load_report_data, write_report
from tracesim.evaluator.report.embed import (
    GZIP_SCRIPT_TYPE,
    gzip_script,
    json_script,
    read_gzip_script,
)

from tests.report.fixture_db import XSS_TEXT


def _data(db: Path, eval_id: str | None = None):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return load_report_data(con, db_path=str(db), eval_id=eval_id)
    finally:
        con.close()


def _details(db: Path, *, chunk_turns: int = 5000) -> list[dict]:
    """Every conversation's details as the page gets them (JSON round trip), in list order."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        data = load_report_data(con, db_path=str(db))
        out = dict(iter_details(con, data, chunk_turns=chunk_turns))
    finally:
        con.close()
    assert sorted(out) == list(range(len(data.conversations)))
    return [orjson.loads(orjson.dumps(out[i])) for i in range(len(out))]


def test_the_newest_evaluation_is_reported_by_default(fixture_db: Path) -> None:
    data = _data(fixture_db)
    assert data.eval_id == "eval-2"
    assert data.evals == ["eval-2", "eval-1"]
    assert data.run["eval_id"] == "eval-2"
    assert data.totals["conversations"] == 12 and data.totals["turns"] == 36


def test_judges_not_run_are_not_graded_never_zero(fixture_db: Path) -> None:
    metrics = {m.metric: m for m in _data(fixture_db, "eval-1").metrics}
    helpfulness = metrics["helpfulness"]
    assert helpfulness.graded == 0 and helpfulness.mean is None
    assert helpfulness.total == 36
    assert metrics["tool_call_args"].graded == 36


def test_tool_calls_say_how_they_were_observed(fixture_db: Path) -> None:
    data = _data(fixture_db)
    details = _details(fixture_db)
    observed = {c["observed"] for d in details for t in d["turns"] for c in t["calls"]}
    assert observed == {"explicit", "traced", "both"}
    con = duckdb.connect(str(fixture_db), read_only=True)
    rows = con.execute(
        "SELECT count(*) FILTER (WHERE source <> 'tracing_processor' AND traced),"
        " count(*) FILTER (WHERE source = 'tracing_processor') FROM tool_calls"
    ).fetchall()[0]
    con.close()
    assert sum(t["both"] for t in data.tools) == rows[0]
    assert sum(t["traced"] for t in data.tools) == rows[1]


def test_turn_spans_come_as_a_tree(fixture_db: Path) -> None:
    turn = _details(fixture_db)[0]["turns"][0]
    names_depths = [(s[0], s[3]) for s in turn["spans"]]
    assert names_depths[0] == ("tracesim.turn", 0)
    assert names_depths[1] == ("invoke_agent support", 1)
    assert all(depth >= 2 for _, depth in names_depths[2:])
    assert turn["spans_total"] == len(turn["spans"])


def test_failures_are_grouped_by_status_and_behaviour_label(fixture_db: Path) -> None:
    failures = _data(fixture_db).failures
    assert set(failures["Final status"]) <= {"Failed", "Partial Failure"}
    labels = set(failures["Agent behaviour failure"])
    assert labels and "no failure" not in labels
    for group in failures.values():
        for failing in group.values():
            assert failing.count >= len(failing.items) > 0
            assert all(item["chat_id"] for item in failing.items)


def test_details_do_not_depend_on_the_chunking(fixture_db: Path) -> None:
    whole = _details(fixture_db)
    assert _details(fixture_db, chunk_turns=1) == whole
    assert [d["chat_id"] for d in whole] == [r["chat_id"] for r in _data(fixture_db).conversations]
    assert sum(len(d["turns"]) for d in whole) == 36
    assert all(len(d["scores"]) == 3 for d in whole)  # agent_behavior, goal, final


def test_summary_counts_match_the_tables(fixture_db: Path) -> None:
    data = _data(fixture_db)
    con = duckdb.connect(str(fixture_db), read_only=True)
    calls, errors = con.execute(
        "SELECT count(*), count(*) FILTER (error <> '') FROM tool_calls"
    ).fetchall()[0]
    (final_failed,) = con.execute(
        "SELECT count(*) FROM scores WHERE eval_id = 'eval-2' AND metric = 'final_score'"
        " AND label <> 'Done'"
    ).fetchall()[0]
    con.close()
    assert data.totals["tool_calls"] == sum(t["calls"] for t in data.tools) == calls
    assert data.totals["tool_errors"] == errors
    assert sum(f.count for f in data.failures["Final status"].values()) == final_failed
    tagged = sum(
        1 for r in data.conversations if any(t.startswith("Final status") for t in r["tags"])
    )
    assert tagged == final_failed


def test_the_page_is_self_contained_with_plotly_once(report_path: Path) -> None:
    page = report_path.read_text(encoding="utf-8")
    assert page.count(get_plotlyjs()[:200]) == 1
    assert not re.search(r"<script[^>]+src=", page), "no external scripts: the report opens offline"
    assert "cdn.plot.ly" not in page.replace(get_plotlyjs(), "")
    assert page.count(f'type="{GZIP_SCRIPT_TYPE}" id="conv-') == 12


def test_user_content_is_escaped(report_path: Path) -> None:
    page = report_path.read_text(encoding="utf-8")
    assert XSS_TEXT not in page
    assert "<script>window.__xss" not in page
    assert "&lt;script&gt;window.__xss" in page  # failure reasons, escaped as HTML


def test_json_script_cannot_be_closed_by_content() -> None:
    block = json_script("x", {"text": "</script><script>alert(1)</script>&"})
    assert block.count("</script>") == 1
    inner = block.split(">", 1)[1].rsplit("</script>", 1)[0]
    assert orjson.loads(inner)["text"] == "</script><script>alert(1)</script>&"


def test_a_compressed_block_round_trips_and_holds_no_markup() -> None:
    value = {"text": "</script><script>alert(1)</script>&", "n": [1, 2.5, None]}
    block = gzip_script("conv-0", value)
    assert block.count("<") == 2 and "alert" not in block
    assert read_gzip_script(block) == value


def test_the_page_embeds_every_conversation_compressed(report_path: Path) -> None:
    page = report_path.read_text(encoding="utf-8")
    blocks = re.findall(rf'<script type="{GZIP_SCRIPT_TYPE}" id="conv-(\d+)">[^<]*</script>', page)
    assert sorted(int(i) for i in blocks) == list(range(12))
    first = re.search(r'<script type="[^"]+" id="conv-1">[^<]*</script>', page).group(0)
    detail = read_gzip_script(first)
    assert detail["chat_id"] == "chat-0001"
    assert any(XSS_TEXT in (t["agent"] or "") for t in detail["turns"])


def test_an_unknown_eval_id_names_the_known_ones(fixture_db: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="eval-2, eval-1"):
        write_report(fixture_db, tmp_path / "r.html", eval_id="nope")


def test_the_start_of_an_eval_id_picks_it(tmp_path: Path) -> None:
    """The eval id the run prints can be shortened, as compare and evaluate take them;
    a start shared by several ids is not a choice."""
    from tracesim.evaluator.report.data import choose_eval
    from tracesim.schemas.ddl import create_all

    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    create_all(con)
    for eval_id in ("abcd1111", "abcd2222"):
        con.execute("INSERT INTO runs (eval_id, run_id, kind) VALUES (?, 'r', 'run')", [eval_id])
    assert choose_eval(con, "abcd2")[0] == "abcd2222"
    with pytest.raises(ValueError, match="is not in this file"):
        choose_eval(con, "abcd")  # both start so


def test_a_missing_file_says_how_to_create_one(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="tracesim run"):
        write_report(tmp_path / "missing.duckdb", tmp_path / "r.html")


def test_an_empty_database_still_reports(tmp_path: Path) -> None:
    from tracesim.schemas.ddl import create_all

    db = tmp_path / "empty.duckdb"
    con = duckdb.connect(str(db))
    create_all(con)
    con.close()
    page = write_report(db, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Not evaluated yet" in page and "tracesim evaluate --db FILE" in page


def test_the_title_names_the_agent_then_the_services_then_the_folder_or_store(
    tmp_path: Path,
) -> None:
    import json

    from tracesim.evaluator.report.title import run_name, run_title
    from tracesim.schemas.ddl import create_all

    folder = tmp_path / "my-agent" / "results"
    folder.mkdir(parents=True)
    db = folder / "tracesim.duckdb"
    with duckdb.connect(str(db)) as con:
        create_all(con)
        assert run_name(con, str(db), None) == "my-agent"  # results/ stands for its parent
        assert (
            run_name(con, "clickhouse://u@h:8123/otel (http)", None) == "clickhouse://u@h:8123/otel"
        )
        con.execute(
            "INSERT INTO spans (trace_id, span_id, service_name) VALUES"
            " ('t', 'a', 'tracesim-simulator'), ('t', 'b', 'shop-agent')"
        )
        assert run_name(con, str(db), None) == "shop-agent"  # tracesim's own left out
        (folder / "run_summary.json").write_text(
            json.dumps({"run_id": "r1", "config": {"agent_config": {"agent_name": "support"}}})
        )
        assert run_name(con, str(db), {"run_id": "r1"}) == "support"
        assert run_name(con, str(db), {"run_id": "other"}) == "shop-agent"  # another run's
        title = run_title(
            con, str(db), {"run_id": "r1", "kind": "run", "started_at": "2026-01-02 03:04:05"}
        )
        assert title == "support · run 2026-01-02 03:04"
