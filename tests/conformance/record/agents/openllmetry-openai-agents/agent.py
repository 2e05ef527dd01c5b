"""An OpenAI Agents SDK agent with two function tools, traced by OpenLLMetry.

traceloop-sdk's openai-agents instrumentation (plus the openai one underneath). The
SDK's own exporter to the vendor platform is removed with set_trace_processors([]) before
Traceloop.init() adds the instrumentation's processor.
The session id is an association property; the SDK's trace group_id is the same value.
"""

import os

from agents import (
    Agent,
    RunConfig,
    Runner,
    function_tool,
    set_default_openai_client,
    set_trace_processors,
)
from openai import AsyncOpenAI
from opentelemetry import trace
from traceloop.sdk import Traceloop

set_trace_processors([])  # before init: the instrumentation adds its own trace processor
Traceloop.init(
    app_name=os.environ["TSREC_VARIANT"],
    api_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    telemetry_enabled=False,
    disable_batch=False,
)
Traceloop.set_association_properties({"session_id": "conv-42"})
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
trace.get_tracer_provider().force_flush()
