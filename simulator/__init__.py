"""The simulator: scenarios, simulated users, agent connectors, routing
context injection and agent-side instrumentation (`instrument()`).

It records what it sees as OTel spans sent to the collector and writes
nothing to DuckDB itself. Imports `schemas` only.
"""

__all__: list[str] = []
