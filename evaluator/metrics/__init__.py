"""Deterministic tool-call metrics (SPEC §7): no LLM, pure functions.

Each takes the actual calls (a list of `ToolCall`) and, where it compares,
the expected ones (ToolCalls or mappings `{"name", "args", "output",
"arg_match_mode"}`), and returns a `MetricResult`. A value of None means
"could not grade" (each module says when), never 0.
"""

from evaluator.metrics.args import tool_call_args
from evaluator.metrics.count import tool_call_count
from evaluator.metrics.errors import tool_error_rate
from evaluator.metrics.expected import ExpectedCall, expected_calls
from evaluator.metrics.latency import tool_latency
from evaluator.metrics.order import tool_call_order
from evaluator.metrics.output import tool_call_output
from evaluator.metrics.trajectory import trajectory

__all__ = [
    "ExpectedCall",
    "expected_calls",
    "tool_call_args",
    "tool_call_count",
    "tool_call_order",
    "tool_call_output",
    "tool_error_rate",
    "tool_latency",
    "trajectory",
]
