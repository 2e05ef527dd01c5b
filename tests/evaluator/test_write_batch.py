"""Chunks' rows stored in row-group batches (`evaluator.pipeline.writes`), their text columns
dictionary-encoded (`ScoreColumns.arrays(encoded=True)`), are the rows the former path
stored (one write per chunk, plain text columns): same `scores`, `tool_calls`,
`traced_turns` and results.json, on the synthetic turns and on every conformance
recording."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest
from tracesim.evaluator.load.load import ChunkPlan
from tracesim.evaluator.output.output import ScoreColumns
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.evaluator.pipeline.schedule import split_for_workers
from tracesim.evaluator.store.duckdb_store import DuckDBStore
from tracesim.schemas import create_all
from tracesim.schemas.eval_config import EvalConfig

from benchmarks.synthetic_turns import build_database
from tests.conformance.replay import discover, load, store

GATES = EvalConfig(thresholds={"trajectory": 1.0}, max_thresholds={"tool_error_rate": 0.1})


def _rows(db: Path) -> tuple[list[tuple], list[tuple], list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        scores = con.execute(
            "SELECT run_id, chat_id, turn_id, metric, value, passed, threshold, label, reason, "
            "details FROM scores ORDER BY ALL"
        ).fetchall()
        calls = con.execute("SELECT * FROM tool_calls ORDER BY ALL").fetchall()
        turns = con.execute("SELECT * FROM traced_turns ORDER BY ALL").fetchall()
    finally:
        con.close()
    return scores, calls, turns


def _report(path: Path | None) -> dict[str, Any]:
    assert path is not None
    report = orjson.loads(path.read_bytes())
    for key in ("eval_id", "created_at", "db_path"):
        report.pop(key)
    return report


def _both(source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **kwargs: Any) -> None:
    """Evaluate copies of `source` writing each chunk alone with plain text columns (the
    former path), then in batches of 280 scores rows or more (several chunks a batch,
    batches of uneven size) with encoded ones; assert the same."""
    writes: list[int] = []
    plain_table = ScoreColumns.table

    def table(self: ScoreColumns, eval_id: str, created_at: Any, *, encoded: bool = False):
        return plain_table(self, eval_id, created_at, encoded=encoded and not former)

    write = DuckDBStore.write_chunk

    def counted(self: DuckDBStore, **kw: Any) -> None:
        writes.append(len(kw["chat_ids"]))
        write(self, **kw)

    monkeypatch.setattr(DuckDBStore, "write_chunk", counted)
    monkeypatch.setattr(ScoreColumns, "table", table)
    got = []
    for rows in (0, 7 * 40):
        former = rows == 0
        monkeypatch.setattr(DuckDBStore, "write_batch_rows", rows)
        writes.clear()
        copy = tmp_path / f"b{rows}.duckdb"
        shutil.copyfile(source, copy)
        result = evaluate_db(
            copy, config=GATES, output_dir=tmp_path / f"o{rows}", progress=False, **kwargs
        )
        got.append((_rows(copy), _report(result.results_path), list(writes)))
    (alone, alone_report, alone_writes), (batched, batched_report, batched_writes) = got
    assert alone == batched
    assert alone_report == batched_report
    assert sum(alone_writes) == sum(batched_writes)  # every chat written once
    assert 1 < len(batched_writes) < len(alone_writes)  # several chunks per write


def test_synthetic_turns_batched_store_what_each_chunk_alone_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "turns.duckdb"
    build_database(str(source), 600, scenarios=True)
    _both(source, tmp_path, monkeypatch, chunk_rows=120)
    scores, calls, _ = _rows(tmp_path / "b0.duckdb")
    assert len(calls) > 600 and any(row[5] is False for row in scores)


def test_conformance_recordings_batched_store_what_each_chunk_alone_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every recording sent to one collector, then evaluated both ways (collected chats:
    traced turns, tool calls from every convention)."""
    folders = discover()
    assert len(folders) > 20
    parts = tmp_path / "parts"
    parts.mkdir()
    merged = tmp_path / "corpus.duckdb"
    con = duckdb.connect(str(merged))
    try:
        create_all(con)
        for index, folder in enumerate(folders):
            db = store(load(folder), transport="grpc", workdir=parts)
            con.execute(f"ATTACH '{db}' AS r{index} (READ_ONLY)")
            for table in ("spans", "logs"):  # a trace sent by two recordings: stored once
                con.execute(f"INSERT OR IGNORE INTO main.{table} BY NAME FROM r{index}.{table}")
            con.execute(f"DETACH r{index}")
    finally:
        con.close()
    _both(merged, tmp_path, monkeypatch, chunk_rows=40)
    _, calls, turns = _rows(tmp_path / "b0.duckdb")
    assert calls and turns


def test_split_for_workers_keeps_every_chat_in_order() -> None:
    chats = [f"c{i:03d}" for i in range(100)]
    plan = ChunkPlan([chats[:60], chats[60:97], chats[97:]], num_turns=500)
    split = split_for_workers(plan, 2, chunk_rows=20_000)
    assert [c for chunk in split.chunks for c in chunk] == chats
    assert len(split.chunks) >= 8 and all(split.chunks)
    assert split.num_turns == 500
    assert split_for_workers(plan, 1, chunk_rows=20_000) is plan
    # chunks are not cut below ~2,500 rows: 5,000-row chunks in halves, 4,000 not at all
    assert [len(c) for c in split_for_workers(plan, 2, chunk_rows=5_000).chunks] == [
        30,
        30,
        19,
        18,
        2,
        1,
    ]
    assert split_for_workers(plan, 2, chunk_rows=4_000).chunks == plan.chunks
    # many full chunks: none cut, but the first one's head (~HEAD_ROWS) apart
    many = ChunkPlan([chats[i : i + 10] for i in range(0, 100, 10)], num_turns=500)
    head = split_for_workers(many, 2, chunk_rows=20_000)
    assert [len(c) for c in head.chunks] == [2, 8] + [10] * 9
    assert [c for chunk in head.chunks for c in chunk] == chats


@pytest.mark.parametrize("up", [False, True], ids=["workers-starting", "workers-up"])
def test_first_chunk_here_while_workers_start_stores_what_one_process_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, up: bool
) -> None:
    """While the worker processes start, the evaluating process evaluates the first chunk
    itself (`ChunkPool.run(here=...)`); the rows are those of a serial evaluation."""
    from tracesim.evaluator.pipeline import schedule
    from tracesim.evaluator.pipeline.workers import ChunkPool

    source = tmp_path / "turns.duckdb"
    build_database(str(source), 300, scenarios=True)
    here_calls: list[int] = []
    evaluate_here = schedule.evaluate_here

    def counted(chunk: Any, **kwargs: Any) -> Any:
        here_calls.append(1)
        return evaluate_here(chunk, **kwargs)

    monkeypatch.setattr(schedule, "evaluate_here", counted)
    if not up:  # never "up": the first chunk is always this process's
        monkeypatch.setattr(ChunkPool, "_start", lambda self: None)
    got = []
    for workers in (1, 2):
        copy = tmp_path / f"w{workers}.duckdb"
        shutil.copyfile(source, copy)
        result = evaluate_db(
            copy,
            config=GATES,
            output_dir=tmp_path / f"o{workers}",
            progress=False,
            workers=workers,
            chunk_rows=200,
        )
        got.append((_rows(copy), _report(result.results_path)))
    assert got[0] == got[1]
    if not up:
        assert here_calls == [1]
    assert len(here_calls) <= 1  # the first chunk at most
