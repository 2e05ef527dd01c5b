"""Read-only SQL: the statement guard, query endpoint and workers, and the sidecar."""

from tracesim.collector.query.query import QueryAnswer, database_tables, json_safe, run_query
from tracesim.collector.query.query_pool import QueryPool
from tracesim.collector.query.sidecar import (
    SIDECAR_SUFFIX,
    read_sidecar,
    remove_sidecar,
    sidecar_path,
    write_sidecar,
)
from tracesim.collector.query.sql_guard import (
    ENDPOINT_TABLE_FUNCTIONS,
    RefusedQuery,
    check_read_only,
    check_safe_for_endpoint,
)

__all__ = [
    "ENDPOINT_TABLE_FUNCTIONS",
    "QueryAnswer",
    "QueryPool",
    "RefusedQuery",
    "SIDECAR_SUFFIX",
    "check_read_only",
    "check_safe_for_endpoint",
    "database_tables",
    "json_safe",
    "read_sidecar",
    "remove_sidecar",
    "run_query",
    "sidecar_path",
    "write_sidecar",
]
