"""A CrewAI crew (one agent, one task) on CrewAI's OpenAI provider, traced by OpenLIT
(`openlit.init`: its CrewAI and OpenAI instrumentations). CrewAI has no conversation id, so
the kickoff runs inside an application span carrying `gen_ai.conversation.id`. Tools are
CrewAI `@tool` functions.
"""

import os

from crewai import LLM, Agent, Crew, Task
from crewai.tools import tool
import openlit
from opentelemetry import trace

openlit.init(
    otlp_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    application_name=os.environ["TSREC_VARIANT"],
    disable_metrics=True,
    capture_message_content=True,
)


@tool("get_weather")
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


@tool("lookup_order")
def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


def main():
    llm = LLM(
        model="openai/scripted",
        base_url=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
    )
    agent = Agent(
        role="Assistant",
        goal="Answer with the tools.",
        backstory="A helpful assistant.",
        tools=[get_weather, lookup_order],
        llm=llm,
        max_iter=6,
    )
    task = Task(
        description="Weather in Paris twice, then order A1?",
        expected_output="A short answer.",
        agent=agent,
    )
    try:
        with trace.get_tracer("conformance.agent").start_as_current_span(
            "agent.run", attributes={"gen_ai.conversation.id": "conv-42"}
        ):
            print(Crew(agents=[agent], tasks=[task]).kickoff())
    finally:
        trace.get_tracer_provider().force_flush()


main()
