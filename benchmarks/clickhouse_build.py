"""Put the evaluate benchmark's synthetic turns into ClickHouse as the OTel Collector's
ClickHouse exporter stores them (Map schema), in a chdb data directory.

The turns are built into DuckDB first (`synthetic_turns.build_database`), exported
to Parquet with each turn's record (run_id, explicit calls, status) folded into
its `tracesim.turn` span's attributes, as the simulator emits them, and loaded
by ClickHouse itself: attribute JSON becomes the exporter's `Map(String, String)`
of stringified values, kinds and codes its `SPAN_KIND_*` / `STATUS_CODE_*`.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.synthetic_turns import build_database  # noqa: E402
from tests.clickhouse.exporter_mapping import create_tables  # noqa: E402

__all__ = ["build_chdb"]

_EXPORT = """
COPY (
    SELECT s.trace_id, s.span_id, coalesce(s.parent_span_id, '') AS parent_span_id, s.name,
        s.kind, epoch_ns(s.start_time) AS start_ns, epoch_ns(s.end_time) AS end_ns,
        s.status_code, coalesce(s.status_message, '') AS status_message, s.service_name,
        s.scope_name, s.resource_attributes::VARCHAR AS resource_attributes,
        CASE WHEN s.name = 'tracesim.turn' THEN json_merge_patch(s.attributes, json_object(
            'tracesim.run_id', t.run_id, 'tracesim.turn.status', t.status,
            'tracesim.explicit_tool_calls', t.explicit_tool_calls::VARCHAR))::VARCHAR
        ELSE s.attributes::VARCHAR END AS attributes
    FROM spans s LEFT JOIN turns t ON s.name = 'tracesim.turn' AND t.chat_id = s.chat_id
        AND t.turn_id = s.turn_id
) TO '{path}' (FORMAT parquet)
"""

_MAP = (
    "mapFromArrays(arrayMap(x -> x.1, JSONExtractKeysAndValuesRaw(assumeNotNull({c}))), "
    "arrayMap(x -> if(JSONType(x.2) = 'String', JSONExtractString(x.2), x.2), "
    "JSONExtractKeysAndValuesRaw(assumeNotNull({c}))))"
)

_LOAD = f"""
INSERT INTO otel.otel_traces (Timestamp, TraceId, SpanId, ParentSpanId, TraceState, SpanName,
    SpanKind, ServiceName, ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes, Duration,
    StatusCode, StatusMessage)
SELECT fromUnixTimestamp64Nano(start_ns), trace_id, span_id, assumeNotNull(parent_span_id), '', name,
    concat('SPAN_KIND_', kind), service_name, {_MAP.format(c="resource_attributes")}, scope_name,
    '', {_MAP.format(c="attributes")}, toUInt64(end_ns - start_ns),
    concat('STATUS_CODE_', status_code), status_message
FROM file('{{path}}', Parquet)
SETTINGS max_threads = 1, max_insert_threads = 1, max_block_size = 65536,
    max_insert_block_size = 65536, min_insert_block_size_rows = 65536,
    min_insert_block_size_bytes = 32000000
"""
"""One thread, 64k-row parts: the default squashing to 1M-row blocks took 2.2 GB of RSS at
200k turns."""


def build_chdb(directory: str, turns: int, *, source: str | None = None) -> int:
    """Fill chdb `directory` with `turns` synthetic turns; return the span count.

    `source`: a DuckDB file `benchmarks/evaluate.py --db` built, read instead of building
    the turns again (the DuckDB and chdb numbers then measure the same spans)."""
    from chdb import session

    work = tempfile.mkdtemp(prefix="tracesim-chbuild-")
    db = os.path.join(work, "build.duckdb")
    parquet = os.path.join(work, "spans.parquet")
    if source is None:
        build_database(db, turns)
    con = duckdb.connect(source or db, read_only=source is not None)
    con.execute(_EXPORT.format(path=parquet))
    n_spans = con.execute("SELECT count() FROM spans").fetchone()[0]
    con.close()
    if source is None:
        os.remove(db)
    sess = session.Session(directory)
    try:
        sess.query("SET session_timezone = 'UTC'")
        create_tables(sess.query, layout="map")
        sess.query(_LOAD.format(path=parquet))
        sess.query("OPTIMIZE TABLE otel.otel_traces FINAL")
    finally:
        sess.close()
        os.remove(parquet)
        os.rmdir(work)
    return n_spans
