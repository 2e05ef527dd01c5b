"""The restart preload is bounded in bytes at the source (SPEC §9 "memory is bounded in
bytes, whatever the input"): a store holding thousands of long conversation ids is read
back only as far as the router keeps (before, up to `router_capacity`, 1M rows, were
read into Python and then trimmed by the router's byte bound)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import duckdb
from tracesim.collector import Collector
from tracesim.collector.routing.bounded_lru import size_of
from tracesim.collector.store.store import Store

ROWS = 400
CHAT_BYTES = 100_000  # 40 MB of conversation ids in each table
BUDGET = 1 << 20


def _stored(db_path: Path) -> None:
    """A store with ROWS turns and ROWS rule-4 spans (each its own trace and long chat id),
    and ROWS traces still waiting for a turn and a chat."""
    with Collector(db_path, grpc_port=None, http_port=None):
        pass
    con = duckdb.connect(str(db_path))
    try:
        con.execute(
            "INSERT INTO turns (chat_id, turn_id, trace_id, start_time) "
            "SELECT lpad(i::VARCHAR, 6, '0') || repeat('t', ?), 0, printf('%032x', i), "
            "TIMESTAMP '2026-01-01' + to_seconds(i) FROM range(?) t(i)",
            [CHAT_BYTES, ROWS],
        )
        con.execute(
            "INSERT INTO spans (trace_id, span_id, name, start_time, chat_id) "
            "SELECT printf('%032x', i + 100000), printf('%016x', i), 's', "
            "TIMESTAMP '2026-01-01' + to_seconds(i), lpad(i::VARCHAR, 6, '0') || repeat('s', ?) "
            "FROM range(?) t(i)",
            [CHAT_BYTES, ROWS],
        )
        con.execute(
            "INSERT INTO spans (trace_id, span_id, name, start_time) "
            "SELECT printf('%032x', i + 200000), printf('%016x', i), 'u', TIMESTAMP '2026-01-01' "
            "FROM range(?) t(i)",
            [ROWS * 100],
        )
    finally:
        con.close()


def _charged(rows: list[tuple]) -> int:
    return sum(size_of(row[0], tuple(row[1:])) for row in rows)


def test_the_store_reads_back_only_what_fits_the_routers_bytes(tmp_path: Path) -> None:
    db_path = tmp_path / "t.duckdb"
    _stored(db_path)
    store = Store(db_path)
    try:
        turns = store.known_turns(1_000_000, BUDGET)
        sessions, unkeyed, unkeyed_complete = store.trace_sessions(1_000_000, BUDGET)
        waiting, waiting_complete = store.waiting_traces(1_000_000, BUDGET)
        everything = store.known_turns(1_000_000)
    finally:
        store.con.close()
    assert 0 < _charged(turns) <= BUDGET and 0 < _charged(sessions) <= BUDGET
    assert len(everything) == ROWS  # without a budget, as before
    # the newest come back, oldest first (the router keeps the last put)
    assert turns == everything[-len(turns):]
    assert sessions[0][0] == f"{ROWS - 1 + 100000:032x}"
    assert sum(size_of(t, None) for t in unkeyed) <= BUDGET and not unkeyed_complete
    assert sum(size_of(t, None) for t in waiting) <= BUDGET and not waiting_complete
    assert len(unkeyed) < ROWS * 100


def test_a_restart_reads_no_more_than_the_router_keeps(tmp_path: Path) -> None:
    db_path = tmp_path / "t.duckdb"
    _stored(db_path)
    tracemalloc.start()
    try:
        with Collector(db_path, grpc_port=None, http_port=None, router_max_bytes=BUDGET) as c:
            peak = tracemalloc.get_traced_memory()[1]
            router = c._writer._router  # type: ignore[union-attr]
            held = router.bytes_held
            overflow = router.waiting_overflow and router.unkeyed_overflow
    finally:
        tracemalloc.stop()
    assert held <= 4 * BUDGET
    assert overflow  # what was not read is known to be missing: back-fill checks the store
    assert peak < 4 * BUDGET + (16 << 20), f"{peak / 1e6:.0f} MB read at start"
