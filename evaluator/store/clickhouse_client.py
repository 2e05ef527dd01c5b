"""One small client over the two ways to reach ClickHouse: a server over HTTP
(clickhouse-connect) and a local data directory in-process (chdb).

Both speak ClickHouse SQL with `{name:Type}` parameters and hand back Arrow.
Driver errors are translated into `StoreError` here, and only here, with the
URL and what to do. Timestamps come back as naive UTC (`session_timezone`
is UTC), like the DuckDB tables.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from evaluator.store.base import StoreError
from evaluator.store.url import StoreURL

__all__ = ["ChdbClient", "ClickHouseClient", "HttpClient", "connect", "naive_utc"]

_INSTALL = "pip install 'tracesim[clickhouse]'"
_SETTINGS = {"session_timezone": "UTC"}


def naive_utc(table: pa.Table | pa.RecordBatch) -> pa.Table:
    """`table` with every timestamp column as naive UTC microseconds (what DuckDB returns)."""
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    for index, column in enumerate(table.schema):
        if pa.types.is_timestamp(column.type):
            table = table.set_column(
                index, column.name, table.column(index).cast(pa.timestamp("us"))
            )
    return table


class ClickHouseClient:
    """What the store needs from a connection (single-threaded use)."""

    url: StoreURL
    one_query_at_a_time = False
    """True when a query ends the stream of another (chdb): readers then fetch small views
    whole and stream only one."""

    def query(self, sql: str, params: Mapping[str, Any] | None = None) -> pa.Table:
        """Run a SELECT and return its rows as an Arrow table."""
        raise NotImplementedError

    def stream(
        self, sql: str, params: Mapping[str, Any] | None = None, *, rows: int = 20_000
    ) -> Iterator[pa.Table]:
        """Run a SELECT and yield its rows in Arrow tables of about `rows` rows."""
        raise NotImplementedError

    def command(self, sql: str, params: Mapping[str, Any] | None = None) -> None:
        """Run a statement (DDL, INSERT ... SELECT, DELETE)."""
        raise NotImplementedError

    def insert(self, table: str, data: pa.Table) -> None:
        """Insert an Arrow table into `table` of the store's database (columns by name)."""
        raise NotImplementedError

    def use_database(self, *, read_only: bool = False) -> None:
        """Resolve unqualified names in the store's database; `read_only` refuses every write
        from now on (ClickHouse `readonly = 2`: settings may change, data may not)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the connection (safe twice)."""

    def error(self, exc: BaseException, doing: str) -> StoreError:
        """A StoreError naming the URL, what failed and the fix."""
        return StoreError(describe_error(self.url, exc, doing))


def describe_error(url: StoreURL, exc: BaseException, doing: str) -> str:
    """A one-paragraph message for a ClickHouse failure (see `ClickHouseClient.error`)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    lowered = str(exc).lower()
    if "authentication" in lowered or "code: 516" in lowered or "code: 192" in lowered:
        fix = "check the user and password (in the URL, or CLICKHOUSE_USER / CLICKHOUSE_PASSWORD)"
    elif "unknown_database" in lowered or "code: 81" in lowered:
        fix = (
            f"database {url.database} does not exist: point the URL at the database the "
            "collector's clickhouse exporter writes (its `database:` setting)"
        )
    elif "unknown_table" in lowered or "code: 60" in lowered:
        fix = (
            "a table is missing: start the OTel Collector with the clickhouse exporter "
            "(deploy/otel-collector.yaml) so it creates its tables, or name them with "
            "?traces_table=...&logs_table=..."
        )
    elif "readonly" in lowered or "code: 164" in lowered:
        fix = "this command only reads: run a SELECT"
    elif any(word in lowered for word in ("connection refused", "timed out", "max retries")):
        fix = "ClickHouse is not reachable there: check host and port (HTTP, 8123 / 8443)"
    else:
        fix = "check the URL and that the server is a ClickHouse the exporter writes"
    return f"{url.label}: {doing} failed: {text}. Fix: {fix}"


class HttpClient(ClickHouseClient):
    """A ClickHouse server over HTTP(S) via clickhouse-connect."""

    def __init__(self, url: StoreURL, *, connect_timeout: float = 10) -> None:
        try:
            import clickhouse_connect
        except ImportError:
            raise StoreError(
                f"{url.label}: the ClickHouse client is not installed: {_INSTALL}"
            ) from None
        self.url = url
        try:
            self._client: Any = clickhouse_connect.get_client(
                host=url.host,
                port=url.port,
                username=url.username,
                password=url.password,
                secure=url.secure,
                connect_timeout=connect_timeout,
                settings=_SETTINGS,
                # No server session: the evaluation streams three queries and writes while
                # they are open, which one session refuses ("locked by a concurrent client").
                autogenerate_session_id=False,
            )
        except Exception as exc:  # noqa: BLE001 - translated in one place
            raise self.error(exc, "connecting") from None

    def query(self, sql: str, params: Mapping[str, Any] | None = None) -> pa.Table:
        try:
            return naive_utc(self._client.query_arrow(sql, parameters=dict(params or {})))
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, "a query") from None

    def stream(
        self, sql: str, params: Mapping[str, Any] | None = None, *, rows: int = 20_000
    ) -> Iterator[pa.Table]:
        try:
            with self._client.query_arrow_stream(sql, parameters=dict(params or {})) as batches:
                for batch in batches:
                    yield naive_utc(batch)
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, "a query") from None

    def command(self, sql: str, params: Mapping[str, Any] | None = None) -> None:
        try:
            self._client.command(sql, parameters=dict(params or {}))
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, "a statement") from None

    def insert(self, table: str, data: pa.Table) -> None:
        try:
            self._client.insert_arrow(table, data, database=self.url.database)
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, f"inserting into {table}") from None

    def use_database(self, *, read_only: bool = False) -> None:
        self._client.database = self.url.database
        if read_only:
            self._client.set_client_setting("readonly", "2")

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


_PARAM = re.compile(r"\{(\w+):([^}]+)\}")
_CHDB_SETTINGS: dict[str, Any] = {
    "session_timezone": "UTC",
    # Spill by the byte limits the queries set (`max_bytes_before_external_*`): the ratio
    # settings alone never spill in chdb (no server memory limit), and override those limits.
    "max_bytes_ratio_before_external_sort": 0,
    "max_bytes_ratio_before_external_group_by": 0,
    "max_bytes_ratio_before_external_join": 0,
    "max_bytes_before_external_join": 64_000_000,
    # Merging N spilled sort runs holds one block of each: small blocks keep that small.
    "prefer_external_sort_block_bytes": 1_000_000,
}
"""Session settings of a chdb store: memory bounded by spilling to the data directory's disk.
Measured on 800k spans (200k turns): the sorted spans stream's peak RSS +700 MB -> +270 MB."""


class ChdbClient(ClickHouseClient):
    """A ClickHouse data directory opened in-process through chdb (one session per process)."""

    one_query_at_a_time = True

    def __init__(self, url: StoreURL) -> None:
        try:
            from chdb import session
        except ImportError:
            raise StoreError(f"{url.label}: chdb is not installed: {_INSTALL}") from None
        self.url = url
        path = Path(url.path)
        if not path.is_dir():
            problem = "is a file" if path.exists() else "does not exist"
            raise StoreError(
                f"{url.label}: {path} {problem}. Fix: chdb:// takes the ClickHouse data "
                "directory the spans were written to (e.g. by tracesim run with store: chdb://DIR)"
            )
        try:
            self._session: Any = session.Session(str(path))
            for name, value in _CHDB_SETTINGS.items():
                self._session.query(f"SET {name} = {_literal(value)}")
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, "opening the data directory") from None

    def query(self, sql: str, params: Mapping[str, Any] | None = None) -> pa.Table:
        try:
            if params:
                result = self._session.query(sql, "ArrowTable", params=_text_params(params))
            else:
                result = self._session.query(sql, "ArrowTable")
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, "a query") from None
        return naive_utc(result)

    def stream(
        self, sql: str, params: Mapping[str, Any] | None = None, *, rows: int = 20_000
    ) -> Iterator[pa.Table]:
        try:
            if params:
                sql = _inline(sql, params)
            stream = self._session.send_query(sql, "Arrow")
            reader = stream.record_batch(rows_per_batch=rows)
            for batch in reader:
                yield naive_utc(batch)
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, "a query") from None

    def command(self, sql: str, params: Mapping[str, Any] | None = None) -> None:
        try:
            if params:
                self._session.query(sql, "Null", params=_text_params(params))
            else:
                self._session.query(sql, "Null")
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, "a statement") from None

    def insert(self, table: str, data: pa.Table) -> None:
        columns = ", ".join(f"`{name}`" for name in data.schema.names)
        new_rows = data  # noqa: F841 - read by name by chdb's Python() table function
        try:
            self._session.query(
                f"INSERT INTO `{self.url.database}`.`{table}` ({columns}) "
                f"SELECT {columns} FROM Python(new_rows)",
                "Null",
            )
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, f"inserting into {table}") from None

    def use_database(self, *, read_only: bool = False) -> None:
        self.command(f"USE `{self.url.database}`")
        if read_only:
            self.command("SET readonly = 2")

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None


def _text_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """chdb takes parameters as ClickHouse text: arrays as literals, the rest as is."""
    return {
        key: _literal(value) if isinstance(value, (list, tuple)) else value
        for key, value in params.items()
    }


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def _inline(sql: str, params: Mapping[str, Any]) -> str:
    """`{name:Type}` placeholders replaced by quoted literals (chdb's streaming API takes none)."""
    return _PARAM.sub(lambda m: f"CAST({_literal(params[m.group(1)])}, '{m.group(2)}')", sql)


def connect(url: StoreURL) -> ClickHouseClient:
    """A client for a `clickhouse` or `chdb` URL."""
    if url.kind == "chdb":
        return ChdbClient(url)
    if url.kind == "clickhouse":
        return HttpClient(url)
    raise StoreError(f"{url.raw}: not a ClickHouse URL (clickhouse://... or chdb://DIR)")
