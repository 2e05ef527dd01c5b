"""A nested delegate agent (agent-as-tool) on the OpenAI Agents SDK (Responses API),
instrumented by openinference-instrumentation-openai-agents.

The orchestrator offers `weather_agent` (another Agent turned into a tool with
`Agent.as_tool`) and `lookup_order`; the delegate runs its own model loop with
`get_weather`. The delegate is run with its own session id ("delegate-7", as a nested
agent with a session of its own would be): the orchestrator's `conv-42` must key the
whole trace. lookup_order's failure reaches the model through the documented
`failure_error_function`.
"""

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


@function_tool(failure_error_function=tool_error)
def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


delegate = Agent(
    name="weather_delegate",
    instructions="Answer weather questions with get_weather.",
    model="scripted",
    tools=[get_weather],
)


async def _delegate_output(result) -> str:
    return str(result.final_output)


def main():
    weather_tool = delegate.as_tool(
        tool_name="weather_agent",
        tool_description="Ask the weather delegate.",
    )
    original = weather_tool.on_invoke_tool

    async def in_own_session(ctx, args):
        with using_session("delegate-7"):  # the delegate's own session inside the trace
            return await original(ctx, args)

    weather_tool.on_invoke_tool = in_own_session
    orchestrator = Agent(
        name="orchestrator",
        instructions="Answer with the tools.",
        model="scripted",
        tools=[weather_tool, lookup_order],
    )
    config = RunConfig(group_id="conv-42", workflow_name="conformance")
    try:
        with using_session("conv-42"):
            result = Runner.run_sync(
                orchestrator, "Weather in Paris, then order A1?", run_config=config
            )
        print(result.final_output)
    finally:
        provider.force_flush()


main()
