"""Indexes written in attribute keys and file names are read as ASCII digits only (SPEC §9:
no input stops ingest or evaluation, never silent).

Before: `str.isdigit()` accepted `²` and 5,000-digit runs, which `int()` refuses: one such
key (`gen_ai.completion.².tool_calls.0.name`) made the whole model span skipped, its valid
calls with it (only a log line said so), and a stray `spool-².log` in the spool folder
stopped the collector from starting."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from tracesim.collector import Collector
from tracesim.schemas.ascii_index import ascii_index

from tests.collector.otlp import GrpcClient, span, trace_request
from tracesim.cli import cli

CHAT = {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "m",
    "gen_ai.conversation.id": "c1",
}


@pytest.mark.parametrize(
    ("text", "index"),
    [("0", 0), ("007", 7), ("9" * 20, int("9" * 20)), ("²", None), ("٣", None),
     ("9" * 21, None), ("9" * 5000, None), ("", None), ("-1", None), ("1.0", None)],
)  # fmt: skip
def test_ascii_index(text: str, index: int | None) -> None:
    assert ascii_index(text) == index


def test_hostile_index_keys_leave_the_span_s_valid_calls(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    attributes = {
        **CHAT,
        "gen_ai.completion.0.tool_calls.0.name": "lookup",
        "gen_ai.completion.0.tool_calls.0.id": "call-1",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"q": 1}',
        "gen_ai.completion.².tool_calls.0.name": "superscript",
        "gen_ai.completion." + "9" * 5000 + ".tool_calls.0.name": "long",
        "gen_ai.prompt.².tool_calls.0.name": "replayed",
        "gen_ai.completion.².function_call.name": "legacy",
    }
    with Collector(db, grpc_port=0, http_port=None, fsync=False) as collector:
        client = GrpcClient(collector.grpc_endpoint or "")
        try:
            client.export(trace_request([span("chat m", attrs=attributes)]))
            assert collector.flush(30)
        finally:
            client.close()
    result = CliRunner().invoke(
        cli, ["evaluate", "--db", str(db), "--no-progress", "--output-dir", str(tmp_path / "o")]
    )
    assert "Traceback" not in result.output
    assert "skipping model span" not in result.output
    with duckdb.connect(str(db), read_only=True) as con:
        names = sorted(r[0] for r in con.execute("SELECT name FROM tool_calls").fetchall())
    assert names == ["lookup"]


def test_a_stray_spool_file_with_odd_digits_is_ignored(tmp_path: Path) -> None:
    spool = tmp_path / "t.duckdb.spool"
    spool.mkdir()
    (spool / "spool-².log").write_bytes(b"not a segment")
    with Collector(tmp_path / "t.duckdb", grpc_port=0, http_port=None, spool_dir=spool) as c:
        client = GrpcClient(c.grpc_endpoint or "")
        try:
            client.export(trace_request([span("ok")]))
            assert c.flush(30)
        finally:
            client.close()
        assert c.stats().spans_stored == 1
    assert (spool / "spool-².log").exists()  # never deleted: not ours
