"""The collector: OTLP receivers (gRPC and HTTP), decoding, routing of spans
to (chat_id, turn_id), and the DuckDB store, the only writer of spans.

Imports `schemas` only; never `simulator` or `evaluator`.
"""

__all__: list[str] = []
