"""An AutoGen AgentChat AssistantAgent with two tools on OpenAIChatCompletionClient (the scripted model).

AutoGen's own OpenTelemetry spans (create_agent, invoke_agent, execute_tool) go to the
global tracer provider, exported over OTLP/HTTP. AgentChat has no session id of its own.
"""

import asyncio
import os

from autogen_agentchat.agents import AssistantAgent
from autogen_ext.models.openai import OpenAIChatCompletionClient
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
    client = OpenAIChatCompletionClient(
        model="scripted",
        base_url=os.environ["MODEL_BASE_URL"],
        api_key="sk-local",
        model_info={
            "vision": False,
            "function_calling": True,
            "json_output": False,
            "family": "unknown",
            "structured_output": False,
        },
    )
    agent = AssistantAgent(
        "conformance_agent",
        model_client=client,
        tools=[get_weather, lookup_order],
        max_tool_iterations=10,
    )
    result = await agent.run(task="Weather in Paris twice, then order A1?")
    print(result.messages[-1].content)
    await client.close()


asyncio.run(main())
provider.force_flush()
