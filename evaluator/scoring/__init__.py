"""Scores from results: turn success and status, tallies, gates and exit codes, methodology."""

from tracesim.evaluator.scoring.gates import (
    TOOL_METRICS,
    EvalConfigError,
    ExitCode,
    GateResult,
    check_gate_names,
    evaluate_gates,
    exit_code_for,
)
from tracesim.evaluator.scoring.methodology import METHODOLOGY, SEVERITY_LEVELS, methodology_for
from tracesim.evaluator.scoring.scoring import (
    ARKSIM_STATUS,
    FAILED_TURN_STATUSES,
    STATUS_DONE,
    STATUS_FAILED,
    STATUS_NOT_GRADED,
    STATUS_PARTIAL,
    clamp,
    conversation_scores,
    status_of,
    turn_success,
)
from tracesim.evaluator.scoring.tally import GateStats, MetricTally, tally_values

__all__ = [
    "ARKSIM_STATUS",
    "EvalConfigError",
    "ExitCode",
    "FAILED_TURN_STATUSES",
    "GateResult",
    "GateStats",
    "METHODOLOGY",
    "MetricTally",
    "SEVERITY_LEVELS",
    "STATUS_DONE",
    "STATUS_FAILED",
    "STATUS_NOT_GRADED",
    "STATUS_PARTIAL",
    "TOOL_METRICS",
    "check_gate_names",
    "clamp",
    "conversation_scores",
    "evaluate_gates",
    "exit_code_for",
    "methodology_for",
    "status_of",
    "tally_values",
    "turn_success",
]
