"""A manual tool loop on the openai client, instrumented by opentelemetry-instrumentation-openai-v2.

Legacy semconv (default), message content captured on span events. The tool spans are
the agent's own, written the way the OTel GenAI conventions describe execute_tool.
"""

import json
import os

from openai import OpenAI
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry._logs import set_logger_provider
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
logs = LoggerProvider()
logs.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
set_logger_provider(logs)
OpenAIInstrumentor().instrument()
tracer = trace.get_tracer("conformance-agent")

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}}}},
]


def get_weather(city):
    return "Sunny, 21 C in " + city


def lookup_order(order_id):
    raise ValueError(f"order {order_id} not found")


def main():
    client = OpenAI()
    messages = [{"role": "user", "content": "Weather in Paris twice, then order A1?"}]
    with tracer.start_as_current_span("invoke_agent conformance", attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "conv-42"}):
        while True:
            reply = client.chat.completions.create(model="scripted", messages=messages, tools=TOOLS)
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                break
            for call in message.tool_calls:
                args = json.loads(call.function.arguments)
                with tracer.start_as_current_span(f"execute_tool {call.function.name}", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.function.name,
                    "gen_ai.tool.call.id": call.id, "gen_ai.tool.call.arguments": call.function.arguments,
                }) as span:
                    try:
                        result = {"get_weather": get_weather, "lookup_order": lookup_order}[call.function.name](**args)
                        span.set_attribute("gen_ai.tool.call.result", result)
                    except Exception as exc:
                        span.record_exception(exc)
                        span.set_status(trace.Status(trace.StatusCode.ERROR, str(exc)))
                        result = f"error: {exc}"
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    provider.force_flush()
    logs.force_flush()


main()
