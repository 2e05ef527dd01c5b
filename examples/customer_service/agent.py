"""The example agent under test: an OpenAI Agents SDK agent behind tracesim's BaseAgent.

It calls `instrument()` once at import: the SDK's traces are bridged to OTel
spans (tool calls included, with the model's call ids) and exported to the
collector `tracesim run` started (`OTEL_EXPORTER_OTLP_ENDPOINT`). By default
it runs the deterministic offline `LocalModel`; `init_kwargs.model:
gpt-4o-mini` in config.yaml switches to OpenAI (needs OPENAI_API_KEY).
"""

from __future__ import annotations

import json
import random
import threading
from typing import Any

from agents import Agent, RunConfig, Runner
from local_model import LocalModel
from tools import TOOLS

from tracesim import AgentResponse, BaseAgent, ToolCall, instrument, stub_function_tools

instrument(service_name="customer-service-agent")

INSTRUCTIONS = (
    "You are the customer-service agent of an online shop. Look up orders, explain "
    "policies, cancel unshipped orders and open refunds. Before cancelling or "
    "refunding, verify the customer's identity with the order's email."
)


VARIANTS = ("v1", "skip_verification")
"""`v1` is the agent as shipped; `skip_verification` a worse version (no identity check)."""

_trial_lock = threading.Lock()
_trials: dict[tuple[int, str], int] = {}


def _slips(seed: int, first_message: str, flaky: float) -> bool:
    """Whether this conversation misreads its first message: the n-th conversation opening
    with `first_message` draws from `Random(f"{seed}:{first_message}:{n}")`, so a run's
    outcomes per scenario are the same whatever order its conversations run in."""
    if flaky <= 0:
        return False
    with _trial_lock:
        n = _trials.get((seed, first_message), 0)
        _trials[(seed, first_message)] = n + 1
    return random.Random(f"{seed}:{first_message}:{n}").random() < flaky


class CustomerServiceAgent(BaseAgent):
    """One SDK conversation; keeps the SDK's input list across turns.

    `variant`, `flaky` and `seed` (config `init_kwargs`, or `--set
    agent_config.init_kwargs.variant=skip_verification`) make the offline model worse
    on purpose, to see `tracesim compare` find a regression, or not call chance one.
    """

    def __init__(
        self,
        model: str | None = None,
        report_tool_calls: bool = False,
        variant: str = "v1",
        flaky: float = 0.0,
        seed: int = 0,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(
                f"init_kwargs.variant: {variant!r} is not one of {', '.join(VARIANTS)}"
            )
        self._local = None if model else LocalModel(skip_verification=variant != "v1")
        self._agent = Agent(
            name="customer_service",
            instructions=INSTRUCTIONS,
            tools=stub_function_tools(TOOLS),  # a replay's tool_stubs answer; else the tools run
            model=model or self._local,
        )
        self._report_tool_calls = report_tool_calls
        self._history: list[Any] = []
        self._flaky = flaky
        self._seed = seed

    async def execute(self, user_query: str, **kwargs: Any) -> str | AgentResponse:
        if not self._history and self._local is not None:
            self._local.slip = _slips(self._seed, user_query, self._flaky)
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
