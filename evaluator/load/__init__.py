"""Reading a stored capture: conversations in bounded chunks, span logs, traced-only turns."""

from tracesim.evaluator.load.fetch import ChunkTables, fetch_chunk
from tracesim.evaluator.load.load import (
    EXTRACTION_SPAN_COLUMNS,
    ChunkPlan,
    ConversationData,
    DecodedSpans,
    assemble_chunk,
    decode_spans,
    explicit_calls,
    load_chunk,
    load_conversations,
    parse_json,
    plan_chunks,
)
from tracesim.evaluator.load.load_logs import attach_logs, has_span_logs
from tracesim.evaluator.load.traced import derive_trace_turns

__all__ = [
    "ChunkPlan",
    "ChunkTables",
    "ConversationData",
    "DecodedSpans",
    "EXTRACTION_SPAN_COLUMNS",
    "assemble_chunk",
    "attach_logs",
    "decode_spans",
    "derive_trace_turns",
    "explicit_calls",
    "fetch_chunk",
    "has_span_logs",
    "load_chunk",
    "load_conversations",
    "parse_json",
    "plan_chunks",
]
