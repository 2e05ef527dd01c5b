"""One small client over the two ways to reach ClickHouse: a server over HTTP
(clickhouse-connect) and a local data directory in-process (chdb).

Both speak ClickHouse SQL with `{name:Type}` parameters and hand back Arrow.
Driver errors are translated into `StoreError` here, and only here, with the
URL and what to do. Timestamps come back as naive UTC (`session_timezone`
is UTC), like the DuckDB tables.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
from tracesim.evaluator.store.base import StoreError
from tracesim.evaluator.store.clickhouse_errors import describe_error, error_code
from tracesim.evaluator.store.http_spool import Spool
from tracesim.evaluator.store.url import StoreURL

__all__ = [
    "ChdbClient",
    "ClickHouseClient",
    "HttpClient",
    "connect",
    "describe_error",
    "error_code",
    "naive_utc",
]

_INSTALL = "pip install 'tracesim[clickhouse]'"
_SETTINGS = {"session_timezone": "UTC", "output_format_arrow_string_as_string": "1"}
_SPOOL_READ = 1 << 20


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


class HttpClient(ClickHouseClient):
    """A ClickHouse server over HTTP(S) via clickhouse-connect."""

    def __init__(self, url: StoreURL, *, connect_timeout: float = 10) -> None:
        try:
            import clickhouse_connect
        except ImportError:
            raise StoreError(
                f"{url.label}: the ClickHouse client is not installed: {_INSTALL}"
            ) from None
        # The driver logs a bare "Unexpected Http Driver Exception" warning before raising;
        # the raised error says it all (translated below), so no stray stderr line.
        logging.getLogger("clickhouse_connect").addHandler(logging.NullHandler())
        self.url = url
        try:
            self._client: Any = clickhouse_connect.get_client(
                host=url.host,
                port=url.port,
                username=url.username,
                password=url.password,
                secure=url.secure,
                verify=url.verify,
                ca_cert=url.ca_cert or None,
                connect_timeout=connect_timeout,
                # No server session: the evaluation streams three queries and writes while
                # they are open, which one session refuses ("locked by a concurrent client").
                autogenerate_session_id=False,
            )
        except Exception as exc:  # noqa: BLE001 - translated in one place
            raise self.error(exc, "connecting") from None
        for key, value in _SETTINGS.items():
            self._set_if_writable(key, value)

    def _set_if_writable(self, key: str, value: str) -> None:
        """Set `key` for every request unless the server says this user may not change it (a
        `readonly = 1` profile, as analysts' accounts have): such a user can still read, and
        Arrow timestamps are instants, so they come back as UTC without `session_timezone`."""
        setting = self._client.server_settings.get(key)
        if setting is None or not setting.readonly:
            self._client.set_client_setting(key, value)

    def query(self, sql: str, params: Mapping[str, Any] | None = None) -> pa.Table:
        try:
            sql, bound, settings = _bind_for_http(sql, params)
            table = self._client.query_arrow(sql, parameters=bound, settings=settings)
            return _strings(naive_utc(table))
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, "a query") from None

    def stream(
        self, sql: str, params: Mapping[str, Any] | None = None, *, rows: int = 20_000
    ) -> Iterator[pa.Table]:
        try:
            sql, bound, settings = _bind_for_http(sql, params)
            response = self._client.raw_stream(
                sql, parameters=bound, settings=settings, fmt="ArrowStream"
            )
            with Spool(response) as spool:  # the server never waits on the evaluation
                for batch in pa.ipc.open_stream(io.BufferedReader(spool, _SPOOL_READ)):
                    yield _strings(naive_utc(batch))
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, "a query") from None

    def command(self, sql: str, params: Mapping[str, Any] | None = None) -> None:
        try:
            sql, bound, settings = _bind_for_http(sql, params)
            self._client.command(sql, parameters=bound, settings=settings)
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, "a statement") from None

    def insert(self, table: str, data: pa.Table) -> None:
        try:
            self._client.insert_arrow(table, data, database=self.url.database)
        except Exception as exc:  # noqa: BLE001
            raise self.error(exc, f"inserting into {table}") from None

    def use_database(self, *, read_only: bool = False) -> None:
        self._client.database = self.url.database
        if read_only:  # a readonly = 1 user is stricter already, and may not set it
            self._set_if_writable("readonly", "2")

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


_PARAM = re.compile(r"\{(\w+):([^}]+)\}")
_PARAMS_BUDGET = 64 * 1024
"""Parameter text sent as parameters at most. ClickHouse takes parameters as URL or form
fields, each capped by `http_max_field_value_size` (128 KiB by default) and the URL by
`http_max_uri_size`; past the budget they are written into the statement instead."""
_MAX_QUERY_SIZE = 262_144  # ClickHouse's default `max_query_size`


def _bind_for_http(
    sql: str, params: Mapping[str, Any] | None
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(statement, parameters, settings) for clickhouse-connect: small parameters as server
    parameters; large ones (a chunk's chat ids, a store's trace ids) as typed literals in the
    statement, which travels in the request body, with `max_query_size` raised to fit it."""
    if not params:
        return sql, {}, {}
    if sum(len(_literal(value)) for value in params.values()) <= _PARAMS_BUDGET:
        return sql, dict(params), {}
    inlined = _inline(sql, params)
    size = len(inlined.encode()) + 1024  # and the FORMAT / LIMIT the driver appends
    return inlined, {}, {"max_query_size": size} if size > _MAX_QUERY_SIZE else {}


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


def _text_type(data_type: pa.DataType) -> pa.DataType:
    """`data_type` with every binary (ClickHouse String) inside it as string."""
    if pa.types.is_binary(data_type):
        return pa.string()
    if pa.types.is_large_binary(data_type):
        return pa.large_string()
    if pa.types.is_map(data_type):
        return pa.map_(_text_type(data_type.key_type), _text_type(data_type.item_type))
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        item = data_type.value_field.with_type(_text_type(data_type.value_type))
        return pa.list_(item) if pa.types.is_list(data_type) else pa.large_list(item)
    if pa.types.is_struct(data_type):
        return pa.struct([f.with_type(_text_type(f.type)) for f in data_type])
    return data_type


def _strings(table: pa.Table) -> pa.Table:
    """ClickHouse Strings as Arrow strings: a server sends them as binary unless
    `output_format_arrow_string_as_string` is on (older servers' default is off, and a
    read-only user may not turn it on). FixedString stays bytes."""
    schema = pa.schema([f.with_type(_text_type(f.type)) for f in table.schema])
    return table if schema.equals(table.schema) else table.cast(schema)


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
