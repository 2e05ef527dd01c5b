"""Deeply nested but valid SQL through the query endpoint (SPEC §9): the guard walks any
depth DuckDB's parser accepts without Python's recursion limit, and what is too deep for
either answers 400 "query too deeply nested", never 500."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from tracesim.collector import Collector, check_safe_for_endpoint

from tests.collector.test_query_guard import TABLES


def _case(depth: int) -> str:
    sql = "1"
    for _ in range(depth):
        sql = f"CASE WHEN 1 = 1 THEN {sql} ELSE 0 END"
    return f"SELECT {sql} AS v"


DEEP = {
    "case": _case(400),
    "plus": "SELECT " + "+".join(["1"] * 400) + " AS v",
    "lists": "SELECT " + "[" * 400 + "1" + "]" * 400 + " AS v",
    "subqueries": "SELECT " + "(SELECT " * 120 + "1" + ")" * 120 + " AS v",
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_the_guard_walks_deep_queries_without_recursing(name: str) -> None:
    try:
        check_safe_for_endpoint(DEEP[name], allowed_tables=TABLES)
    except Exception as error:  # a refusal is fine; a RecursionError (or any other) is not
        assert type(error).__name__ == "RefusedQuery", repr(error)
        assert "too deeply nested" in str(error)


def test_deeper_than_the_parser_allows_says_too_deeply_nested() -> None:
    with pytest.raises(Exception, match="query too deeply nested") as raised:
        check_safe_for_endpoint(_case(2000), allowed_tables=TABLES)
    assert type(raised.value).__name__ == "RefusedQuery"


def test_a_file_read_deep_inside_is_still_refused() -> None:
    inner = "(SELECT content FROM read_text('/etc/passwd'))"
    sql = "SELECT " + "+".join(["1"] * 300) + f" + length({inner}) AS v"
    with pytest.raises(Exception, match="not allowed") as raised:
        check_safe_for_endpoint(sql, allowed_tables=TABLES)
    assert type(raised.value).__name__ == "RefusedQuery"


def test_the_endpoint_answers_deep_queries_or_400_never_500(db_path: Path) -> None:
    with Collector(db_path, grpc_port=None, http_port=0) as collector:
        url = f"{collector.http_endpoint}/tracesim/query"
        for name, sql in DEEP.items():
            answer = httpx.post(url, json={"sql": sql}, timeout=60)
            assert answer.status_code in (200, 400), (name, answer.status_code, answer.text)
            if answer.status_code == 400:
                assert "too deeply nested" in answer.json()["message"], (name, answer.text)
            else:
                value = answer.json()["rows"][0][0]
                assert value in (1, 400) or "nested more than 200 levels" in str(value), (
                    name,
                    value,
                )
        text = "SELECT CAST(" + DEEP["lists"].removeprefix("SELECT ").removesuffix(" AS v")
        answer = httpx.post(url, json={"sql": text + " AS VARCHAR) AS v"}, timeout=60)
        assert answer.json()["rows"][0][0] == "[" * 400 + "1" + "]" * 400
        assert httpx.post(url, json={"sql": "SELECT 1 AS v"}).json()["rows"] == [[1]]
