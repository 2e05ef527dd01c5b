"""An Agno agent on OpenAIChat, instrumented by openinference-instrumentation-agno.

The conversation is Agno's own session (`Agent(session_id="conv-42")`). Tools are
plain functions; Agno runs them and hands their result or error back to the model.
"""

import os

from agno.agent import Agent
from agno.models.openai import OpenAIChat
from openinference.instrumentation.agno import AgnoInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
AgnoInstrumentor().instrument(tracer_provider=provider)


def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


def main():
    model = OpenAIChat(
        id="scripted", base_url=os.environ["OPENAI_BASE_URL"], api_key=os.environ["OPENAI_API_KEY"]
    )
    agent = Agent(
        name="conformance", model=model, tools=[get_weather, lookup_order], session_id="conv-42"
    )
    try:
        print(agent.run("Weather in Paris twice, then order A1?").content)
    finally:
        provider.force_flush()


main()
