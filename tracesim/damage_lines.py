"""What a collector or an import could not store as sent, one line each (said by `collect`
and `import` alike): damaged spool bytes, dead letters, unreadable shapes, repeated span
ids, values out of range, requests cut for arriving too slowly."""

from __future__ import annotations

from tracesim.collector.stats import CollectorStats
from tracesim.shown import shown

__all__ = ["damage_lines"]


def damage_lines(stats: CollectorStats, db_path: str) -> list[str]:
    """What could not be stored as sent: damaged spool bytes, dead letters, nulled values."""
    lines = []
    if stats.quarantined_ranges:
        lines.append(
            f"spool: {stats.quarantined_ranges} damaged stretch(es), "
            f"{stats.quarantined_bytes} bytes, kept in {shown(f'{db_path}.spool.quarantine/')}"
        )
    if stats.dead_letters:
        lines.append(
            f"dead letters: {stats.dead_letters} request(s) or row(s) could not be stored; "
            f"kept in {shown(f'{db_path}.deadletter.jsonl')}"
        )
    if stats.unreadable_items:
        lines.append(
            f"{stats.unreadable_items} span(s)/log record(s) stored with chat, turn, operation, "
            "tool, model or tokens NULL: an attribute had a shape its convention does not use"
        )
    if stats.duplicate_items:
        lines.append(
            f"{stats.duplicate_items} span(s)/log record(s) not stored: their id was stored "
            "already (a resent request, or an id reused with other content; the first is kept)"
        )
    if stats.nulled_values:
        lines.append(f"{stats.nulled_values} value(s) out of range for their column stored as NULL")
    if stats.cut_requests:
        lines.append(
            f"{stats.cut_requests} request(s) cut: not received whole within the read timeout "
            "(stalled or slow clients; nothing of them stored)"
        )
    return lines
