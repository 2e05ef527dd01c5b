"""A LangGraph prebuilt ReAct agent (ChatOpenAI on the scripted model), instrumented by OpenLLMetry.

traceloop-sdk instruments langchain/langgraph (and openai underneath). The session id is
an association property; the LangGraph thread id is set to the same value in the run
config, the usual place a LangGraph app keeps its conversation.
"""

import os

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import create_react_agent
from opentelemetry import trace
from traceloop.sdk import Traceloop

Traceloop.init(
    app_name=os.environ["TSREC_VARIANT"],
    api_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    telemetry_enabled=False,
    disable_batch=False,
)
Traceloop.set_association_properties({"session_id": "conv-42"})


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
trace.get_tracer_provider().force_flush()
