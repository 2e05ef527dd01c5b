"""The offline example captured into DuckDB, its spans replayed through the exporter's
mapping into ClickHouse (chdb, and a server over HTTP): both give the same tool calls and
scores."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from tracesim.evaluator.pipeline.pipeline import evaluate_db

from tests.clickhouse.conftest import StoreDB, query
from tests.clickhouse.exporter_mapping import LAYOUTS, request_from_duckdb
from tracesim.commands.evaluate import load_eval_settings
from tracesim.config_loader import load_run_config
from tracesim.run import RunOutcome, run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service" / "config.yaml"
_CALLS = "chat_id, turn_id, seq, id, name, arguments, result, error, source, traced, span_id"
_SCORES = "chat_id, turn_id, metric, value, passed, label"


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> RunOutcome:
    out = tmp_path_factory.mktemp("run") / "results"
    outcome = run(load_run_config(EXAMPLE, {"output_dir": str(out)}), show_progress=False)
    assert outcome.exit_code == 0, outcome.error
    return outcome


def _duckdb_rows(path: Path, eval_id: str) -> tuple[list[tuple], list[tuple]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        calls = con.execute(f"SELECT {_CALLS} FROM tool_calls ORDER BY ALL").fetchall()
        scores = con.execute(
            f"SELECT {_SCORES} FROM scores WHERE eval_id = ? ORDER BY ALL", [eval_id]
        ).fetchall()
    finally:
        con.close()
    return calls, scores


def _normal(rows: list[tuple]) -> list[tuple]:
    """Float noise aside, the rows compared as is."""
    return [tuple(round(v, 9) if isinstance(v, float) else v for v in row) for row in rows]


@pytest.mark.parametrize(
    ("layout", "store_db"),  # every layout in chdb; over HTTP the Map and the JSON schema
    [*((layout, "chdb") for layout in LAYOUTS), ("map", "http"), ("json", "http")],
    indirect=["store_db"],
)
def test_clickhouse_gives_the_duckdb_answers(
    captured: RunOutcome, layout: str, store_db: StoreDB, tmp_path: Path
) -> None:
    config, llm = load_eval_settings(EXAMPLE)
    con = duckdb.connect(str(captured.db_path), read_only=True)
    try:
        request = request_from_duckdb(con)
    finally:
        con.close()
    url = store_db(request, layout=layout)
    ours = evaluate_db(
        url,
        config=config,
        llm=llm,
        base_dir=EXAMPLE.parent,
        output_dir=tmp_path / "ch_out",
        progress=False,
        kind="evaluate",
    )
    theirs = evaluate_db(
        captured.db_path,
        config=config,
        llm=llm,
        base_dir=EXAMPLE.parent,
        output_dir=tmp_path / "duck_out",
        progress=False,
        kind="evaluate",
    )
    calls, scores = _duckdb_rows(captured.db_path, theirs.eval_id)
    ch_calls = query(url, f"SELECT {_CALLS} FROM tool_calls FINAL ORDER BY ALL")
    ch_scores = query(
        url, f"SELECT {_SCORES} FROM scores WHERE eval_id = '{ours.eval_id}' ORDER BY ALL"
    )
    assert len(calls) == 8 and len(scores) > 50
    assert [tuple(r.values()) for r in ch_calls] == calls
    assert _normal([tuple(r.values()) for r in ch_scores]) == _normal(scores)
    assert ours.summary.mean_final_score == theirs.summary.mean_final_score
    assert ours.exit_code == theirs.exit_code


def test_inspect_reads_the_same_on_clickhouse(captured: RunOutcome, store_db: StoreDB) -> None:
    from tracesim.evaluator.inspect.inspect import inspect_db
    from tracesim.evaluator.store import open_clickhouse
    from tracesim.evaluator.store.clickhouse_inspect import inspect_store
    from tracesim.schemas.views import create_views

    con = duckdb.connect(str(captured.db_path), read_only=True)
    try:
        create_views(con, temporary=True)
        theirs = inspect_db(con)
        request = request_from_duckdb(con)
    finally:
        con.close()
    url = store_db(request)
    with open_clickhouse(url) as store:
        ours = inspect_store(store)
    assert ours == theirs
    assert sum(group.tool_spans for group in ours.groups) == 8
