"""A CrewAI crew (one agent, one task) on CrewAI's OpenAI provider, traced by OpenLLMetry.

traceloop-sdk instruments crewai (and the openai client underneath). CrewAI has no
conversation id; the session id is an association property. Tools are CrewAI `@tool`
functions.
"""

import os

from crewai import LLM, Agent, Crew, Task
from crewai.tools import tool
from opentelemetry import trace
from traceloop.sdk import Traceloop

Traceloop.init(
    app_name=os.environ["TSREC_VARIANT"],
    api_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    telemetry_enabled=False,
    disable_batch=False,
)
Traceloop.set_association_properties({"session_id": "conv-42"})


@tool("get_weather")
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


@tool("lookup_order")
def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


llm = LLM(
    model="openai/scripted",
    base_url=os.environ["OPENAI_BASE_URL"],
    api_key=os.environ["OPENAI_API_KEY"],
)
agent = Agent(
    role="Assistant",
    goal="Answer with the tools.",
    backstory="A helpful assistant.",
    tools=[get_weather, lookup_order],
    llm=llm,
    max_iter=6,
)
task = Task(
    description="Weather in Paris twice, then order A1?",
    expected_output="A short answer.",
    agent=agent,
)
try:
    print(Crew(agents=[agent], tasks=[task]).kickoff())
finally:
    trace.get_tracer_provider().force_flush()
