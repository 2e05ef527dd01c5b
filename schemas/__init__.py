"""The contract between collector, simulator and evaluator.

Pydantic models, the DuckDB DDL and the attribute names of every span
convention. Imports nothing from the rest of the project.
"""

from tracesim.schemas.config import CollectorConfig, RunConfig, TraceWaitConfig, UserConfig
from tracesim.schemas.conventions import (
    A2A_TOOL_CALL_EXTENSION_URI,
    ADK,
    ARKSIM,
    GENAI,
    LANGCHAIN_MESSAGE,
    LOGFIRE,
    MLFLOW,
    OPENINFERENCE,
    OTEL,
    PLACEHOLDERS,
    TRACELOOP,
    TRACESIM,
    UIPATH,
)
from tracesim.schemas.ddl import SCHEMA_VERSION, create_all
from tracesim.schemas.results import MetricResult
from tracesim.schemas.scenario import Scenario
from tracesim.schemas.span import SPAN_COLUMNS, SpanRecord
from tracesim.schemas.tool_call import AgentResponse, ToolCall, ToolCallSource

__all__ = [
    "A2A_TOOL_CALL_EXTENSION_URI",
    "ADK",
    "ARKSIM",
    "GENAI",
    "LANGCHAIN_MESSAGE",
    "LOGFIRE",
    "MLFLOW",
    "OPENINFERENCE",
    "OTEL",
    "PLACEHOLDERS",
    "SCHEMA_VERSION",
    "SPAN_COLUMNS",
    "TRACELOOP",
    "TRACESIM",
    "UIPATH",
    "AgentResponse",
    "CollectorConfig",
    "MetricResult",
    "RunConfig",
    "Scenario",
    "SpanRecord",
    "ToolCall",
    "ToolCallSource",
    "TraceWaitConfig",
    "UserConfig",
    "create_all",
]
