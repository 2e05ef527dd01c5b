"""Deterministic tool-call metrics (SPEC §7): no LLM, pure functions.

Each takes the actual calls (a list of `ToolCall`) and, where it compares,
the expected ones (tool names, ToolCalls or mappings `{"name", "args",
"output", "arg_mode", "id", "group"}`), and returns a `MetricResult`. A
value of None means "could not grade" (no expectation given, each module
says when), never 0; an explicit `[]` means "call no tool". One vocabulary
(`vocabulary`): `arg_mode`, `order`, `all_or_nothing`, `arg_matchers`.
"""

from tracesim.evaluator.metrics.aggregate import aggregate
from tracesim.evaluator.metrics.argmatch import IGNORE, fuzzy, normalized, regex, tolerance
from tracesim.evaluator.metrics.args import tool_call_args
from tracesim.evaluator.metrics.count import tool_call_count
from tracesim.evaluator.metrics.errors import tool_error_rate
from tracesim.evaluator.metrics.expected import ExpectedCall, ExpectedCallError, expected_calls
from tracesim.evaluator.metrics.f1 import tool_call_f1
from tracesim.evaluator.metrics.info import tool_call_stats
from tracesim.evaluator.metrics.latency import tool_latency
from tracesim.evaluator.metrics.order import tool_call_order
from tracesim.evaluator.metrics.output import tool_call_output
from tracesim.evaluator.metrics.trajectory import trajectory
from tracesim.evaluator.metrics.vocabulary import (
    ARG_MODES,
    ORDERS,
    VocabularyError,
    normalize_name,
    resolve_arg_mode,
    resolve_order,
)

__all__ = [
    "ARG_MODES",
    "IGNORE",
    "ORDERS",
    "ExpectedCall",
    "ExpectedCallError",
    "VocabularyError",
    "aggregate",
    "expected_calls",
    "fuzzy",
    "normalize_name",
    "normalized",
    "regex",
    "resolve_arg_mode",
    "resolve_order",
    "tolerance",
    "tool_call_f1",
    "tool_call_stats",
    "tool_call_args",
    "tool_call_count",
    "tool_call_order",
    "tool_call_output",
    "tool_error_rate",
    "tool_latency",
    "trajectory",
]
