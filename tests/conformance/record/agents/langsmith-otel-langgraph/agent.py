"""A LangGraph prebuilt ReAct agent traced by the LangSmith SDK in OpenTelemetry mode.

LANGSMITH_TRACING=true with LANGSMITH_TRACING_MODE=otel (set in expected.json) makes
LangSmith send its runs as OTLP spans to OTEL_EXPORTER_OTLP_ENDPOINT instead of to
LangSmith. The conversation is the LangGraph thread id, which LangSmith groups threads
by (metadata thread_id).
"""

import os

from langchain_core.tools import tool
from langchain_core.tracers.langchain import wait_for_all_tracers
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import create_react_agent
from langsmith import Client
from opentelemetry import trace


@tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return "Sunny, 21 C in " + city


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    raise ValueError(f"order {order_id} not found")


model = ChatOpenAI(model="scripted", base_url=os.environ["MODEL_BASE_URL"], api_key="sk-local")
agent = create_react_agent(model, [get_weather, lookup_order], name="conformance_agent")
try:
    result = agent.invoke(
        {"messages": [("user", "Weather in Paris twice, then order A1?")]},
        config={"configurable": {"thread_id": "conv-42"}},
    )
    print(result["messages"][-1].content)
except ValueError as exc:
    print("run stopped by the tool's exception:", exc)
wait_for_all_tracers()
Client().flush()
provider = trace.get_tracer_provider()
if hasattr(provider, "force_flush"):
    provider.force_flush()
