"""`tracesim inspect`: what tracesim understood of a capture, and the SQL it runs."""

from tracesim.evaluator.inspect.inspect import (
    CONVENTION_PREFIXES,
    GroupReport,
    Inspection,
    UnkeyedToolSpan,
    count_unkeyed_tool_spans,
    format_inspection,
    inspect_db,
    unkeyed_tool_spans,
    unkeyed_warning,
)
from tracesim.evaluator.inspect.inspect_sql import INSPECT_SQL

__all__ = [
    "CONVENTION_PREFIXES",
    "GroupReport",
    "INSPECT_SQL",
    "Inspection",
    "UnkeyedToolSpan",
    "count_unkeyed_tool_spans",
    "format_inspection",
    "inspect_db",
    "unkeyed_tool_spans",
    "unkeyed_warning",
]
