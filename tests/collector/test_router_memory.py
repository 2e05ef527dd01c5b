"""The router's trace maps are bounded in bytes (SPEC §9 "caches keyed by client-chosen
values are bounded by size"): 250 distinct 500 KB conversation ids do not stay in memory
(before, up to 1M ids were kept as sent: +749 MB after everything was committed)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from tracesim.collector import Collector
from tracesim.collector.routing.bounded_lru import BoundedLru, size_of
from tracesim.collector.routing.routing import Router
from tracesim.collector.routing.routing_keys import RULE_NONE, RULE_SESSION

from tests.collector.otlp import GrpcClient, new_trace_id, span, trace_request

BUDGET = 4 << 20


def _route_one(router: Router, trace_id: str, chat: str | None, rule: int) -> str | None:
    columns = {"trace_id": [trace_id], "chat_id": [chat], "turn_id": [None]}
    router.route(columns, [rule])
    return columns["chat_id"][0]


def test_long_conversation_ids_are_not_kept_past_the_byte_bound() -> None:
    router = Router(max_bytes=BUDGET)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for index in range(250):
            chat = f"{index:04d}" + "s" * 500_000
            trace_id = f"{index:032x}"
            _route_one(router, trace_id, chat, RULE_SESSION)  # rule 4 learned
            router.learn(trace_id, chat, 0)  # and a turn span's key
            router.session_backfill_targets()  # what the writer does after each batch
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert router.bytes_held <= 4 * BUDGET + 2 * 500_500
    assert held < 4 * BUDGET + (8 << 20), f"{held / 1e6:.0f} MB kept by the router"
    last = f"{249:032x}"  # the newest conversations still route
    assert _route_one(router, last, None, RULE_NONE) == "0249" + "s" * 500_000


def test_the_byte_accounting_follows_puts_replacements_and_pops() -> None:
    lru = BoundedLru(capacity=10, max_bytes=3_000)
    lru.put("a", "x" * 1_000)
    lru.put("a", "y")  # replaced: charged once, for the new value
    assert lru.bytes == size_of("a", "y")
    assert lru.put("b", ("é" * 500, 1)) is False  # non-ASCII text charged 4 bytes a character
    assert lru.bytes == size_of("a", "y") + size_of("b", ("é" * 500, 1))
    assert lru.put("c", "z" * 1_000) is True  # past 3,000 bytes: the oldest went
    assert "a" not in lru and "b" not in lru and "c" in lru
    assert lru.pop("c") == "z" * 1_000 and lru.bytes == 0 and len(lru) == 0
    lru.put("huge", "h" * 10_000)  # one entry past the bound is kept (it is the newest)
    assert len(lru) == 1


def test_a_collector_keeps_its_router_within_bounds(db_path: Path) -> None:
    with Collector(db_path, grpc_port=0, http_port=None, router_max_bytes=1 << 20) as running:
        client = GrpcClient(running.grpc_endpoint)
        try:
            for index in range(12):
                chat = f"{index}-" + "c" * 200_000
                client.export(
                    trace_request(
                        [span(f"s{index}", trace_id=new_trace_id(), attrs={"session.id": chat})]
                    )
                )
        finally:
            client.close()
        assert running.flush(30)
        router = running._writer._router  # type: ignore[union-attr]
        assert router.bytes_held <= 4 * ((1 << 20) + 200_300)
        rows = running.query("SELECT count(*), count(DISTINCT chat_id) FROM spans")[1]
    assert rows == [[12, 12]]


def test_rows_without_a_trace_id_are_routed_as_before() -> None:
    """Log records may have no trace id: the byte accounting takes a None key."""
    router = Router(max_bytes=BUDGET)
    columns = {"trace_id": [None, None], "chat_id": ["c", None], "turn_id": [None, None]}
    router.route(columns, [1, RULE_NONE])
    assert columns["chat_id"] == ["c", None]
