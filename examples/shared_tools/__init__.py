"""What both example agents share: an in-memory shop, its tools, a deterministic
policy deciding which tools to call, and the OTel setup of the agent process.

No LLM: the policy is a few rules over the conversation, so runs are offline,
free and reproducible, and tests can assert exact tool calls.
"""

from examples.shared_tools.data import Shop, default_shop
from examples.shared_tools.policy import PlannedCall, Turn, plan_turn
from examples.shared_tools.telemetry import (
    BaggageToAttributes,
    RoutingMode,
    extract_context,
    otlp_exporter_from_env,
    tracer_provider,
)
from examples.shared_tools.tools import ToolOutcome, execute_tool, run_turn

__all__ = [
    "BaggageToAttributes",
    "PlannedCall",
    "RoutingMode",
    "Shop",
    "ToolOutcome",
    "Turn",
    "default_shop",
    "execute_tool",
    "extract_context",
    "otlp_exporter_from_env",
    "plan_turn",
    "run_turn",
    "tracer_provider",
]
