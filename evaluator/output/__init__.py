"""What an evaluation writes: store rows, results.json and its model, run and terminal summaries."""

from tracesim.evaluator.output.output import (
    SCORES_SCHEMA,
    TOOL_CALLS_SCHEMA,
    ScoreColumns,
    ToolCallColumns,
    tool_call_rows,
    write_chunk,
    write_run,
)
from tracesim.evaluator.output.results_file import (
    ResultsWriter,
    failure_details,
    read_results,
    summarize,
)
from tracesim.evaluator.output.results_model import (
    RESULTS_SCHEMA_VERSION,
    ConversationResult,
    EvaluationReport,
    MetricSummary,
    RunSummary,
    TurnResult,
)
from tracesim.evaluator.output.rollup import assertion_counts, run_summary
from tracesim.evaluator.output.summary import MAX_CONVERSATION_ROWS, gate_verdict, print_summary

__all__ = [
    "ConversationResult",
    "EvaluationReport",
    "MAX_CONVERSATION_ROWS",
    "MetricSummary",
    "RESULTS_SCHEMA_VERSION",
    "ResultsWriter",
    "RunSummary",
    "SCORES_SCHEMA",
    "ScoreColumns",
    "TOOL_CALLS_SCHEMA",
    "ToolCallColumns",
    "TurnResult",
    "assertion_counts",
    "failure_details",
    "gate_verdict",
    "print_summary",
    "read_results",
    "run_summary",
    "summarize",
    "tool_call_rows",
    "write_chunk",
    "write_run",
]
