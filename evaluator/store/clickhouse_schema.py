"""Which of the ClickHouse exporter's table layouts a database holds, and how to read an
attribute out of it in SQL.

The opentelemetry-collector-contrib ClickHouse exporter writes `otel_traces`
in one of three layouts:
- Map schema (the default): attributes `Map(LowCardinality(String), String)`
  of stringified values, `SpanKind` `SPAN_KIND_*`, `StatusCode`
  `STATUS_CODE_*`, `Duration` in ns, Events and Links as Nested columns,
  `ScopeName` / `ScopeVersion` columns;
- the same without the Scope columns (older exporters put the scope in the
  span attributes `otel.scope.name` / `otel.scope.version`);
- JSON schema (`json: true`): attributes as the `JSON` type (dotted keys
  become paths), `SpanKind` `Internal`..., `StatusCode` `Unset` / `Ok` /
  `Error`.
`detect_schema` reads the table's columns once and says which, or raises
StoreError naming the table and what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
from tracesim.evaluator.store.base import StoreError
from tracesim.evaluator.store.clickhouse_client import ClickHouseClient

__all__ = ["REQUIRED_COLUMNS", "ExporterSchema", "detect_schema", "quote", "string_literal"]

REQUIRED_COLUMNS = (
    "Timestamp",
    "TraceId",
    "SpanId",
    "ParentSpanId",
    "SpanName",
    "SpanKind",
    "ServiceName",
    "ResourceAttributes",
    "SpanAttributes",
    "Duration",
    "StatusCode",
    "StatusMessage",
    "Events.Timestamp",
    "Events.Name",
    "Events.Attributes",
    "Links.TraceId",
    "Links.SpanId",
    "Links.Attributes",
)
"""The columns of `otel_traces` tracesim reads (every exporter version has them)."""


def quote(name: str) -> str:
    """A ClickHouse identifier in backquotes."""
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def string_literal(text: str) -> str:
    """A ClickHouse string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True)
class ExporterSchema:
    """One database's exporter tables and their layout."""

    database: str
    traces_table: str
    variant: str
    """`map` or `json`."""
    has_scope: bool
    """True when `ScopeName` is a column (else it is the `otel.scope.name` attribute)."""
    logs_table: str | None = None
    """The logs table when it exists (Map schema: `LogAttributes` a Map)."""
    logs_event_name: bool = False
    """True when the logs table has the `EventName` column (newer exporters)."""
    logs_json: bool = False
    """True when the logs table's attributes are the JSON type (`json: true`)."""

    @property
    def traces(self) -> str:
        """The traces table, qualified."""
        return f"{quote(self.database)}.{quote(self.traces_table)}"

    def attr(self, column: str, key: str) -> str:
        """SQL for attribute `key` of map/JSON `column` as Nullable(String), NULL when absent or ''."""
        if self.variant == "map":
            return f"nullIf({column}[{string_literal(key)}], '')"
        return f"nullIf(CAST({column}.{quote(key)}, 'Nullable(String)'), '')"


def _columns(client: ClickHouseClient, database: str, table: str) -> dict[str, str]:
    rows: pa.Table = client.query(
        "SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String}",
        {"db": database, "t": table},
    )
    return dict(zip(rows.column("name").to_pylist(), rows.column("type").to_pylist(), strict=True))


def detect_schema(
    client: ClickHouseClient, *, database: str, traces: str, logs: str
) -> ExporterSchema:
    """The layout of `database.traces` (StoreError when missing or not the exporter's)."""
    label = client.url.label
    exists = client.query(
        "SELECT count() AS n FROM system.databases WHERE name = {db:String}", {"db": database}
    )
    if not exists.column("n")[0].as_py():
        raise StoreError(
            f"{label}: database {database!r} does not exist. Fix: point the URL at the database "
            "the collector's clickhouse exporter writes (its `database:` setting, 'otel' in "
            "deploy/otel-collector.yaml), or start that collector so it creates it"
        )
    columns = _columns(client, database, traces)
    if not columns:
        raise StoreError(
            f"{label}: table {database}.{traces} does not exist. Fix: start the OTel Collector "
            "with the clickhouse exporter (deploy/otel-collector.yaml) so it creates its tables, "
            "or name the table with ?traces_table=NAME"
        )
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    attr_type = columns.get("SpanAttributes", "")
    if attr_type.startswith("Map("):
        variant = "map"
    elif attr_type.startswith("JSON") or attr_type.startswith("Object("):
        variant = "json"
    else:
        variant = ""
    if missing or not variant:
        problem = (
            f"columns {', '.join(missing)} are missing"
            if missing
            else f"SpanAttributes is {attr_type or 'absent'}"
        )
        raise StoreError(
            f"{label}: {database}.{traces} is not a table layout tracesim knows ({problem}); "
            "it reads the opentelemetry-collector-contrib clickhouse exporter's Map schema "
            "(with or without ScopeName) and its JSON schema. Fix: point ?traces_table= at "
            "the exporter's table"
        )
    log_columns = _columns(client, database, logs)
    log_attrs = log_columns.get("LogAttributes", "")
    readable = log_attrs.startswith(("Map(", "JSON", "Object(")) and "Body" in log_columns
    logs_table = logs if readable else None
    return ExporterSchema(
        database=database,
        traces_table=traces,
        variant=variant,
        has_scope="ScopeName" in columns,
        logs_table=logs_table,
        logs_event_name="EventName" in log_columns,
        logs_json=readable and not log_attrs.startswith("Map("),
    )
