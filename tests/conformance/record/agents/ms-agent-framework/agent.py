"""A Microsoft Agent Framework agent on OpenAIChatCompletionClient; the framework emits OTel GenAI spans itself.

Telemetry is the framework's own: `configure_otel_providers(enable_sensitive_data=True)`
builds the OTLP exporters from the standard OTEL_* environment variables. The
conversation is an AgentSession created with session_id "conv-42", the framework's
way to name a conversation. Tools are plain functions; the framework hands a tool's
exception back to the model as the function result.
"""

import asyncio
import os

from agent_framework import Agent
from agent_framework.observability import configure_otel_providers
from agent_framework.openai import OpenAIChatCompletionClient
from opentelemetry import trace
from opentelemetry._logs import get_logger_provider

configure_otel_providers(enable_sensitive_data=True)


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
    )
    agent = Agent(
        client=client,
        name="conformance",
        instructions="Answer with the tools.",
        tools=[get_weather, lookup_order],
    )
    session = agent.create_session(session_id="conv-42")
    try:
        print(await agent.run("Weather in Paris twice, then order A1?", session=session))
    finally:
        trace.get_tracer_provider().force_flush()
        get_logger_provider().force_flush()


asyncio.run(main())
