"""A Haystack Agent on OpenAIChatGenerator, instrumented by openinference-instrumentation-haystack.

Haystack has no conversation id, so the run is wrapped in `using_session("conv-42")`.
Tools are Haystack `@tool` functions; the Agent's default
(raise_on_tool_invocation_failure=False) hands a tool's exception to the model.
"""

import os

from haystack.components.agents import Agent
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.dataclasses import ChatMessage
from haystack.tools import tool
from haystack.utils import Secret
from openinference.instrumentation import using_session
from openinference.instrumentation.haystack import HaystackInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
HaystackInstrumentor().instrument(tracer_provider=provider)


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
        model="scripted",
        api_base_url=os.environ["OPENAI_BASE_URL"],
        api_key=Secret.from_env_var("OPENAI_API_KEY"),
    )
    agent = Agent(
        chat_generator=generator,
        tools=[get_weather, lookup_order],
        system_prompt="Answer with the tools.",
    )
    try:
        with using_session("conv-42"):
            result = agent.run(
                messages=[ChatMessage.from_user("Weather in Paris twice, then order A1?")]
            )
        print(result["messages"][-1].text)
    finally:
        provider.force_flush()


main()
