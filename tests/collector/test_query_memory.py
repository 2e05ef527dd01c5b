"""Queries through the endpoint stay within a memory bound whatever they compute (SPEC §9):
values a function would build from a number (`repeat('x', 1000000000)`, `range(50000000)`)
are refused before running; growth DuckDB's buffer limit does not see (a recursive CTE
doubling a string) stops the query at `query_memory_bytes`; the collector keeps serving
and storing throughout."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, span, trace_request

DOUBLING = (
    "WITH RECURSIVE r(s, n) AS (SELECT 'x', 0 UNION ALL SELECT s || s, n + 1 FROM r "
    "WHERE n < 40) SELECT max(length(s)) FROM r"
)


@pytest.fixture
def small(db_path: Path) -> Collector:
    with Collector(
        db_path, grpc_port=0, http_port=0, query_timeout=120, query_memory_bytes=128 << 20
    ) as running:
        yield running  # type: ignore[misc]


def _ask(running: Collector, sql: str) -> httpx.Response:
    return httpx.post(f"{running.http_endpoint}/tracesim/query", json={"sql": sql}, timeout=180)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT len(range(50000000))",
        "SELECT repeat('x', 1000000000)",
        "SELECT list(range(200000000))",
        "SELECT length(lpad('', 2000000000, 'x'))",
        "SELECT len(list_resize([1], 100000000))",
        "SELECT repeat(repeat('x', 1000), 1000)",
        "SELECT repeat(name, 100000) FROM spans",
        "SELECT printf('%900000000d', 1)",
        "SELECT printf('%*d', 900000000, 1)",
        "SELECT format('{:>{}}', 'x', 900000000)",
        "SELECT printf('%*d', len(name) * 100000000, 1) FROM spans",
    ],
)
def test_values_built_from_a_number_are_bounded_before_running(small: Collector, sql: str) -> None:
    answer = _ask(small, sql)
    assert answer.status_code == 400, answer.text
    assert "query endpoint" in answer.json()["message"]


def test_small_built_values_and_streamed_ranges_still_run(small: Collector) -> None:
    assert _ask(small, "SELECT len(range(1000)), repeat('ab', 3)").json()["rows"] == [
        [1000, "ababab"]
    ]
    assert _ask(small, "SELECT count(*) FROM range(3000000)").json()["rows"] == [[3000000]]


def test_growth_outside_the_buffer_limit_stops_the_query_not_the_collector(
    small: Collector,
) -> None:
    answer = _ask(small, DOUBLING)
    assert answer.status_code == 400, answer.text
    assert "memory" in answer.json()["message"]
    client = GrpcClient(small.grpc_endpoint)
    try:
        client.export(trace_request([span("after-the-query")]))
    finally:
        client.close()
    rows = _ask(small, "SELECT name FROM spans").json()["rows"]
    assert rows == [["after-the-query"]]
    assert small._query_memory.trips == 1


def _peak_resident() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


@pytest.mark.parametrize(
    "sql",
    [
        DOUBLING,
        "WITH RECURSIVE r(s, n) AS (SELECT [1], 0 UNION ALL SELECT list_concat(s, s), n + 1 "
        "FROM r WHERE n < 40) SELECT max(len(s)) FROM r",
    ],
)
def test_the_memory_bound_holds_with_the_step_in_flight(small: Collector, sql: str) -> None:
    """DuckDB sees an interrupt only between vectors, so the step in flight completes: the
    watch trips early enough for it (before: the doubling string peaked at 146 MB for a
    128 MiB = 134 MB limit). The process's peak is reset, then read (Linux)."""
    from tracesim.collector.query.query_memory import resident_bytes

    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")  # resets VmHWM to the current resident size
    except OSError:
        pytest.skip("cannot reset the peak resident size here")
    baseline = resident_bytes()
    assert baseline is not None
    answer = _ask(small, sql)
    assert answer.status_code == 400 and "memory" in answer.json()["message"]
    grown = _peak_resident() - baseline
    assert grown <= small._query_memory.limit, f"peaked {grown / 1e6:.0f} MB over the start"


QUADRUPLING = (
    "WITH RECURSIVE r(s, n) AS (SELECT 'x', 0 UNION ALL SELECT s || s || s || s, n + 1 "
    "FROM r WHERE n < 40) SELECT max(length(s)) FROM r"
)


@pytest.mark.parametrize(
    "sql",
    [
        QUADRUPLING,
        QUADRUPLING.replace("s || s || s || s", "(s || s) || (s || s)"),
        QUADRUPLING.replace("s || s || s || s", "concat(r.s, s, s)"),
        QUADRUPLING.replace("'x'", "['x']").replace("s || s || s || s", "list_concat(s, s || s)"),
    ],
    ids=["chain", "tree", "concat", "lists"],
)
def test_a_recursive_step_copying_a_value_more_than_twice_is_refused(
    small: Collector, sql: str
) -> None:
    """A step that quadruples a value (with its intermediates, 9x what it held) ends past
    any trip point of the watch (169 MB for a 128 MiB limit): refused before it runs."""
    answer = _ask(small, sql)
    assert answer.status_code == 400, answer.text
    assert "concatenates one value" in answer.json()["message"]


def test_concatenations_that_do_not_multiply_a_value_still_run(small: Collector) -> None:
    paths = (
        "WITH RECURSIVE r(p, n) AS (SELECT 'a', 0 UNION ALL SELECT p || '/' || 'b' || "
        "CAST(n AS VARCHAR), n + 1 FROM r WHERE n < 3) SELECT max(p) FROM r"
    )
    assert _ask(small, paths).json()["rows"] == [["a/b0/b1/b2"]]
    three = "SELECT 'x' || 'y' || 'z', concat('a', 'a', 'a')"  # not recursive: one step
    assert _ask(small, three).json()["rows"] == [["xyz", "aaa"]]
    chain = "SELECT length(" + " || ".join(["'ab'"] * 900) + ")"  # counted once, not per link
    assert _ask(small, chain).json()["rows"] == [[1800]]
