"""A tool argument nested deeper than results can be written (orjson writes at most 254
levels, though it reads 1024): `evaluate` goes on, keeping the raw text as the argument."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from tracesim.evaluator.extract.readers.fields import parse_arguments
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.schemas.eval_config import EvalConfig

from tests.evaluator.test_pipeline import _tool_span, build_db

DEEP = '{"a": ' * 300 + "1" + "}" * 300


def test_evaluate_keeps_a_300_deep_argument_as_its_raw_text(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    span = _tool_span("chat-ok", 0, 7, "deep_tool", {}, DEEP)
    attrs = json.loads(span["attributes"])
    attrs["gen_ai.tool.call.arguments"] = DEEP
    span["attributes"] = json.dumps(attrs)
    con = duckdb.connect(str(db))
    con.execute(
        f"INSERT INTO spans ({', '.join(span)}) VALUES ({', '.join('?' for _ in span)})",
        list(span.values()),
    )
    con.close()
    result = evaluate_db(db, config=EvalConfig(), output_dir=tmp_path / "out", progress=False)
    assert result.exit_code == 0
    con = duckdb.connect(str(db))
    arguments, stored = con.execute(
        "SELECT arguments, result FROM tool_calls WHERE name = 'deep_tool'"
    ).fetchone()
    assert json.loads(arguments) == {"input": DEEP}
    assert stored == DEEP


def test_shallow_and_bracket_heavy_text_still_parses() -> None:
    assert parse_arguments('{"s": "' + "[" * 400 + '"}') == {"s": "[" * 400}
    assert parse_arguments('{"a": ' * 200 + "1" + "}" * 200)["a"] is not None
    assert parse_arguments(DEEP) == {"input": DEEP}
