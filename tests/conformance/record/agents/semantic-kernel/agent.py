"""A Semantic Kernel ChatCompletionAgent on OpenAIChatCompletion; SK emits OTel GenAI spans itself.

SK's model diagnostics are switched on with its documented environment variables
(SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS[_SENSITIVE], in the
variant's env) and exported through the global tracer provider; the message content SK
logs goes out as OTLP log records. Tools are
`@kernel_function`s of a plugin, called automatically (FunctionChoiceBehavior.Auto);
SK hands a tool's exception back to the model as the function result. SK has no
conversation id in its telemetry; the agent thread is named conv-42 all the same.
"""

import asyncio
import logging
import os

from openai import AsyncOpenAI
from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
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
set_logger_provider(logs)
# SK logs message content as Python log records carrying the GenAI event name; its
# telemetry sample forwards them to OpenTelemetry with a LoggingHandler.
handler = LoggingHandler(logger_provider=logs)
handler.addFilter(logging.Filter("semantic_kernel"))
logging.getLogger().addHandler(handler)
logging.getLogger().setLevel(logging.INFO)

from semantic_kernel.agents import ChatCompletionAgent, ChatHistoryAgentThread  # noqa: E402
from semantic_kernel.connectors.ai.open_ai import OpenAIChatCompletion  # noqa: E402
from semantic_kernel.functions import kernel_function  # noqa: E402


class Tools:
    @kernel_function(name="get_weather", description="The weather in a city.")
    def get_weather(self, city: str) -> str:
        return "Sunny, 21 C in " + city

    @kernel_function(name="lookup_order", description="An order's status.")
    def lookup_order(self, order_id: str) -> str:
        raise ValueError(f"order {order_id} not found")


async def main():
    client = AsyncOpenAI(
        base_url=os.environ["OPENAI_BASE_URL"], api_key=os.environ["OPENAI_API_KEY"]
    )
    service = OpenAIChatCompletion(ai_model_id="scripted", async_client=client)
    agent = ChatCompletionAgent(
        service=service,
        name="conformance",
        instructions="Answer with the tools.",
        plugins=[Tools()],
    )
    thread = ChatHistoryAgentThread(thread_id="conv-42")
    try:
        response = await agent.get_response(
            messages="Weather in Paris twice, then order A1?", thread=thread
        )
        print(response.content)
    finally:
        provider.force_flush()
        logs.force_flush()


asyncio.run(main())
