"""A CrewAI crew (one agent, one task) on CrewAI's OpenAI provider, traced by OpenInference.

openinference-instrumentation-crewai traces the crew, agent, task and tool calls;
openinference-instrumentation-openai traces the model calls CrewAI makes with the
openai client (OpenInference's documented pairing). CrewAI has no conversation id, so
the kickoff is wrapped in `using_session("conv-42")`. Tools are CrewAI `@tool` functions.
"""

import os

from crewai import LLM, Agent, Crew, Task
from crewai.tools import tool
from openinference.instrumentation import using_session
from openinference.instrumentation.crewai import CrewAIInstrumentor
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
CrewAIInstrumentor().instrument(tracer_provider=provider)
OpenAIInstrumentor().instrument(tracer_provider=provider)


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
        with using_session("conv-42"):
            print(Crew(agents=[agent], tasks=[task]).kickoff())
    finally:
        provider.force_flush()


main()
