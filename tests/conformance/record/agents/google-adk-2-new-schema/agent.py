"""A Google ADK LlmAgent with two function tools on a LiteLlm model (the scripted model).

Telemetry through ADK's own `maybe_set_otel_providers()` (OTLP/HTTP protobuf exporters
from OTEL_EXPORTER_OTLP_ENDPOINT). The schema is chosen by ADK's
ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN (unset = 2, the GenAI-semconv one; "1" = the legacy
gcp.vertex.agent.* one), set per variant in expected.json. The session id is the
InMemorySessionService session, run by a Runner.
"""

import asyncio
import os

from google.adk.agents import LlmAgent
from google.adk.models.lite_llm import LiteLlm
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.telemetry.setup import maybe_set_otel_providers
from google.genai import types
from opentelemetry import _logs, trace

maybe_set_otel_providers()


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return "Sunny, 21 C in " + city


def lookup_order(order_id: str) -> str:
    """Look an order up."""
    raise ValueError(f"order {order_id} not found")


async def main():
    model = LiteLlm(
        model="openai/scripted", api_base=os.environ["MODEL_BASE_URL"], api_key="sk-local"
    )
    agent = LlmAgent(
        name="conformance_agent",
        model=model,
        instruction="Answer with the tools.",
        tools=[get_weather, lookup_order],
    )
    sessions = InMemorySessionService()
    await sessions.create_session(app_name="conformance", user_id="u1", session_id="conv-42")
    runner = Runner(agent=agent, app_name="conformance", session_service=sessions)
    message = types.Content(
        role="user", parts=[types.Part(text="Weather in Paris twice, then order A1?")]
    )
    try:
        async for event in runner.run_async(
            user_id="u1", session_id="conv-42", new_message=message
        ):
            if event.is_final_response() and event.content and event.content.parts:
                print(event.content.parts[0].text)
    except ValueError as exc:
        print("run stopped by the tool's exception:", exc)


asyncio.run(main())
trace.get_tracer_provider().force_flush()
_logs.get_logger_provider().force_flush()
