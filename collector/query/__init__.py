"""Read-only SQL: the statement guard, query endpoint and workers, and the sidecar."""

from tracesim.collector.query.query import QueryAnswer, database_tables, json_safe, run_query
from tracesim.collector.query.query_memory import DEFAULT_QUERY_MEMORY, MemoryWatch
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
from tracesim.collector.query.value_size import MAX_BUILT_SIZE

__all__ = [
    "DEFAULT_QUERY_MEMORY",
    "ENDPOINT_TABLE_FUNCTIONS",
    "MAX_BUILT_SIZE",
    "MemoryWatch",
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
