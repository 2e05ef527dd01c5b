"""A Haystack Agent on OpenAIChatGenerator with Haystack's own OpenTelemetry tracing.

`haystack.tracing.enable_tracing(OpenTelemetryTracer(...))` (the tracer from the
opentelemetry-haystack integration) is Haystack's documented
switch; HAYSTACK_CONTENT_TRACING_ENABLED=true (the variant's env) adds inputs and
outputs. Haystack has no conversation id; none is exported. Tools are Haystack `@tool`
functions; the Agent's default hands a tool's exception to the model.
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
tracing.enable_tracing(OpenTelemetryTracer(provider.get_tracer("conformance-agent")))


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


@tool
def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


def main():
    generator = OpenAIChatGenerator(
        model="scripted", api_base_url=os.environ["OPENAI_BASE_URL"], api_key=Secret.from_env_var("OPENAI_API_KEY")
    )
    agent = Agent(chat_generator=generator, tools=[get_weather, lookup_order], system_prompt="Answer with the tools.")
    try:
        result = agent.run(messages=[ChatMessage.from_user("Weather in Paris twice, then order A1?")])
        print(result["messages"][-1].text)
    finally:
        provider.force_flush()


main()
