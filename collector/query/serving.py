"""The collector's read side: guarded queries and evaluate's writes on the query workers.

`QueryServing` is a part of `Collector` (its base class): the query endpoint, `tracesim sql`
on a live file, the store routes of a live evaluation and in-process callers all come here.
Every query runs after a flush (it sees what was acknowledged), under the query memory watch
and the time limit, on a `QueryPool` cursor: never on the writer's connection.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from tracesim.collector.errors import Busy, InvalidRequest
from tracesim.collector.query.query import QueryAnswer, run_query
from tracesim.collector.query.query_memory import MemoryWatch
from tracesim.collector.query.query_pool import QueryPool
from tracesim.collector.query.store_routes import apply_writes, arrow_answer

__all__ = ["QueryServing"]

T = TypeVar("T")


class QueryServing:
    """Query methods of `Collector`, which sets these attributes (`_queries`, `_store`:
    None while it is not running; the limits in its constructor) and provides `flush`."""

    _queries: QueryPool | None
    _store: Any
    _query_memory: MemoryWatch
    _query_max_rows: int
    _query_max_bytes: int
    _query_timeout: float

    def query(self, sql: str, params: list[Any] | None = None) -> tuple[list[str], list[list[Any]]]:
        """Run a guarded read-only query over fresh data; (column names, every row).

        Pending batches are flushed first. The statement passes the same guard as
        the query endpoint (`collector.check_safe_for_endpoint`) and the time limit.
        """
        answer = self._run_query(sql, params, endpoint=False)
        return answer.columns, answer.rows

    def query_capped(self, sql: str, params: list[Any] | None = None) -> QueryAnswer:
        """`query` with the limits of the query endpoint (`truncated` when it cut rows)."""
        return self._run_query(sql, params, endpoint=True)

    def submit_query(self, sql: str, params: list[Any] | None = None) -> Future[QueryAnswer]:
        """`query_capped` on the query workers (what the endpoint runs); raises Busy when
        too many queries wait."""
        if self._queries is None:
            raise Busy("collector is not running")
        return self._queries.submit(lambda cursor: self._answer(cursor, sql, params, True))

    def submit_arrow(
        self, sql: str, params: list[Any] | None, inputs: dict[str, Any]
    ) -> Future[Any]:
        """Every row of a guarded read-only query as an Arrow table, on the query workers
        (`collector.query.store_routes.arrow_answer`; never truncated, TooLarge instead),
        under the same memory watch as the query endpoint."""
        if self._queries is None:
            raise Busy("collector is not running")

        def run(cursor: Any) -> Any:
            return self._watched(
                cursor,
                lambda: arrow_answer(
                    cursor,
                    sql,
                    params,
                    inputs,
                    max_bytes=self._query_max_bytes,
                    timeout=self._query_timeout,
                ),
            )

        return self._queries.submit(run)

    def submit_writes(self, writes: Any, tables: list[Any]) -> Future[int]:
        """Evaluate's writes to `tool_calls`, `scores` and `runs`, in one transaction on the
        query workers (`collector.query.store_routes.apply_writes`)."""
        if self._queries is None:
            raise Busy("collector is not running")
        timeout = self._query_timeout
        return self._queries.submit(
            lambda cursor: apply_writes(cursor, writes, tables, timeout=timeout)
        )

    def _run_query(self, sql: str, params: list[Any] | None, *, endpoint: bool) -> QueryAnswer:
        if self._queries is None or self._store is None:
            raise RuntimeError("collector is not running")
        return self._queries.run_here(lambda cursor: self._answer(cursor, sql, params, endpoint))

    def _answer(
        self, cursor: Any, sql: str, params: list[Any] | None, endpoint: bool
    ) -> QueryAnswer:
        """The guarded query, under the query memory watch."""
        return self._watched(
            cursor,
            lambda: run_query(
                cursor,
                sql,
                params,
                max_rows=self._query_max_rows if endpoint else None,
                max_bytes=self._query_max_bytes if endpoint else None,
                timeout=self._query_timeout,
            ),
        )

    def _watched(self, cursor: Any, answer: Callable[[], T]) -> T:
        """Flush (so the answer sees what was acknowledged), then `answer()` under the query
        memory watch: a query it stopped is said as such, not as the engine's interrupt."""
        self.flush()
        with self._query_memory.watching(cursor) as watched:
            try:
                return answer()
            except InvalidRequest:
                if not watched.tripped:
                    raise
        limit = self._query_memory.limit / (1 << 20)
        raise InvalidRequest(
            f"query stopped: it grew the collector's memory past its query limit ({limit:,.0f} "
            "MiB); narrow it, or stop the collector and use `tracesim sql --db FILE`"
        )
