"""A Haystack Agent with two tools on OpenAIChatGenerator (the scripted model).

Haystack's tracing goes to OpenTelemetry through opentelemetry-haystack's
OpenTelemetryTracer, with content tracing on (HAYSTACK_CONTENT_TRACING_ENABLED).
Haystack has no session id of its own.
"""

import os

from haystack import tracing
from haystack.components.agents import Agent
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.dataclasses import ChatMessage
from haystack.tools import tool
from haystack.utils import Secret
from haystack_integrations.tracing.opentelemetry import OpenTelemetryTracer
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
tracing.enable_tracing(OpenTelemetryTracer(provider.get_tracer("haystack")))


@tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return "Sunny, 21 C in " + city


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    raise ValueError(f"order {order_id} not found")


generator = OpenAIChatGenerator(
    model="scripted",
    api_base_url=os.environ["MODEL_BASE_URL"],
    api_key=Secret.from_token("sk-local"),
)
agent = Agent(chat_generator=generator, tools=[get_weather, lookup_order])
result = agent.run(messages=[ChatMessage.from_user("Weather in Paris twice, then order A1?")])
print(result["messages"][-1].text)
provider.force_flush()
