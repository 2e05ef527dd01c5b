"""A LangChain agent (`langchain.agents.create_agent`) on ChatAnthropic, instrumented by
OpenLIT (openlit.init auto-instruments LangChain and the Anthropic SDK).

OpenLIT has no session API; the conversation id goes on every auto-instrumented span
through `custom_span_attributes`, as in openlit-openai. A tool's exception stops the
LangChain run (its ToolNode re-raises plain exceptions).
"""

import os

import openlit
from langchain.agents import create_agent
from langchain_anthropic import ChatAnthropic
from langchain_core.tools import tool
from opentelemetry import trace

openlit.init(
    otlp_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    application_name=os.environ["TSREC_VARIANT"],
    custom_span_attributes={"gen_ai.conversation.id": "conv-42"},
    disable_metrics=True,
    capture_message_content=True,
)


@tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return "Sunny, 21 C in " + city


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    raise ValueError(f"order {order_id} not found")


model = ChatAnthropic(
    model="claude-scripted", base_url=os.environ["MODEL_ROOT_URL"], api_key="sk-ant-local"
)
agent = create_agent(model, [get_weather, lookup_order], name="conformance_agent")
try:
    result = agent.invoke({"messages": [("user", "Weather in Paris twice, then order A1?")]})
    print(result["messages"][-1].content)
except ValueError as exc:
    print("run stopped by the tool's exception:", exc)
trace.get_tracer_provider().force_flush()
