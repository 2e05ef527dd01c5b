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
import time
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

import orjson
import pyarrow as pa
from tracesim.evaluator.load.load import ChunkPlan, ConversationData, assemble_chunk
from tracesim.evaluator.output.output import REPLACED_TABLES, ScoreColumns, ToolCallColumns
from tracesim.evaluator.store.base import EvalStore, StoreError
from tracesim.evaluator.store.clickhouse_client import ClickHouseClient, connect
from tracesim.evaluator.store.clickhouse_ddl import create_statements
from tracesim.evaluator.store.clickhouse_routing import span_counts_sql
from tracesim.evaluator.store.clickhouse_rows import (
    RowCursor,
    flatten_attributes,
    flatten_json_span,
    spilled,
)
from tracesim.evaluator.store.clickhouse_schema import ExporterSchema, detect_schema, quote
from tracesim.evaluator.store.clickhouse_writes import DeferredWrites, flush_deferred
from tracesim.evaluator.store.llm_cache_file import LLM_CACHE_ENV, open_llm_cache
from tracesim.evaluator.store.url import StoreURL

__all__ = ["LLM_CACHE_ENV", "ClickHouseStore"]

log = logging.getLogger(__name__)

_STREAM_ROWS = 8_192
_SPILL = (
    " SETTINGS max_bytes_before_external_sort = 64000000,"
    " max_bytes_before_external_group_by = 64000000, max_block_size = 8192"
)
"""Sorting and grouping all spans spill to disk past 64 MB: measured on 400k spans in chdb,
the sorted stream cost +210 MB instead of +500 MB, at the same speed."""


def _append_logs(span: dict[str, Any], *, json_logs: bool = False) -> None:
    """Append a span's log records (`log_events`, from the logs join) to its events, as
    `evaluator.load.load_logs` does on DuckDB (JSON-schema attributes flattened first)."""
    from tracesim.evaluator.load.load_logs import _event

    raw = span.pop("log_events", None)
    if not raw:
        return
    items = orjson.loads(raw)
    if json_logs:
        for item in items:
            item["attributes"] = orjson.dumps(flatten_attributes(item["attributes"])).decode()
    extra = [_event(item["name"], item["body"], item["attributes"]) for item in items]
    events = span.get("events")
    if isinstance(events, (str, bytes)):
        events = orjson.loads(events) if events else []
    span["events"] = orjson.dumps(list(events or []) + extra).decode()


def _row_fixer(*, json_schema: bool, logs: bool, json_logs: bool = False) -> Any:
    """What each streamed span row needs before extraction (None: nothing)."""
    if not json_schema and not logs:
        return None

    def fix(span: dict[str, Any]) -> None:
        if json_schema:
            flatten_json_span(span)
        if logs:
            _append_logs(span, json_logs=json_logs)

    return fix


class ClickHouseStore(EvalStore):
    """A ClickHouse database holding the exporter's tables (server or chdb directory)."""

    def __init__(
        self, url: StoreURL, *, client: ClickHouseClient | None = None, read_only: bool = False
    ) -> None:
        self.url = url
        self.read_only = read_only
        """Opened for the reading commands: `query` then makes the session refuse writes."""
        self.label = url.label
        self.client: ClickHouseClient | None = client or connect(url)
        self._deferred = DeferredWrites()
        self._cache: Any = None
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
        # one routing pass: spans per chat, and per trace of unkeyed spans whether it has a
        # tool span (such a trace is a conversation of its own, SPEC §3)
        spans = self._c.query(span_counts_sql(self.schema) + _SPILL).to_pydict()
        span_counts: dict[str, int] = {}
        unkeyed: dict[str, int] = {}
        for is_unkeyed, key, n, tools in zip(
            spans["unkeyed"], spans["key"], spans["n"], spans["tools"], strict=True
        ):
            if not is_unkeyed:
                span_counts[key] = n
            elif tools and key:
                unkeyed[key] = n
        chats = set(simulated)
        traced_only = 0
        trace_chats: frozenset[str] = frozenset()
        if run_id is None:
            extra = set(span_counts) - simulated
            pseudo = {
                t: n for t, n in unkeyed.items() if t not in span_counts and t not in simulated
            }
            span_counts.update(pseudo)
            extra |= set(pseudo)
            trace_chats = frozenset(pseudo)
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
        return ChunkPlan(
            chunks, num_turns, traced_only, span_logs=self._has_span_logs(), trace_chats=trace_chats
        )

    def _has_span_logs(self) -> bool:
        """True when the exporter's logs table holds records that name a span and may carry
        tool evidence (`_log_filter`)."""
        if self.schema.logs_table is None:
            return False
        logs = f"{quote(self.url.database)}.{quote(self.schema.logs_table)}"
        found = self._c.query(
            f"SELECT count() AS n FROM (SELECT 1 FROM {logs} WHERE {self._log_filter()} LIMIT 1)"
        )
        return bool(found.column("n")[0].as_py())

    def _log_name(self) -> str:
        """A log record's event name: `EventName`, else its `event.name` attribute."""
        name = (
            "ifNull(CAST(LogAttributes.`event.name`, 'Nullable(String)'), '')"
            if self.schema.logs_json
            else "LogAttributes['event.name']"
        )
        if self.schema.logs_event_name:
            name = f"if(EventName != '', EventName, {name})"
        return name

    def _log_filter(self) -> str:
        """Records of a span that may carry a model's messages, as `load_logs.EVIDENCE_SQL`
        on DuckDB: a `gen_ai.*` event or the message attributes (an application's own logs
        are never read)."""
        attrs = "toJSONString(LogAttributes)"
        return (
            f"SpanId != '' AND (startsWith({self._log_name()}, 'gen_ai.') "
            f"OR position({attrs}, '\"gen_ai.input.messages\"') > 0 "
            f"OR position({attrs}, '\"gen_ai.output.messages\"') > 0)"
        )

    def _logs_join(self) -> str:
        """LEFT JOIN giving each span its log records (time order) as JSON `log_events`."""
        logs = f"{quote(self.url.database)}.{quote(self.schema.logs_table or '')}"
        attrs = "toJSONString(LogAttributes)"
        return (
            "LEFT JOIN (SELECT TraceId, SpanId, toJSONString(arrayMap(x -> x.2, arraySort(x -> x.1, "
            f"groupArray((Timestamp, CAST(({self._log_name()}, Body, {attrs}), "
            "'Tuple(name String, body String, attributes String)')))))) AS log_events "
            f"FROM {logs} WHERE {self._log_filter()} GROUP BY TraceId, SpanId) AS l "
            "ON r.trace_id = l.TraceId AND r.span_id = l.SpanId"
        )

    def chunks(
        self, plan: ChunkPlan, *, run_id: str | None, span_columns: Sequence[str] | None
    ) -> Iterator[tuple[list[str], list[ConversationData]]]:
        if not plan.chunks:
            return
        where, params = self._run_where(run_id)
        client = self._c
        turns = RowCursor(
            self._sorted(
                f"SELECT * FROM {self._t('turns')}{where} ORDER BY chat_id, turn_id", params
            )
        )
        conversations = RowCursor(
            self._sorted(
                f"SELECT * FROM {self._t('conversations')}{where} ORDER BY chat_id", params
            )
        )
        if span_columns is None:
            select = "r.* EXCEPT (chat_id, routed_chat), r.routed_chat AS chat_id"
        else:
            select = ", ".join(
                "r.routed_chat AS chat_id" if c == "chat_id" else f"r.{quote(c)}"
                for c in span_columns
            )
        join = ""
        if plan.span_logs:  # SPEC §5: log records of a span are read as its events
            select += ", l.log_events AS log_events"
            join = " " + self._logs_join()
        span_filter = "chat_id IS NOT NULL"
        if run_id is not None:  # only the run's chats: ClickHouse filters, Python need not skip
            span_filter += (
                f" AND chat_id IN (SELECT chat_id FROM {self._t('turns')}{where} UNION DISTINCT "
                f"SELECT chat_id FROM {self._t('conversations')}{where})"
            )
        if plan.trace_chats:  # their spans are keyed by their trace (see `plan`)
            span_filter = f"({span_filter} OR trace_id IN {{traces:Array(String)}})"
            params = {**params, "traces": sorted(plan.trace_chats)}
        fix = _row_fixer(
            json_schema=self.schema.variant == "json",
            logs=plan.span_logs,
            json_logs=self.schema.logs_json,
        )
        spans = RowCursor(
            client.stream(
                f"SELECT {select} FROM (SELECT *, if(chat_id IS NULL, trace_id, chat_id) "
                f"AS routed_chat FROM {self._t('spans')} WHERE {span_filter}) AS r{join} "
                "ORDER BY r.routed_chat, r.turn_id NULLS LAST, r.start_time NULLS LAST, r.span_id"
                + _SPILL
                + ", join_use_nulls = 1",
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

    def _sorted(self, sql: str, params: dict[str, Any]) -> Iterator[pa.Table]:
        """A small view's rows in batches: streamed, or (chdb: one query at a time, and the
        spans are streamed) streamed now into a local file and read back from there."""
        if not self._c.one_query_at_a_time:
            return self._c.stream(sql, params, rows=_STREAM_ROWS)
        return spilled(self._c.stream(sql + _SPILL, params, rows=_STREAM_ROWS))

    def wait_for_run(self, run_id: str, *, turns: int, settle: float, timeout: float) -> int:
        """Wait until `turns` turns of `run_id` are stored and no span arrived for `settle`
        seconds, or `timeout` passed (a collector batches and retries: spans land late);
        returns the spans the traces table holds."""
        self.prepare()
        deadline = time.monotonic() + timeout
        last, since = -1, time.monotonic()
        while True:
            row = self._c.query(
                f"SELECT (SELECT count() FROM {self._t('turns')} WHERE run_id = {{run:String}}) "
                f"AS turns, (SELECT count() FROM {self.schema.traces}) AS spans",
                {"run": run_id},
            ).to_pylist()[0]
            now = time.monotonic()
            if row["spans"] != last:
                last, since = row["spans"], now
            if (row["turns"] >= turns and now - since >= settle) or now >= deadline:
                return int(row["spans"])
            time.sleep(max(0.05, min(0.5, settle / 4)))

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
        traced_turns: pa.Table | None = None,
    ) -> None:
        if not chat_ids:
            return
        if self._c.one_query_at_a_time:  # chdb: the spans stream is open; write at the end
            self._deferred.add(
                chat_ids,
                tool_calls.table() if len(tool_calls) else None,
                scores.table(eval_id, created_at) if len(scores) else None,
                traced_turns,
            )
            return
        self._write(chat_ids, tool_calls.table(), scores.table(eval_id, created_at), traced_turns)

    def _write(
        self,
        chat_ids: Sequence[str],
        tool_calls: pa.Table,
        scores: pa.Table,
        traced_turns: pa.Table | None,
    ) -> None:
        """Replace the chats' tool_calls and traced_turns (delete, then insert) and add the
        scores."""
        client = self._c
        ids = {"ids": list(chat_ids)}
        for table in REPLACED_TABLES:
            existing = client.query(
                f"SELECT count() AS n FROM {self._t(table)} WHERE chat_id IN {{ids:Array(String)}}",
                ids,
            )
            if existing.column("n")[0].as_py():  # a re-evaluation: replace the chats' rows
                client.command(
                    f"DELETE FROM {self._t(table)} WHERE chat_id IN {{ids:Array(String)}}", ids
                )
        if tool_calls.num_rows:
            client.insert("tool_calls", tool_calls)
        if traced_turns is not None and traced_turns.num_rows:
            client.insert("traced_turns", traced_turns)
        if scores.num_rows:
            client.insert("scores", scores)

    def write_run(self, row: dict[str, Any]) -> None:
        if self._deferred.chunks:
            flush_deferred(self._c, self._deferred, database=self.url.database)
        self._c.insert("runs", pa.Table.from_pylist([row]))

    def scored_chats(self, *, failed: bool = False, by_calls: bool = False) -> set[str]:
        from tracesim.evaluator.select.queries import (
            FAILED_CALL_CHATS_SQL,
            FAILED_CHATS_SQL,
            SCORED_CHATS_SQL,
        )

        chosen = FAILED_CALL_CHATS_SQL if by_calls else FAILED_CHATS_SQL if failed else None
        sql = (chosen or SCORED_CHATS_SQL).format(scores=self._t("scores"))
        return {c for c in self._c.query(sql).column("chat_id").to_pylist() if c is not None}

    def cache_connection(self) -> Any | None:
        """The LLM judge cache: a local DuckDB file (`evaluator.store.llm_cache_file`), so a
        re-evaluation of a ClickHouse store makes no LLM call either."""
        if self._cache is None:
            self._cache = open_llm_cache()
        return self._cache

    def query(self, sql: str, *, check: Any = None) -> Any:
        from tracesim.evaluator.store.clickhouse_readers import clickhouse_query

        return clickhouse_query(self, sql)  # the server refuses writes (readonly = 2)

    def final(self, table: str) -> str:
        return f"{table} FINAL" if table in ("runs", *REPLACED_TABLES) else table

    def inspect(self) -> Any:
        from tracesim.evaluator.store.clickhouse_inspect import inspect_store

        return inspect_store(self)

    def file_evidence(self) -> dict[str, int]:
        from tracesim.evaluator.store.clickhouse_inspect import store_evidence

        return store_evidence(self)

    def report_connection(self, eval_id: str | None) -> Any:
        from tracesim.evaluator.store.clickhouse_readers import clickhouse_report_connection

        return clickhouse_report_connection(self, eval_id)

    def drop_partial(self, eval_id: str) -> None:
        try:
            self._c.command(
                f"DELETE FROM {self._t('scores')} WHERE eval_id = {{e:String}}", {"e": eval_id}
            )
        except Exception:  # noqa: BLE001 - the original error is the one to report
            log.exception("could not remove the partial scores of evaluation %s", eval_id)

    def close(self) -> None:
        self._deferred.discard()
        if self._cache is not None:
            self._cache.close()
            self._cache = None
        if self.client is not None:
            self.client.close()
            self.client = None
