"""The example agent under test: an OpenAI Agents SDK agent behind tracesim's BaseAgent.

It calls `instrument()` once at import: the SDK's traces are bridged to OTel
spans (tool calls included, with the model's call ids) and exported to the
collector `tracesim run` started (`OTEL_EXPORTER_OTLP_ENDPOINT`). By default
it runs the deterministic offline `LocalModel`; `init_kwargs.model:
gpt-4o-mini` in config.yaml switches to OpenAI (needs OPENAI_API_KEY).
"""

from __future__ import annotations

import json
from typing import Any

from agents import Agent, RunConfig, Runner
from local_model import LocalModel
from tools import TOOLS

from tracesim import AgentResponse, BaseAgent, ToolCall, instrument

instrument(service_name="customer-service-agent")

INSTRUCTIONS = (
    "You are the customer-service agent of an online shop. Look up orders, explain "
    "policies, cancel unshipped orders and open refunds. Before cancelling or "
    "refunding, verify the customer's identity with the order's email."
)


class CustomerServiceAgent(BaseAgent):
    """One SDK conversation; keeps the SDK's input list across turns."""

    def __init__(self, model: str | None = None, report_tool_calls: bool = False) -> None:
        self._agent = Agent(
            name="customer_service",
            instructions=INSTRUCTIONS,
            tools=TOOLS,
            model=model or LocalModel(),
        )
        self._report_tool_calls = report_tool_calls
        self._history: list[Any] = []

    async def execute(self, user_query: str, **kwargs: Any) -> str | AgentResponse:
        # group_id is the SDK's conversation id: traced as gen_ai.conversation.id, so the
        # same agent in production is keyed by conversation without tracesim (SPEC §3).
        result = await Runner.run(
            self._agent,
            [*self._history, {"role": "user", "content": user_query}],
            run_config=RunConfig(group_id=await self.get_chat_id()),
        )
        self._history = result.to_input_list()
        reply = str(result.final_output)
        if not self._report_tool_calls:
            return reply  # tool calls are captured from the traces
        return AgentResponse(content=reply, tool_calls=_tool_calls(result.new_items))


def _tool_calls(items: list[Any]) -> list[ToolCall]:
    """The turn's tool calls from the SDK's run items (explicit capture)."""
    calls: dict[str, ToolCall] = {}
    for item in items:
        raw = getattr(item, "raw_item", None)
        if item.type == "tool_call_item" and getattr(raw, "type", None) == "function_call":
            calls[raw.call_id] = ToolCall(
                id=raw.call_id, name=raw.name, arguments=json.loads(raw.arguments or "{}")
            )
        elif item.type == "tool_call_output_item":
            call_id = raw.get("call_id") if isinstance(raw, dict) else getattr(raw, "call_id", "")
            if call_id in calls:
                calls[call_id].result = str(item.output)
    return list(calls.values())
