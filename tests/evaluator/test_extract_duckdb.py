"""Extraction on rows read back from a real DuckDB file (the benchmark's data, small)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import duckdb
import orjson
from tracesim.evaluator import extract_tool_calls, merge_tool_calls
from tracesim.schemas import ToolCall, ToolCallSource

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "evaluate.py"


def _bench_module():
    spec = importlib.util.spec_from_file_location("bench_evaluate", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_evaluate", module)
    spec.loader.exec_module(module)
    return module


def test_rows_from_duckdb_extract_merge_and_benchmark_runs(tmp_path: Path) -> None:
    bench = _bench_module()
    path = str(tmp_path / "small.duckdb")
    assert bench.build_database(path, 25) == 100

    con = duckdb.connect(path, read_only=True)
    rows = (
        con.sql(
            "SELECT * FROM spans WHERE chat_id = 'chat-000000' AND turn_id = 0 ORDER BY start_time"
        )
        .to_arrow_table()
        .to_pylist()
    )
    explicit = con.sql(
        "SELECT explicit_tool_calls FROM turns WHERE chat_id = 'chat-000000' AND turn_id = 0"
    ).fetchall()[0][0]
    con.close()

    traced = extract_tool_calls(rows)  # attributes/events arrive as JSON text
    assert [c.name for c in traced] == ["search_orders", "refund"]
    assert [c.id for c in traced] == ["call_0_0", "call_0_1"]  # one recovered from the model span
    assert all(c.source is ToolCallSource.TRACING_PROCESSOR and c.span_id for c in traced)
    assert traced[0].error == "upstream 503"

    explicit_calls = [ToolCall.model_validate(item) for item in orjson.loads(explicit)]
    merged = merge_tool_calls(explicit_calls, traced)
    assert len(merged) == 2
    assert all(c.source is ToolCallSource.AGENT_RESPONSE and c.span_id for c in merged)

    turns, calls, _ = bench.run(path)
    assert (turns, calls) == (25, 50)
