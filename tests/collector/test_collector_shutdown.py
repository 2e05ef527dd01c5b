"""Collector.shutdown: concurrent calls tear down once; the store outlives its writer."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import duckdb
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, span, trace_request

SAFETY = 60.0  # only so a broken build fails instead of hanging; never reached when fixed


def _stored(db_path: Path) -> int:
    with duckdb.connect(str(db_path), read_only=True) as con:
        return con.execute("SELECT count(*) FROM spans").fetchone()[0]


def _started_with_pending_spans(db_path: Path, count: int) -> Collector:
    """A collector holding `count` acknowledged spans its writer has not committed yet."""
    collector = Collector(db_path, grpc_port=0, http_port=None, batch_seconds=3600).start()
    client = GrpcClient(collector.grpc_endpoint)
    client.export(trace_request([span(f"s{i}") for i in range(count)]))
    client.close()
    return collector


def _in_thread(target: Any, errors: list[BaseException]) -> threading.Thread:
    def run() -> None:
        try:
            target()
        except BaseException as error:  # reported by the test
            errors.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_concurrent_shutdowns_tear_down_once(db_path: Path) -> None:
    collector = _started_with_pending_spans(db_path, 20)
    second_arrived = threading.Event()
    closes: list[int] = []
    real_close = collector._ingest.close

    def first_close_waits_for_the_other_caller() -> None:
        closes.append(1)
        if len(closes) == 1:
            second_arrived.wait(SAFETY)
        else:
            second_arrived.set()
        real_close()

    class ArrivalEvent(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            second_arrived.set()  # the other caller now waits for the teardown
            return super().wait(timeout)

    collector._ingest.close = first_close_waits_for_the_other_caller  # type: ignore[method-assign]
    collector._torn_down = ArrivalEvent()
    errors: list[BaseException] = []
    threads = [_in_thread(collector.shutdown, errors) for _ in range(2)]
    for thread in threads:
        thread.join(SAFETY)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    assert len(closes) == 1, "the teardown ran twice"
    assert _stored(db_path) == 20


class _OnError(logging.Handler):
    def __init__(self, event: threading.Event) -> None:
        super().__init__(logging.ERROR)
        self.event = event
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
        self.event.set()


def test_store_is_not_closed_under_a_writer_that_outlives_the_timeout(db_path: Path) -> None:
    collector = _started_with_pending_spans(db_path, 20)
    store = collector._store
    assert store is not None
    release, written, stuck_or_closed = threading.Event(), threading.Event(), threading.Event()
    real_write, real_close = store.write, store.close
    closed_after_write: list[bool] = []

    def slow_write(*args: Any, **kwargs: Any) -> Any:
        release.wait(SAFETY)
        result = real_write(*args, **kwargs)
        written.set()
        return result

    def recording_close() -> None:
        closed_after_write.append(written.is_set())
        stuck_or_closed.set()
        real_close()

    store.write = slow_write  # type: ignore[method-assign]
    store.close = recording_close  # type: ignore[method-assign]
    handler = _OnError(stuck_or_closed)
    logger = logging.getLogger("tracesim.collector.collector")
    logger.addHandler(handler)
    try:
        errors: list[BaseException] = []
        stopping = _in_thread(lambda: collector.shutdown(timeout=0.01), errors)
        assert stuck_or_closed.wait(SAFETY)
        release.set()
        stopping.join(SAFETY)
    finally:
        logger.removeHandler(handler)
    assert not stopping.is_alive() and errors == []
    assert closed_after_write == [True], "the store was closed while the writer was writing"
    assert any("still committing" in message for message in handler.messages)
    assert _stored(db_path) == 20
