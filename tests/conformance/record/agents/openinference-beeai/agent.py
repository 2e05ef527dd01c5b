"""A BeeAI ToolCallingAgent with two tools on BeeAI's OpenAI chat model (the scripted model),
instrumented by openinference-instrumentation-beeai.

BeeAI ends a run with its own `final_answer` tool (the scripted model calls it last). The
conversation is OpenInference's session (`using_session`); BeeAI has no conversation id.
"""

import asyncio
import os

from beeai_framework.adapters.openai.backend.chat import OpenAIChatModel
from beeai_framework.agents.tool_calling import ToolCallingAgent
from beeai_framework.memory import UnconstrainedMemory
from beeai_framework.tools import tool
from openinference.instrumentation import using_session
from openinference.instrumentation.beeai import BeeAIInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
BeeAIInstrumentor().instrument(tracer_provider=provider)


@tool
def get_weather(city: str) -> str:
    """Current weather in a city.

    Args:
        city: The city.
    """
    return "Sunny, 21 C in " + city


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up.

    Args:
        order_id: The order id.
    """
    raise ValueError(f"order {order_id} not found")


async def main():
    # native tool calls, as against a real OpenAI model (an unknown model id otherwise gets
    # BeeAI's structured-output fallback)
    llm = OpenAIChatModel(
        "scripted",
        base_url=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
        tool_choice_support={"required", "none", "single", "auto"},
        tool_call_fallback_via_response_format=False,
    )
    agent = ToolCallingAgent(llm=llm, memory=UnconstrainedMemory(), tools=[get_weather, lookup_order])
    with using_session("conv-42"):
        output = await agent.run("Weather in Paris twice, then order A1?")
    print(output.last_message.text)


asyncio.run(main())
provider.force_flush()
