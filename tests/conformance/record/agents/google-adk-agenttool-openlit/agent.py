"""A Google ADK orchestrator whose tool is a delegate LlmAgent (`AgentTool`, a nested
agent), on a LiteLlm model (the scripted model), instrumented by OpenLIT (`openlit.init`:
its ADK, LiteLLM and OpenAI instrumentations; ADK's own spans go to the same provider).

The session id is the InMemorySessionService session run by a Runner. ADK ends the run on
lookup_order's exception; the agent catches it, flushes and exits 0.
"""

import asyncio
import os

import openlit
from google.adk.agents import LlmAgent
from google.adk.models.lite_llm import LiteLlm
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.agent_tool import AgentTool
from google.genai import types
from opentelemetry import trace

openlit.init(
    otlp_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    application_name=os.environ["TSREC_VARIANT"],
    disable_metrics=True,
    capture_message_content=True,
)


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
    delegate = LlmAgent(
        name="weather_agent",
        model=model,
        description="Ask the weather delegate.",
        instruction="Answer weather questions with get_weather.",
        tools=[get_weather],
    )
    orchestrator = LlmAgent(
        name="orchestrator",
        model=model,
        instruction="Answer with the tools.",
        tools=[AgentTool(agent=delegate), lookup_order],
    )
    sessions = InMemorySessionService()
    await sessions.create_session(app_name="conformance", user_id="u1", session_id="conv-42")
    runner = Runner(agent=orchestrator, app_name="conformance", session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="Weather in Paris, then order A1?")])
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
