"""An AG2 (the `ag2` package) Agent with two tools on OpenAIConfig (the scripted model),
traced by AG2's own TelemetryMiddleware (GenAI semantic conventions, its own span types).

The conversation id rides on every span through the middleware's `span_attributes`
(gen_ai.conversation.id): AG2 has no session API of its own for this.
"""

import asyncio
import os

from ag2 import Agent
from ag2.config.openai import OpenAIConfig
from ag2.middleware.builtin.telemetry import TelemetryMiddleware
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return "Sunny, 21 C in " + city


def lookup_order(order_id: str) -> str:
    """Look an order up."""
    raise ValueError(f"order {order_id} not found")


async def main():
    agent = Agent(
        "conformance_agent",
        "Answer with the tools.",
        config=OpenAIConfig(
            model="scripted", base_url=os.environ["OPENAI_BASE_URL"], api_key="sk-local"
        ),
        tools=[get_weather, lookup_order],
        middleware=[
            TelemetryMiddleware(
                tracer_provider=provider,
                agent_name="conformance_agent",
                provider_name="openai",
                model_name="scripted",
                span_attributes={"gen_ai.conversation.id": "conv-42"},
            )
        ],
    )
    try:
        reply = await agent.ask("Weather in Paris twice, then order A1?")
        print(reply.body)
    except ValueError as exc:
        print("run stopped by the tool's exception:", exc)


asyncio.run(main())
provider.force_flush()
