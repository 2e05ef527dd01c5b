"""The writer's isolation of bad input: a batch that fails to decode is retried one request
at a time, and rows DuckDB refuses are split out until they stand alone; what still fails
goes to the dead-letter file, counted and logged (the pipeline never stops on a request).

A mixin of `Writer` (`writer.py`), which provides `_prepare`, `_store`, `_dead_letter`
and `stats`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from tracesim.collector.store.store import PreparedBatch
from tracesim.collector.store.writer_batches import DATA_ERRORS, concat
from tracesim.collector.store.writer_items import Item, WriterStats

if TYPE_CHECKING:
    from tracesim.collector.spool.deadletter import DeadLetter
    from tracesim.collector.store.store import Store

__all__ = ["Isolating"]

log = logging.getLogger("tracesim.collector.store.writer")


class Isolating:
    """Prepare and write batches isolating the requests and rows that fail."""

    _store: Store
    _dead_letter: DeadLetter | None
    stats: WriterStats

    def _prepare(self, items: list[Item]) -> PreparedBatch:
        raise NotImplementedError

    def _prepare_isolated(self, items: list[Item]) -> PreparedBatch:
        """`_prepare`, and when it fails, each request on its own: one that still fails goes
        to the dead-letter file (the pipeline never stops on a request)."""
        try:
            return self._prepare(items)
        except Exception:
            log.exception("preparing a batch of %d requests failed; isolating them", len(items))
        parts = []
        for item in items:
            try:
                parts.append(self._prepare([item]))
            except Exception as error:
                self._reject_item(item, f"could not be decoded: {error!r}")
        merged = PreparedBatch()
        for part in parts:  # rows of one request at a time keep their write order
            merged = concat(merged, part)
        return merged

    def _reject_item(self, item: Item, reason: str) -> None:
        """A request that cannot be stored: counted, logged, kept in the dead-letter file."""
        self.stats.failed_requests += 1
        message = item.message
        try:
            if isinstance(message, bytes):
                payload = message
            else:
                payload = message.SerializeToString() if message is not None else b""
        except Exception:  # what could not be decoded may not serialise either
            payload = b""
        item.message = None
        if self._dead_letter is not None:
            self._dead_letter.record(item.seq, item.kind, payload, f"request {item.seq} {reason}")
        else:
            log.error("request %d %s; dropped", item.seq, reason)

    def _write_isolating(
        self, prepared: PreparedBatch, seq: int, partial_seq: int
    ) -> tuple[int, int]:
        """`Store.write`; when the rows themselves fail (DATA_ERRORS), the batch is split
        until the failing rows stand alone, and those go to the dead-letter file. Any other
        failure propagates (the batch stays in the spool). Every part but the last records
        `partial_seq` (the batch is not loaded until its last part is), the last `seq`."""
        try:
            return self._store.write(prepared, seq)
        except DATA_ERRORS as error:
            parts = prepared.split()
            if not parts:
                self._reject_rows(prepared, error)
                if seq != partial_seq:  # the batch is handled: record its position
                    self._store.write(PreparedBatch(), seq)
                return 0, 0
            log.warning("a batch was refused (%s); splitting it to isolate the bad rows", error)
        stored = [
            self._write_isolating(part, seq if last else partial_seq, partial_seq)
            for last, part in ((i == len(parts) - 1, part) for i, part in enumerate(parts))
        ]
        return sum(s for s, _ in stored), sum(n for _, n in stored)

    def _reject_rows(self, prepared: PreparedBatch, error: BaseException) -> None:
        """Rows DuckDB refuses even alone: counted, logged, kept in the dead-letter file."""
        for name, table in prepared.tables():
            for row in table.to_pylist():
                self.stats.dead_rows += 1
                reason = f"{name} row refused by DuckDB: {error}"
                if self._dead_letter is not None:
                    self._dead_letter.row(name, row, reason)
                else:
                    log.error("%s; dropped", reason)
