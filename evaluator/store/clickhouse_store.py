"""`EvalStore` on the tables the stock OTel Collector's ClickHouse exporter writes.

Spans are read where they are (`otel_traces`), through the `spans`, `turns`
and `conversations` views that route them (`clickhouse_routing`); tracesim's
results go to `tool_calls`, `scores` and `runs` in the same database
(`clickhouse_ddl`). An evaluation streams each view once, sorted by chat_id,
and cuts the stream into the plan's chunks, so memory stays bounded by a
chunk on this side and ClickHouse does the routing, sorting and joins.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

import orjson
import pyarrow as pa

from evaluator.load import ChunkPlan, ConversationData, assemble_chunk
from evaluator.output import ScoreColumns, ToolCallColumns
from evaluator.store.base import EvalStore, StoreError
from evaluator.store.clickhouse_client import ClickHouseClient, connect
from evaluator.store.clickhouse_ddl import create_statements
from evaluator.store.clickhouse_schema import ExporterSchema, detect_schema, quote
from evaluator.store.url import StoreURL

__all__ = ["ClickHouseStore", "flatten_attributes", "table_rows"]

log = logging.getLogger(__name__)

_STREAM_ROWS = 8_192
_JSON_SPAN_COLUMNS = ("attributes", "resource_attributes")
_NESTED_ATTRIBUTE_COLUMNS = ("events", "links")


def table_rows(table: pa.Table) -> list[dict[str, Any]]:
    """Rows as dicts, built from Arrow column lists (cheaper than per-row conversion)."""
    names = tuple(table.column_names)
    columns = [table.column(i).to_pylist() for i in range(len(names))]
    return [dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True)]


def _flat(value: Any, prefix: str, out: dict[str, Any]) -> None:
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, dict) and item:
            _flat(item, name + ".", out)
        else:
            out[name] = item


def flatten_attributes(value: Any) -> dict[str, Any]:
    """JSON-schema attributes (dotted keys stored as nested paths) back to flat OTel keys."""
    if isinstance(value, (str, bytes)):
        value = orjson.loads(value) if value else {}
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        _flat(value, "", out)
    return out


def _flatten_json_span(span: dict[str, Any]) -> None:
    """Give a JSON-schema span row the flat attribute maps the Map schema (and DuckDB) has."""
    for key in _JSON_SPAN_COLUMNS:
        if key in span and span[key] is not None:
            span[key] = orjson.dumps(flatten_attributes(span[key])).decode()
    for key in _NESTED_ATTRIBUTE_COLUMNS:
        if key in span and span[key]:
            items = orjson.loads(span[key])
            for item in items:
                item["attributes"] = flatten_attributes(item.get("attributes"))
            span[key] = orjson.dumps(items).decode()


class _Cursor:
    """A sorted row stream that hands out the rows of one chat range at a time."""

    def __init__(self, batches: Iterator[pa.Table], fix: Any = None) -> None:
        self._batches = batches
        self._rows: list[dict[str, Any]] = []
        self._index = 0
        self._fix = fix
        self._done = False

    def _fill(self) -> bool:
        while self._index >= len(self._rows):
            if self._done:
                return False
            try:
                table = next(self._batches)
            except StopIteration:
                self._done = True
                return False
            self._rows, self._index = table_rows(table), 0
        return True

    def take(self, wanted: set[str], last: str) -> list[dict[str, Any]]:
        """Rows up to chat_id `last` (inclusive) whose chat is in `wanted`; the rest skipped."""
        out: list[dict[str, Any]] = []
        while self._fill():
            row = self._rows[self._index]
            if row["chat_id"] > last:
                break
            self._index += 1
            if row["chat_id"] in wanted:
                if self._fix is not None:
                    self._fix(row)
                out.append(row)
        return out


class ClickHouseStore(EvalStore):
    """A ClickHouse database holding the exporter's tables (server or chdb directory)."""

    def __init__(self, url: StoreURL, *, client: ClickHouseClient | None = None) -> None:
        self.url = url
        self.label = url.label
        self.client: ClickHouseClient | None = client or connect(url)
        try:
            self.schema: ExporterSchema = detect_schema(
                self.client,
                database=url.database,
                traces=url.traces_table,
                logs=url.logs_table,
            )
        except BaseException:
            self.close()
            raise

    def _t(self, name: str) -> str:
        return f"{quote(self.url.database)}.{quote(name)}"

    @property
    def _c(self) -> ClickHouseClient:
        if self.client is None:
            raise StoreError(f"{self.label}: the store is closed")
        return self.client

    def prepare(self) -> None:
        for statement in create_statements(self.schema):
            self._c.command(statement)

    def _run_where(self, run_id: str | None) -> tuple[str, dict[str, Any]]:
        if run_id is None:
            return "", {}
        return " WHERE run_id = {run:String}", {"run": run_id}

    def plan(self, *, run_id: str | None, max_rows: int) -> ChunkPlan:
        where, params = self._run_where(run_id)
        turns = self._c.query(
            f"SELECT chat_id, count() AS n FROM {self._t('turns')}{where} GROUP BY chat_id",
            params,
        )
        turn_counts = dict(
            zip(turns.column("chat_id").to_pylist(), turns.column("n").to_pylist(), strict=True)
        )
        convs = self._c.query(
            f"SELECT DISTINCT chat_id FROM {self._t('conversations')}{where}", params
        )
        simulated = set(turn_counts) | set(convs.column("chat_id").to_pylist())
        spans = self._c.query(
            f"SELECT chat_id, count() AS n FROM {self._t('spans')} "
            "WHERE chat_id IS NOT NULL GROUP BY chat_id"
        )
        span_counts = dict(
            zip(spans.column("chat_id").to_pylist(), spans.column("n").to_pylist(), strict=True)
        )
        chats = set(simulated)
        traced_only = 0
        if run_id is None:
            extra = set(span_counts) - simulated
            traced_only = len(extra)
            chats |= extra
        chunks: list[list[str]] = []
        current: list[str] = []
        size = num_turns = 0
        for chat_id in sorted(chats):
            turns_n = turn_counts.get(chat_id, 0)
            weight = turns_n + span_counts.get(chat_id, 0) + 1
            if current and size + weight > max_rows:
                chunks.append(current)
                current, size = [], 0
            current.append(chat_id)
            size += weight
            num_turns += turns_n
        if current:
            chunks.append(current)
        return ChunkPlan(chunks, num_turns, traced_only)

    def chunks(
        self, plan: ChunkPlan, *, run_id: str | None, span_columns: Sequence[str] | None
    ) -> Iterator[tuple[list[str], list[ConversationData]]]:
        if not plan.chunks:
            return
        where, params = self._run_where(run_id)
        client = self._c
        turns = _Cursor(
            client.stream(
                f"SELECT * FROM {self._t('turns')}{where} ORDER BY chat_id, turn_id",
                params,
                rows=_STREAM_ROWS,
            )
        )
        conversations = _Cursor(
            client.stream(
                f"SELECT * FROM {self._t('conversations')}{where} ORDER BY chat_id",
                params,
                rows=_STREAM_ROWS,
            )
        )
        select = "*" if span_columns is None else ", ".join(quote(c) for c in span_columns)
        span_filter = "chat_id IS NOT NULL"
        if run_id is not None:  # only the run's chats: ClickHouse filters, Python need not skip
            span_filter += (
                f" AND chat_id IN (SELECT chat_id FROM {self._t('turns')}{where} UNION DISTINCT "
                f"SELECT chat_id FROM {self._t('conversations')}{where})"
            )
        fix = _flatten_json_span if self.schema.variant == "json" else None
        spans = _Cursor(
            client.stream(
                f"SELECT {select} FROM {self._t('spans')} WHERE {span_filter} "
                "ORDER BY chat_id, turn_id NULLS LAST, start_time NULLS LAST, span_id",
                params,
                rows=_STREAM_ROWS,
            ),
            fix,
        )
        for chat_ids in plan.chunks:
            wanted, last = set(chat_ids), max(chat_ids)
            yield (
                chat_ids,
                assemble_chunk(
                    turns.take(wanted, last),
                    conversations.take(wanted, last),
                    spans.take(wanted, last),
                    run_id=run_id,
                ),
            )

    def single_run_id(self) -> str | None:
        rows = self._c.query(
            f"SELECT DISTINCT run_id FROM (SELECT run_id FROM {self._t('turns')} UNION ALL "
            f"SELECT run_id FROM {self._t('conversations')}) WHERE run_id IS NOT NULL LIMIT 2"
        )
        values = rows.column("run_id").to_pylist() if rows.num_rows else []
        return values[0] if len(values) == 1 else None

    def write_chunk(
        self,
        *,
        eval_id: str,
        created_at: datetime,
        chat_ids: Sequence[str],
        tool_calls: ToolCallColumns,
        scores: ScoreColumns,
    ) -> None:
        if not chat_ids:
            return
        client = self._c
        ids = {"ids": list(chat_ids)}
        existing = client.query(
            f"SELECT count() AS n FROM {self._t('tool_calls')} WHERE chat_id IN {{ids:Array(String)}}",
            ids,
        )
        if existing.column("n")[0].as_py():  # a re-evaluation: replace the chats' rows
            client.command(
                f"DELETE FROM {self._t('tool_calls')} WHERE chat_id IN {{ids:Array(String)}}", ids
            )
        if len(tool_calls):
            client.insert("tool_calls", tool_calls.table())
        if len(scores):
            client.insert("scores", scores.table(eval_id, created_at))

    def write_run(self, row: dict[str, Any]) -> None:
        self._c.insert("runs", pa.Table.from_pylist([row]))

    def drop_partial(self, eval_id: str) -> None:
        try:
            self._c.command(
                f"DELETE FROM {self._t('scores')} WHERE eval_id = {{e:String}}", {"e": eval_id}
            )
        except Exception:  # noqa: BLE001 - the original error is the one to report
            log.exception("could not remove the partial scores of evaluation %s", eval_id)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
