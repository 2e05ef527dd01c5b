"""A Google ADK LlmAgent with two function tools on a Gemini model (the scripted model speaks
the Gemini API), instrumented by openinference-instrumentation-google-adk.

The tracer provider is the global one, so ADK's own spans are exported beside
OpenInference's, as a user who follows the instrumentation's guide gets. The session id is
the InMemorySessionService session, run by a Runner.
"""

import asyncio

from google.adk.agents import LlmAgent
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types
from openinference.instrumentation.google_adk import GoogleADKInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
GoogleADKInstrumentor().instrument(tracer_provider=provider)


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return "Sunny, 21 C in " + city


def lookup_order(order_id: str) -> str:
    """Look an order up."""
    raise ValueError(f"order {order_id} not found")


async def main():
    agent = LlmAgent(
        name="conformance_agent",
        model="gemini-2.5-flash",
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
provider.force_flush()
