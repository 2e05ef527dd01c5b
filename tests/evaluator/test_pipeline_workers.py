"""evaluate_db with worker processes: the same rows, results.json, tally, gates and exit code
as in one process; a worker that dies or raises fails the evaluation with a clear error."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import duckdb
import orjson
import pytest
from tracesim.evaluator.load.load import ChunkPlan, ConversationData
from tracesim.evaluator.pipeline.pipeline import EvaluationResult, evaluate_db
from tracesim.evaluator.pipeline.progress import Progress
from tracesim.evaluator.pipeline.schedule import worker_count
from tracesim.evaluator.pipeline.workers import AUTO_MIN_TURNS, WorkerError, auto_workers
from tracesim.evaluator.scoring.gates import EvalConfigError
from tracesim.evaluator.store.duckdb_store import DuckDBStore
from tracesim.schemas.eval_config import EvalConfig

from benchmarks.synthetic_turns import build_database
from tests.evaluator.test_pipeline import build_db

SCORE_COLUMNS = "run_id, chat_id, turn_id, metric, value, passed, threshold, label, reason, details"
GATES = EvalConfig(
    thresholds={"trajectory": 1.0, "final_score": 0.5}, max_thresholds={"tool_error_rate": 0.1}
)


def _stored(db: Path, eval_id: str) -> tuple[list[tuple], list[tuple], tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        scores = con.execute(
            f"SELECT {SCORE_COLUMNS} FROM scores WHERE eval_id = ? ORDER BY ALL", [eval_id]
        ).fetchall()
        calls = con.execute("SELECT * FROM tool_calls ORDER BY ALL").fetchall()
        run = con.execute(
            "SELECT num_conversations, num_turns, final_score, status, gates_passed, exit_code "
            "FROM runs WHERE eval_id = ?",
            [eval_id],
        ).fetchone()
    finally:
        con.close()
    return scores, calls, run


def _results_json(result: EvaluationResult) -> dict[str, Any]:
    """results.json without what differs between any two evaluations (ids, times, paths)."""
    assert result.results_path is not None
    report = orjson.loads(result.results_path.read_bytes())
    for key in ("eval_id", "created_at", "db_path"):
        report.pop(key)
    return report


@contextmanager
def _pool_runs() -> Iterator[list[logging.LogRecord]]:
    """The records a worker pool logs when it is done (one per evaluation that used one)."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("tracesim.evaluator.pipeline.schedule")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _serial_and_parallel(
    db: Path, tmp_path: Path, config: EvalConfig, **kwargs: Any
) -> tuple[tuple[EvaluationResult, Path], tuple[EvaluationResult, Path]]:
    """Evaluate two copies of `db`: in this process, and with 2 worker processes."""
    out = []
    for workers in (1, 2):
        copy = tmp_path / f"w{workers}.duckdb"
        shutil.copyfile(db, copy)
        with _pool_runs() as pools:
            result = evaluate_db(
                copy,
                config=config,
                output_dir=tmp_path / f"out{workers}",
                progress=False,
                workers=workers,
                **kwargs,
            )
        assert len(pools) == (workers > 1)  # the workers were really used, or not at all
        out.append((result, copy))
    return out[0], out[1]


def _assert_same(serial: tuple[EvaluationResult, Path], parallel: tuple[EvaluationResult, Path]):
    (a, a_db), (b, b_db) = serial, parallel
    assert _stored(a_db, a.eval_id) == _stored(b_db, b.eval_id)
    assert _results_json(a) == _results_json(b)
    assert a.summary == b.summary and a.gates == b.gates and a.exit_code == b.exit_code
    assert [c.model_dump() for c in a.report.conversations] == [
        c.model_dump() for c in b.report.conversations
    ]


class _CountingProgress(Progress):
    """A progress bar that counts what each step was advanced by."""

    done: ClassVar[dict[str, int]] = {}

    def __init__(self, *, enabled: bool = True) -> None:
        super().__init__(enabled=False)

    def task(self, description: str, total: int) -> Callable[..., None]:
        def advance(count: int = 1) -> None:
            self.done[description] = self.done.get(description, 0) + count

        return advance


def test_many_chunks_in_workers_store_what_one_process_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "synthetic.duckdb"
    build_database(str(db), 400, scenarios=True)  # 40 chats whose scenarios assert 7 checks
    monkeypatch.setattr("tracesim.evaluator.pipeline.pipeline.Progress", _CountingProgress)
    monkeypatch.setattr(_CountingProgress, "done", {})
    serial, parallel = _serial_and_parallel(db, tmp_path, GATES, chunk_rows=150)
    _assert_same(serial, parallel)
    assert _CountingProgress.done == {"tool calls": 2 * 40}  # the bar advances either way
    result = parallel[0]
    assert result.summary.num_turns == 400 and result.summary.assertions_total > 400
    assert result.exit_code == 1 and not result.gates_passed  # 1 in 8 calls fails
    # the judges (selected by default, no model configured) are recorded as not run
    assert result.report.llm_usage.reason
    entries = _results_json(result)["conversations"]
    assert len(entries) == 40
    assert all(any(m.get("label") == "not_run" for m in c["metrics"]) for c in entries)


def test_offline_example_in_workers_stores_what_one_process_stores(
    example_db: Path, tmp_path: Path
) -> None:
    serial, parallel = _serial_and_parallel(example_db, tmp_path, GATES, chunk_rows=5)
    _assert_same(serial, parallel)
    assert parallel[0].summary.num_tool_calls > 0


@pytest.fixture(scope="module")
def example_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The offline customer-service example, run once (scripted users, local model)."""
    from tracesim.config_loader import load_run_config
    from tracesim.run import run

    example = Path(__file__).resolve().parents[2] / "examples" / "customer_service"
    out = tmp_path_factory.mktemp("example") / "results"
    outcome = run(
        load_run_config(example / "config.yaml", {"output_dir": str(out)}), show_progress=False
    )
    assert outcome.exit_code == 0, outcome.error
    return Path(outcome.db_path)


class _ExitWhenLoaded:
    """Kills the process that unpickles it: a worker that dies mid-chunk."""

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return os._exit, (7,)


class _TamperedStore(DuckDBStore):
    """A DuckDB store whose second chunk is altered by `tamper` on its way to a worker."""

    def __init__(self, path: Path, tamper: Callable[[list[ConversationData]], None]) -> None:
        super().__init__(path)
        self.tamper = tamper

    def raw_chunks(self, plan: Any, **kwargs: Any) -> Iterator[tuple[list[str], Any]]:
        for index, (chat_ids, tables) in enumerate(super().raw_chunks(plan, **kwargs)):
            loaded = tables.assemble()
            if index == 1:
                self.tamper(loaded)
            yield chat_ids, loaded


def _kill(loaded: list[ConversationData]) -> None:
    loaded[0].turns[0]["boom"] = _ExitWhenLoaded()


def _break(loaded: list[ConversationData]) -> None:
    del loaded[0].turns[0]["turn_id"]  # every stored turn has one: the code raises KeyError


@pytest.mark.parametrize(
    ("tamper", "message"),
    [(_kill, "a worker process died while evaluating .*chunk 2 of "), (_break, "KeyError")],
)
def test_a_failing_worker_fails_the_evaluation(
    tmp_path: Path, tamper: Callable[[list[ConversationData]], None], message: str
) -> None:
    db = tmp_path / "synthetic.duckdb"
    build_database(str(db), 100)
    store = _TamperedStore(db, tamper)
    with pytest.raises(WorkerError, match=message) as caught:
        evaluate_db(
            store,
            config=EvalConfig(),
            output_dir=tmp_path / "out",
            progress=False,
            chunk_rows=60,
            workers=2,
        )
    assert "chunk 2 of" in str(caught.value) and "chats " in str(caught.value)
    assert not (tmp_path / "out" / "results.json").exists()
    store.close()  # evaluate_db leaves a store it was given open (the caller's to close)
    con = duckdb.connect(str(db), read_only=True)
    try:  # the chunk written before the failure was removed with the evaluation
        assert con.execute("SELECT count(*) FROM scores").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (0,)
    finally:
        con.close()


def test_automatic_choice_uses_workers_only_when_it_pays(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert auto_workers(chunks=1, turns=10 * AUTO_MIN_TURNS) == 1  # one chunk: one process
    assert auto_workers(chunks=8, turns=AUTO_MIN_TURNS - 1) == 1  # too small to pay
    expected = min(2, len(os.sched_getaffinity(0)))
    assert auto_workers(chunks=8, turns=AUTO_MIN_TURNS) == expected
    plan = ChunkPlan([["a"], ["b"], ["c"]], num_turns=3 * AUTO_MIN_TURNS)
    assert worker_count(4, plan=plan, main_only=False) == 3  # never more than chunks
    assert worker_count(None, plan=plan, main_only=False) == expected
    with caplog.at_level("WARNING"):  # judges or custom metrics: one process, and why
        assert worker_count(2, plan=plan, main_only=True) == 1
    assert "workers=2 not used: LLM judges or custom metrics" in caplog.text
    with pytest.raises(EvalConfigError, match="workers must be 1 or more"):
        evaluate_db(build_db(tmp_path / "t.duckdb"), config=EvalConfig(), workers=0)


def test_clickhouse_store_stays_in_this_process_with_workers(
    example_db: Path, tmp_path: Path
) -> None:
    from tests.clickhouse.conftest import query, write_exporter_tables
    from tests.clickhouse.exporter_mapping import request_from_duckdb

    con = duckdb.connect(str(example_db), read_only=True)
    try:
        url = write_exporter_tables(tmp_path / "ch", request_from_duckdb(con))
    finally:
        con.close()
    runs = []
    for workers in (1, 2):  # chdb: one query at a time, in this process only
        with _pool_runs() as pools:
            result = evaluate_db(
                url,
                config=GATES,
                output_dir=tmp_path / f"out{workers}",
                progress=False,
                chunk_rows=5,
                workers=workers,
            )
        assert len(pools) == (workers > 1)
        scores = query(
            url,
            f"SELECT {SCORE_COLUMNS} FROM scores WHERE eval_id = '{result.eval_id}' ORDER BY ALL",
        )
        calls = query(url, "SELECT * EXCEPT written_at FROM tool_calls FINAL ORDER BY ALL")
        runs.append((result, [tuple(r.values()) for r in scores], calls))
    (a, a_scores, a_calls), (b, b_scores, b_calls) = runs
    assert a_scores == b_scores and len(a_scores) > 50 and a_calls == b_calls
    assert _results_json(a) == _results_json(b)


def test_cli_takes_workers_and_rejects_bad_counts(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tracesim.cli import cli

    db = tmp_path / "synthetic.duckdb"
    build_database(str(db), 200)
    reports = []
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}"
        args = ["evaluate", "--db", str(db), "--output-dir", str(out), "--no-progress"]
        result = CliRunner().invoke(cli, [*args, "--workers", workers])
        assert result.exit_code == 3, result.output  # nothing graded: exit 3
        reports.append(orjson.loads((out / "results.json").read_bytes())["summary"])
    assert reports[0] == reports[1] and reports[0]["num_turns"] == 200
    for bad in ("0", "many"):
        result = CliRunner().invoke(cli, ["evaluate", "--db", str(db), "--workers", bad])
        assert result.exit_code == 2 and "--workers" in result.output
        assert "1 or more" in result.output and "Traceback" not in result.output


def test_progress_advances_by_a_chunk_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # a terminal, as far as rich can tell
    with Progress() as bar:
        advance = bar.task("tool calls", 5)
        advance(3)  # a chunk of 3 conversations from a worker
        advance()
        assert bar._bar is not None and bar._bar.tasks[0].completed == 4
