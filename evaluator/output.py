"""Write an evaluation out: `tool_calls`, `scores` and `runs` rows, and `results.json`.

Table writes are Arrow inserts inside one transaction (`INSERT ... SELECT`
from a registered Arrow table; never executemany). `tool_calls` holds the
current derivation: the rows of the evaluated chats are replaced. `scores`
is append-only: each evaluation adds its rows under a new `eval_id`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa

from evaluator.results_model import EvaluationReport
from schemas import ToolCall, ToolCallSource
from schemas.results import MetricResult

__all__ = ["ScoreRow", "tool_call_rows", "write_report", "write_tables"]

TOOL_CALLS_SCHEMA = pa.schema(
    [
        ("chat_id", pa.string()),
        ("turn_id", pa.int32()),
        ("seq", pa.int32()),
        ("run_id", pa.string()),
        ("id", pa.string()),
        ("name", pa.string()),
        ("arguments", pa.string()),
        ("result", pa.string()),
        ("error", pa.string()),
        ("source", pa.string()),
        ("traced", pa.bool_()),
        ("span_id", pa.string()),
        ("start_time", pa.timestamp("us")),
        ("duration_ms", pa.float64()),
    ]
)

SCORES_SCHEMA = pa.schema(
    [
        ("eval_id", pa.string()),
        ("run_id", pa.string()),
        ("chat_id", pa.string()),
        ("turn_id", pa.int32()),
        ("metric", pa.string()),
        ("value", pa.float64()),
        ("passed", pa.bool_()),
        ("threshold", pa.float64()),
        ("label", pa.string()),
        ("reason", pa.string()),
        ("details", pa.string()),
        ("created_at", pa.timestamp("us")),
    ]
)

ScoreRow = tuple[str | None, str, int | None, MetricResult]
"""(run_id, chat_id, turn_id or None, result)."""


def _naive(value: datetime | None) -> datetime | None:
    """Naive UTC, as the tables store timestamps."""
    if value is None or value.tzinfo is None:
        return value
    return value.astimezone(timezone.utc).replace(tzinfo=None)


def tool_call_rows(
    chat_id: str, turn_id: int, run_id: str | None, calls: Sequence[ToolCall]
) -> list[dict[str, Any]]:
    """The `tool_calls` rows of one turn; `traced` = derived from spans or matched to a span."""
    rows = []
    for seq, call in enumerate(calls):
        source = call.source.value if isinstance(call.source, ToolCallSource) else call.source
        traced = source == ToolCallSource.TRACING_PROCESSOR.value or call.span_id is not None
        rows.append(
            {
                "chat_id": chat_id,
                "turn_id": turn_id,
                "seq": seq,
                "run_id": run_id,
                "id": call.id,
                "name": call.name,
                "arguments": orjson.dumps(call.arguments, default=str).decode(),
                "result": call.result,
                "error": call.error,
                "source": source,
                "traced": traced,
                "span_id": call.span_id,
                "start_time": _naive(call.start_time),
                "duration_ms": call.duration_ms,
            }
        )
    return rows


def _score_table(eval_id: str, scores: Iterable[ScoreRow], created_at: datetime) -> pa.Table:
    cols: dict[str, list[Any]] = {name: [] for name in SCORES_SCHEMA.names}
    for run_id, chat_id, turn_id, result in scores:
        threshold = result.details.get("threshold")
        if threshold is None and isinstance(result.details.get("assertion"), dict):
            threshold = result.details["assertion"].get("threshold")
        cols["eval_id"].append(eval_id)
        cols["run_id"].append(run_id)
        cols["chat_id"].append(chat_id)
        cols["turn_id"].append(turn_id)
        cols["metric"].append(result.name)
        cols["value"].append(result.value)
        cols["passed"].append(result.passed)
        cols["threshold"].append(float(threshold) if isinstance(threshold, (int, float)) else None)
        cols["label"].append(result.label)
        cols["reason"].append(result.reason)
        cols["details"].append(orjson.dumps(result.details, default=str).decode())
        cols["created_at"].append(created_at)
    return pa.Table.from_pydict(cols, schema=SCORES_SCHEMA)


def _insert(con: Any, table: str, arrow: pa.Table) -> None:
    name = f"_tracesim_new_{table}"
    con.register(name, arrow)
    try:
        columns = ", ".join(arrow.schema.names)
        con.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {name}")
    finally:
        con.unregister(name)


def write_tables(
    con: Any,
    *,
    eval_id: str,
    chat_ids: Sequence[str],
    tool_calls: Sequence[dict[str, Any]],
    scores: Iterable[ScoreRow],
    run_row: dict[str, Any],
) -> None:
    """Replace the chats' tool calls, append the scores and the runs row, in one transaction."""
    created_at = run_row["finished_at"]
    con.execute("BEGIN TRANSACTION")
    try:
        keys = pa.table({"chat_id": pa.array(list(chat_ids), pa.string())})
        con.register("_tracesim_chats", keys)
        try:
            con.execute(
                "DELETE FROM tool_calls WHERE chat_id IN (SELECT chat_id FROM _tracesim_chats)"
            )
        finally:
            con.unregister("_tracesim_chats")
        if tool_calls:
            _insert(
                con, "tool_calls", pa.Table.from_pylist(list(tool_calls), schema=TOOL_CALLS_SCHEMA)
            )
        score_table = _score_table(eval_id, scores, created_at)
        if score_table.num_rows:
            _insert(con, "scores", score_table)
        columns = list(run_row)
        con.execute(
            f"INSERT INTO runs ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
            [run_row[c] for c in columns],
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def write_report(report: EvaluationReport, output_dir: str | Path) -> Path:
    """Write `results.json` (pretty, UTF-8) into `output_dir`; return its path."""
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_bytes(orjson.dumps(report.model_dump(mode="json"), option=orjson.OPT_INDENT_2))
    tmp.replace(path)
    return path
