"""Tool calls read from spans are stored as `traced`; the former name (`tracing_processor`,
arksim's and older files') is read as the same everywhere."""

from __future__ import annotations

from pathlib import Path

import duckdb
from tracesim.schemas.ddl import create_all
from tracesim.schemas.tool_call import ToolCall, ToolCallSource
from tracesim.schemas.views import create_views


def test_the_former_name_is_read_as_traced() -> None:
    old = ToolCall(name="lookup", source="tracing_processor")
    assert old.source is ToolCallSource.TRACED is ToolCallSource.TRACING_PROCESSOR
    assert old.model_dump(mode="json")["source"] == "traced"
    assert not old.source.explicit and ToolCallSource("agent_response").explicit


def test_tool_stats_counts_both_names_as_traced(tmp_path: Path) -> None:
    with duckdb.connect(str(tmp_path / "t.duckdb")) as con:
        create_all(con)
        create_views(con)
        for seq, (source, traced) in enumerate(
            [
                ("traced", True),
                ("tracing_processor", True),
                ("agent_response", True),
                ("agent_response", False),
            ]
        ):
            con.execute(
                "INSERT INTO tool_calls (chat_id, turn_id, seq, name, source, traced)"
                " VALUES ('c', 0, ?, 'lookup', ?, ?)",
                [seq, source, traced],
            )
        row = con.execute('SELECT calls, explicit, traced, "both" FROM tool_stats').fetchone()
    assert row == (4, 1, 2, 1)
