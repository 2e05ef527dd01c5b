"""An OpenAI Agents SDK agent (Responses API), instrumented by openinference-instrumentation-openai-agents.

The SDK's own notion of a conversation is RunConfig.group_id ("conv-42"); the
instrumentation does not export it, so the run is also wrapped in OpenInference's
`using_session("conv-42")`, which its spans do carry. Tools are `@function_tool`s. With
TOOL_ERROR_DETAILS=0 (the SDK's default failure handler) lookup_order's exception reaches
neither the model nor the trace; with TOOL_ERROR_DETAILS=1 the tool has a
`failure_error_function` returning the message, the SDK's documented way to expose it.
"""

import os

from agents import Agent, RunConfig, Runner, function_tool
from openinference.instrumentation import using_session
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
OpenAIAgentsInstrumentor().instrument(tracer_provider=provider)


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


def tool_error(ctx, error: Exception) -> str:
    return f"error: {error}"


ERRORS = (
    {"failure_error_function": tool_error} if os.environ.get("TOOL_ERROR_DETAILS") == "1" else {}
)


@function_tool(**ERRORS)
def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


def main():
    agent = Agent(
        name="conformance",
        instructions="Answer with the tools.",
        model="scripted",
        tools=[get_weather, lookup_order],
    )
    config = RunConfig(group_id="conv-42", workflow_name="conformance")
    try:
        with using_session("conv-42"):
            result = Runner.run_sync(
                agent, "Weather in Paris twice, then order A1?", run_config=config
            )
        print(result.final_output)
    finally:
        provider.force_flush()


main()
