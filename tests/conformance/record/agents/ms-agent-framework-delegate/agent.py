"""A Microsoft Agent Framework orchestrator with a delegate agent as a tool (`Agent.as_tool`,
a nested agent), on OpenAIChatCompletionClient; the framework emits OTel GenAI spans itself.

Telemetry is the framework's own: `configure_otel_providers(enable_sensitive_data=True)`.
The orchestrator runs in an AgentSession "conv-42"; the delegate gets a private session of
its own (the framework's default for an agent used as a tool) inside the same trace.
TSREC_STREAM=1 streams the orchestrator's run. The framework hands a tool's exception back
to the model as the function result.
"""

import asyncio
import os

from agent_framework import Agent
from agent_framework.observability import configure_otel_providers
from agent_framework.openai import OpenAIChatCompletionClient
from opentelemetry import trace
from opentelemetry._logs import get_logger_provider

configure_otel_providers(enable_sensitive_data=True)
STREAM = os.environ.get("TSREC_STREAM") == "1"


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
    delegate = Agent(
        client=client,
        name="weather_delegate",
        description="Ask the weather delegate.",
        instructions="Answer weather questions with get_weather.",
        tools=[get_weather],
    )
    orchestrator = Agent(
        client=client,
        name="orchestrator",
        instructions="Answer with the tools.",
        tools=[delegate.as_tool(name="weather_agent", arg_name="input"), lookup_order],
    )
    session = orchestrator.create_session(session_id="conv-42")
    question = "Weather in Paris, then order A1?"
    try:
        if STREAM:
            text = ""
            async for update in orchestrator.run(question, session=session, stream=True):
                text += update.text or ""
            print(text)
        else:
            print(await orchestrator.run(question, session=session))
    finally:
        trace.get_tracer_provider().force_flush()
        get_logger_provider().force_flush()


asyncio.run(main())
