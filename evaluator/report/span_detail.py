"""What the span inspector shows when a waterfall bar is clicked: ids, kind, status,
scope, attributes, events, links and resource of each drawn span.

JSON columns are embedded as clipped text (`MAX_DETAIL` characters each) that the
page parses when it can; a turn's resources are stored once and referenced by index
(every span of one process repeats the same resource).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tracesim.evaluator.report.shape import clip_sql

__all__ = ["DETAIL_COLUMNS", "MAX_DETAIL", "TurnSpanDetails"]

MAX_DETAIL = 3000
"""Longest attributes / events / links / resource text embedded per span."""

DETAIL_COLUMNS = ", ".join(
    [
        "span_id",
        "trace_id",
        "parent_span_id",
        "kind",
        "status_code",
        "status_message",
        "scope_name",
        *(
            clip_sql(f"{col}::VARCHAR", MAX_DETAIL)
            for col in ("attributes", "events", "links", "resource_attributes")
        ),
    ]
)
"""The `_SPANS` query's trailing columns, in the order `TurnSpanDetails` reads them."""


@dataclass
class TurnSpanDetails:
    """One turn's inspector records: `raw` is filled by `shape.span_tree` in draw order."""

    raw: list[tuple[Any, ...]] = field(default_factory=list)

    def shaped(self) -> tuple[list[list[Any]], list[str]]:
        """(per span [span_id, trace_id, parent, kind, status, status message, scope,
        attributes, events, links, resource index], the turn's distinct resources)."""
        resources: dict[str, int] = {}
        out = []
        for (
            span_id,
            trace_id,
            parent,
            kind,
            status,
            message,
            scope,
            attrs,
            events,
            links,
            res,
        ) in self.raw:
            index = resources.setdefault(res, len(resources)) if res else None
            out.append(
                [
                    span_id,
                    trace_id,
                    parent,
                    kind,
                    status,
                    message,
                    scope,
                    attrs,
                    events,
                    links,
                    index,
                ]
            )
        return out, list(resources)
