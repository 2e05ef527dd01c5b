"""An OpenAI Agents SDK agent with two function tools, traced by logfire's openai-agents integration.

`logfire.configure(send_to_logfire=False)` exports over OTLP to
OTEL_EXPORTER_OTLP_ENDPOINT; `logfire.instrument_openai_agents()` turns the SDK's own
traces and spans into OTel spans. The SDK's default exporter (to the vendor's platform)
is removed with set_trace_processors([]). The conversation is the SDK's trace group_id.
"""

import os

import logfire
from agents import (
    Agent,
    RunConfig,
    Runner,
    function_tool,
    set_default_openai_client,
    set_trace_processors,
)
from openai import AsyncOpenAI

logfire.configure(send_to_logfire=False, service_name=os.environ["TSREC_VARIANT"], console=False)
logfire.instrument_openai_agents()
set_trace_processors([])
set_default_openai_client(
    AsyncOpenAI(base_url=os.environ["MODEL_BASE_URL"], api_key="sk-local"), use_for_tracing=False
)


@function_tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return "Sunny, 21 C in " + city


@function_tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    raise ValueError(f"order {order_id} not found")


agent = Agent(
    name="conformance_agent",
    instructions="Answer with the tools.",
    model="scripted",
    tools=[get_weather, lookup_order],
)
result = Runner.run_sync(
    agent,
    "Weather in Paris twice, then order A1?",
    run_config=RunConfig(group_id="conv-42", workflow_name="conformance"),
)
print(result.final_output)
logfire.force_flush()
