"""A Semantic Kernel ChatCompletionAgent with a two-function plugin on OpenAIChatCompletion (the scripted model).

SK's own OpenTelemetry diagnostics (SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS
and ..._SENSITIVE, set in expected.json) go to the global tracer provider and (content events, via a
LoggingHandler) the logger provider, exported over OTLP/HTTP. SK has no session id of its own.
"""

import asyncio
import logging
import os

from openai import AsyncOpenAI
from opentelemetry import _logs, trace
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
logs = LoggerProvider()
logs.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
_logs.set_logger_provider(logs)
# SK's documented setup: its content events are Python log records of the
# semantic_kernel loggers, bridged to OTel logs by a LoggingHandler.
handler = LoggingHandler(logger_provider=logs)
handler.addFilter(logging.Filter("semantic_kernel"))
logging.getLogger().addHandler(handler)
logging.getLogger().setLevel(logging.INFO)

from semantic_kernel.agents import ChatCompletionAgent  # noqa: E402
from semantic_kernel.connectors.ai.open_ai import OpenAIChatCompletion  # noqa: E402
from semantic_kernel.functions import kernel_function  # noqa: E402


class ConformancePlugin:
    @kernel_function(description="Current weather in a city.")
    def get_weather(self, city: str) -> str:
        return "Sunny, 21 C in " + city

    @kernel_function(description="Look an order up.")
    def lookup_order(self, order_id: str) -> str:
        raise ValueError(f"order {order_id} not found")


async def main():
    client = AsyncOpenAI(base_url=os.environ["MODEL_BASE_URL"], api_key="sk-local")
    service = OpenAIChatCompletion(ai_model_id="scripted", async_client=client)
    agent = ChatCompletionAgent(service=service, name="conformance_agent", instructions="Answer with the tools.", plugins=[ConformancePlugin()])
    response = await agent.get_response(messages="Weather in Paris twice, then order A1?")
    print(response.content)


asyncio.run(main())
provider.force_flush()
logs.force_flush()
