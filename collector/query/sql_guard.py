"""Which SQL may run: the one statement check of `tracesim sql` and of the query endpoint.

Two levels, one module:

- `check_read_only(sql)`: exactly one statement, and it only reads (SELECT,
  WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN [ANALYZE] of those, read PRAGMAs).
  Enough where the SQL runs with the user's own privileges (`tracesim sql
  --db FILE` opens the file read-only in the user's process).
- `check_safe_for_endpoint(sql, allowed_tables=...)`: also walks the statement
  tree DuckDB's own parser gives (`json_serialize_sql`) and allows only the
  database's tables and views, CTEs of the same query, a few table functions
  that generate values, and no function that reads the environment, settings,
  secrets or files. For SQL arriving over the network: a SELECT can otherwise
  read any local file (`FROM '/etc/passwd'`, `read_csv(...)`), Python objects
  in the server's frames (replacement scans) or the environment (`getenv`).

Anything the guard cannot parse is refused. Refusals raise `RefusedQuery`
(an `InvalidRequest`, HTTP 400) whose message says what and why.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection
from typing import Any

import duckdb
from tracesim.collector.errors import InvalidRequest
from tracesim.collector.query.deep_json import loads_any_depth
from tracesim.collector.query.value_size import (
    AMPLIFIERS,
    CONCATENATORS,
    MAX_BUILT_SIZE,
    MAX_STEP_COPIES,
    TooLargeValue,
    built_size,
    copies,
)

__all__ = [
    "ENDPOINT_TABLE_FUNCTIONS",
    "RefusedQuery",
    "check_read_only",
    "check_safe_for_endpoint",
]

ENDPOINT_TABLE_FUNCTIONS = frozenset(
    {"range", "generate_series", "unnest", "json_each", "json_tree"}
)
"""Table functions the query endpoint allows: they generate values, never read."""

_USE_LOCAL = "stop the collector and use `tracesim sql --db FILE` or the duckdb CLI on the file"
_FILES_REFUSED = (
    f"reading files is not allowed through the collector's query endpoint; {_USE_LOCAL}"
)

# Scalar functions refused by name (table functions are allowlisted instead).
_REFUSED_FUNCTIONS = frozenset(
    {
        "getenv",
        "current_setting",
        "getvariable",
        "json_execute_serialized_sql",
        "query",
        "query_table",
        "glob",
        "sniff_csv",
        "which_secret",
        "json_serialize_plan",
        "json_serialize_sql",
        "json_deserialize_sql",
        "current_schema",
        "current_schemas",
        "current_database",
        "current_catalog",
    }
)
_REFUSED_PREFIXES = ("read_", "parquet_", "duckdb_", "pragma_", "iceberg_", "delta_")

_READ_PRAGMAS = frozenset(
    {
        "table_info",
        "show",
        "show_tables",
        "show_tables_expanded",
        "database_list",
        "database_size",
        "storage_info",
        "version",
        "platform",
        "functions",
        "collations",
        "metadata_info",
        "user_agent",
    }
)
# At the endpoint: PRAGMAs about one allowed table, and ones that take no argument.
_ENDPOINT_TABLE_PRAGMAS = frozenset({"table_info", "show"})
_ENDPOINT_PLAIN_PRAGMAS = frozenset({"show_tables", "show_tables_expanded", "version", "platform"})
_PRAGMA_NAME = re.compile(r"^\s*PRAGMA\s+(?P<name>[A-Za-z_]+)", re.IGNORECASE)
_PRAGMA = re.compile(
    r"^\s*PRAGMA\s+(?P<name>[A-Za-z_]+)\s*(?:\(\s*'(?P<arg>[A-Za-z_][A-Za-z0-9_]*)'\s*\))?\s*;?\s*$",
    re.IGNORECASE,
)
_EXPLAIN = re.compile(r"^\s*EXPLAIN\s+(?P<analyze>ANALY[SZ]E\s+)?", re.IGNORECASE)
_SHOW_SPECIAL = frozenset({'"tables"', "tables", "__show_tables_expanded"})

# Table references: the allowed ones are checked, these are walked through,
# any other kind (internal ones the parser never yields for user SQL) is refused.
_PASS_THROUGH_REFS = frozenset({"JOIN", "SUBQUERY", "EMPTY", "EXPRESSION_LIST", "PIVOT"})
_TABLE_REFS = (
    frozenset(
        {
            "BASE_TABLE",
            "TABLE_FUNCTION",
            "SHOW_REF",
            "CTE",
            "COLUMN_DATA",
            "DELIM_GET",
            "BOUND_TABLE_REF",
            "INVALID",
        }
    )
    | _PASS_THROUGH_REFS
)


class RefusedQuery(InvalidRequest):
    """SQL the guard will not run (HTTP 400); the message says what and why."""


_TOO_DEEP = (
    "query too deeply nested: expressions nest at most 1000 levels here; flatten it "
    "(a CTE per level, IN lists instead of nested ORs)"
)


def check_read_only(sql: str) -> duckdb.Statement:
    """Raise RefusedQuery unless `sql` is one statement that only reads; return it."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as error:
        if "expression depth" in str(error):
            raise RefusedQuery(_TOO_DEEP) from None
        raise RefusedQuery(f"the query does not parse: {error}") from None
    if not statements:
        raise RefusedQuery("no SQL statement given")
    for statement in statements:
        _check_statement_kind(statement)
    if len(statements) > 1:
        raise RefusedQuery(f"{len(statements)} statements given; send one statement per query")
    return statements[0]


def _check_statement_kind(statement: duckdb.Statement) -> None:
    kind = statement.type
    if kind == duckdb.StatementType.SELECT:
        return
    if kind == duckdb.StatementType.EXPLAIN:
        check_read_only(_EXPLAIN.sub("", statement.query, count=1))
        return
    if kind == duckdb.StatementType.PRAGMA:
        match = _PRAGMA_NAME.match(statement.query)
        if match and match.group("name").lower() in _READ_PRAGMAS:
            return
    name = getattr(kind, "name", str(kind))
    raise RefusedQuery(
        f"{name} statements are refused: queries are read-only. Use SELECT (or WITH, "
        "DESCRIBE, SHOW, SUMMARIZE, EXPLAIN SELECT); to change data, open the file with the "
        f"duckdb client while no collector is running. Refused: {statement.query.strip()[:80]!r}"
    )


def check_safe_for_endpoint(
    sql: str,
    *,
    allowed_tables: Collection[str],
    table_functions: Collection[str] = ENDPOINT_TABLE_FUNCTIONS,
) -> None:
    """Raise RefusedQuery unless `sql` is read-only and reads only `allowed_tables`.

    `allowed_tables`: the database's table and view names (case-insensitive);
    `table_functions`: the table functions allowed in FROM.
    """
    statement = check_read_only(sql)
    tables = frozenset(name.lower() for name in allowed_tables)
    functions = frozenset(name.lower() for name in table_functions)
    text = sql  # what will run, parsed whole (one statement, checked above)
    if statement.type == duckdb.StatementType.PRAGMA:
        _check_endpoint_pragma(text, tables)
        return
    if statement.type == duckdb.StatementType.EXPLAIN:
        text = statement.query
        match = _EXPLAIN.match(text)
        if match is None or match.group("analyze"):
            raise RefusedQuery(
                "EXPLAIN ANALYZE is not allowed through the collector's query endpoint "
                f"(plain EXPLAIN is); {_USE_LOCAL}"
            )
        text = text[match.end() :]
    _Walker(tables, functions).walk(_parse_tree(text), frozenset())


def _check_endpoint_pragma(text: str, tables: frozenset[str]) -> None:
    match = _PRAGMA.match(text)
    name = match.group("name").lower() if match else ""
    arg = match.group("arg") if match else None
    if name in _ENDPOINT_PLAIN_PRAGMAS and arg is None:
        return
    if name in _ENDPOINT_TABLE_PRAGMAS and arg is not None and arg.lower() in tables:
        return
    raise RefusedQuery(
        f"PRAGMA {text.strip()[:60]!r} is not allowed through the collector's query endpoint "
        "(allowed: PRAGMA table_info('<table>'), PRAGMA show('<table>'), PRAGMA show_tables, "
        "version, platform); use DESCRIBE or SHOW TABLES"
    )


_parser_lock = threading.Lock()
_parser: duckdb.DuckDBPyConnection | None = None


def _parse_tree(text: str) -> dict[str, Any]:
    """DuckDB's parse tree of one SELECT as JSON (no catalog, nothing is run)."""
    global _parser
    with _parser_lock:
        if _parser is None:
            _parser = duckdb.connect(":memory:")
        try:
            row = _parser.execute("SELECT json_serialize_sql(?)", [text]).fetchone()
        except duckdb.Error as error:
            raise RefusedQuery(f"the query guard cannot parse the query: {error}") from None
    try:
        tree = loads_any_depth(row[0]) if row and row[0] else {"error": True}
    except ValueError as error:
        raise RefusedQuery(f"the query guard cannot read the query's parse tree: {error}") from None
    if tree.get("error") or len(tree.get("statements", [])) != 1:
        reason = str(tree.get("error_message", "no statement"))
        if "depth" in reason.lower() or "stack" in reason.lower():
            raise RefusedQuery(_TOO_DEEP)
        raise RefusedQuery(f"the query guard cannot parse the query, so it is refused: {reason}")
    return tree["statements"][0]


class _Walker:
    """Walks a parse tree; every table reference and function call is checked."""

    def __init__(self, tables: frozenset[str], functions: frozenset[str]) -> None:
        self.tables = tables
        self.functions = functions
        self._table_calls: set[int] = set()  # function nodes of FROM clauses (streamed)
        self._built = 1  # product of the sizes size-setting calls may build
        self._recursive = False  # the query has a recursive CTE
        self._copies = 0  # most copies of one column in one concatenation
        self._flattened: set[int] = set()  # concatenations counted within an outer one

    def walk(self, root: Any, ctes: frozenset[str]) -> None:
        """Check every node under `root`, with an explicit stack: a valid query nests as
        deep as DuckDB's parser allows, past Python's recursion limit."""
        stack: list[tuple[Any, frozenset[str]]] = [(root, ctes)]
        while stack:
            node, ctes = stack.pop()
            if isinstance(node, list):
                stack.extend((item, ctes) for item in node)
                continue
            if not isinstance(node, dict):
                continue
            if "class" not in node and node.get("type") in _TABLE_REFS:
                self._table_ref(node, ctes)
            if "function_name" in node:
                _check_function(str(node["function_name"]))
                if str(node["function_name"]).lower() in AMPLIFIERS:
                    self._check_built(node)
                name = str(node["function_name"]).lower()
                if name in CONCATENATORS and id(node) not in self._flattened:
                    self._copies = max(self._copies, copies(node, self._flattened))
            if "cte_name" in node:  # a recursive CTE refers to itself
                ctes = ctes | {str(node["cte_name"]).lower()}
                self._recursive = True
            cte_map = node.get("cte_map")
            if isinstance(cte_map, dict) and cte_map.get("map"):
                ctes = self._ctes(cte_map["map"], ctes, stack)
            stack.extend((child, ctes) for key, child in node.items() if key != "cte_map")
        if self._recursive and self._copies > MAX_STEP_COPIES:
            raise RefusedQuery(
                f"a recursive query concatenates one value {self._copies} times in a step: it "
                f"would grow that value {self._copies}x per step, faster than the query "
                f"memory watch can stop it; at most {MAX_STEP_COPIES} copies through the query "
                "endpoint (use `tracesim sql --db FILE` with the collector stopped)"
            )

    @staticmethod
    def _ctes(
        entries: list[dict[str, Any]], ctes: frozenset[str], stack: list[tuple[Any, frozenset[str]]]
    ) -> frozenset[str]:
        """Queue each CTE seeing the ones before it (a plain CTE's own name inside it is not
        itself: `WITH "f.csv" AS (SELECT * FROM 'f.csv')` reads the file; a recursive CTE's
        body names itself under its `cte_name`); all are seen after."""
        for entry in entries:
            stack.append((entry.get("value"), ctes))
            ctes = ctes | {str(entry.get("key", "")).lower()}
        return ctes

    def _table_ref(self, node: dict[str, Any], ctes: frozenset[str]) -> None:
        kind = node["type"]
        if kind in _PASS_THROUGH_REFS:
            return
        if kind == "BASE_TABLE":
            self._base_table(node, ctes)
        elif kind == "TABLE_FUNCTION":
            self._table_function(node)
        elif kind == "SHOW_REF":
            self._show(node, ctes)
        else:
            raise RefusedQuery(f"a {kind} table reference is not allowed in a query")

    def _base_table(self, node: dict[str, Any], ctes: frozenset[str]) -> None:
        name = str(node.get("table_name", ""))
        catalog = str(node.get("catalog_name") or "")
        schema = str(node.get("schema_name") or "")
        if not catalog and not schema and name.lower() in ctes:
            return
        if not catalog and schema.lower() in ("", "main") and name.lower() in self.tables:
            return
        qualified = ".".join(part for part in (catalog, schema, name) if part)
        raise RefusedQuery(
            f"{qualified!r} is not a table or view of the collector's database, and only those "
            f"can be read here (tables and views: {', '.join(sorted(self.tables))}); "
            f"{_FILES_REFUSED}"
        )

    def _check_built(self, node: dict[str, Any]) -> None:
        """A scalar call whose result size an argument sets: bounded before it runs."""
        if id(node) in self._table_calls:
            return  # range() in FROM streams its rows: no value is built
        try:
            self._built *= built_size(node)
        except TooLargeValue as error:
            raise RefusedQuery(str(error)) from None
        if self._built > MAX_BUILT_SIZE:
            raise RefusedQuery(
                f"{node['function_name']}(): this query builds values of up to "
                f"{self._built:,} elements or characters (repeat, lpad, rpad, range, "
                f"list_resize, printf widths, multiplied when nested), past the query "
                f"endpoint's limit of {MAX_BUILT_SIZE:,}; use range() in FROM for many rows"
            )

    def _table_function(self, node: dict[str, Any]) -> None:
        function = node.get("function") or {}
        self._table_calls.add(id(function))
        name = str(function.get("function_name", "")).lower()
        qualified = bool(function.get("schema") or function.get("catalog"))
        if name in self.functions and not qualified:
            return
        raise RefusedQuery(
            f"table function {name}() is not allowed through the collector's query endpoint "
            f"(allowed: {', '.join(sorted(self.functions))}); {_FILES_REFUSED}"
        )

    def _show(self, node: dict[str, Any], ctes: frozenset[str]) -> None:
        show_type = node.get("show_type")
        name = str(node.get("table_name") or "")
        if show_type == "SHOW_SPECIAL" and name.lower() in _SHOW_SPECIAL:
            return
        if show_type in ("DESCRIBE", "SUMMARY") and node.get("query") is not None and not name:
            return  # the query under it is walked like any other
        if show_type in ("SHOW", "DESCRIBE", "SUMMARY") and name:
            self._base_table({"table_name": name}, ctes)
            return
        raise RefusedQuery(
            f"SHOW {name or show_type} is not allowed through the collector's query endpoint "
            "(SHOW TABLES, DESCRIBE <table> and SUMMARIZE <table> are)"
        )


def _check_function(name: str) -> None:
    lowered = name.lower()
    if (
        lowered in _REFUSED_FUNCTIONS
        or lowered.startswith(_REFUSED_PREFIXES)
        or ("secret" in lowered)
    ):
        raise RefusedQuery(
            f"function {name}() is not allowed through the collector's query endpoint: it "
            f"reads files, settings, secrets or the server's environment; {_USE_LOCAL}"
        )
