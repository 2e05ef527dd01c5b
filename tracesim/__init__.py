"""tracesim's public facade: `from tracesim import BaseAgent, AgentResponse, ToolCall, instrument`.

This package is the one place that wires collector, simulator and evaluator
together (the CLI and the run pipeline). Heavy names are imported lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

from tracesim.schemas import AgentResponse, ToolCall, ToolCallSource

__all__ = [
    "AgentResponse",
    "BaseAgent",
    "Collector",
    "CustomMetric",
    "InProgressRefused",
    "MetricContext",
    "MetricResult",
    "ToolCall",
    "ToolCallSource",
    "evaluate_db",
    "extract_tool_calls",
    "instrument",
    "merge_tool_calls",
    "metric",
    "stub_function_tools",
    "tool",
]
__version__ = "0.1.0"

_LAZY = {
    "BaseAgent": "tracesim.simulator.agent",
    "instrument": "tracesim.simulator.instrument",
    "Collector": "tracesim.collector.collector",
    "CustomMetric": "tracesim.evaluator",
    "InProgressRefused": "tracesim.evaluate_facade",
    "MetricContext": "tracesim.evaluator",
    "MetricResult": "tracesim.schemas",
    "evaluate_db": "tracesim.evaluate_facade",
    "extract_tool_calls": "tracesim.evaluator",
    "merge_tool_calls": "tracesim.evaluator",
    "metric": "tracesim.evaluator",
    "tool": "tracesim.simulator.stubs",
    "stub_function_tools": "tracesim.simulator.stubs",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'tracesim' has no attribute {name!r}")
