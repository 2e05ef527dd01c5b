"""`CollectorStats`: what a collector did since it started (printed by `tracesim collect`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["CollectorStats"]


@dataclass(frozen=True)
class CollectorStats:
    """What the collector did since it started."""

    spans_stored: int
    logs_stored: int
    rejected_spans: int
    rejected_logs: int
    busy_answers: int
    requests: int
    replayed_requests: int
    pending_bytes: int
    spool_bytes: int
    dead_letters: int = 0
    """Requests and rows that could not be stored, kept in `<db>.deadletter.jsonl`."""
    nulled_values: int = 0
    """Values stored as NULL because they did not fit their column (int64 overflow, ...)."""
    duplicate_items: int = 0
    """Spans and log records not stored because one with the same id was (a resent or
    replayed request, or an id reused with other content: the first stored is kept)."""
    unreadable_items: int = 0
    """Spans and log records stored with their derived fields (keys, hot columns) NULL: an
    attribute had a shape its convention reader could not read."""
    quarantined_ranges: int = 0
    """Damaged stretches of the spool found at start-up, kept in `<spool>.quarantine/`."""
    quarantined_bytes: int = 0
    cut_requests: int = 0
    """Requests (gRPC calls, HTTP connections) closed because they did not arrive whole
    within the read timeout: stalled or slow clients; nothing of them was stored."""

    def as_dict(self) -> dict[str, int]:
        """Plain dict (for printing / JSON)."""
        return asdict(self)
