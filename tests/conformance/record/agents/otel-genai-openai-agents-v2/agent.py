"""An OpenAI Agents SDK agent, instrumented by opentelemetry-instrumentation-openai-agents-v2 (OTel GenAI).

The SDK's trace processors are replaced by the instrumentation's alone (no export to the
vendor's tracing backend). The SDK's conversation notion, RunConfig.group_id, is set but
this instrumentation does not export it. Tools are `@function_tool`s; lookup_order has a
failure_error_function so its message is not redacted by the SDK.
"""

from agents import Agent, RunConfig, Runner, function_tool, set_trace_processors
from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.openai_agents import OpenAIAgentsInstrumentor
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
logs = LoggerProvider()
logs.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
set_logger_provider(logs)
set_trace_processors([])
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


def main():
    agent = Agent(
        name="conformance",
        instructions="Answer with the tools.",
        model="scripted",
        tools=[get_weather, lookup_order],
    )
    config = RunConfig(group_id="conv-42", workflow_name="conformance")
    try:
        result = Runner.run_sync(agent, "Weather in Paris twice, then order A1?", run_config=config)
        print(result.final_output)
    finally:
        provider.force_flush()
        logs.force_flush()


main()
