"""An AutoGen AgentChat AssistantAgent on OpenAIChatCompletionClient, traced by OpenInference.

openinference-instrumentation-autogen-agentchat traces the agent, its model calls and
tools. AutoGen has no conversation id, so the run is wrapped in
`using_session("conv-42")`. Tools are plain functions; `max_tool_iterations` lets the
agent loop over tool calls until the model answers, and AutoGen hands a tool's
exception back to the model as an error result.
"""

import asyncio
import os

from autogen_agentchat.agents import AssistantAgent
from autogen_ext.models.openai import OpenAIChatCompletionClient
from openinference.instrumentation import using_session
from openinference.instrumentation.autogen_agentchat import AutogenAgentChatInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
AutogenAgentChatInstrumentor().instrument(tracer_provider=provider)


def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


async def main():
    client = OpenAIChatCompletionClient(
        model="scripted",
        base_url=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
        model_info={
            "vision": False,
            "function_calling": True,
            "json_output": False,
            "family": "unknown",
            "structured_output": False,
        },
    )
    agent = AssistantAgent(
        "conformance", model_client=client, tools=[get_weather, lookup_order], max_tool_iterations=5
    )
    try:
        with using_session("conv-42"):
            result = await agent.run(task="Weather in Paris twice, then order A1?")
        print(result.messages[-1].content)
    finally:
        await client.close()
        provider.force_flush()


asyncio.run(main())
